import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

// Family 7: tool-call JSON nested thousands deep once answered INTERNAL and wedged the episode (the
// trajectory's serialisation overflowed the stack after the step had its outcome, so the step stayed
// "running" forever). With trajectories recorded, as the CLI does by default.
let t: TestServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'swe-env-deep-'));
  t = await startTestServer({ trajectoryDir: dir });
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
  await rm(dir, { recursive: true, force: true });
});

describe('tool-call arguments nested 5,000 deep', () => {
  it.each([
    ['an array', `${'['.repeat(5000)}${']'.repeat(5000)}`],
    ['an object', `{"command": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`],
  ])('as %s are an invalid action, and the episode goes on', async (_kind, argumentsJson) => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__intervals-1' });
    const deep = await t.client.step(reset.episodeId, 0, { name: 'bash', argumentsJson });
    expect(deep.status).toBe('STEP_STATUS_INVALID_ACTION');
    expect(deep.observation).toMatch(/nest arrays or objects more than 32 deep/);
    const next = await t.client.bash(reset.episodeId, 1, 'echo still-here');
    expect(next.status).toBe('STEP_STATUS_OK');
    expect(next.observation).toContain('still-here');
    await t.client.close(reset.episodeId);
  });
});
