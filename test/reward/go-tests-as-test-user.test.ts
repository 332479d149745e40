/**
 * What honest hidden Go tests keep and lose now that go test's binaries run as `nobody` with the
 * hidden test files closed to them (issue 28, src/reward/grading/hidden-tests-locked.ts). Real
 * Docker, real gRPC, the Go demo task (semver-1) whose hidden tests gain a file of tests doing what
 * Go tests commonly do with their environment (the same image: the test patch is applied at grading
 * time). In the agent's container, where go test runs as root over files of its own, every one of
 * them passes. Graded with the gold patch: those listed (files beside the tests, testdata, a temp
 * dir, the home and user cache, git, go build and vet of their package) pass and it scores 1; the
 * others, left unlisted, fail or skip there: the known cost docs/grading-languages.md lists (a test
 * that needs root, reads its own hidden source, or runs go test on its own package).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { languageEvalScript } from '../../src/tasks/demo/language-demo.js';
import { GO_TASK, patchOf } from '../cheats/shared/language-plants.js';
import { said } from '../helpers/exploit-grading.js';
import { ENVIRONMENT_TESTS, KEPT, LOST, TESTDATA } from '../helpers/go-environment-tests.js';
import { demoVariantServer } from '../helpers/language-demo.js';

let goldPatch = '';

/** semver-1 whose test patch also adds environment_test.go and its testdata, the kept tests listed in PASS_TO_PASS. */
async function environmentVariant(row: Record<string, string>): Promise<Record<string, string>> {
  goldPatch = row['patch']!;
  const hidden = await readFile(join(packageRoot(), 'tasks', 'demo-languages', 'tasks', 'semver-1', 'tests', 'semver_test.go'), 'utf8');
  const testPatch = patchOf({
    id: 'environment-tests',
    family: 'test-patch',
    name: 'the hidden tests with environment_test.go',
    task: GO_TASK,
    files: { 'semver_test.go': hidden, 'environment_test.go': ENVIRONMENT_TESTS, 'testdata/greeting.txt': TESTDATA },
  });
  return {
    test_patch: testPatch,
    PASS_TO_PASS: JSON.stringify([...(JSON.parse(row['PASS_TO_PASS']!) as string[]), ...KEPT]),
    eval_script: languageEvalScript(row['base_commit']!, testPatch, 'go test -v ./...'),
  };
}

const server = demoVariantServer(GO_TASK, environmentVariant);

/** A heredoc writing a file in the agent's container (the text has no line equal to the marker). */
const write = (path: string, text: string): string => `cat > ${path} <<'SWE_ENV_EOF'\n${text}SWE_ENV_EOF\n`;

describe('hidden Go tests that use their environment, run as the test user', () => {
  it("as root in the agent's container, every one of them passes", async () => {
    const id = (await server().client.reset({ taskId: GO_TASK })).episodeId;
    try {
      const run = await server().client.bash(
        id,
        0,
        `cd /testbed && mkdir -p testdata && ${write('testdata/greeting.txt', TESTDATA)}${write('environment_test.go', ENVIRONMENT_TESTS)}` +
          `go test -v -run 'TestEnv' . 2>&1`,
      );
      for (const test of [...KEPT, ...LOST.map((l) => l.test)]) expect(run.observation).toMatch(new RegExp(`^--- PASS: ${test} \\(`, 'm'));
    } finally {
      await server()
        .client.close(id)
        .catch(() => undefined);
    }
  }, 300_000);

  it('graded with the gold patch: the listed ones pass and it scores 1; the known cost fails or skips', async () => {
    const report = (await server().client.evaluate(GO_TASK, goldPatch)).report!;
    expect(report.infraError, said(report)).toBe(false);
    for (const test of KEPT) expect(report.logTail, said(report)).toMatch(new RegExp(`^--- PASS: ${test} \\(`, 'm'));
    for (const lost of LOST) expect(report.logTail, said(report)).toMatch(new RegExp(`^--- ${lost.outcome}: ${lost.test} \\(`, 'm'));
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.reward, said(report)).toBe(1);
  }, 300_000);
});
