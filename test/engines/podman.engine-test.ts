import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { InfraError } from '../../src/common/errors.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { disposeAll, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

/** The sockets scripts/test-all.sh's Podman leg started (scripts/podman-engine.sh); a missing one fails. */
function socket(name: string): string {
  const path = process.env[name];
  if (!path) throw new Error(`${name} is not set: run this file through scripts/test-all.sh's Podman leg`);
  return path;
}

const rootful = new DockerSandboxProvider(`test-${randomUUID().slice(0, 8)}`, { socketPath: socket('SWE_ENV_PODMAN_ROOTFUL_SOCKET') });
const rootless = new DockerSandboxProvider(`test-${randomUUID().slice(0, 8)}`, { socketPath: socket('SWE_ENV_PODMAN_ROOTLESS_SOCKET') });
const sandboxes: Sandbox[] = [];

afterAll(async () => {
  await disposeAll(rootful, sandboxes);
  await disposeAll(rootless);
  await expectNoContainers(rootful);
  await expectNoContainers(rootless);
});

async function run(sandbox: Sandbox, script: string): Promise<string> {
  const result = await sandbox.exec(['bash', '-c', script], { timeoutMs: 30_000, outputLimitBytes: 4096 });
  return result.output.toString('utf8');
}

async function seccompFiles(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('swe-env-seccomp-'));
}

describe('Podman through its Docker-compatible API', () => {
  it('names itself, and a rootful sandbox holds the seccomp profile and the limits Docker gives it; no profile file is left', async () => {
    expect(await rootful.dialect.kind()).toBe('podman');
    expect((await rootful.identity.identity()).engine).toMatch(/^Podman Engine \d/);
    const before = await seccompFiles();
    const sandbox = await rootful.create(
      testSpec({ limits: { memoryBytes: 512 * 1024 ** 2, nanoCpus: 1e9, pidsLimit: 128, diskBytes: 0 } }),
    );
    sandboxes.push(sandbox);
    // Seccomp mode 2 (filter), ptrace and unshare refused as on Docker, the cgroup's limits set.
    expect(await run(sandbox, 'grep ^Seccomp: /proc/self/status')).toMatch(/^Seccomp:\s+2$/m);
    expect(await run(sandbox, 'unshare -U true 2>&1; echo "rc=$?"')).toMatch(/rc=1/);
    expect(
      await run(
        sandbox,
        'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max',
      ),
    ).toBe(`${512 * 1024 ** 2}\n128\n`);
    expect(await seccompFiles()).toEqual(before);
  });

  it('rootless on cgroup v1 would hold no limit at all, so it starts no sandbox: InfraError saying why, nothing left', async () => {
    await expect(rootless.create(testSpec())).rejects.toThrow(InfraError);
    await expect(rootless.create(testSpec())).rejects.toThrow(/rootless Podman on cgroup v1 ignores memory, CPU and pid limits/);
    expect(await rootless.listContainers()).toEqual([]);
  });
});
