import { abortReason, sleep } from '../../common/abort.js';
import { CancelledError, DeadlineExceededError, InfraError, SweEnvError, messageOf } from '../../common/errors.js';
import { Semaphore } from '../../common/semaphore.js';
import type { PullEngine } from './docker-pull.js';
import { mirrored, parseReference, type MirrorRule } from './image-reference.js';
import { backoffMs, classifyPullFailure, pullAdvice, type PullFailureKind } from './pull-errors.js';
import { describeProgress, PullProgress } from './pull-progress.js';
import { RegistryCredentials } from './registry-credentials.js';

export type PullPhase = 'present' | 'pulling' | 'queued' | 'failed';

/** One image's pull as GetServerInfo, Prefetch and a waiting Reset's error describe it. */
export interface PullState {
  readonly image: string;
  readonly phase: PullPhase;
  readonly error?: string;
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly layersDone: number;
  readonly layersTotal: number;
  readonly attempt: number;
}

export interface PullOptions {
  /** Pulls at once at most (each is decompression-bound: a few per host). */
  readonly maxPulls: number;
  /** Tries after the first for a rate limit, a 5xx or a network error. */
  readonly retries: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly credentials: RegistryCredentials;
  readonly mirrors: readonly MirrorRule[];
  /** Runs in a pull's slot before it pulls: the image cache makes room there. */
  readonly beforePull?: (image: string) => Promise<void>;
  /** Told of each pull's end: the image, whether it came, how many tries it took. */
  readonly onPulled?: (image: string, outcome: 'pulled' | 'failed', attempts: number, seconds: number) => void;
  readonly onRetry?: (image: string, kind: PullFailureKind) => void;
  readonly log?: (message: string, fields: Record<string, unknown>) => void;
}

interface Flight {
  readonly image: string;
  phase: 'queued' | 'pulling';
  attempt: number;
  readonly progress: PullProgress;
  readonly done: Promise<void>;
}

/** A failed pull is reported for this long (GetServerInfo), then forgotten. */
const FAILURE_MEMORY_MS = 10 * 60_000;

/**
 * The server's pulls: one per image however many Resets, Prewarms and Prefetches want it
 * (single-flight), a bound on pulls at once, retries with backoff on what passes, credentials per
 * registry, mirrors. A pull belongs to no caller: a Reset whose deadline passes stops waiting and
 * the pull goes on, so its retry joins it. Only stop() (the server's shutdown) ends pulls.
 */
export class ImagePulls {
  private readonly flights = new Map<string, Flight>();
  private readonly failures = new Map<string, { error: string; at: number; attempts: number }>();
  private readonly slots: Semaphore;
  private readonly stopping = new AbortController();
  /** Pulls completed and failed since start (metrics, GetServerInfo). */
  pullsDone = 0;
  pullsFailed = 0;

  constructor(
    private readonly engine: PullEngine,
    private readonly options: PullOptions,
  ) {
    this.slots = new Semaphore(options.maxPulls);
  }

  get maxPulls(): number {
    return this.options.maxPulls;
  }

  /** Resolves once the image is on the engine, pulling it (or joining its pull) when it is not. */
  async ensure(image: string, signal?: AbortSignal): Promise<void> {
    if (!this.flights.has(image) && (await this.engine.exists(image))) return;
    await this.waitFor(this.start(image), signal);
  }

  /** Starts the image's pull when it is neither present nor pulling, and says where it stands. */
  async prefetch(image: string): Promise<PullState> {
    if (!this.flights.has(image) && (await this.engine.exists(image))) return this.present(image);
    // Waited for by nobody: its failure is remembered for state(), not thrown.
    this.start(image).done.catch(() => undefined);
    return this.state(image) ?? this.present(image);
  }

  /** A pull under way or failed lately; undefined otherwise (present, or never asked for). */
  state(image: string): PullState | undefined {
    const flight = this.flights.get(image);
    if (flight) {
      const p = flight.progress;
      return {
        image,
        phase: flight.phase,
        bytesDone: p.bytesDone,
        bytesTotal: p.bytesTotal,
        layersDone: p.layersDone,
        layersTotal: p.layersTotal,
        attempt: flight.attempt,
      };
    }
    const failure = this.failures.get(image);
    if (failure && Date.now() - failure.at < FAILURE_MEMORY_MS) {
      return {
        image,
        phase: 'failed',
        error: failure.error,
        bytesDone: 0,
        bytesTotal: 0,
        layersDone: 0,
        layersTotal: 0,
        attempt: failure.attempts,
      };
    }
    return undefined;
  }

  /** Every pull running, queued or failed lately. */
  states(): PullState[] {
    const images = new Set([...this.flights.keys(), ...this.failures.keys()]);
    return [...images].map((image) => this.state(image)).filter((s): s is PullState => s !== undefined);
  }

  /** Images being pulled or waiting for a slot (the cache must not take them for unused). */
  inFlight(): string[] {
    return [...this.flights.keys()];
  }

  /** Ends every pull (the server is stopping); their waiters get CANCELLED. */
  stop(): void {
    this.stopping.abort(new CancelledError('the server is shutting down'));
  }

  private present(image: string): PullState {
    return { image, phase: 'present', bytesDone: 0, bytesTotal: 0, layersDone: 0, layersTotal: 0, attempt: 0 };
  }

  private start(image: string): Flight {
    const existing = this.flights.get(image);
    if (existing) return existing;
    const flight: Flight = { image, phase: 'queued', attempt: 0, progress: new PullProgress(), done: Promise.resolve() };
    (flight as { done: Promise<void> }).done = this.run(flight).finally(() => this.flights.delete(image));
    this.flights.set(image, flight);
    return flight;
  }

  private async run(flight: Flight): Promise<void> {
    const started = Date.now();
    await this.slots.acquire(this.stopping.signal);
    try {
      flight.phase = 'pulling';
      await this.options.beforePull?.(flight.image);
      await this.pullWithRetries(flight);
      this.failures.delete(flight.image);
      this.pullsDone += 1;
      this.options.onPulled?.(flight.image, 'pulled', flight.attempt, (Date.now() - started) / 1000);
    } catch (error) {
      this.pullsFailed += 1;
      this.failures.set(flight.image, { error: messageOf(error), at: Date.now(), attempts: flight.attempt });
      this.options.onPulled?.(flight.image, 'failed', flight.attempt, (Date.now() - started) / 1000);
      throw error;
    } finally {
      this.slots.release();
    }
  }

  /** The mirror's copy first (when a rule names one), then the image's own registry. */
  private async pullWithRetries(flight: Flight): Promise<void> {
    const mirror = mirrored(flight.image, this.options.mirrors);
    const sources = mirror ? [mirror, flight.image] : [flight.image];
    const failures: string[] = [];
    let lastKind: PullFailureKind = 'other';
    for (const source of sources) {
      const registry = parseReference(source).registry;
      for (let tries = 1; ; tries++) {
        flight.attempt += 1;
        try {
          await this.engine.pull(
            source,
            this.options.credentials.for(registry),
            (event) => flight.progress.see(event),
            this.stopping.signal,
          );
          if (source !== flight.image) await this.engine.rename(source, flight.image);
          return;
        } catch (error) {
          if (this.stopping.signal.aborted) throw abortReason(this.stopping.signal);
          if (error instanceof SweEnvError) throw error; // the engine itself: not the registry's doing
          const message = firstLine(messageOf(error));
          lastKind = classifyPullFailure(message);
          this.options.log?.('pull failed', { image: flight.image, source, attempt: flight.attempt, kind: lastKind, error: message });
          if (lastKind !== 'retry' || tries > this.options.retries) {
            failures.push(`${source === flight.image ? registry : `mirror ${registry}`}: ${message}`);
            break;
          }
          this.options.onRetry?.(flight.image, lastKind);
          await sleep(backoffMs(tries, this.options.backoffBaseMs, this.options.backoffMaxMs), this.stopping.signal);
        }
      }
    }
    const registry = parseReference(flight.image).registry;
    throw new InfraError(
      `cannot pull ${flight.image} from ${registry}${mirror ? ` or its mirror` : ''} after ${flight.attempt} ${flight.attempt === 1 ? 'try' : 'tries'} (${failures.join('; ')}): ${pullAdvice(lastKind, registry)}`,
    );
  }

  /**
   * Waits for a pull until the caller's signal fires. A deadline says what the pull was doing and
   * that it goes on, so the caller knows a retry will find it further along.
   */
  private async waitFor(flight: Flight, signal: AbortSignal | undefined): Promise<void> {
    if (!signal) return flight.done;
    if (signal.aborted) throw this.waitError(flight, signal);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(this.waitError(flight, signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([flight.done, aborted]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  private waitError(flight: Flight, signal: AbortSignal): Error {
    const reason = abortReason(signal);
    const where =
      flight.phase === 'queued'
        ? `queued behind ${this.slots.inUse} running pulls (--max-pulls ${this.options.maxPulls})`
        : `pulling, ${describeProgress(flight.progress)}, try ${flight.attempt}`;
    const text = `the task's image ${flight.image} is not on this server yet (${where}); the pull goes on: retry later, or Prefetch the tasks of the next batches ahead of their Resets`;
    if (reason instanceof DeadlineExceededError) return new DeadlineExceededError(`the call's deadline passed: ${text}`);
    return reason;
  }
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 500);
}
