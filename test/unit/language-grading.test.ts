/**
 * Issue 20, the pieces of grading beyond Python that need no engine: the Go and cargo canaries
 * (where they are planted, their names and outcomes, how they are found in the results), the
 * contradiction check, the families' packages, and a 5.x row naming a non-Python parser loading.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCanaries } from '../../src/reward/grading/canaries.js';
import { gatherEvidence } from '../../src/reward/grading/evidence.js';
import { integrityLines } from '../../src/reward/findings.js';
import {
  canaryFile,
  commandRunsAll,
  languageRunner,
  planLanguageCanaries,
  stopsEarly,
} from '../../src/reward/grading/language-canaries.js';
import { contradictedResults, runResults, UnreadableLog } from '../../src/reward/grading/language-results.js';
import { evalPlan } from '../../src/reward/eval-plan/plan.js';
import { harnessEvalScript } from '../../src/reward/eval-plan/render.js';
import { languageEvalScript } from '../../src/tasks/demo/language-demo.js';
import { familyPackages, taskLanguage } from '../../src/tasks/language-families.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import type { RecorderResult } from '../../src/reward/result-recorder.js';
import type { TestStatus } from '../../src/languages/index.js';

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

const GO_TEST = 'package semver\n\nimport "testing"\n\nfunc TestCompareEqual(t *testing.T) {\n\tif 1 != 1 {\n\t\tt.Fatal("no")\n\t}\n}\n';
const RUST_TEST = 'use wordcount::count_words;\n\n#[test]\nfn words_in_a_sentence() {\n    assert_eq!(count_words("a b"), 2);\n}\n';
let seed = 7;
const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;

describe('canaries for go test and cargo', () => {
  it('are planted only where the runner will run them all', () => {
    expect(languageRunner('parse_log_gotest')).toBe('go');
    expect(languageRunner('swesmith_cargo')).toBe('cargo');
    expect(languageRunner('parse_log_jest')).toBeUndefined();
    expect(canaryFile('go', 'semver_test.go', GO_TEST)).toBe(true);
    expect(canaryFile('go', 'semver.go', GO_TEST)).toBe(false);
    expect(canaryFile('go', 'x_test.go', 'package x\n\nfunc helper() {}\n')).toBe(false);
    expect(canaryFile('cargo', 'tests/counts.rs', RUST_TEST)).toBe(true);
    expect(canaryFile('cargo', 'src/lib.rs', RUST_TEST)).toBe(false);
    expect(commandRunsAll('go', 'go test -v ./...', 'pkg/a/a_test.go')).toBe(true);
    expect(commandRunsAll('go', 'go test -v ./pkg/a', 'pkg/a/a_test.go')).toBe(true);
    expect(commandRunsAll('go', 'go test -v ./pkg/b', 'pkg/a/a_test.go')).toBe(false);
    expect(commandRunsAll('go', 'go test -v ./... -run "^TestX$"', 'pkg/a/a_test.go')).toBe(false);
    expect(commandRunsAll('cargo', 'cargo test --no-fail-fast', 'tests/counts.rs')).toBe(true);
    expect(commandRunsAll('cargo', 'cargo test --no-fail-fast words', 'tests/counts.rs')).toBe(false);
    expect(commandRunsAll('cargo', 'cargo test --test counts', 'tests/counts.rs')).toBe(false);
    expect(stopsEarly('go', 'go test -v ./...')).toBe(false);
    expect(stopsEarly('go', 'go test -failfast ./...')).toBe(true);
    expect(stopsEarly('cargo', 'cargo test')).toBe(true);
    expect(stopsEarly('cargo', 'cargo test --no-fail-fast')).toBe(false);
    expect(languageRunner('parse_log_googletest')).toBe('gtest');
    expect(languageRunner('parse_log_tap')).toBe('tap');
    expect(canaryFile('tap', 'test/a.test.js', "const test = require('node:test');\n\ntest('a', () => {\n});\n")).toBe(true);
    expect(canaryFile('tap', 'test/a.test.js', "const test = require('tape');\n\ntest('a', (t) => {\n});\n")).toBe(false);
    expect(commandRunsAll('tap', 'node --test test/', 'test/a.test.js')).toBe(true);
    expect(commandRunsAll('tap', 'node --test --test-name-pattern=down test/', 'test/a.test.js')).toBe(false);
    expect(commandRunsAll('tap', 'npx tap test/', 'test/a.test.js')).toBe(false);
    expect(languageRunner('parse_log_phpunit')).toBe('phpunit');
    expect(
      canaryFile(
        'phpunit',
        'tests/ATest.php',
        '<?php\nfinal class ATest extends TestCase\n{\n    public function testA(): void\n    {\n    }\n}\n',
      ),
    ).toBe(true);
    expect(
      canaryFile(
        'phpunit',
        'tests/ATest.php',
        '<?php\nclass A extends TestCase\n{\n}\nclass B extends TestCase\n{\n    public function testA(): void\n    {\n    }\n}\n',
      ),
    ).toBe(false);
    expect(commandRunsAll('phpunit', 'phpunit --testdox tests', 'tests/ATest.php')).toBe(true);
    expect(commandRunsAll('phpunit', 'phpunit --filter testA tests', 'tests/ATest.php')).toBe(false);
    expect(stopsEarly('phpunit', 'phpunit --stop-on-failure tests')).toBe(true);
    expect(canaryFile('gtest', 'tests/a_test.cpp', '#include <gtest/gtest.h>\n\nTEST(A, B) {\n}\n')).toBe(true);
    expect(canaryFile('gtest', 'tests/a_test.cpp', '#include "doctest.h"\n\nTEST_CASE("x") {\n}\n')).toBe(false);
    expect(commandRunsAll('gtest', 'make test', 'tests/a_test.cpp')).toBe(true);
    expect(commandRunsAll('gtest', './build/tests --gtest_filter=Trim.*', 'tests/a_test.cpp')).toBe(false);
    expect(commandRunsAll('gtest', 'ctest --output-on-failure -R trim', 'tests/a_test.cpp')).toBe(false);
    expect(stopsEarly('gtest', './build/tests --gtest_fail_fast')).toBe(true);
    expect(stopsEarly('gtest', 'make test')).toBe(false);
  });

  it("are named like the file's tests, one must pass and one must fail, appended to the file", () => {
    const plan = planLanguageCanaries({ runner: 'go', targets: [{ path: 'semver_test.go', content: GO_TEST }], mustFail: true, random });
    expect(plan.canaries.map((c) => c.expect)).toEqual(['PASSED', 'FAILED']);
    const text = plan.files.get('semver_test.go')!;
    expect(text.startsWith(GO_TEST.trimEnd())).toBe(true);
    for (const canary of plan.canaries) {
      expect(canary.name).toMatch(/^Test[A-Z][a-z]+[A-Z]/);
      expect(text).toContain(`func ${canary.name}(t *testing.T) {`);
    }
    const rust = planLanguageCanaries({
      runner: 'cargo',
      targets: [{ path: 'tests/counts.rs', content: RUST_TEST }],
      mustFail: false,
      random,
    });
    expect(rust.canaries).toHaveLength(1);
    expect(rust.files.get('tests/counts.rs')).toContain(`#[test]\nfn ${rust.canaries[0]!.name}() {`);
  });

  it("are found in the results by the runner's names and flag a forged outcome or a missing one", () => {
    const plan = planLanguageCanaries({ runner: 'go', targets: [{ path: 'semver_test.go', content: GO_TEST }], mustFail: true, random });
    const [pass, fail] = [plan.canaries[0]!, plan.canaries[1]!];
    const honest = new Map([
      ['TestCompareEqual', 'PASSED' as const],
      [pass.name, 'PASSED' as const],
      [fail.name, 'FAILED' as const],
    ]);
    const checked = checkCanaries(plan.canaries, honest, 'go', 'printed log');
    expect(checked.flags).toEqual([]);
    expect([...checked.results.keys()]).toEqual(['TestCompareEqual']);
    const forged = new Map([...honest, [fail.name, 'PASSED' as const]]);
    expect(
      checkCanaries(plan.canaries, forged, 'go', 'printed log')
        .flags.map((f) => f.line)
        .join(),
    ).toMatch(/must be FAILED\) was reported PASSED/);
    const hidden = new Map([['TestCompareEqual', 'PASSED' as const]]);
    expect(checkCanaries(plan.canaries, hidden, 'go', 'printed log').flags).toHaveLength(2);
  });

  it('make a go or cargo run that exits 0 with a planted failing test an integrity flag', () => {
    const canaries = [{ file: 'tests/counts.rs', name: 'basic_value', expect: 'FAILED' as const }];
    const channel: RecorderResult = { statuses: new Map(), end: undefined, started: false, problems: [], events: [] };
    const input = { channel, pytest: false, canaries, family: 'cargo' as const, timedOut: false, agentPaths: new Set<string>() };
    const logResults = new Map<string, TestStatus>([
      ['basic_value', 'FAILED'],
      ['words', 'PASSED'],
    ]);
    const zero = gatherEvidence({ ...input, logResults, exitCode: 0 });
    expect(integrityLines(zero.flags).join()).toMatch(/cargo test run exited 0 though a planted failing test/);
    const one = gatherEvidence({ ...input, logResults, exitCode: 101 });
    expect(integrityLines(one.flags)).toEqual([]);
  });
});

describe('results beyond pytest', () => {
  const task = { id: 'x', version: '1' } as Task;
  it("are read by the row's parser, and a listed test reported both ways is found", () => {
    const log = '=== RUN   TestA\n--- FAIL: TestA (0.00s)\n=== RUN   TestB\n--- PASS: TestB (0.00s)\n--- PASS: TestA (0.00s)\nFAIL\n';
    expect(runResults('parse_log_gotest', 'pytest', log, task)).toEqual(
      new Map([
        ['TestA', 'PASSED'],
        ['TestB', 'PASSED'],
      ]),
    );
    expect(contradictedResults('parse_log_gotest', log, ['TestA', 'TestB'], task)).toEqual(['TestA']);
    expect(contradictedResults('parse_log_gotest', log, ['TestB'], task)).toEqual([]);
    const cargo = 'test words ... FAILED\ntest words ... ok\ntest lines ... ok\n';
    expect(contradictedResults('parse_log_cargo', cargo, ['words', 'lines'], task)).toEqual(['words']);
    expect(contradictedResults('parse_log_pytest', cargo, ['words'], task)).toEqual([]);
  });

  it('never crash a grading: a parser that reads the instance id gets it, a whole-document parser is not read line by line, a throw is an UnreadableLog', () => {
    const immutable = { id: 'immutable-js__immutable-js-2005', version: '4.0' } as Task;
    const log = ' PASS  __tests__/a.ts\n  ✓ works (3 ms)\n';
    expect(() => contradictedResults('parse_log_immutable_js', log, ['works'], immutable)).not.toThrow();
    const doctest =
      '<doctest binary="t">\n<TestSuite><TestCase name="a"><SubCase name="b"><Expression success="true"/></SubCase></TestCase></TestSuite>\n</doctest>\n';
    expect(contradictedResults('parse_log_doctest', doctest, ['a > b'], task)).toEqual([]);
    expect(runResults('parse_log_doctest', 'pytest', doctest, task)).toEqual(new Map([['a > b', 'PASSED']]));
    // A cut document: the harness's parser raises on it too; here it is a typed error the grader judges.
    expect(() => runResults('parse_log_doctest', 'pytest', '<doctest binary="t">\n<TestSuite><TestCase', task)).toThrow(UnreadableLog);
    expect(() => runResults('parse_log_immutable_js', 'pytest', log, { id: 'no-such-row', version: '1' } as Task)).toThrow(UnreadableLog);
  });

  it('are checked for contradictions as the parser reads each line (round-4 G1, R1: a forged line ending in a space or a carriage return)', () => {
    const go = '--- FAIL: TestA (0.00s)\n--- PASS: TestA (0.00s) \n\t--- PASS: TestB (0.00s)\r\n--- FAIL: TestB (0.01s)\n';
    expect(runResults('parse_log_gotest', 'pytest', go, task).get('TestA')).toBe('PASSED'); // the parser keeps the forged last line
    expect(contradictedResults('parse_log_gotest', go, ['TestA', 'TestB'], task)).toEqual(['TestA', 'TestB']);
    const cargo = 'test words ... FAILED\ntest words ... ok \n';
    expect(contradictedResults('parse_log_cargo', cargo, ['words'], task)).toEqual(['words']);
  });
});

describe('families and 5.x rows of other languages', () => {
  it('give each family its Debian packages', () => {
    expect(familyPackages(['go', 'rust'])).toEqual(['golang-go', 'gcc', 'libc6-dev', 'rustc', 'cargo']);
    expect(() => familyPackages(['cobol'])).toThrow(/unknown language families: cobol/);
    expect(taskLanguage('parse_log_gotest')).toBe('Go');
    expect(taskLanguage('parse_log_phpunit')).toBe('PHP');
    expect(taskLanguage('swesmith_cargo')).toBe('Rust');
    expect(taskLanguage('parse_log_pytest')).toBe('Python');
  });

  it('load, and plan with their own eval_script and parser', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-lang-rows-'));
    scratch.push(dir);
    const base = 'a'.repeat(40);
    const testPatch = 'diff --git a/x_test.go b/x_test.go\n--- a/x_test.go\n+++ b/x_test.go\n@@ -1 +1,2 @@\n package x\n+// more\n';
    const row = (parser: string) => ({
      repo: 'example/x',
      instance_id: `example__x-${parser}`,
      base_commit: base,
      patch: '',
      test_patch: testPatch,
      problem_statement: 'p',
      version: '1',
      FAIL_TO_PASS: '["TestA"]',
      PASS_TO_PASS: '[]',
      log_parser: parser,
      eval_script: languageEvalScript(base, testPatch, 'go test -v ./...'),
    });
    const file = join(dir, 'tasks.jsonl');
    await writeFile(file, ['parse_log_gotest', 'parse_log_maven', 'parse_log_not_a_parser'].map((p) => JSON.stringify(row(p))).join('\n'));
    const loaded = await loadTaskFile(file);
    expect(loaded.tasks.map((t) => t.logParser)).toEqual(['parse_log_gotest', 'parse_log_maven']);
    expect(loaded.problems.map((p) => p.field)).toEqual(['log_parser']);
    const plan = evalPlan(loaded.tasks[0]!);
    expect(plan).toMatchObject({
      source: 'record-eval-script',
      harnessParser: 'parse_log_gotest',
      testCommand: 'go test -v ./...',
      resetFiles: ['x_test.go'],
      notes: [],
    });
    // Rendered back in the harness's shape for languages beyond Python: the row's own script, line for line.
    expect(harnessEvalScript(plan, loaded.tasks[0]!)).toBe(languageEvalScript(base, testPatch, 'go test -v ./...'));
  });
});
