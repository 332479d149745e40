import { randomUUID } from 'node:crypto';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import type { Sandbox, SandboxSpec } from '../../src/sandbox/sandbox.js';

export const BASE_IMAGE = process.env['SWE_ENV_BASE_IMAGE'] ?? 'swe-env/base:latest';

/**
 * The OCI runtime the tests' sandboxes run under: the engine's default, or the one a leg of
 * scripts/test-all.sh names (runsc, for gVisor). The engine itself is DOCKER_HOST's.
 */
export const TEST_OCI_RUNTIME = process.env['SWE_ENV_TEST_OCI_RUNTIME'] || undefined;

/** A provider with a server id of its own, so parallel test files never touch each other's containers. */
export function testProvider(): DockerSandboxProvider {
  return new DockerSandboxProvider(`test-${randomUUID().slice(0, 8)}`, TEST_OCI_RUNTIME ? { ociRuntime: TEST_OCI_RUNTIME } : {});
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
