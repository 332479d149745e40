import { opendir, readdir, readFile, readlink, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { EngineDialect } from './engines/engine-dialect.js';

/**
 * What a sandbox costs its engine's disk beyond the writable layer's byte size (the engine's
 * SizeRw), read from the host's side only: nothing runs inside the sandbox and nothing it can write
 * is trusted. Both need the engine's storage on this machine (a local engine, this process able to
 * read it); where it is not, they report nothing and the README says what is left unbounded.
 *
 * - Inodes. Empty files cost no bytes, but a million of them exhaust the backing filesystem's inode
 *   table. Each entry of the writable layer (its upper directory, counted by walking it) is charged
 *   the filesystem's bytes per inode (its size over its inode count, 16 KiB on a default ext4), so a
 *   sandbox cannot use up inodes faster than its quota lets it use up space.
 * - Deleted-but-open files. A file written, kept open and deleted is no longer in the layer but holds
 *   its blocks until closed. The sandbox's processes (host pids, each checked to be in the
 *   container's cgroup) are looked at through the host's /proc: every open descriptor on a
 *   deleted regular file is charged its allocated blocks, once per file. The pids come from the
 *   container's cgroup on the host (a file read), else from the engine's `top`.
 */
export class LayerUsage {
  private bytesPerInode: number | null | undefined = undefined;

  constructor(private readonly dialect: EngineDialect) {}

  /** Bytes charged for the layer's entries, counting no further than `capBytes` (or undefined: unknown). */
  async inodeBytes(upperDir: string | undefined, capBytes: number): Promise<number | undefined> {
    if (!upperDir) return undefined;
    const perInode = await this.perInode(upperDir);
    if (!perInode) return undefined;
    const entries = await countEntries(upperDir, Math.floor(capBytes / perInode) + 1);
    return entries === undefined ? undefined : entries * perInode;
  }

  /**
   * Blocks held by deleted files the container's processes keep open (0 when none are seen).
   * `initPid` is the container's PID 1 as the host sees it (the engine's State.Pid).
   */
  async hiddenBytes(container: Docker.Container, initPid: number | undefined): Promise<number> {
    const pids = (await cgroupPids(container.id, initPid)) ?? (await enginePids(container, this.dialect));
    const seen = new Set<string>();
    let total = 0;
    for (const pid of pids) {
      // Only a process the host's /proc shows in this container's cgroup: this process may not share
      // the engine's pid namespace, and a pid may have been reused since the engine listed it.
      const cgroup = await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => '');
      if (!cgroup.includes(container.id)) continue;
      const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
      for (const fd of fds) {
        const path = `/proc/${pid}/fd/${fd}`;
        const target = await readlink(path).catch(() => '');
        if (!target.endsWith(' (deleted)') || !target.startsWith('/')) continue;
        const info = await stat(path).catch(() => undefined);
        if (!info?.isFile()) continue;
        const key = `${info.dev}:${info.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
        total += info.blocks * 512;
      }
    }
    return total;
  }

  private async perInode(path: string): Promise<number | undefined> {
    if (this.bytesPerInode === undefined) {
      try {
        const fs = await statfs(path);
        this.bytesPerInode = fs.files > 0 ? Math.max(4096, Math.floor((fs.blocks * fs.bsize) / fs.files)) : null;
      } catch {
        this.bytesPerInode = null;
      }
    }
    return this.bytesPerInode ?? undefined;
  }
}

/**
 * The host pids of the container's cgroup, read from the host's cgroup filesystem (v1's pids
 * hierarchy, or v2's unified one), found from its PID 1; undefined when that is not readable here.
 */
async function cgroupPids(containerId: string, initPid: number | undefined): Promise<number[] | undefined> {
  if (!initPid) return undefined;
  const lines = await readFile(`/proc/${initPid}/cgroup`, 'utf8').catch(() => '');
  if (!lines.includes(containerId)) return undefined;
  const candidates: string[] = [];
  for (const line of lines.split('\n')) {
    const [, controllers, path] = line.split(':');
    if (path === undefined || !path.includes(containerId)) continue;
    if (controllers === 'pids') candidates.push(`/sys/fs/cgroup/pids${path}/cgroup.procs`);
    if (controllers === '') candidates.push(`/sys/fs/cgroup${path}/cgroup.procs`, `/sys/fs/cgroup/unified${path}/cgroup.procs`);
  }
  for (const file of candidates) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    return text
      .split('\n')
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 0);
  }
  return undefined;
}

/** The container's host pids as the engine lists them (read from the kernel: nothing of the container runs). */
async function enginePids(container: Docker.Container, dialect: EngineDialect): Promise<number[]> {
  try {
    const top = (await container.top({ ps_args: await dialect.hostPidArgs() })) as { Processes?: string[][] };
    return (top.Processes ?? []).map((row) => Number(row[0])).filter((pid) => Number.isInteger(pid) && pid > 0);
  } catch {
    return [];
  }
}

/** Entries under `dir` (itself excluded), without following links, stopping at `cap`; undefined when unreadable. */
export async function countEntries(dir: string, cap: number): Promise<number | undefined> {
  let count = 0;
  const pending = [dir];
  try {
    while (pending.length > 0 && count < cap) {
      const current = pending.pop()!;
      const handle = await opendir(current, { bufferSize: 256 }).catch((error: unknown) => {
        if (current === dir) throw error;
        return undefined; // removed meanwhile
      });
      if (!handle) continue;
      for await (const entry of handle) {
        count += 1;
        if (entry.isDirectory()) pending.push(join(current, entry.name));
        if (count >= cap) break;
      }
    }
  } catch {
    return undefined;
  }
  return count;
}
