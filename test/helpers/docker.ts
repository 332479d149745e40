import { randomUUID } from 'node:crypto';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import type { Sandbox, SandboxSpec } from '../../src/sandbox/sandbox.js';

export const BASE_IMAGE = process.env['SWE_ENV_BASE_IMAGE'] ?? 'swe-env/base:latest';

/** A provider with a server id of its own, so parallel test files never touch each other's containers. */
export function testProvider(): DockerSandboxProvider {
  return new DockerSandboxProvider(`test-${randomUUID().slice(0, 8)}`);
}

export function testSpec(overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    image: BASE_IMAGE,
    workdir: '/',
    maxLifetimeS: 600,
    role: 'episode',
    episodeId: `ep-${randomUUID().slice(0, 8)}`,
    limits: { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 256, diskBytes: 0 },
    ...overrides,
  };
}

/** Removes every container the provider's server id made; call from afterAll/afterEach. */
export async function disposeAll(provider: DockerSandboxProvider, sandboxes: Sandbox[] = []): Promise<void> {
  await Promise.allSettled(sandboxes.map((s) => s.remove()));
  await provider.removeServerContainers();
}
