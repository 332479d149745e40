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

/**
 * Follows the engine's `oom` and `die` events for one server's containers, so a sandbox that died
 * can be told apart: its own commands exhausting its memory limit (the model's failure) or anything
 * else (killed from outside, an engine restart: the environment's). With AutoRemove the container
 * is gone before it could be inspected; the events are what is left.
 */
export class ContainerEvents {
  private readonly seen = new Map<string, Seen>();
  private stream: Readable | undefined;

  constructor(
    private readonly docker: Docker,
    private readonly serverLabel: string,
    private readonly logger?: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.stream) return;
    // dockerode types the events stream as a plain ReadableStream; it is a Node Readable.
    const stream = (await this.docker.getEvents({
      filters: { type: ['container'], event: ['oom', 'die'], label: [this.serverLabel] },
    })) as unknown as Readable;
    this.stream = stream;
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.trim()) this.record(line);
      }
    });
    stream.on('error', (error: unknown) => this.logger?.warn({ err: error }, 'container event stream failed'));
  }

  stop(): void {
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
