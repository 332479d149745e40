/**
 * A sandbox's disk bandwidth limits on a real engine: the kernel holds them for the sandbox's
 * cgroup on the engine's storage device (what the engine was asked for is in
 * test/unit/io-limits.test.ts), and a device the engine's host does not have is refused at the
 * start with what to give instead. Without them one sandbox's direct reads or writes can take the
 * whole disk from every other sandbox on the host (reads queued by the gigabyte: the AIO attack of
 * test/fixtures/attacks/aio-unkillable-reads.c).
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox, SandboxIoLimits } from '../../src/sandbox/sandbox.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

const provider = testProvider();
const sandboxes: Sandbox[] = [];
const LIMITS = { memoryBytes: 1024 ** 3, nanoCpus: 1e9, pidsLimit: 256, diskBytes: 0 };
let device: { path: string; id: string };

/** The block device the engine's storage lies on (the engine runs on this host in the tests) and its major:minor. */
async function storageDevice(): Promise<{ path: string; id: string }> {
  const root = ((await provider.docker.info()) as { DockerRootDir?: string }).DockerRootDir ?? '/var/lib/docker';
  const source = (await promisify(execFile)('findmnt', ['-no', 'SOURCE', '--target', root])).stdout.trim().replace(/\[.*\]$/, '');
  const rdev = (await stat(source)).rdev;
  if (!source.startsWith('/dev/') || rdev === 0) throw new Error(`the engine's storage (${root}) is on ${source}, not a block device`);
  return { path: source, id: `${Math.floor(rdev / 256) & 0xfff}:${(rdev & 0xff) | ((rdev >> 12) & 0xfff00)}` };
}

beforeAll(async () => {
  device = await storageDevice();
});

afterAll(async () => {
  await disposeAll(provider, sandboxes);
  await expectNoContainers(provider);
});

async function create(io: SandboxIoLimits): Promise<Sandbox> {
  const sandbox = await provider.create(testSpec({ workdir: '/tmp', limits: { ...LIMITS, io } }));
  sandboxes.push(sandbox);
  return sandbox;
}

describe("a sandbox's I/O limits", () => {
  it("are held by the kernel for the sandbox's cgroup on the storage device", async () => {
    const sandbox = await create({ device: device.path, readBps: 40 * 1024 ** 2, writeBps: 20 * 1024 ** 2, readIops: 0, writeIops: 3000 });
    // cgroup v1 (blkio's throttle files) or v2 (io.max), whichever the engine's host has.
    const read = await sandbox.exec(
      [
        'bash',
        '-c',
        'cd /sys/fs/cgroup; for f in blkio/blkio.throttle.read_bps_device blkio/blkio.throttle.write_bps_device blkio/blkio.throttle.write_iops_device io.max; do [ -r $f ] && echo "$f: $(cat $f)"; done; true',
      ],
      { timeoutMs: 30_000 },
    );
    const held = read.output.toString();
    if (held.includes('io.max')) {
      expect(held).toMatch(new RegExp(`io.max: ${device.id} rbps=${40 * 1024 ** 2} wbps=${20 * 1024 ** 2} riops=max wiops=3000`));
    } else {
      expect(held).toContain(`read_bps_device: ${device.id} ${40 * 1024 ** 2}`);
      expect(held).toContain(`write_bps_device: ${device.id} ${20 * 1024 ** 2}`);
      expect(held).toContain(`write_iops_device: ${device.id} 3000`);
    }
  });

  it("on a device the engine's host does not have: refused at the start, saying what to give", async () => {
    await expect(
      create({ device: '/dev/swe-env-no-such-disk', readBps: 1024 ** 2, writeBps: 0, readIops: 0, writeIops: 0 }),
    ).rejects.toThrow(/is not a device on the engine's host: give --io-device the block device its storage lies on/);
  });
});
