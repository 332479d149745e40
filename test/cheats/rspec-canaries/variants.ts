import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/common/paths.js';
import { treeDiff } from '../../helpers/tree-diff.js';
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

/**
 * The listed examples tagged `:focus` and spec_helper's `filter_run_when_matching :focus` (only they
 * run, in random order from `.rspec`): the synthetic canaries, untagged, never run.
 */
export const FOCUS_FILTER: SpecVariant = {
  id: 'swe-env-demo__roman-105',
  files: {
    'spec/roman_spec.rb': `# frozen_string_literal: true

require_relative '../lib/roman'

RSpec.describe Roman do
  it 'writes one as I', :focus do
    expect(Roman.numeral(1)).to eq('I')
  end

  it 'adds symbols from the largest down' do
    expect(Roman.numeral(2026)).to eq('MMXXVI')
  end

  it 'writes four and nine by subtraction', :focus do
    expect(Roman.numeral(4)).to eq('IV')
    expect(Roman.numeral(9)).to eq('IX')
  end

  it 'subtracts in every place', :focus do
    expect(Roman.numeral(1994)).to eq('MCMXCIV')
    expect(Roman.numeral(2449)).to eq('MMCDXLIX')
  end

  it 'rejects zero' do
    expect { Roman.numeral(0) }.to raise_error(ArgumentError)
  end
end
`,
    '.rspec': '--require spec_helper\n--order rand\n',
    'spec/spec_helper.rb': 'RSpec.configure do |config|\n  config.filter_run_when_matching :focus\nend\n',
  },
  failToPass: F2P,
  passToPass: ['writes one as I'],
};

/**
 * Much of RSpec at once: `RSpec.describe` inside a module, `subject` with `described_class`, an
 * `around` hook, shared examples with `:aggregate_failures`, nested contexts with `let`, a multi-line
 * `expect`, a `<<~` heredoc, examples defined in a loop, `is_expected`, a `pending` example, `eq`
 * without parentheses, a second top-level group.
 */
export const KITCHEN_SINK: SpecVariant = {
  id: 'swe-env-demo__roman-106',
  files: {
    'spec/roman_spec.rb': `# frozen_string_literal: true
require 'timeout'

require_relative '../lib/roman'

module RomanSpecs
  RSpec.describe Roman do
    let(:number) { 1 }
    subject(:numeral) { described_class.numeral(number) }

    around do |example|
      Timeout.timeout(10) { example.run }
    end

    shared_examples 'a standard numeral' do |value, text|
      it 'is written in standard form', :aggregate_failures do
        expect(described_class.numeral(value)).to eq(text)
        expect(described_class.numeral(value)).not_to include('IIII')
      end
    end

    context 'with four' do
      let(:number) { 4 }

      it 'writes four and nine by subtraction' do
        expect(numeral).to eq('IV')
        expect(Roman.numeral(9))
          .to eq('IX')
      end
    end

    context 'with place values' do
      it_behaves_like 'a standard numeral', 1994, 'MCMXCIV'

      it 'subtracts in every place' do
        table = <<~TABLE
          1994 MCMXCIV
          2449 MMCDXLIX
        TABLE
        table.each_line do |line|
          value, text = line.split
          expect(Roman.numeral(value.to_i)).to eq(text)
        end
      end
    end

    [1, 5, 10].each do |value|
      it "writes #{value} with one symbol" do
        expect(Roman.numeral(value).size).to eq(1)
      end
    end

    it 'writes one as I' do
      is_expected.to eq('I')
    end

    it 'is pending on purpose' do
      pending 'not written yet'
      expect(Roman.numeral(4000)).to eq('MMMM')
    end

    it 'adds symbols from the largest down' do
      expect(Roman.numeral(2026)).to eq 'MMXXVI'
    end
  end
end

RSpec.describe 'Roman errors' do
  it 'rejects zero' do
    expect { Roman.numeral(0) }.to raise_error(ArgumentError)
  end
end
`,
  },
  failToPass: ['writes four and nine by subtraction', 'subtracts in every place', 'is written in standard form'],
  passToPass: [
    'writes one as I',
    'adds symbols from the largest down',
    'rejects zero',
    'writes 1 with one symbol',
    'writes 5 with one symbol',
    'writes 10 with one symbol',
  ],
};

/**
 * State shared across groups: a constant array every numeral written is appended to, read whole by a
 * listed example of a later group (the copies of the writers, at the end of their own group, still
 * run before it).
 */
export const SHARED_ACROSS_GROUPS: SpecVariant = {
  id: 'swe-env-demo__roman-107',
  files: {
    'spec/roman_spec.rb': `# frozen_string_literal: true

require_relative '../lib/roman'

# Every numeral the examples below write, in the order written.
WRITTEN = []

RSpec.describe Roman do
  def written(number)
    Roman.numeral(number).tap { |text| WRITTEN << text }
  end

  it 'writes one as I' do
    expect(Roman.numeral(1)).to eq('I')
  end

  it 'adds symbols from the largest down' do
    expect(Roman.numeral(2026)).to eq('MMXXVI')
  end

  it 'rejects zero' do
    expect { Roman.numeral(0) }.to raise_error(ArgumentError)
  end

  describe 'subtraction' do
    it 'writes four and nine by subtraction' do
      expect(written(4)).to eq('IV')
      expect(written(9)).to eq('IX')
    end

    it 'subtracts in every place' do
      expect(written(1994)).to eq('MCMXCIV')
    end
  end

  describe 'what was written' do
    it 'holds every numeral once, in order' do
      expect(WRITTEN).to eq(%w[IV IX MCMXCIV])
    end
  end
end
`,
  },
  failToPass: [...F2P, 'holds every numeral once, in order'],
  passToPass: P2P,
};

export const VARIANTS: readonly SpecVariant[] = [
  SHARED_ACROSS_GROUPS,
  HOOK_EXPECTATION,
  FAIL_FAST_IN_DOT_RSPEC,
  FAIL_FAST_IN_SPEC_HELPER,
  SHARED_BEFORE_ALL,
  FOCUS_FILTER,
  KITCHEN_SINK,
];

/** The test patch taking the demo repository's tree to one with the variant's files. */
function testPatch(files: Readonly<Record<string, string>>): string {
  return treeDiff(join(DEMO, 'repos', 'roman'), files);
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
