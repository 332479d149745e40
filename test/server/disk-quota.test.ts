import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';

/**
 * Disk: overlay2 on this machine's ext4 has no per-container size option, so nothing inside the
 * sandbox stops a write past its quota (the trick works: the engine measures the writable layer
 * over the limit). The watchdog then stops the sandbox and the episode, or the grading, ends as the
 * model's failure: reward 0 with the reason, never INFRA_ERROR. Below a host free-space watermark
 * Reset is RESOURCE_EXHAUSTED and starts nothing.
 */
const LIMIT_MIB = 64;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    limits: { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 512, diskBytes: LIMIT_MIB * 1024 ** 2 },
    diskCheckIntervalS: 0.5,
  });
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

/** The MiB figures of "<used> MiB written, over its <limit> MiB quota". */
function overrun(text: string): { used: number; limit: number } {
  const match = /(\d+) MiB (?:written|to disk), over its (\d+) MiB quota/.exec(text);
  expect(match, text).not.toBeNull();
  return { used: Number(match![1]), limit: Number(match![2]) };
}

describe('disk quota', () => {
  it('an episode writing past its quota is stopped: reward 0, end reason sandbox_disk_quota, not INFRA_ERROR', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__minicalc-1' });
    const id = reset.episodeId;
    try {
      // 200 MiB of real blocks, then wait: the watchdog's next pass finds the layer over 64 MiB.
      const step = await t.client.bash(id, 0, 'dd if=/dev/zero of=/tmp/fill bs=1M count=200 status=none; sleep 120');
      expect(step.status).toBe('STEP_STATUS_OK');
      expect(step.terminated).toBe(true);
      expect(step.reward).toBe(0);
      expect(SweEnvClient.structToObject(step.info)['end_reason']).toBe('sandbox_disk_quota');
      const { used, limit } = overrun(step.observation);
      expect(limit).toBe(LIMIT_MIB);
      expect(used).toBeGreaterThan(LIMIT_MIB); // nothing in the container refused the writes
      const closed = await t.client.close(id);
      expect(closed.summary?.endReason).toBe('sandbox_disk_quota');
      expect(closed.summary?.reward).toBe(0);
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
    // The engine removes a killed AutoRemove container a moment after it dies.
    await expect.poll(() => t.server.provider.listContainers({ episodeId: id }), { timeout: 30_000, interval: 250 }).toEqual([]);
  });

  it('an episode under its quota is left alone across several watchdog passes', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__minicalc-1' });
    const id = reset.episodeId;
    try {
      const write = await t.client.bash(id, 0, 'dd if=/dev/zero of=/tmp/small bs=1M count=16 status=none; sleep 3; stat -c %s /tmp/small');
      expect(write.observation.trim()).toBe(String(16 * 1024 ** 2));
      const next = await t.client.bash(id, 1, 'echo alive');
      expect(next.observation).toBe('alive\n');
      expect(t.server.provider.disk.stats.checks).toBeGreaterThan(0);
    } finally {
      await t.client.close(id);
    }
  });

  it("a patch whose code fills the grading container's disk scores 0 with the reason, not INFRA_ERROR", async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__intervals-1' });
    const id = reset.episodeId;
    try {
      // Runs only under pytest, so the agent's own container is untouched; in the grader it writes
      // 200 MiB and then holds the run open.
      const code = `
import sys as _sys, time as _time
if "_pytest" in _sys.modules:
    with open("/tmp/fill", "wb") as _f:
        for _ in range(200):
            _f.write(b"x" * (1 << 20))
    _time.sleep(120)
`;
      await t.client.bash(id, 0, `cat >> intervals/__init__.py <<'SWE_ENV_EOF'\n${code}\nSWE_ENV_EOF`);
      const submit = await t.client.submit(id, 1);
      expect(submit.status).toBe('STEP_STATUS_OK');
      expect(submit.reward).toBe(0);
      const report = submit.report!;
      expect(report.infraError).toBe(false);
      const { used } = overrun(report.error);
      expect(used).toBeGreaterThan(LIMIT_MIB);
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
  });
});

describe('host free-space watermark', () => {
  it('Reset is RESOURCE_EXHAUSTED, and starts nothing, while the engine disk has less free space than the watermark', async () => {
    const full = await startTestServer({ minHostFreeBytes: 2 ** 52 }); // 4 PiB: never free here
    try {
      const error = await full.client.reset({ taskId: 'swe-env-demo__minicalc-1' }).then(
        () => undefined,
        (e: unknown) => e as { code?: number; details?: string },
      );
      expect(error?.code).toBe(8); // RESOURCE_EXHAUSTED
      expect(error?.details).toMatch(/disk is nearly full: \d+ MiB free, below the \d+ MiB/);
      await expectNoContainers(full.server.provider);
    } finally {
      await full.stop();
    }
  });
});
