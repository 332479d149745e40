import { randomUUID } from 'node:crypto';
import type { Logger } from '../common/logger.js';
import { messageOf } from '../common/errors.js';
import type { Semaphore } from '../common/semaphore.js';
import type { SandboxLimits, SandboxProvider } from '../sandbox/sandbox.js';
import type { Task } from '../tasks/task.js';
import { readySandbox, type ReadySandbox } from './ready-sandbox.js';

/** A ready sandbox (see readySandbox) waiting for a Reset of its task. */
export interface WarmSandbox extends ReadySandbox {
  /** When its container's keeper ends it (its maximum life runs from its start). */
  readonly endsAt: number;
  readonly warmedAt: number;
}

export interface WarmPoolConfig {
  /** Warm sandboxes over all tasks at most (0: prewarming off). */
  readonly maxWarm: number;
  /** Memory the warm sandboxes may hold in all (each counts its sandbox memory limit). */
  readonly warmMemoryBytes: number;
  /** A warm sandbox nobody took within this is removed. */
  readonly warmTtlS: number;
  /** The longest episode life a warm sandbox must still be able to give (episode + idle timeouts). */
  readonly episodeLifeS: number;
  readonly limits: SandboxLimits;
}

/**
 * Ready sandboxes per task, so a GRPO group's Resets need not queue behind the engine's serialised
 * container starts. A warm sandbox is made exactly as a Reset makes one (same container spec, the
 * same shell start and repository checks: the episode cannot tell), kept within a count and a
 * memory budget, taken by a Reset of its task (which starts a replacement while the task is still
 * wanted), and removed when nobody took it within its time to live.
 */
export class WarmPool {
  private readonly ready = new Map<string, WarmSandbox[]>();
  /** How many each task should keep warm, until when. */
  private readonly targets = new Map<string, { task: Task; count: number; until: number }>();
  /** Sandboxes being made, per task. */
  private readonly startingByTask = new Map<string, number>();
  private closed = false;
  readonly stats = { warmed: 0, taken: 0, expired: 0, failed: 0 };

  constructor(
    private readonly provider: SandboxProvider,
    private readonly starts: Semaphore,
    private readonly config: WarmPoolConfig,
    private readonly logger: Logger,
  ) {}

  get warmCount(): number {
    let n = 0;
    for (const list of this.ready.values()) n += list.length;
    return n;
  }

  get startingCount(): number {
    let n = 0;
    for (const count of this.startingByTask.values()) n += count;
    return n;
  }

  /** How many more the budgets allow (count and memory). */
  private room(): number {
    const byMemory = Math.floor(this.config.warmMemoryBytes / Math.max(1, this.config.limits.memoryBytes));
    return Math.max(0, Math.min(this.config.maxWarm, byMemory) - this.warmCount - this.startingCount);
  }

  /**
   * Keeps `count` sandboxes of the task warm for the next warm-TTL seconds, starting the missing
   * ones in the background. Returns how many are warm and starting for it, and why fewer when the
   * budget is short.
   */
  prewarm(task: Task, count: number): { warm: number; starting: number; message: string } {
    const until = Date.now() + this.config.warmTtlS * 1000;
    this.targets.set(task.id, { task, count, until });
    const have = (this.ready.get(task.id)?.length ?? 0) + this.startingFor(task.id);
    const want = Math.max(0, count - have);
    const allowed = Math.min(want, this.room());
    for (let i = 0; i < allowed; i++) this.warmOne(task);
    const short = want - allowed;
    return {
      warm: this.ready.get(task.id)?.length ?? 0,
      starting: this.startingFor(task.id),
      message:
        short > 0
          ? `${short} not started: the warm budget (${this.config.maxWarm} sandboxes, ${Math.floor(this.config.warmMemoryBytes / 1024 ** 2)} MiB) is used`
          : '',
    };
  }

  private startingFor(taskId: string): number {
    return this.startingByTask.get(taskId) ?? 0;
  }

  private warmOne(task: Task): void {
    this.startingByTask.set(task.id, this.startingFor(task.id) + 1);
    this.make(task)
      .then(
        (warm) => {
          if (this.closed) {
            void this.discard(warm);
            return;
          }
          const list = this.ready.get(task.id) ?? [];
          list.push(warm);
          this.ready.set(task.id, list);
          this.stats.warmed += 1;
        },
        (error: unknown) => {
          this.stats.failed += 1;
          this.logger.warn({ task: task.id, err: messageOf(error) }, 'prewarming a sandbox failed');
        },
      )
      .finally(() => {
        this.startingByTask.set(task.id, this.startingFor(task.id) - 1);
      });
  }

  /** The same container, shell and checks a cold Reset makes (readySandbox), made now. */
  private async make(task: Task): Promise<WarmSandbox> {
    const lifeS = this.config.warmTtlS + this.config.episodeLifeS;
    const started = Date.now();
    const ready = await readySandbox(
      this.provider,
      task,
      { episodeId: `warm-${randomUUID()}`, maxLifetimeS: lifeS, limits: this.config.limits },
      (create) => this.starts.with(create),
    );
    return { ...ready, endsAt: started + lifeS * 1000, warmedAt: Date.now() };
  }

  /**
   * A warm sandbox of the task that can still live `lifeS` seconds, or undefined. Taking one starts
   * a replacement while the task's prewarm target holds.
   */
  take(task: Task, lifeS: number): WarmSandbox | undefined {
    const list = this.ready.get(task.id);
    if (!list?.length) return undefined;
    const index = list.findIndex((w) => w.endsAt - Date.now() >= lifeS * 1000);
    if (index < 0) return undefined;
    const [warm] = list.splice(index, 1);
    this.stats.taken += 1;
    const target = this.targets.get(task.id);
    const have = list.length + this.startingFor(task.id);
    if (target && target.until > Date.now() && have < target.count && this.room() > 0) this.warmOne(task);
    return warm;
  }

  /** Removes warm sandboxes past their time to live, and forgets lapsed targets. */
  async sweep(now = Date.now()): Promise<void> {
    for (const [taskId, target] of [...this.targets]) if (target.until <= now) this.targets.delete(taskId);
    for (const [taskId, list] of [...this.ready]) {
      const keep: WarmSandbox[] = [];
      for (const warm of list) {
        if (now - warm.warmedAt >= this.config.warmTtlS * 1000) {
          this.stats.expired += 1;
          await this.discard(warm);
        } else keep.push(warm);
      }
      this.ready.set(taskId, keep);
    }
  }

  private async discard(warm: WarmSandbox): Promise<void> {
    await warm.shell.close().catch(() => undefined);
    await warm.sandbox
      .remove()
      .catch((error: unknown) => this.logger.warn({ err: messageOf(error) }, 'cannot remove a warm sandbox; its expiry label bounds it'));
  }

  /** Removes every warm sandbox (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.ready.values()].flat();
    this.ready.clear();
    await Promise.allSettled(all.map((w) => this.discard(w)));
  }
}
