import { expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../../src/client/client.js';
import { packageRoot } from '../../src/common/paths.js';
import { startServer, type RunningServer } from '../../src/server/app.js';
import { compileConfig, type ServerConfigInput } from '../../src/server/config.js';
import { TEST_OCI_RUNTIME } from './docker.js';

export const DEMO_TASKS = join(packageRoot(), 'tasks', 'demo', 'tasks.jsonl');

export interface TestServer {
  readonly server: RunningServer;
  readonly client: SweEnvClient;
  stop(): Promise<void>;
}

/** A real server on a random loopback port with its own server id, and a real gRPC client. */
export async function startTestServer(overrides: ServerConfigInput = {}): Promise<TestServer> {
  const config = compileConfig({
    host: '127.0.0.1',
    port: 0,
    serverId: `test-${randomUUID().slice(0, 8)}`,
    taskFiles: [DEMO_TASKS],
    limits: { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 512 },
    sweepIntervalS: 1,
    shutdownGraceS: 2,
    testTimeoutS: 300,
    ...(TEST_OCI_RUNTIME ? { ociRuntime: TEST_OCI_RUNTIME } : {}),
    ...overrides,
  });
  const server = await startServer(config, { logger: pino({ level: process.env['SWE_ENV_TEST_LOG'] ?? 'silent' }) });
  const client = new SweEnvClient(server.address);
  return {
    server,
    client,
    stop: async () => {
      client.dispose();
      await server.shutdown();
    },
  };
}

/** The task's gold patch applied through bash, as a model would. */
export { applyPatchCommand } from '../../src/trajectories/collect/scripted-model.js';

/**
 * Every container the server started is gone. Polled: a container that died (killed from outside,
 * or its keeper's own end) is deleted by the engine's AutoRemove, which may still be under way when
 * the server's removal call returns.
 */
export async function expectNoContainers(provider: { listContainers(): Promise<string[]> }): Promise<void> {
  // A loop, not expect.poll: this runs in afterAll hooks too.
  const until = Date.now() + 30_000;
  let left = await provider.listContainers();
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    left = await provider.listContainers();
  }
  expect(left).toEqual([]);
}
