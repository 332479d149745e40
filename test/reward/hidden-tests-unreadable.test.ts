/**
 * Issue 28, evidence by construction for `go test`, real Docker and real gRPC on the Go demo task
 * (semver-1): the go tool builds the test binary as root and runs it through `go test -exec` as an
 * unprivileged user while the hidden `_test.go` files (canaries and mirrors inside) are root's,
 * mode 0600 (src/reward/grading/hidden-tests-locked.ts). A probe beside the gold fix shows each
 * place code under test could read the hidden tests from refused, whatever the trick; the gold fix
 * keeps its 1, with and without a coverage profile (which the test binary writes where the go
 * tool reads it). The attack this closes (G5) is test/cheats/answers-from-tests', the honest work
 * it must leave alone test/cheats/honest-fixes' H6 and H7 and go-tests-as-test-user.test.ts'.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradeReport__Output } from '../../src/generated/swe_env/v1/GradeReport.js';
import { GO_TASK, gold, patchOf } from '../cheats/shared/language-plants.js';
import { OPEN_PROBE } from '../helpers/go-open-probe.js';
import { LANGUAGE_TASKS, startLanguageServer, stopLanguageServer } from '../helpers/language-demo.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer | undefined;

beforeAll(async () => {
  ({ server } = await startLanguageServer());
}, 900_000);

afterAll(() => stopLanguageServer(server));

const said = (r: GradeReport__Output): string =>
  `${r.error}\nflags: ${r.integrityFlags.join(' | ')}\naudit: ${r.auditFlags.join(' | ')}\nexit: ${r.testExitCode}\n${r.logTail}`;

async function evaluate(files: Readonly<Record<string, string>>): Promise<GradeReport__Output> {
  const patch = patchOf({ id: 'probe', family: 'probe', name: 'probe', task: GO_TASK, files });
  return (await server!.client.evaluate(GO_TASK, patch)).report!;
}

const GOLD = gold('semver-1', 'semver.go');

describe('go test: the hidden tests cannot be read by the code under test', () => {
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
