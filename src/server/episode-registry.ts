import { randomUUID } from 'node:crypto';
import {
  AlreadyExistsError,
  FailedPreconditionError,
  InvalidArgumentError,
  NotFoundError,
  UnavailableError,
  messageOf,
} from '../common/errors.js';
import { abortReason } from '../common/abort.js';
import type { Logger } from '../common/logger.js';
import { Semaphore } from '../common/semaphore.js';
import type { Grader } from '../reward/grader.js';
import type { SandboxProvider } from '../sandbox/sandbox.js';
import type { Task } from '../tasks/task.js';
import type { EpisodeDefaults, ServerConfig } from './config.js';
import { Episode, type EpisodeDeps, type EpisodeSummary } from './episode.js';
import type { EpisodeJournal } from './persistence/episode-journal.js';
import type { EpisodeRecord } from './persistence/episode-record.js';
import { readySandbox, type ReadySandbox } from './ready-sandbox.js';
import { WarmPool } from './warm-pool.js';
import type { TrajectoryRecorder } from '../trajectories/trajectory-recorder.js';
import { trajectoryHeader } from './trajectory-header.js';
import { AdoptionGrace } from './persistence/adoption-grace.js';
import { acquireOrExhausted, assertDiskRoom, effectiveOptions } from './admission.js';
import { assertEpisodeId, type ResetInput } from './reset-input.js';
import { RetiredEpisodes } from './retired-episodes.js';

export type { ResetInput } from './reset-input.js';

/**
 * The live episodes, the admission bounds (live episodes, concurrent container starts), idle
 * expiry, and tombstones so that Close stays idempotent and NOT_FOUND can say what happened.
 */
export class EpisodeRegistry {
  private readonly live = new Map<string, { taskId: string; ready: Promise<Episode>; adopting?: boolean }>();
  private readonly retired: RetiredEpisodes;
  private readonly startedAt = new Date();
  private readonly slots: Semaphore;
  private sweeper: NodeJS.Timeout | undefined;
  private shuttingDown = false;

  constructor(
    private readonly config: Readonly<ServerConfig>,
    private readonly provider: SandboxProvider,
    readonly starts: Semaphore,
    private readonly grader: Grader,
    private readonly logger: Logger,
    /** Episode records for restart survival; absent when the server keeps no state. */
    readonly journal?: EpisodeJournal,
    /** Records every episode's trajectory; absent when recording is off. */
    readonly trajectories?: TrajectoryRecorder,
  ) {
    this.slots = new Semaphore(config.maxEpisodes);
    this.retired = new RetiredEpisodes(logger);
    this.grace = new AdoptionGrace(config.adoptionGraceS, () => {
      this.abandonUnclaimed().catch((error: unknown) => this.logger.error({ err: error }, 'ending abandoned episodes failed'));
    });
    this.warm = new WarmPool(
      provider,
      starts,
      {
        maxWarm: config.maxWarm,
        warmMemoryBytes: config.warmMemoryBytes,
        warmTtlS: config.warmTtlS,
        episodeLifeS: config.defaults.episodeTimeoutS + config.defaults.idleTimeoutS + 300,
        limits: config.limits,
      },
      logger,
    );
  }

  /** Ready sandboxes per task (Prewarm). */
  readonly warm: WarmPool;

  /** Episodes a restart took over that no client has called yet (see AdoptionGrace). */
  private readonly grace: AdoptionGrace;

  /** Keeps `count` sandboxes of the task ready for its next Resets (see WarmPool). */
  prewarm(task: Task, count: number): { warm: number; starting: number; message: string } {
    if (this.shuttingDown) throw new UnavailableError('the server is shutting down');
    if (!Number.isInteger(count) || count < 0 || count > 1024)
      throw new InvalidArgumentError('count must be a whole number from 0 to 1024');
    if (this.config.maxWarm === 0) return { warm: 0, starting: 0, message: 'prewarming is off on this server (--max-warm 0)' };
    return this.warm.prewarm(task, count);
  }

  /** Shutting down: no new episodes. */
  get draining(): boolean {
    return this.shuttingDown;
  }

  get started(): Date {
    return this.startedAt;
  }

  get liveCount(): number {
    return this.live.size;
  }

  startSweeper(): void {
    this.sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) => this.logger.error({ err: error }, 'sweep failed'));
    }, this.config.sweepIntervalS * 1000);
    this.sweeper.unref();
  }

  /** The options a client asked for, bounded by the server's, over the server's defaults. */
  /** Starts an episode, or returns the one already started under this client-chosen id. */
  async reset(input: ResetInput, signal?: AbortSignal): Promise<{ episode: Episode; created: boolean }> {
    if (this.shuttingDown) throw new UnavailableError('the server is shutting down');
    const id = input.episodeId || randomUUID();
    assertEpisodeId(id);
    const existing = this.live.get(id);
    if (existing) {
      if (existing.taskId !== input.task.id) {
        throw new AlreadyExistsError(`episode ${id} already exists for task ${existing.taskId}, not ${input.task.id}`);
      }
      this.grace.claim(id);
      return { episode: await existing.ready, created: false };
    }
    const tomb = this.retired.get(id);
    if (tomb) throw new FailedPreconditionError(`episode ${id} already ran and was ${tomb.reason}; use a new episode_id`);

    const options = input.derive?.options ?? effectiveOptions(this.config, input.options);
    const ready = this.start(id, input, options, signal);
    const entry = { taskId: input.task.id, ready };
    this.live.set(id, entry);
    let episode: Episode;
    try {
      episode = await ready;
    } catch (error) {
      this.live.delete(id);
      throw error;
    }
    this.logger.info({ episode: id, task: input.task.id, group: input.groupId || undefined, live: this.live.size }, 'episode started');
    if (signal?.aborted && !input.episodeId) {
      // The caller is gone and cannot know this server-chosen id: nobody could ever close it.
      await this.retire(id, entry, episode, 'closed');
      throw abortReason(signal);
    }
    return { episode, created: true };
  }

  private async start(id: string, input: ResetInput, options: EpisodeDefaults, signal?: AbortSignal): Promise<Episode> {
    // A queued Reset's image is needed soon: the cache must not evict it while it waits.
    const unpin = this.provider.pinImage(input.task.image);
    try {
      return await this.startPinned(id, input, options, signal);
    } finally {
      unpin();
    }
  }

  private async startPinned(id: string, input: ResetInput, options: EpisodeDefaults, signal?: AbortSignal): Promise<Episode> {
    await assertDiskRoom(this.provider, this.config.minHostFreeBytes);
    await acquireOrExhausted(this.slots, signal, () => `the server is full: ${this.config.maxEpisodes} live episodes`);
    // Past the wall clock and an idle spell, nothing can still need this container.
    const lifeS = options.episodeTimeoutS + options.idleTimeoutS + 300;
    let ready: ReadySandbox;
    try {
      // A prewarmed sandbox of the task is made by the same readySandbox, only earlier.
      ready =
        this.warm.take(input.task, lifeS) ??
        (await readySandbox(
          this.provider,
          input.task,
          { episodeId: id, maxLifetimeS: lifeS, limits: this.config.limits, ...(signal ? { signal } : {}) },
          async (create) => {
            await acquireOrExhausted(this.starts, signal, () => `too many container starts under way (${this.config.maxConcurrentStarts})`);
            try {
              return await create();
            } finally {
              this.starts.release();
            }
          },
        ));
    } catch (error) {
      this.slots.release();
      throw error;
    }
    if (ready.removedRefs.length > 0)
      this.logger.warn({ episode: id, task: input.task.id, removed: ready.removedRefs }, 'removed refs past the base commit');
    const episode = await this.episodeOn(ready, id, input, options);
    episode.attachTrajectory(this.trajectories?.begin(trajectoryHeader(episode, this.config.serverId), episode.createdAt));
    // On disk before Reset answers: a restart right after it still knows the episode.
    await episode.persist();
    return episode;
  }

  /** The new episode on its ready sandbox; the sandbox is removed (and the slot freed) when that fails. */
  private async episodeOn(ready: ReadySandbox, id: string, input: ResetInput, options: EpisodeDefaults): Promise<Episode> {
    if (!input.derive)
      return new Episode(id, input.task, options, input.seed, input.groupId, ready.sandbox, ready.shell, ready.head, this.episodeDeps());
    try {
      return await input.derive.make(ready, this.episodeDeps());
    } catch (error) {
      this.slots.release();
      await ready.shell.close();
      await ready.sandbox.remove().catch(() => undefined);
      throw error;
    }
  }

  /** What every episode of this server is given (a restored one too). */
  episodeDeps(): EpisodeDeps {
    const journal = this.journal;
    return {
      grader: this.grader,
      logger: this.logger,
      maxPatchBytes: this.config.maxPatchBytes,
      serverId: this.config.serverId,
      ...(journal ? { persist: (record: EpisodeRecord) => journal.save(record) } : {}),
    };
  }

  /**
   * A live episode a restarted server is restoring from its record: calls on it wait for `ready`
   * (its adoption, which never rejects), while the server already serves every other call.
   */
  adoptPending(id: string, taskId: string, ready: Promise<Episode>): void {
    this.slots.take();
    const entry: { taskId: string; ready: Promise<Episode>; adopting?: boolean } = { taskId, ready, adopting: true };
    void ready.finally(() => (entry.adopting = false)).catch(() => undefined);
    this.live.set(id, entry);
    this.grace.adopted(id);
  }

  /** A retired episode's tombstone read back from its record (Close stays idempotent across a restart). */
  adoptTombstone(record: EpisodeRecord & { retired: NonNullable<EpisodeRecord['retired']> }): void {
    const { reason, detail, at, summary } = record.retired;
    this.retired.bury(record.id, { reason, detail, at, taskId: record.taskId, summary });
  }

  /** An id this run never saw: it may belong to a run of this server id before a restart. */
  private unknownEpisode(id: string): string {
    return `unknown episode ${id}: this server (id ${this.config.serverId}) started at ${this.startedAt.toISOString()} and never had it; episodes of an earlier run do not survive a restart`;
  }

  /** The live episode, or NOT_FOUND saying whether it never existed, was closed or expired. */
  async get(id: string): Promise<Episode> {
    const entry = this.live.get(id);
    if (entry) {
      this.grace.claim(id);
      const episode = await entry.ready;
      episode.touch();
      return episode;
    }
    const tomb = this.retired.get(id);
    if (tomb) throw new NotFoundError(`episode ${id} ${tomb.detail}`);
    throw new NotFoundError(this.unknownEpisode(id));
  }

  /** Idempotent: a closed (or expired) episode returns its summary again. */
  async close(id: string): Promise<EpisodeSummary> {
    const entry = this.live.get(id);
    this.grace.claim(id);
    if (!entry) {
      const tomb = this.retired.get(id);
      if (tomb) return tomb.summary;
      throw new NotFoundError(this.unknownEpisode(id));
    }
    const episode = await entry.ready;
    await episode.gradingSettled();
    return this.retire(id, entry, episode, 'closed');
  }

  private async retire(
    id: string,
    entry: { ready: Promise<Episode> },
    episode: Episode,
    reason: 'closed' | 'expired',
    detail = reason === 'expired' ? `expired: no call for ${episode.options.idleTimeoutS}s, so its container was removed` : 'was closed',
  ): Promise<EpisodeSummary> {
    if (this.live.get(id) !== entry) {
      // Retired meanwhile by a concurrent Close or the sweeper.
      const tomb = this.retired.get(id);
      if (tomb) return tomb.summary;
    }
    this.live.delete(id);
    episode.markEnded(reason);
    const summary = episode.summary();
    const at = Date.now();
    this.retired.bury(id, { reason, detail, at, taskId: episode.task.id, summary });
    await episode.persist({ reason, detail, at, summary });
    this.logger.info(
      { episode: id, task: summary.taskId, end: summary.endReason, reward: summary.reward, steps: summary.steps, s: summary.durationS },
      `episode ${reason}`,
    );
    this.slots.release();
    try {
      await episode.dispose();
    } catch (error) {
      this.logger.error({ err: error, episode: id }, 'dispose failed; the reaper will remove the container');
    }
    if (!episode.removalPending) return summary;
    // The engine did not answer: say so, and keep trying from the sweeper.
    return this.retired.removalFailed(id, episode);
  }

  /**
   * Ends the episodes a restart took over that no client called within the adoption grace, and
   * removes their containers: a client that gave up on the dead server never comes back to them.
   * An episode whose resumed step still runs waits for a later sweep.
   */
  private async abandonUnclaimed(now = Date.now()): Promise<void> {
    for (const id of this.grace.due(now)) {
      const entry = this.live.get(id);
      if (!entry) {
        this.grace.claim(id);
        continue;
      }
      if (entry.adopting || this.shuttingDown) continue;
      const episode = await entry.ready.catch(() => undefined);
      // Claimed or retired while its adoption settled, or a resumed step still running.
      if (!episode || episode.busy || !this.grace.isUnclaimed(id) || this.live.get(id) !== entry) continue;
      this.grace.claim(id);
      const graceS = this.config.adoptionGraceS;
      // Not the model's doing: the restart lost the episode's client, so it ends as the environment's failure.
      if (!episode.ended)
        episode.markLost(
          `the server restarted and no client called the episode within ${graceS}s, so it was ended and its container removed`,
        );
      this.logger.warn({ episode: id, graceS }, 'episode taken over at the restart was not claimed by any client: ended');
      await this.retire(
        id,
        entry,
        episode,
        'expired',
        `was ended: the server restarted and no client called it within ${graceS}s (--adoption-grace), so its container was removed`,
      );
    }
  }

  /** Episodes whose container is not removed yet. */
  get removalsPending(): number {
    return this.retired.removalsPending;
  }

  /** Expires idle episodes, forgets old tombstones, and removes containers past their expiry label. */
  async sweep(now = Date.now()): Promise<void> {
    await this.retired.retryRemovals();
    await this.warm.sweep(now);
    await this.abandonUnclaimed(now);
    for (const [id, entry] of [...this.live]) {
      // Still being adopted after a restart: not idle, and not worth holding the sweep for.
      if (entry.adopting) continue;
      const episode = await entry.ready.catch(() => undefined);
      if (!episode || episode.busy) continue;
      if (now - episode.lastActivityAt >= episode.options.idleTimeoutS * 1000) {
        this.logger.info({ episode: id }, 'episode expired (idle)');
        await this.retire(id, entry, episode, 'expired');
      }
    }
    await this.retired.forgetOlderThan(this.config.tombstoneTtlS * 1000, now, this.journal);
    await this.provider
      .removeExpired(new Date(now))
      .catch((error: unknown) => this.logger.warn({ err: messageOf(error) }, 'reaping expired containers failed'));
  }

  /**
   * Stops admitting, and removes every episode's container ('drain'), or lets the steps under way
   * end within `graceMs` and leaves the live episodes' containers and records for the next start
   * with this server id ('leave'). Returns the containers left.
   */
  async shutdown(mode: 'drain' | 'leave' = 'drain', graceMs = 0): Promise<Set<string>> {
    this.shuttingDown = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.grace.stop();
    await this.warm.close();
    if (mode === 'leave') return this.leave(graceMs);
    await this.drain();
    return new Set();
  }

  private async leave(graceMs: number): Promise<Set<string>> {
    const left = new Set<string>();
    await Promise.allSettled(
      [...this.live.values()].map(async (entry) => {
        const episode = await entry.ready;
        if (await episode.detach(graceMs)) left.add(episode.containerId);
      }),
    );
    await this.journal?.flush();
    this.logger.info({ left: left.size }, 'episodes left for the next start');
    return left;
  }

  private async drain(): Promise<void> {
    const entries = [...this.live];
    await Promise.allSettled(
      entries.map(async ([id, entry]) => {
        const episode = await entry.ready;
        await this.retire(id, entry, episode, 'closed');
      }),
    );
  }
}
