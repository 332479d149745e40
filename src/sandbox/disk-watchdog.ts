import { statfs } from 'node:fs/promises';
import type Docker from 'dockerode';
import type { Logger } from '../common/logger.js';
import { LayerUsage } from './layer-usage.js';
import type { EngineDialect } from './engines/engine-dialect.js';

/** What a watched container used of its disk quota when it was stopped. */
export interface DiskOverrun {
  readonly usedBytes: number;
  readonly limitBytes: number;
}

interface Watched {
  readonly container: Docker.Container;
  readonly limitBytes: number;
  overrun?: DiskOverrun;
}

/**
 * Keeps each sandbox's writable layer under its quota where the storage driver cannot (overlay2 on
 * ext4 has no per-container size option): every interval it asks the engine for each live
 * container's writable-layer size (inspect with size, read by the engine; nothing runs inside),
 * adds what that misses as seen from the host (deleted files held open, and each inode charged the
 * filesystem's bytes per inode: LayerUsage), and kills a container over its quota. The kill is recorded first, so the episode or the grading that
 * finds its container dead reads it as the model's failure, not the environment's. Checks run one
 * container at a time: however many sandboxes, the engine walks one layer at once.
 *
 * It also reads the host's free space where the engine keeps its layers (when that directory is on
 * this machine), for the Reset watermark.
 */
export class DiskWatchdog {
  private readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private rootDir: string | undefined | null = undefined;
  private lastFree: { at: number; bytes: number | undefined } | undefined;
  /** Checks done and how long they took, for the benchmark and the logs. */
  readonly stats = { checks: 0, checkMs: 0, kills: 0 };

  private readonly usage: LayerUsage;

  constructor(
    private readonly docker: Docker,
    dialect: EngineDialect,
    private readonly logger?: Logger,
  ) {
    this.usage = new LayerUsage(dialect);
  }

  watch(container: Docker.Container, limitBytes: number): void {
    if (limitBytes > 0) this.watched.set(container.id, { container, limitBytes });
  }

  forget(id: string): void {
    this.watched.delete(id);
  }

  /** Set when the watchdog stopped this container for going over its quota. */
  overrun(id: string): DiskOverrun | undefined {
    return this.watched.get(id)?.overrun;
  }

  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.running ??= this.checkAll().finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass over every watched container (also what the timer runs). */
  async checkAll(): Promise<void> {
    for (const entry of [...this.watched.values()]) {
      if (entry.overrun) continue;
      await this.check(entry);
    }
  }

  private async check(entry: Watched): Promise<void> {
    const started = Date.now();
    let used: number;
    try {
      // `size` is a query parameter dockerode passes through but does not type.
      const options = { size: true } as Docker.ContainerInspectOptions;
      const info = (await entry.container.inspect(options)) as {
        SizeRw?: number;
        State?: { Running?: boolean; Pid?: number };
        GraphDriver?: { Data?: Record<string, string> };
      };
      if (info.State?.Running === false) return;
      used = info.SizeRw ?? 0;
      // What the byte size misses (see LayerUsage): deleted files held open, and inodes.
      if (used <= entry.limitBytes) used += await this.usage.hiddenBytes(entry.container, info.State?.Pid);
      if (used <= entry.limitBytes)
        used += (await this.usage.inodeBytes(info.GraphDriver?.Data?.['UpperDir'], entry.limitBytes - used)) ?? 0;
    } catch {
      return; // gone, or the engine is busy: the next pass looks again
    } finally {
      this.stats.checks += 1;
      this.stats.checkMs += Date.now() - started;
    }
    if (used <= entry.limitBytes) return;
    entry.overrun = { usedBytes: used, limitBytes: entry.limitBytes };
    this.stats.kills += 1;
    this.logger?.info(
      { container: entry.container.id.slice(0, 12), usedBytes: used, limitBytes: entry.limitBytes },
      'sandbox over its disk quota: stopped',
    );
    await entry.container.kill({ signal: 'SIGKILL' }).catch(() => undefined);
  }

  /**
   * Free bytes on the filesystem holding the engine's layers, or undefined when that directory is
   * not on this machine (a remote engine). Cached for a second: Reset asks on every call.
   */
  async hostFreeBytes(): Promise<number | undefined> {
    const now = Date.now();
    if (this.lastFree && now - this.lastFree.at < 1000) return this.lastFree.bytes;
    if (this.rootDir === undefined) {
      const info = (await this.docker.info().catch(() => ({}))) as { DockerRootDir?: string };
      this.rootDir = info.DockerRootDir ?? null;
    }
    let bytes: number | undefined;
    if (this.rootDir) {
      try {
        const stats = await statfs(this.rootDir);
        bytes = stats.bavail * stats.bsize;
      } catch {
        bytes = undefined;
      }
    }
    this.lastFree = { at: now, bytes };
    return bytes;
  }
}
