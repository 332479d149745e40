import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A disk that stops answering writes, mounted in a container, to keep a process of it waiting in
 * the kernel past SIGKILL for as long as a test wants (the state queued reads by the gigabyte put
 * a process in, without saturating the host's disk). A small filesystem image (inner) is attached
 * to a loop device and mounted at `mountPoint` in the container's mount namespace; the image's
 * file lies on another small filesystem (outer) mounted on the host. `stall()` freezes the outer
 * filesystem: the loop device's writes to its file wait, and so does a process of the container
 * writing to the inner filesystem with O_DIRECT, in an uninterruptible wait (ps state D) that
 * neither SIGKILL nor the cgroup freezer ends. `release()` thaws it. Needs root and the engine on
 * this host (the container's host pid).
 */
export interface StuckDisk {
  readonly mountPoint: string;
  stall(): Promise<void>;
  release(): Promise<void>;
  /** Thaws, detaches and removes everything; safe to call twice, and after a failed set-up. */
  dispose(): Promise<void>;
}

export async function stuckDisk(containerHostPid: number, mountPoint = '/mnt/stuck'): Promise<StuckDisk> {
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-stuck-disk-'));
  const outerImage = join(dir, 'outer.img');
  const outer = join(dir, 'outer');
  let outerMounted = false;
  let stalled = false;
  let loop: string | undefined;
  const release = async (): Promise<void> => {
    if (!stalled) return;
    await run('fsfreeze', ['-u', outer]);
    stalled = false;
  };
  const dispose = async (): Promise<void> => {
    await release().catch(() => undefined);
    if (loop !== undefined) await run('losetup', ['-d', loop]).catch(() => undefined);
    loop = undefined;
    if (outerMounted) await run('umount', ['-l', outer]).catch(() => undefined);
    outerMounted = false;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await run('truncate', ['-s', '64M', outerImage]);
    await run('mkfs.ext4', ['-q', '-F', outerImage]);
    await run('mkdir', ['-p', outer]);
    await run('mount', ['-o', 'loop', outerImage, outer]);
    outerMounted = true;
    const innerImage = join(outer, 'inner.img');
    await run('truncate', ['-s', '16M', innerImage]);
    await run('mkfs.ext4', ['-q', '-F', innerImage]);
    loop = (await run('losetup', ['-f', '--show', innerImage])).stdout.trim();
    const minor = /^\/dev\/loop(\d+)$/.exec(loop)?.[1];
    if (minor === undefined) throw new Error(`losetup gave ${loop}`);
    // The device node goes in the container's /dev (a tmpfs of its own): nothing in its layer.
    const node = `/dev/swe-env-stuck-${minor}`;
    await run('nsenter', [
      '-t',
      String(containerHostPid),
      '-m',
      'sh',
      '-c',
      `mknod ${node} b 7 ${minor} && mkdir -p ${mountPoint} && mount ${node} ${mountPoint} && chmod 777 ${mountPoint}`,
    ]);
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    mountPoint,
    stall: async () => {
      await run('fsfreeze', ['-f', outer]);
      stalled = true;
    },
    release,
    dispose,
  };
}
