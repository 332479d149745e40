/**
 * How the catalogue runs a Python exploit: through a real episode (plant, probe, submit with no fix).
 * The grading must be worth nothing: reward 0 as the model's own failure, never a masked
 * INFRA_ERROR. One door: Evaluate grades the same captured change with the same grader, so a second
 * grading of every exploit there proved nothing the episode's did not (the capture's own fidelity is
 * test/reward/capture-*'s; Evaluate's path is test/server/evaluate.test.ts's).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradeReport__Output } from '../../../src/generated/swe_env/v1/GradeReport.js';
import { patchOf } from '../../helpers/capture-episodes.js';
import { DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../../helpers/server.js';
import type { Exploit } from './pytest-plants.js';

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

/** A grading of the exploit is worth nothing: 0, the model's failure, saying what the exploit expects (its error or flags, a finding kind). */
export function expectWorthless(exploit: Exploit, reward: number, report: GradeReport__Output, via: string): void {
  const said = `${report.error}\n${report.integrityFlags.join('\n')}`;
  expect(report.infraError, `${exploit.name} (${via}): ${report.error}`).toBe(false);
  expect(reward, `${exploit.name} (${via}): ${said}`).toBe(0);
  if (exploit.reportSays) expect(said, `${exploit.name} (${via})`).toMatch(exploit.reportSays);
  if (exploit.findingKind)
    expect(
      report.findings.map((f) => f.kind),
      `${exploit.name} (${via}): ${said}`,
    ).toContain(exploit.findingKind);
}

/** The exploit through a real episode: shown working in the agent's container, worth nothing graded. */
export async function expectWorthlessEpisode(t: TestServer, exploit: Exploit, taskId: string): Promise<void> {
  const attacked = await attackEpisode(t, exploit, taskId);
  expectWorthless(exploit, attacked.reward, attacked.report, 'episode');
}

/**
 * A known-open exploit: shown working in the agent's container, and still worth 1 once graded (never
 * INFRA_ERROR). The test fails the day a defence catches it, so the docs' list and the catalogue
 * stay the same.
 */
export async function expectEarnsOne(t: TestServer, exploit: Exploit, taskId: string): Promise<void> {
  const reset = await t.client.reset({ taskId });
  const id = reset.episodeId;
  try {
    expect((await t.client.bash(id, 0, exploit.plant)).exitCode).toBe(0);
    expect((await t.client.bash(id, 1, exploit.probe)).observation).toMatch(exploit.probeShows);
    const submitted = await t.client.submit(id, 2);
    expect(submitted.report!.infraError).toBe(false);
    expect(submitted.reward).toBe(1);
  } finally {
    await t.client.close(id).catch(() => undefined);
  }
}

/** The demo task every suite attacks. */
export const CHEAT_TASK = 'swe-env-demo__intervals-1';

/** Two servers: the demo task as it is, and (when asked for) the same task with an install step re-run after the patch. */
export interface CheatServers {
  readonly plain: TestServer;
  readonly install: TestServer | undefined;
  /** The task's gold patch, for the honest controls. */
  readonly goldPatch: string;
  stop(): Promise<void>;
}

/** Which servers a test file starts, and their test timeouts (each 30 s unless given). */
export interface CheatServerOptions {
  readonly install: boolean;
  /** The plain server's test timeout: a file whose exploits wait one out sets the smallest that still shows them. */
  readonly plainTestTimeoutS?: number;
  /** The install server's (the install step's limit too). */
  readonly installTestTimeoutS?: number;
}

/**
 * The demo task, and the same task with an install step as SWE-bench's specs have one
 * (`setup.py develop` re-run after any patch that changes a build input; the pristine repository
 * has no setup.py), the second only with `install`. Both with a 30 s test timeout unless the options
 * say otherwise. `stop` leaves no container and no file.
 */
export async function startCheatServers(options: CheatServerOptions): Promise<CheatServers> {
  const scratch = await mkdtemp(join(tmpdir(), 'swe-env-cheats-'));
  const records = (await readFile(DEMO_TASKS, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const record = records.find((r) => r['instance_id'] === CHEAT_TASK)!;
  const file = join(scratch, 'install-tasks.jsonl');
  await writeFile(file, `${JSON.stringify({ ...record, install: 'python3 setup.py develop' })}\n`);
  const plain = await startTestServer({ testTimeoutS: options.plainTestTimeoutS ?? 30 });
  const install = !options.install
    ? undefined
    : await startTestServer({ taskFiles: [file], testTimeoutS: options.installTestTimeoutS ?? 30 }).catch(async (error: unknown) => {
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
        await install?.stop();
        await expectNoContainers(plain.server.provider);
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
  };
}

/** A test file's servers, started before its tests and stopped (no container left) after. */
export interface EpisodeServers {
  readonly plain: () => TestServer;
  readonly install: () => TestServer;
  /** The server an exploit runs on: the install variant when it needs the install re-run. */
  readonly of: (exploit: Exploit) => TestServer;
  readonly goldPatch: () => string;
}

export function useCheatServers(options: CheatServerOptions): EpisodeServers {
  let servers: CheatServers | undefined;
  beforeAll(async () => {
    servers = await startCheatServers(options);
  });
  const install = (): TestServer => {
    if (!servers?.install) throw new Error('this file started no install server (useCheatServers({ install: true }))');
    return servers.install;
  };
  afterAll(() => servers?.stop());
  return {
    plain: () => servers!.plain,
    install,
    of: (exploit) => (exploit.install ? install() : servers!.plain),
    goldPatch: () => servers!.goldPatch,
  };
}

const SETUP_PY =
  'diff --git a/setup.py b/setup.py\nnew file mode 100644\n--- /dev/null\n+++ b/setup.py\n@@ -0,0 +1,2 @@\n+from setuptools import setup\n+setup(name="intervals", version="0.1", packages=["intervals"])\n';

/**
 * The file's controls, graded once each on its own servers: no change scores 0 (so a 1 below is the
 * exploit's doing), the gold patch 1 under the same grading (so a 0 below is not a grader that
 * fails everything), and, with `install`, gold plus a plain setup.py through the install re-run.
 */
export function describeControls(servers: EpisodeServers, options: Pick<CheatServerOptions, 'install'>): void {
  describe('controls: honest work scores 1, no change 0, under the same grading', () => {
    it("no change: the model's 0", async () => {
      const report = (await servers.plain().client.evaluate(CHEAT_TASK, '')).report!;
      expect(report.infraError, report.error).toBe(false);
      expect(report.reward, report.error).toBe(0);
    });

    it('the gold patch, with canaries and the monitor', async () => {
      const report = (await servers.plain().client.evaluate(CHEAT_TASK, servers.goldPatch())).report!;
      expect(report.reward, report.error).toBe(1);
      expect(report.canaries).toBeGreaterThanOrEqual(2);
      expect(report.integrityFlags).toEqual([]);
    });

    if (options.install)
      it('the gold patch plus a plain setup.py: the install re-runs and the closed-world check lets its metadata through', async () => {
        const report = (await servers.install().client.evaluate(CHEAT_TASK, servers.goldPatch() + SETUP_PY)).report!;
        expect(report.install?.ran, report.install?.reason).toBe(true);
        expect(report.reward, `${report.error} ${report.install?.outputTail}`).toBe(1);
        expect(report.integrityFlags).toEqual([]);
      });
  });
}
