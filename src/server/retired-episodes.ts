import type { Logger } from '../common/logger.js';
import type { Episode, EpisodeSummary } from './episode.js';
import type { EpisodeJournal } from './persistence/episode-journal.js';
import type { Tombstone } from './reset-input.js';

/**
 * What the registry keeps of episodes it retired: a tombstone per id, so that Close stays
 * idempotent and NOT_FOUND can say what happened (forgotten after the tombstone TTL), and the
 * episodes whose container the engine has not removed yet, retried every sweep.
 */
export class RetiredEpisodes {
  private readonly tombstones = new Map<string, Tombstone>();
  private readonly pendingRemovals = new Map<string, Episode>();

  constructor(private readonly logger: Logger) {}

  get(id: string): Tombstone | undefined {
    return this.tombstones.get(id);
  }

  bury(id: string, tomb: Tombstone): void {
    this.tombstones.set(id, tomb);
  }

  /** The engine did not remove the episode's container: its summary says so until a sweep does. */
  removalFailed(id: string, episode: Episode): EpisodeSummary {
    this.pendingRemovals.set(id, episode);
    const pending = episode.summary();
    const tomb = this.tombstones.get(id);
    if (tomb) tomb.summary = pending;
    return pending;
  }

  /** Episodes whose container is not removed yet. */
  get removalsPending(): number {
    return this.pendingRemovals.size;
  }

  /** Retries the removals the engine refused or did not answer. */
  async retryRemovals(): Promise<void> {
    for (const [id, episode] of [...this.pendingRemovals]) {
      if (!(await episode.retryRemoval())) continue;
      this.pendingRemovals.delete(id);
      const tomb = this.tombstones.get(id);
      if (tomb) tomb.summary = episode.summary();
      this.logger.info({ episode: id }, 'episode container removed after an earlier failure');
    }
  }

  /** Forgets tombstones older than the TTL, and their records. */
  async forgetOlderThan(ttlMs: number, now: number, journal?: EpisodeJournal): Promise<void> {
    for (const [id, tomb] of [...this.tombstones]) {
      if (now - tomb.at < ttlMs) continue;
      this.tombstones.delete(id);
      await journal?.remove(id);
    }
  }
}
