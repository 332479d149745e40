/**
 * What honest hidden Rust tests keep and lose now that cargo test's binaries run as `nobody` with
 * the hidden test files and cargo's target directory closed to them (issue 28,
 * src/reward/grading/cargo-lock.ts). Real Docker, real gRPC, the Rust demo task (wordcount-1) whose
 * hidden tests gain a file of tests doing what Rust tests commonly do with their environment and a
 * fixture beside it (the same image: the test patch is applied at grading time). In the agent's
 * container, where cargo test runs as root over files of its own, every one of them passes. Graded
 * with the gold patch: those listed (files written beside the tests, CARGO_MANIFEST_DIR paths, a
 * fixture under tests/, a temp dir, the home, current_exe() in the target directory, git, cargo
 * metadata) pass and it scores 1; the others, left unlisted, fail there: the known cost
 * docs/grading-languages.md lists (a test that needs root, reads its own hidden source or its own
 * binary, runs cargo build, or lists the target directory). The graded fix is the gold patch with
 * two doctests added to src/lib.rs: one that needs root fails there too (doctests run as the test
 * user through rustdoc's runtool), the other passes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { languageEvalScript } from '../../src/tasks/demo/language-demo.js';
import { RUST_TASK, patchOf } from '../cheats/shared/language-plants.js';
import { lines, said } from '../helpers/exploit-grading.js';
import { DOCTESTS, ENVIRONMENT_TESTS, FIXTURE, KEPT, LOST } from '../helpers/rust-environment-tests.js';
import { demoVariantServer } from '../helpers/language-demo.js';

/** The gold fix with DOCTESTS appended: the change graded. */
let fixWithDoctests = '';
const TEST_COMMAND = 'cargo test --offline --no-fail-fast';
const TASK_DIR = join(packageRoot(), 'tasks', 'demo-languages', 'tasks', 'wordcount-1');
const doctest = (name: string, outcome: string): RegExp =>
  new RegExp(`^test src/lib\\.rs - ${name} \\(line \\d+\\) \\.\\.\\. ${outcome}$`, 'm');

/** wordcount-1 whose test patch also adds tests/environment.rs and its fixture, the kept tests listed in PASS_TO_PASS. */
async function environmentVariant(row: Record<string, string>): Promise<Record<string, string>> {
  fixWithDoctests = patchOf({
    id: 'gold-with-doctests',
    family: 'honest-fixes',
    name: 'the gold fix with two doctests',
    task: RUST_TASK,
    files: { 'src/lib.rs': (await readFile(join(TASK_DIR, 'fix', 'src', 'lib.rs'), 'utf8')) + DOCTESTS },
  });
  const hidden = await readFile(join(TASK_DIR, 'tests', 'tests', 'counts.rs'), 'utf8');
  const testPatch = patchOf({
    id: 'environment-tests',
    family: 'test-patch',
    name: 'the hidden tests with tests/environment.rs',
    task: RUST_TASK,
    files: { 'tests/counts.rs': hidden, 'tests/environment.rs': ENVIRONMENT_TESTS, 'tests/data/greeting.txt': FIXTURE },
  });
  return {
    test_patch: testPatch,
    PASS_TO_PASS: JSON.stringify([...(JSON.parse(row['PASS_TO_PASS']!) as string[]), ...KEPT]),
    eval_script: languageEvalScript(row['base_commit']!, testPatch, TEST_COMMAND),
  };
}

const server = demoVariantServer(RUST_TASK, environmentVariant);

/** A heredoc writing a file in the agent's container (the text has no line equal to the marker). */
const write = (path: string, text: string): string => `cat > ${path} <<'SWE_ENV_EOF'\n${text}SWE_ENV_EOF\n`;

describe('hidden Rust tests that use their environment, run as the test user', () => {
  it("as root in the agent's container, every one of them passes", async () => {
    const id = (await server().client.reset({ taskId: RUST_TASK })).episodeId;
    try {
      const run = await server().client.bash(
        id,
        0,
        `cd /testbed && mkdir -p tests/data && ${write('tests/data/greeting.txt', FIXTURE)}${write('tests/environment.rs', ENVIRONMENT_TESTS)}` +
          `cat >> src/lib.rs <<'SWE_ENV_EOF'\n${DOCTESTS}SWE_ENV_EOF\n` +
          `cargo test --offline --test environment 2>&1; cargo test --offline --doc 2>&1`,
      );
      const out = run.observation.split('\n').map((l) => l.trimEnd());
      for (const test of [...KEPT, ...LOST]) expect(out, run.observation).toContain(`test ${test} ... ok`);
      for (const name of ['doc_kept', 'doc_needs_root']) expect(run.observation).toMatch(doctest(name, 'ok'));
    } finally {
      await server()
        .client.close(id)
        .catch(() => undefined);
    }
  }, 300_000);

  it('graded with the gold fix (and two doctests): the listed ones pass and it scores 1; the known cost fails', async () => {
    const report = (await server().client.evaluate(RUST_TASK, fixWithDoctests)).report!;
    expect(report.infraError, said(report)).toBe(false);
    for (const test of KEPT) expect(lines(report), said(report)).toContain(`test ${test} ... ok`);
    for (const test of LOST) expect(lines(report), said(report)).toContain(`test ${test} ... FAILED`);
    expect(report.logTail, said(report)).toMatch(doctest('doc_kept', 'ok'));
    expect(report.logTail, said(report)).toMatch(doctest('doc_needs_root', 'FAILED'));
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.auditFlags.join('\n'), said(report)).not.toMatch(/hidden tests readable/);
    expect(report.reward, said(report)).toBe(1);
  }, 300_000);
});
