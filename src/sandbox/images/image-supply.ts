import type Docker from 'dockerode';
import { DockerPullEngine, type PullEngine } from './docker-pull.js';
import { ImageCache, canonical, type CacheBudget, type CacheReport } from './image-cache.js';
import type { MirrorRule } from './image-reference.js';
import { ImagePulls, type PullState } from './image-pulls.js';
import type { PullFailureKind } from './pull-errors.js';
import { RegistryCredentials } from './registry-credentials.js';

export interface ImageSupplyOptions {
  readonly maxPulls: number;
  readonly pullRetries: number;
  readonly pullBackoffBaseMs: number;
  readonly pullBackoffMaxMs: number;
  readonly credentials: RegistryCredentials;
  readonly mirrors: readonly MirrorRule[];
  /** A task-image disk budget; undefined: images are never removed by the server. */
  readonly cache: CacheBudget | undefined;
  /** A prefetched image is kept from eviction this long after the Prefetch. */
  readonly prefetchPinS: number;
  /** The images the loaded tasks name (the cache's candidates). */
  readonly taskImages: () => Iterable<string>;
}

export const DEFAULT_IMAGE_SUPPLY: ImageSupplyOptions = Object.freeze({
  maxPulls: 4,
  pullRetries: 5,
  pullBackoffBaseMs: 2000,
  pullBackoffMaxMs: 60_000,
  credentials: RegistryCredentials.none(),
  mirrors: [],
  cache: undefined,
  prefetchPinS: 900,
  taskImages: () => [],
});

export interface ImageSupplyHooks {
  onPulled?: (image: string, outcome: 'pulled' | 'failed', attempts: number, seconds: number) => void;
  onRetry?: (image: string, kind: PullFailureKind) => void;
  onEvicted?: (report: CacheReport) => void;
  log?: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

/** GetServerInfo's and the metrics' view of pulls and the cache. */
export interface SupplySnapshot {
  readonly pulls: PullState[];
  readonly running: number;
  readonly queued: number;
  readonly maxPulls: number;
  readonly pullsDone: number;
  readonly cacheBytes: number;
  readonly highBytes: number;
  readonly lowBytes: number;
  readonly evictions: number;
  readonly pinned: number;
}

/**
 * Where the task images come from and how long they stay: the pulls (single-flight, bounded,
 * retried) and the bounded cache, with the pins that keep an image needed soon from eviction:
 * a Reset or Prewarm between its start and its container, a pull, a recent Prefetch.
 */
export class ImageSupply {
  readonly pulls: ImagePulls;
  readonly cache: ImageCache | undefined;
  private readonly pins = new Map<string, number>();
  private readonly prefetched = new Map<string, number>();
  private readonly used = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    docker: Docker,
    readonly options: ImageSupplyOptions = DEFAULT_IMAGE_SUPPLY,
    private readonly hooks: ImageSupplyHooks = {},
    engine: PullEngine = new DockerPullEngine(docker),
  ) {
    const log = hooks.log;
    this.cache = options.cache
      ? new ImageCache(docker, options.cache, {
          taskImages: options.taskImages,
          pinned: (name) => this.isPinned(name),
          lastUsed: (name) => this.used.get(name) ?? 0,
          ...(log ? { log: (m: string, f: Record<string, unknown>) => log('info', m, f) } : {}),
        })
      : undefined;
    this.pulls = new ImagePulls(engine, {
      maxPulls: options.maxPulls,
      retries: options.pullRetries,
      backoffBaseMs: options.pullBackoffBaseMs,
      backoffMaxMs: options.pullBackoffMaxMs,
      credentials: options.credentials,
      mirrors: options.mirrors,
      beforePull: () => this.makeRoom(),
      onPulled: (image, outcome, attempts, seconds) => {
        hooks.onPulled?.(image, outcome, attempts, seconds);
        log?.(outcome === 'pulled' ? 'info' : 'warn', outcome === 'pulled' ? 'pulled a task image' : 'could not pull a task image', {
          image,
          attempts,
          seconds,
        });
        if (outcome === 'pulled') void this.enforce();
      },
      ...(hooks.onRetry ? { onRetry: hooks.onRetry } : {}),
      ...(log ? { log: (m: string, f: Record<string, unknown>) => log('warn', m, f) } : {}),
    });
  }

  /** Keeps the image from eviction until the returned function is called (once). */
  pin(image: string): () => void {
    const name = canonical(image);
    this.pins.set(name, (this.pins.get(name) ?? 0) + 1);
    this.used.set(name, Date.now());
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.pins.get(name) ?? 1) - 1;
      if (left > 0) this.pins.set(name, left);
      else this.pins.delete(name);
    };
  }

  /** The image on the engine, pulled or joined when missing; pinned while it is waited for. */
  async ensure(image: string, signal?: AbortSignal): Promise<void> {
    const release = this.pin(image);
    try {
      await this.pulls.ensure(image, signal);
    } finally {
      release();
    }
  }

  /** Starts the pulls of images needed soon, pins them for prefetchPinS, says where each stands. */
  async prefetch(images: readonly string[]): Promise<PullState[]> {
    const until = Date.now() + this.options.prefetchPinS * 1000;
    for (const image of images) {
      this.prefetched.set(canonical(image), until);
      this.used.set(canonical(image), Date.now());
    }
    return Promise.all(images.map((image) => this.pulls.prefetch(image)));
  }

  isPinned(name: string): boolean {
    const key = canonical(name);
    if ((this.pins.get(key) ?? 0) > 0) return true;
    if (this.pulls.inFlight().some((image) => canonical(image) === key)) return true;
    const until = this.prefetched.get(key);
    if (until !== undefined && until > Date.now()) return true;
    if (until !== undefined) this.prefetched.delete(key);
    return false;
  }

  /** Brings the cache under its budget now (after a pull, and on the sweep). */
  async enforce(reserveBytes = 0): Promise<void> {
    if (!this.cache) return;
    try {
      const report = await this.cache.enforce(reserveBytes);
      if (report.evicted.length > 0 || report.refusedInUse > 0) this.hooks.onEvicted?.(report);
    } catch (error) {
      this.hooks.log?.('warn', 'the image cache could not be brought under its budget', { error: String(error) });
    }
  }

  /**
   * Before a pull: room for it and for the others running, each counted as large as the largest
   * task image, so the cache stays under its high mark while they land.
   */
  private async makeRoom(): Promise<void> {
    if (!this.cache) return;
    const running = this.pulls.states().filter((s) => s.phase === 'pulling').length;
    const reserve = (await this.cache.largestImageBytes().catch(() => 0)) * Math.max(1, running);
    await this.enforce(reserve);
  }

  /** Evicts unpinned task images, least recently used first, while the disk is still short. */
  async relieveDisk(stillShort: () => Promise<boolean>): Promise<string[]> {
    if (!this.cache) return [];
    return this.cache.relieve(stillShort);
  }

  /** Checks the budget every interval (images pulled by hand, or by another server on this engine). */
  startSweeps(intervalMs: number): void {
    if (!this.cache || this.timer) return;
    this.timer = setInterval(() => void this.enforce(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.pulls.stop();
  }

  snapshot(): SupplySnapshot {
    const pulls = this.pulls.states();
    const pinned = new Set([
      ...this.pins.keys(),
      ...[...this.prefetched.entries()].filter(([, until]) => until > Date.now()).map(([k]) => k),
      ...this.pulls.inFlight().map(canonical),
    ]);
    return {
      pulls,
      running: pulls.filter((p) => p.phase === 'pulling').length,
      queued: pulls.filter((p) => p.phase === 'queued').length,
      maxPulls: this.pulls.maxPulls,
      pullsDone: this.pulls.pullsDone,
      cacheBytes: this.cache?.lastBytes ?? 0,
      highBytes: this.cache?.budget.highBytes ?? 0,
      lowBytes: this.cache?.budget.lowBytes ?? 0,
      evictions: this.cache?.evictions ?? 0,
      pinned: pinned.size,
    };
  }
}
