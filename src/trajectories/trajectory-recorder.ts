import { mkdir, open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { TrajectoryEnd, TrajectoryHeader, TrajectoryStep } from './trajectory-format.js';

export interface TrajectoryRecorderOptions {
  /** Trajectories go to `<dir>/<server id>/<YYYY-MM-DD>/<episode id>.jsonl`. */
  readonly dir: string;
  readonly serverId: string;
  /** Past this many bytes in the directory, new records are dropped (and counted). */
  readonly maxTotalBytes: number;
  /** Past this many bytes in one episode's file, its further steps are dropped (its end is kept). */
  readonly maxEpisodeBytes: number;
}

export type DropReason = 'total_bound' | 'episode_bound' | 'write_error';

/**
 * Records every episode's trajectory, append-only, off the step's path: a step hands its line over
 * and answers at once; the writes follow in order per episode. Nothing a write does (a full disk,
 * a bound reached) fails or slows an episode: the record is dropped and counted.
 */
export class TrajectoryRecorder {
  readonly dropped: Record<DropReason, number> = { total_bound: 0, episode_bound: 0, write_error: 0 };
  /** Bytes in the directory: what was there at start (measured in the background) plus what this run wrote. */
  totalBytes = 0;
  private warnedFull = false;
  private readonly open = new Set<EpisodeTrajectory>();

  private constructor(
    readonly options: TrajectoryRecorderOptions,
    private readonly logger: Logger,
  ) {}

  static async start(options: TrajectoryRecorderOptions, logger: Logger): Promise<TrajectoryRecorder> {
    await mkdir(join(options.dir, options.serverId), { recursive: true });
    const recorder = new TrajectoryRecorder(options, logger);
    void directoryBytes(options.dir).then(
      (bytes) => (recorder.totalBytes += bytes),
      (error: unknown) => logger.warn({ err: messageOf(error), dir: options.dir }, 'cannot measure the trajectory directory'),
    );
    return recorder;
  }

  /** The file of an episode started at `createdAt` (a restarted server appends to the same one). */
  fileOf(episodeId: string, createdAt: number): string {
    const day = new Date(createdAt).toISOString().slice(0, 10);
    return join(this.options.dir, this.options.serverId, day, `${encodeURIComponent(episodeId)}.jsonl`);
  }

  /** The file this server recorded for an episode (newest day first); undefined when there is none. */
  async find(episodeId: string): Promise<string | undefined> {
    const root = join(this.options.dir, this.options.serverId);
    const days = (await readdir(root).catch(() => [] as string[])).sort().reverse();
    const name = `${encodeURIComponent(episodeId)}.jsonl`;
    for (const day of days) {
      const file = join(root, day, name);
      if (
        await stat(file).then(
          (s) => s.isFile(),
          () => false,
        )
      )
        return file;
    }
    return undefined;
  }

  /** A new episode's trajectory, its header written first. */
  begin(header: TrajectoryHeader, createdAt: number): EpisodeTrajectory {
    const trajectory = new EpisodeTrajectory(this, this.fileOf(header.episode_id, createdAt));
    trajectory.write(header, 'header');
    return trajectory;
  }

  /** The trajectory of an episode a restarted server took over: appended to, no second header. */
  resume(episodeId: string, createdAt: number): EpisodeTrajectory {
    return new EpisodeTrajectory(this, this.fileOf(episodeId, createdAt));
  }

  /** Whether `bytes` more fit under the directory's bound; counts a drop when not. */
  admit(bytes: number): boolean {
    if (this.totalBytes + bytes <= this.options.maxTotalBytes) {
      this.totalBytes += bytes;
      return true;
    }
    this.dropped.total_bound += 1;
    if (!this.warnedFull) {
      this.warnedFull = true;
      this.logger.warn(
        { dir: this.options.dir, maxBytes: this.options.maxTotalBytes },
        'the trajectory directory reached its size bound: new records are dropped until room is made',
      );
    }
    return false;
  }

  writeFailed(file: string, error: unknown): void {
    this.dropped.write_error += 1;
    this.logger.error({ file, err: messageOf(error) }, 'cannot write a trajectory; the rest of this episode is not recorded');
  }

  track(trajectory: EpisodeTrajectory, open: boolean): void {
    if (open) this.open.add(trajectory);
    else this.open.delete(trajectory);
  }

  /** Waits for every queued write and closes the files (shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.open].map((t) => t.close()));
  }
}

/** One episode's trajectory file: lines appended in order, never awaited by the episode. */
export class EpisodeTrajectory {
  private chain: Promise<void> = Promise.resolve();
  private handle: FileHandle | undefined;
  private bytes = 0;
  private failed = false;
  private stepsDropped = 0;
  private ended = false;

  constructor(
    private readonly recorder: TrajectoryRecorder,
    readonly file: string,
  ) {}

  step(step: TrajectoryStep): void {
    this.write(step, 'step');
  }

  /** The episode's end (once); the file is closed after it. */
  end(end: TrajectoryEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.write(this.stepsDropped > 0 ? { ...end, steps_dropped: this.stepsDropped } : end, 'end');
    this.chain = this.chain.then(() => this.release());
  }

  write(event: TrajectoryHeader | TrajectoryStep | TrajectoryEnd, kind: 'header' | 'step' | 'end'): void {
    if (this.failed) return;
    const line = `${JSON.stringify(event)}\n`;
    const size = Buffer.byteLength(line);
    if (kind === 'step' && this.bytes + size > this.recorder.options.maxEpisodeBytes) {
      this.stepsDropped += 1;
      this.recorder.dropped.episode_bound += 1;
      return;
    }
    if (!this.recorder.admit(size)) return;
    this.bytes += size;
    this.chain = this.chain.then(() => this.append(line));
  }

  private async append(line: string): Promise<void> {
    if (this.failed) return;
    try {
      if (!this.handle) {
        await mkdir(join(this.file, '..'), { recursive: true });
        this.handle = await open(this.file, 'a');
        this.recorder.track(this, true);
      }
      await this.handle.write(line);
    } catch (error) {
      this.failed = true;
      this.recorder.writeFailed(this.file, error);
      await this.release();
    }
  }

  private async release(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    this.recorder.track(this, false);
    await handle?.close().catch(() => undefined);
  }

  /** Resolves once the lines handed over so far are written; closes the file. */
  async close(): Promise<void> {
    await this.chain;
    await this.release();
  }
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}
