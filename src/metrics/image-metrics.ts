import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { CacheReport } from '../sandbox/images/image-cache.js';
import type { SupplySnapshot } from '../sandbox/images/image-supply.js';
import type { PullFailureKind } from '../sandbox/images/pull-errors.js';

const PULL_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 2400, 3600];

/** Pulls and the task-image cache (swe_env_image_*): counters fed by events, gauges read at scrape. */
export class ImageMetrics {
  private readonly pulls: Counter<'outcome'>;
  private readonly pullSeconds: Histogram;
  private readonly retries: Counter<'kind'>;
  private readonly evictions: Counter;
  private readonly refusedInUse: Counter;

  constructor(registry: Registry, snapshot: () => SupplySnapshot) {
    const registers = [registry];
    this.pulls = new Counter({
      name: 'swe_env_image_pulls_total',
      help: 'task image pulls by outcome (pulled, failed); one per image however many Resets wanted it',
      labelNames: ['outcome'],
      registers,
    });
    this.pullSeconds = new Histogram({
      name: 'swe_env_image_pull_seconds',
      help: 'time from a pull being asked for to its image being on the engine (queue and retries included)',
      buckets: PULL_BUCKETS,
      registers,
    });
    this.retries = new Counter({
      name: 'swe_env_image_pull_retries_total',
      help: 'pull tries repeated after a rate limit, 5xx or network error',
      labelNames: ['kind'],
      registers,
    });
    this.evictions = new Counter({
      name: 'swe_env_image_evictions_total',
      help: 'task images removed to keep the cache under its budget',
      registers,
    });
    this.refusedInUse = new Counter({
      name: 'swe_env_image_evictions_refused_in_use_total',
      help: 'evictions the engine refused because a container uses the image (never forced)',
      registers,
    });
    const gauge = (name: string, help: string, read: (s: SupplySnapshot) => number): void => {
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read(snapshot()));
        },
      });
    };
    gauge('swe_env_image_pulls_running', 'task image pulls running now', (s) => s.running);
    gauge('swe_env_image_pulls_queued', 'task image pulls waiting for a slot (--max-pulls)', (s) => s.queued);
    gauge('swe_env_image_pull_bytes_done', 'bytes downloaded by the pulls running now', (s) =>
      s.pulls.filter((p) => p.phase === 'pulling').reduce((n, p) => n + p.bytesDone, 0),
    );
    gauge('swe_env_image_pull_bytes_total', 'bytes the pulls running now have announced', (s) =>
      s.pulls.filter((p) => p.phase === 'pulling').reduce((n, p) => n + p.bytesTotal, 0),
    );
    gauge('swe_env_image_cache_bytes', 'bytes of task images on the engine (shared layers once), as last measured', (s) => s.cacheBytes);
    gauge('swe_env_image_cache_high_bytes', 'the task-image budget (0: none)', (s) => s.highBytes);
    gauge('swe_env_image_pinned', 'task images kept from eviction now (starting, pulling, prefetched)', (s) => s.pinned);
  }

  pulled(outcome: 'pulled' | 'failed', seconds: number): void {
    this.pulls.inc({ outcome });
    if (outcome === 'pulled') this.pullSeconds.observe(seconds);
  }

  retried(kind: PullFailureKind): void {
    this.retries.inc({ kind });
  }

  evicted(report: CacheReport): void {
    this.evictions.inc(report.evicted.length);
    this.refusedInUse.inc(report.refusedInUse);
  }
}
