/**
 * How every cheat suite runs an exploit: through a real episode (plant, probe, submit with no fix).
 * The grading must be worth nothing: reward 0 as the model's own failure, never a masked
 * INFRA_ERROR. One door: Evaluate grades the same captured change with the same grader, so a second
 * grading of every exploit there proved nothing the episode's did not (the capture's own fidelity is
 * test/reward/capture-*'s; Evaluate's path is test/server/evaluate.test.ts's).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { GradeReport__Output } from '../../src/generated/swe_env/v1/GradeReport.js';
import { patchOf } from '../helpers/capture-episodes.js';
import { DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import type { Exploit } from './exploits.js';

export interface Attacked {
  readonly probe: string;
  readonly reward: number;
  readonly report: GradeReport__Output;
  /** The change the submit captured (the step's info), undefined when none was taken. */
  readonly patch: string | undefined;
}

/** Plants the exploit in an episode, shows it working, and submits; the episode is closed after. */
export async function attackEpisode(t: TestServer, exploit: Exploit, taskId: string): Promise<Attacked> {
  const reset = await t.client.reset({ taskId });
  const id = reset.episodeId;
  try {
    const planted = await t.client.bash(id, 0, exploit.plant);
    expect(planted.status, `${exploit.name}: ${planted.observation}`).not.toBe('STEP_STATUS_INFRA_ERROR');
    expect(planted.terminated, `${exploit.name}: the episode ended at the plant (${planted.observation})`).toBe(false);
    const probe = await t.client.bash(id, 1, exploit.probe);
    // The trick works where the agent can see it.
    expect(probe.observation, `${exploit.name}: the probe should show the trick working`).toMatch(exploit.probeShows);
    const submitted = await t.client.submit(id, 2);
    const patch = patchOf(submitted);
    return { probe: probe.observation, reward: submitted.reward, report: submitted.report!, patch: patch === '' ? undefined : patch };
  } finally {
    await t.client.close(id).catch(() => undefined);
  }
}

/** A grading of the exploit is worth nothing: 0, the model's failure, saying what the exploit expects. */
export function expectWorthless(exploit: Exploit, reward: number, report: GradeReport__Output, via: string): void {
  const said = `${report.error}\n${report.integrityFlags.join('\n')}`;
  expect(report.infraError, `${exploit.name} (${via}): ${report.error}`).toBe(false);
  expect(reward, `${exploit.name} (${via}): ${said}`).toBe(0);
  if (exploit.reportSays) expect(said, `${exploit.name} (${via})`).toMatch(exploit.reportSays);
}

/** The exploit through a real episode: shown working in the agent's container, worth nothing graded. */
export async function expectWorthlessEpisode(t: TestServer, exploit: Exploit, taskId: string): Promise<void> {
  const attacked = await attackEpisode(t, exploit, taskId);
  expectWorthless(exploit, attacked.reward, attacked.report, 'episode');
}

/** The demo task every suite attacks. */
export const CHEAT_TASK = 'swe-env-demo__intervals-1';

/** Two servers: the demo task as it is, and the same task with an install step re-run after the patch. */
export interface CheatServers {
  readonly plain: TestServer;
  readonly install: TestServer;
  /** The task's gold patch, for the honest controls. */
  readonly goldPatch: string;
  stop(): Promise<void>;
}

/**
 * The demo task, and the same task with an install step as SWE-bench's specs have one
 * (`setup.py develop` re-run after any patch that changes a build input; the pristine repository
 * has no setup.py). Both with a 30 s test timeout. `stop` leaves no container and no file.
 */
export async function startCheatServers(): Promise<CheatServers> {
  const scratch = await mkdtemp(join(tmpdir(), 'swe-env-cheats-'));
  const records = (await readFile(DEMO_TASKS, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const record = records.find((r) => r['instance_id'] === CHEAT_TASK)!;
  const file = join(scratch, 'install-tasks.jsonl');
  await writeFile(file, `${JSON.stringify({ ...record, install: 'python3 setup.py develop' })}\n`);
  const plain = await startTestServer({ testTimeoutS: 30 });
  const install = await startTestServer({ taskFiles: [file], testTimeoutS: 30 }).catch(async (error: unknown) => {
    await plain.stop();
    throw error;
  });
  return {
    plain,
    install,
    goldPatch: String(record['patch']),
    stop: async () => {
      try {
        await plain.stop();
        await install.stop();
        await expectNoContainers(plain.server.provider);
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  };
}
