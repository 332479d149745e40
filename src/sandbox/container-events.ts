import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import type { Logger } from '../common/logger.js';
import type { DiskOverrun } from './disk-watchdog.js';

/** How a container ended, as the engine reported it. */
export interface ContainerFate {
  /** The container's own memory limit was hit (an `oom` event) just before it died. */
  readonly ownOutOfMemory: boolean;
  readonly exitCode: number | undefined;
  /** The disk watchdog stopped it: its writable layer went over the sandbox's disk limit. */
  readonly diskOverrun?: DiskOverrun;
}

interface Seen {
  oomAt?: number;
  diedAt?: number;
  exitCode?: number;
  waiters: Array<() => void>;
}

/** An OOM this close before the death is what killed the container's PID 1. */
const OOM_TO_DEATH_MS = 10_000;
const FORGET_AFTER_MS = 10 * 60_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;

/**
 * Follows the engine's `oom` and `die` events for one server's containers, so a sandbox that died
 * can be told apart: its own commands exhausting its memory limit (the model's failure) or anything
 * else (killed from outside, an engine restart: the environment's). With AutoRemove the container
 * is gone before it could be inspected; the events are what is left.
 */
export class ContainerEvents {
  private readonly seen = new Map<string, Seen>();
  private stream: Readable | undefined;
  private stopped = false;
  private reconnect: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;
  /** When the stream was last known to be open: where a reconnect replays from. */
  private connectedUntil: number | undefined;

  constructor(
    private readonly docker: Docker,
    private readonly serverLabel: string,
    private readonly logger?: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.stream || this.stopped) return;
    // Replays what the engine sent while we were away (it keeps recent events), so an `oom` or `die`
    // during a reconnect is not lost.
    const since = this.connectedUntil === undefined ? undefined : Math.floor(this.connectedUntil / 1000) - 1;
    // dockerode types the events stream as a plain ReadableStream; it is a Node Readable.
    const stream = (await this.docker.getEvents({
      ...(since === undefined ? {} : { since }),
      filters: { type: ['container'], event: ['oom', 'die'], label: [this.serverLabel] },
    })) as unknown as Readable;
    if (this.stopped) {
      stream.destroy();
      return;
    }
    this.stream = stream;
    this.retryMs = RETRY_MIN_MS;
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      this.connectedUntil = Date.now();
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim()) this.record(line);
      }
    });
    stream.on('error', (error: unknown) => this.logger?.warn({ err: error }, 'container event stream failed'));
    stream.on('close', () => this.lost(stream));
    this.connectedUntil = Date.now();
  }

  /** The engine hung up (a restart, a cut socket): follow again, backing off while it is away. */
  private lost(stream: Readable): void {
    if (this.stream !== stream) return;
    this.stream = undefined;
    if (this.stopped) return;
    this.connectedUntil = Date.now();
    this.logger?.warn({ retryMs: this.retryMs }, 'container event stream ended; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.reconnect || this.stopped) return;
    this.reconnect = setTimeout(() => {
      this.reconnect = undefined;
      this.start().catch(() => {
        this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
        this.scheduleReconnect();
      });
    }, this.retryMs);
    this.reconnect.unref();
  }

  /** Whether the engine's events are being followed now (false while reconnecting). */
  get following(): boolean {
    return this.stream !== undefined;
  }

  stop(): void {
    this.stopped = true;
    if (this.reconnect) clearTimeout(this.reconnect);
    this.reconnect = undefined;
    this.stream?.destroy();
    this.stream = undefined;
  }

  /** Takes one event line as the engine's event stream sends it. */
  record(line: string): void {
    let event: { Action?: string; status?: string; id?: string; Actor?: { Attributes?: Record<string, string> } };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      return;
    }
    const id = event.id ?? '';
    if (!id) return;
    const now = Date.now();
    const entry = this.seen.get(id) ?? { waiters: [] };
    const action = event.Action ?? event.status;
    if (action === 'oom') entry.oomAt = now;
    if (action === 'die') {
      entry.diedAt = now;
      const code = Number(event.Actor?.Attributes?.['exitCode']);
      if (Number.isFinite(code)) entry.exitCode = code;
      for (const wake of entry.waiters.splice(0)) wake();
    }
    this.seen.set(id, entry);
    for (const [key, value] of this.seen) {
      if (now - (value.diedAt ?? value.oomAt ?? now) > FORGET_AFTER_MS) this.seen.delete(key);
    }
  }

  /** How the container ended; waits up to `waitMs` for the engine to report its death. */
  async fate(id: string, waitMs = 5000): Promise<ContainerFate | undefined> {
    let entry = this.seen.get(id);
    if (!entry?.diedAt) {
      entry = entry ?? { waiters: [] };
      this.seen.set(id, entry);
      const current = entry;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        current.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    if (!entry.diedAt) {
      if (entry.oomAt === undefined && entry.waiters.length === 0) this.seen.delete(id); // nothing to remember
      return undefined;
    }
    const ownOutOfMemory = entry.oomAt !== undefined && entry.diedAt - entry.oomAt <= OOM_TO_DEATH_MS;
    return { ownOutOfMemory, exitCode: entry.exitCode };
  }
}
