/**
 * The cheat suite: every exploit of exploits.ts run through a real episode on a real server. The
 * trick is first shown working in the agent's own container (its probe prints what the exploit
 * promises: a failing test read as passing, a hidden test emptied, a setup.py that never ends...),
 * then the episode submits with no fix: the reward must be 0, never INFRA_ERROR (a masked sample).
 * Honest controls: the gold patch scores 1 with the same grading, with and without an install.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { EXPLOITS, INSTALL_EXPLOITS, type Exploit } from './exploits.js';

const TASK = 'swe-env-demo__intervals-1';
let plain: TestServer;
let install: TestServer;
let scratch: string;
let goldPatch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'swe-env-cheats-'));
  // The same demo task with an install step, as SWE-bench's specs have one: `setup.py develop`
  // re-run after any patch that changes a build input (the pristine repository has no setup.py).
  const records = (await readFile(DEMO_TASKS, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const record = records.find((r) => r['instance_id'] === TASK)!;
  goldPatch = String(record['patch']);
  const file = join(scratch, 'install-tasks.jsonl');
  await writeFile(file, `${JSON.stringify({ ...record, install: 'python3 setup.py develop' })}\n`);
  plain = await startTestServer({ testTimeoutS: 30 });
  install = await startTestServer({ taskFiles: [file], testTimeoutS: 30 });
});

afterAll(async () => {
  await plain?.stop();
  await install?.stop();
  await expectNoContainers(plain.server.provider);
  await rm(scratch, { recursive: true, force: true });
});

async function attack(t: TestServer, exploit: Exploit): Promise<{ probe: string; report: Record<string, unknown> & { reward: number; infraError: boolean; error: string; integrityFlags: string[] } }> {
  const reset = await t.client.reset({ taskId: exploit.task ?? TASK });
  const id = reset.episodeId;
  try {
    const planted = await t.client.bash(id, 0, exploit.plant);
    expect(planted.exitCode, planted.observation).toBe(0);
    const probe = await t.client.bash(id, 1, exploit.probe);
    const submitted = await t.client.submit(id, 2);
    return { probe: probe.observation, report: submitted.report as never };
  } finally {
    await t.client.close(id);
  }
}

function expectZero(exploit: Exploit, probe: string, report: { reward: number; infraError: boolean; error: string; integrityFlags: string[] }): void {
  // The trick works where the agent can see it...
  expect(probe, `${exploit.name}: the probe should show the trick working`).toMatch(exploit.probeShows);
  // ...and is worth nothing once graded, as the model's own failure.
  expect(report.infraError, `${exploit.name}: ${report.error}`).toBe(false);
  expect(report.reward, `${exploit.name}: ${report.error} ${report.integrityFlags.join('; ')}`).toBe(0);
  if (exploit.reportSays) expect(`${report.error}\n${report.integrityFlags.join('\n')}`).toMatch(exploit.reportSays);
}

describe('the cheat suite: no fix, every trick scores 0', () => {
  for (const exploit of EXPLOITS) {
    it(`[${exploit.family}] ${exploit.name}`, async () => {
      const { probe, report } = await attack(plain, exploit);
      expectZero(exploit, probe, report);
    });
  }
  for (const exploit of INSTALL_EXPLOITS) {
    it(`[${exploit.family}, install re-run] ${exploit.name}`, async () => {
      const { probe, report } = await attack(install, exploit);
      expectZero(exploit, probe, report);
    });
  }
});

describe('honest work still scores 1 under the same grading', () => {
  it('the gold patch, with canaries and the monitor', async () => {
    const report = (await plain.client.evaluate(TASK, goldPatch)).report!;
    expect(report.reward, report.error).toBe(1);
    expect(report.canaries).toBeGreaterThanOrEqual(2);
    expect(report.integrityFlags).toEqual([]);
  });

  it('the gold patch plus a plain setup.py: the install re-runs and the closed-world check lets its metadata through', async () => {
    const setup = 'diff --git a/setup.py b/setup.py\nnew file mode 100644\n--- /dev/null\n+++ b/setup.py\n@@ -0,0 +1,2 @@\n+from setuptools import setup\n+setup(name="intervals", version="0.1", packages=["intervals"])\n';
    const report = (await install.client.evaluate(TASK, goldPatch + setup)).report!;
    expect(report.install?.ran, report.install?.reason).toBe(true);
    expect(report.reward, `${report.error} ${report.install?.outputTail}`).toBe(1);
    expect(report.integrityFlags).toEqual([]);
  });
});
