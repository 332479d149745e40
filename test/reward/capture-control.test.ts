import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureChange } from '../../src/reward/patch-capture.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A failed capture is INFRA_ERROR only when the same steps on a pristine copy of the task fail too.
 * The capture runs on real containers; one of its engine calls is made to fail: on the agent's
 * container alone (the pristine copy works: the model's failure, with the reason), or on every
 * container (the control fails too: INFRA_ERROR). The capture also leaves the agent's sandbox
 * thawed (its PID 1's own expiry keeps working) and removes every scratch container it made.
 */
let t: TestServer;
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === 'swe-env-demo__textkit-3')!;

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

/** The sandbox with one of its methods failing. */
function failing(sandbox: Sandbox, method: keyof Sandbox, message: string): Sandbox {
  return new Proxy(sandbox, {
    get(target, prop, receiver) {
      if (prop === method) return () => Promise.reject(new Error(message));
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function withAgent(
  body: (agent: Sandbox, base: string, openScratch: () => Promise<Sandbox>, scratches: Sandbox[]) => Promise<void>,
): Promise<void> {
  const spec = {
    image: task.image,
    workdir: task.workdir,
    maxLifetimeS: 300,
    role: 'episode' as const,
    episodeId: `capture-control-${Date.now()}`,
    limits: t.server.config.limits,
  };
  const agent = await t.server.provider.create(spec);
  const scratches: Sandbox[] = [];
  const openScratch = async (): Promise<Sandbox> => {
    const scratch = await t.server.provider.create({ ...spec, role: 'grader' });
    scratches.push(scratch);
    return scratch;
  };
  try {
    const head = await agent.exec(['git', 'rev-parse', 'HEAD']);
    expect((await agent.exec(['bash', '-c', 'echo "changed" >> textkit/truncate.py'])).exitCode).toBe(0);
    await body(agent, head.output.toString('utf8').trim(), openScratch, scratches);
  } finally {
    await agent.remove();
    for (const scratch of scratches) await scratch.remove();
  }
}

const input = (base: string): { workdir: string; baseCommit: string; maxPatchBytes: number; timeoutMs: number } => ({
  workdir: task.workdir,
  baseCommit: base,
  maxPatchBytes: 1024 * 1024,
  timeoutMs: 60_000,
});

describe('capture failures attributed by control', () => {
  it('captures a plain change, leaves the agent thawed and its scratch containers gone', async () => {
    await withAgent(async (agent, base, openScratch, scratches) => {
      const captured = await captureChange(agent, openScratch, input(base));
      expect(captured.ok).toBe(true);
      expect(captured.ok && captured.patch.toString('utf8')).toContain('+changed');
      expect(await agent.isPaused()).toBe(false);
      expect(scratches.length).toBe(1);
      expect(await scratches[0]!.isRunning()).toBe(false);
    });
  });

  it("a read that fails on the agent's container only is the model's failure, with the reason", async () => {
    await withAgent(async (agent, base, openScratch) => {
      const captured = await captureChange(failing(agent, 'readArchive', 'the archive broke off'), openScratch, input(base));
      expect(captured.ok).toBe(false);
      expect(!captured.ok && captured.infra).toBe(false);
      expect(!captured.ok && captured.error).toMatch(
        /could not be captured \(the same steps on a pristine copy of the task work\): .*the archive broke off/,
      );
      expect(await agent.isPaused()).toBe(false);
    });
  });

  it('a failure the pristine copy shares is INFRA_ERROR', async () => {
    await withAgent(async (agent, base, openScratch) => {
      const broken = async (): Promise<Sandbox> => failing(await openScratch(), 'readArchive', 'the engine cannot read archives');
      const captured = await captureChange(failing(agent, 'readArchive', 'the engine cannot read archives'), broken, input(base));
      expect(captured.ok).toBe(false);
      expect(!captured.ok && captured.infra).toBe(true);
      expect(!captured.ok && captured.error).toMatch(
        /and so did its steps on a pristine copy of the task \(.*the engine cannot read archives/,
      );
    });
  });
});
