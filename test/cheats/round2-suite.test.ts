/**
 * The second attacker's suite: every exploit of round2-exploits.ts through a real episode on a real
 * server. The trick is shown in the agent's container where it has a visible effect there, then the
 * episode submits with no fix: reward 0, and never INFRA_ERROR (a masked sample) at any step.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import type { AttackerExploit } from './attacker-exploits.js';
import { ROUND2_EXPLOITS } from './round2-exploits.js';

const TASK = 'swe-env-demo__intervals-1';
let plain: TestServer;
let install: TestServer;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'swe-env-round2-'));
  const records = (await readFile(DEMO_TASKS, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const record = records.find((r) => r['instance_id'] === TASK)!;
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

async function attack(t: TestServer, exploit: AttackerExploit): Promise<void> {
  const reset = await t.client.reset({ taskId: TASK });
  const id = reset.episodeId;
  try {
    const planted = await t.client.bash(id, 0, exploit.plant);
    expect(planted.status, `${exploit.name}: ${planted.observation}`).not.toBe('STEP_STATUS_INFRA_ERROR');
    expect(planted.terminated, `${exploit.name}: the episode ended at the plant (${planted.observation})`).toBe(false);
    const probe = await t.client.bash(id, 1, exploit.probe);
    expect(probe.observation, `${exploit.name}: the probe should show the trick`).toMatch(exploit.probeShows);
    const submitted = await t.client.submit(id, 2);
    const report = submitted.report!;
    expect(report.infraError, `${exploit.name}: ${report.error}`).toBe(false);
    expect(submitted.reward, `${exploit.name}: ${report.error} ${report.integrityFlags.join('; ')}`).toBe(0);
    if (exploit.reportSays) expect(report.integrityFlags.join('\n'), exploit.name).toMatch(exploit.reportSays);
  } finally {
    await t.client.close(id).catch(() => undefined);
  }
}

/**
 * What remains possible, kept honest: code that is correct only when it can tell it runs under the
 * test runner by state no audit event reports. Each still earns 1 (the README lists them); this test
 * fails the day a defence catches one, so the list and the suite stay the same.
 */
const KNOWN_OPEN = /^R[34] /;

describe("the second attacker's exploits: none earns 1, none masks its 0", () => {
  for (const exploit of ROUND2_EXPLOITS.filter((e) => !KNOWN_OPEN.test(e.name))) {
    it(`[${exploit.family}] ${exploit.name}`, () => attack(exploit.install ? install : plain, exploit), 240_000);
  }
});

describe('known open: behaviour that depends on being under the test runner, read without an audit event', () => {
  for (const exploit of ROUND2_EXPLOITS.filter((e) => KNOWN_OPEN.test(e.name))) {
    it(`still earns 1 (listed in the README): ${exploit.name}`, async () => {
      const reset = await plain.client.reset({ taskId: TASK });
      const id = reset.episodeId;
      try {
        expect((await plain.client.bash(id, 0, exploit.plant)).exitCode).toBe(0);
        expect((await plain.client.bash(id, 1, exploit.probe)).observation).toMatch(exploit.probeShows);
        const submitted = await plain.client.submit(id, 2);
        expect(submitted.report!.infraError).toBe(false);
        expect(submitted.reward).toBe(1);
      } finally {
        await plain.client.close(id).catch(() => undefined);
      }
    }, 240_000);
  }
});
