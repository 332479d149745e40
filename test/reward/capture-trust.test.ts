import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { applyPatchCommand, DEMO_TASKS, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The change is read without running anything in the agent's container. Shown here: a `git` that
 * hangs, first on PATH, and a hanging core.fsmonitor really stall git in the agent's container,
 * yet the submit captures the change and grades it (the fix scores 1, no INFRA_ERROR, no stall);
 * a 20 GB sparse file is refused before any of it is read, as the model's failure.
 */
let t: TestServer;
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === 'swe-env-demo__textkit-3')!;

beforeAll(async () => {
  // No disk quota: its watchdog measures the 20 GB file by its apparent size and would stop the
  // sandbox at a time of its own, before or while the capture this file is about reads it.
  t = await startTestServer({ limits: { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 512, diskBytes: 0 } });
});

afterAll(async () => {
  await t?.stop();
  expect(await t.server.provider.listContainers()).toEqual([]);
});

describe("capturing the agent's change", () => {
  it('a poisoned git (hanging binary first on PATH, hanging core.fsmonitor) stalls git in the container, not the capture', async () => {
    const reset = await t.client.reset({ taskId: task.id, options: { commandTimeoutS: 20 } });
    const id = reset.episodeId;
    try {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      const poison = [
        "git config core.fsmonitor 'sleep 1000'",
        'mkdir -p /usr/local/bin',
        "printf '#!/bin/sh\\nsleep 1000\\n' > /usr/local/bin/git && chmod +x /usr/local/bin/git",
        'hash -r',
      ].join(' && ');
      expect((await t.client.bash(id, 1, poison)).exitCode).toBe(0);
      // The trick works where it runs: git in the agent's container hangs.
      const stalled = await t.client.bash(id, 2, 'timeout 3 git status; echo "exit=$?"; timeout 3 /usr/bin/git status; echo "exit=$?"');
      expect(stalled.observation).toMatch(/exit=124[\s\S]*exit=124/);
      const submitted = await t.client.submit(id, 3);
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.reward).toBe(1);
      expect(submitted.report!.infraError).toBe(false);
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
  });

  it('a 20 GB sparse file is refused before it is read: reward 0 with the reason, not an infrastructure error', async () => {
    const reset = await t.client.reset({ taskId: task.id });
    const id = reset.episodeId;
    try {
      expect((await t.client.bash(id, 0, 'truncate -s 20G textkit/big.bin && ls -la textkit/big.bin')).exitCode).toBe(0);
      const submitted = await t.client.submit(id, 1);
      expect(submitted.reward).toBe(0);
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.report!.infraError).toBe(false);
      expect(submitted.report!.error).toMatch(/too large to grade: textkit\/big\.bin is 21474836480 bytes/);
    } finally {
      await t.client.close(id).catch(() => undefined);
    }
  });
});
