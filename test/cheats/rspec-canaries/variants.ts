import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../../src/common/paths.js';
import { languageEvalScript } from '../../../src/tasks/demo/language-demo.js';

/**
 * Variants of the Ruby demo task (roman-1) whose hidden spec is shaped as real suites shape theirs:
 * the same image (the test patch is applied at grading time), another test patch, other listed
 * examples. Each variant is a row of its own (roman-1NN) in one scratch task file.
 */

const DEMO = join(packageRoot(), 'tasks', 'demo-languages');
const ROMAN_SPEC = readFileSync(join(DEMO, 'tasks', 'roman-1', 'tests', 'spec', 'roman_spec.rb'), 'utf8');
const COMMAND = `rspec spec/roman_spec.rb --no-color --format json | sed -n '/^{/,$p' | jq -r '.examples[] | "\\(.description) - \\(.status)"'`;

export interface SpecVariant {
  readonly id: string;
  /** Test files the task's test patch leaves (path -> content). */
  readonly files: Readonly<Record<string, string>>;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
}

const F2P = ['subtracts in every place', 'writes four and nine by subtraction'];
const P2P = ['adds symbols from the largest down', 'rejects zero', 'writes one as I'];

/**
 * A message expectation set in a `before` hook (`expect(Roman).to receive(:numeral)`): every example
 * of the group must call it, and each listed one does. A synthetic canary beside them sums numbers.
 */
export const HOOK_EXPECTATION: SpecVariant = {
  id: 'swe-env-demo__roman-101',
  files: {
    'spec/roman_spec.rb': ROMAN_SPEC.replace(
      'RSpec.describe Roman do\n',
      'RSpec.describe Roman do\n  before { expect(Roman).to receive(:numeral).at_least(:once).and_call_original }\n\n',
    ),
  },
  failToPass: F2P,
  passToPass: P2P,
};

/** The repository's `.rspec` stops the run at its first failure (`--fail-fast`). */
export const FAIL_FAST_IN_DOT_RSPEC: SpecVariant = {
  id: 'swe-env-demo__roman-102',
  files: { 'spec/roman_spec.rb': ROMAN_SPEC, '.rspec': '--fail-fast\n' },
  failToPass: F2P,
  passToPass: P2P,
};

/**
 * State shared the way RSpec shares it: an array made in `before(:all)` (its instance variables are
 * copied into each example, the array is one), filled by two listed examples and read whole by a
 * third in the group's defined order.
 */
export const SHARED_BEFORE_ALL: SpecVariant = {
  id: 'swe-env-demo__roman-103',
  files: {
    'spec/roman_spec.rb': `${ROMAN_SPEC.replace(/\n {2}it 'writes four and nine[\s\S]*?\n {2}end\n|\n {2}it 'subtracts in every place'[\s\S]*?\n {2}end\n/g, '').replace(/end\s*$/, '')}
  describe 'a list of the numerals written' do
    before(:all) { @written = [] }

    it 'writes four and nine by subtraction' do
      @written << Roman.numeral(4) << Roman.numeral(9)
      expect(@written.last(2)).to eq(%w[IV IX])
    end

    it 'subtracts in every place' do
      @written << Roman.numeral(1994)
      expect(@written.last).to eq('MCMXCIV')
    end

    it 'holds what was written, in order' do
      expect(@written).to eq(%w[IV IX MCMXCIV])
    end
  end
end
`,
  },
  failToPass: [...F2P, 'holds what was written, in order'],
  passToPass: P2P,
};

/** The repository's spec_helper (required by `.rspec`) sets `config.fail_fast`. */
export const FAIL_FAST_IN_SPEC_HELPER: SpecVariant = {
  id: 'swe-env-demo__roman-104',
  files: {
    'spec/roman_spec.rb': ROMAN_SPEC,
    '.rspec': '--require spec_helper\n',
    'spec/spec_helper.rb': 'RSpec.configure do |config|\n  config.fail_fast = true\nend\n',
  },
  failToPass: F2P,
  passToPass: P2P,
};

export const VARIANTS: readonly SpecVariant[] = [HOOK_EXPECTATION, FAIL_FAST_IN_DOT_RSPEC, FAIL_FAST_IN_SPEC_HELPER, SHARED_BEFORE_ALL];

/** The test patch taking the demo repository's tree to one with the variant's files. */
function testPatch(files: Readonly<Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'swe-env-rspec-variant-'));
  try {
    cpSync(join(DEMO, 'repos', 'roman'), dir, { recursive: true });
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=a', '-c', 'user.email=a@b', ...args], { cwd: dir, encoding: 'utf8' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    git('add', '-A');
    return git('diff', '--cached');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The variant's row, from roman-1's (same image, same gold patch). */
export function variantRow(base: Record<string, string>, variant: SpecVariant): Record<string, string> {
  const patch = testPatch(variant.files);
  return {
    ...base,
    instance_id: variant.id,
    image_name: 'sweb.eval.x86_64.swe-env-demo__roman-1:latest',
    test_patch: patch,
    FAIL_TO_PASS: JSON.stringify(variant.failToPass),
    PASS_TO_PASS: JSON.stringify(variant.passToPass),
    eval_script: languageEvalScript(base['base_commit']!, patch, COMMAND),
  };
}
