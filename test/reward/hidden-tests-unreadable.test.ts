/**
 * Issue 28, evidence by construction for `go test`, real Docker and real gRPC on the Go demo task
 * (semver-1): the go tool builds the test binary as root and runs it through `go test -exec` as an
 * unprivileged user while the hidden `_test.go` files (canaries and mirrors inside) are root's,
 * mode 0600 (src/reward/grading/hidden-tests-locked.ts). Code under test that reads the hidden
 * tests to return their expected values, which earned 1 before (round 5's G5), scores 0, because
 * any open() of those files fails: the probe shows each place such code could read them from
 * refused, whatever the trick. Honest twins keep their 1: the gold fix, and the gold fix doing what
 * Go tests do as that user (files beside the tests, temp dirs, a user cache, `go build`, `go vet`
 * and `go run` of their own).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradeReport__Output } from '../../src/generated/swe_env/v1/GradeReport.js';
import { LANGUAGE_TASKS, startLanguageServer, stopLanguageServer } from '../helpers/language-demo.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { ANSWERS_FROM_TESTS, GOLD, GO_TASK, HONEST_ENVIRONMENT, OPEN_PROBE, PROBE_TEST, goPatch } from '../helpers/go-demo-patches.js';

let server: TestServer | undefined;

beforeAll(async () => {
  ({ server } = await startLanguageServer());
}, 900_000);

afterAll(() => stopLanguageServer(server));

const said = (r: GradeReport__Output): string =>
  `${r.error}\nflags: ${r.integrityFlags.join(' | ')}\naudit: ${r.auditFlags.join(' | ')}\nexit: ${r.testExitCode}\n${r.logTail}`;

async function evaluate(files: Readonly<Record<string, string>>): Promise<GradeReport__Output> {
  return (await server!.client.evaluate(GO_TASK, goPatch(files))).report!;
}

/** A heredoc writing a file in the agent's container (the text has no line equal to the marker). */
const write = (path: string, text: string): string => `cat > ${path} <<'SWE_ENV_EOF'\n${text}SWE_ENV_EOF\n`;

describe('go test: the hidden tests cannot be read by the code under test', () => {
  it('the answers-from-the-tests trick works in the agent container, and its submission scores 0', async () => {
    const reset = await server!.client.reset({ taskId: GO_TASK });
    const id = reset.episodeId;
    try {
      const planted = await server!.client.bash(id, 0, `cd /testbed && ${write('semver.go', ANSWERS_FROM_TESTS)}`);
      expect(planted.status, planted.observation).not.toBe('STEP_STATUS_INFRA_ERROR');
      // Where the agent runs go test (as root, the files its own), the trick passes the cases with no fix.
      const probe = await server!.client.bash(
        id,
        1,
        `cd /testbed && ${write('probe_test.go', PROBE_TEST)}go test -v -run TestProbeAnswers . 2>&1; rm probe_test.go`,
      );
      expect(probe.observation).toContain('--- PASS: TestProbeAnswers');
      const submitted = await server!.client.submit(id, 2);
      const report = submitted.report!;
      expect(report.infraError, said(report)).toBe(false);
      expect(submitted.reward, said(report)).toBe(0);
      // Not a canary's catch: the listed tests fail because the files would not open.
      expect(report.logTail, said(report)).toContain('answers: open semver_test.go: permission denied');
      expect(report.logTail, said(report)).toContain('--- FAIL: TestCompareMultiDigitComponents');
    } finally {
      await server!.client.close(id).catch(() => undefined);
    }
  }, 600_000);

  it('every place a test process could read the tests from is refused to it (the gold fix beside a probe scores 1)', async () => {
    const report = await evaluate({ 'semver.go': GOLD, 'probe.go': OPEN_PROBE });
    expect(report.reward, said(report)).toBe(1);
    const lines = report.logTail.split('\n').filter((l) => l.startsWith('swe-env-probe'));
    for (const what of [
      'open semver_test.go',
      'open /proc/self/exe',
      'open os.Args[0]',
      'open /swe_env/grading/test.patch',
      'list /root/.cache/go-build',
    ]) {
      expect(lines, said(report)).toContain(`swe-env-probe ${what}: denied`);
    }
    expect(lines, said(report)).toContain('swe-env-probe uid 65534 euid 65534');
    // Its own memory stays its own (the compiled tests are linked into the binary): a stated limit.
    expect(lines, said(report)).toContain('swe-env-probe open /proc/self/maps: readable');
    expect(report.auditFlags.join('\n'), said(report)).not.toMatch(/hidden tests readable/);
  }, 600_000);

  it('the gold fix scores 1', async () => {
    const report = await evaluate({ 'semver.go': GOLD });
    expect(report.reward, said(report)).toBe(1);
    expect(report.integrityFlags, said(report)).toEqual([]);
  }, 600_000);

  it('the gold fix whose package writes beside its tests, in a temp dir and a user cache, and runs go build, vet and run, scores 1', async () => {
    const report = await evaluate({ 'semver.go': GOLD, 'environment.go': HONEST_ENVIRONMENT });
    expect(report.reward, said(report)).toBe(1);
    expect(report.logTail, said(report)).toContain('swe-env-honest: all done');
    expect(report.integrityFlags, said(report)).toEqual([]);
  }, 600_000);
});

describe("go test -coverprofile: the profile the test binary writes in the go tool's work directory", () => {
  it("the gold fix scores 1 with the row's test command asking for a coverage profile", async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'swe-env-cover-'));
    let cover: TestServer | undefined;
    try {
      const row = (await readFile(LANGUAGE_TASKS, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((r) => r['instance_id'] === GO_TASK)!;
      const script = String(row['eval_script']);
      expect(script).toContain('\ngo test -v ./...\n');
      const file = join(scratch, 'tasks.jsonl');
      const changed = { ...row, eval_script: script.replace('\ngo test -v ./...\n', '\ngo test -v -coverprofile=/tmp/cover.out ./...\n') };
      await writeFile(file, `${JSON.stringify(changed)}\n`);
      cover = await startTestServer({ taskFiles: [file], gradingNetwork: 'none' });
      const report = (await cover.client.evaluate(GO_TASK, String(row['patch']))).report!;
      expect(report.reward, said(report)).toBe(1);
      expect(report.logTail, said(report)).toMatch(/coverage: \d+(\.\d+)?% of statements/);
    } finally {
      if (cover) {
        await cover.stop();
        await expectNoContainers(cover.server.provider);
      }
      await rm(scratch, { recursive: true, force: true });
    }
  }, 600_000);
});
