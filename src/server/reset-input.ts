import { InvalidArgumentError } from '../common/errors.js';
import type { Task } from '../tasks/task.js';
import type { EpisodeDefaults } from './config.js';
import type { Episode, EpisodeDeps, EpisodeSummary } from './episode.js';
import type { ReadySandbox } from './ready-sandbox.js';

/** What a Reset asks for (a fork's child is a Reset too, with `derive`). */
export interface ResetInput {
  readonly task: Task;
  readonly episodeId: string;
  readonly seed: number;
  readonly groupId: string;
  readonly options: Partial<EpisodeDefaults>;
  /**
   * A fork's child: its options as they are (already the parent's), and how its episode is made on
   * the sandbox this Reset made in the usual way (same admission, limits, warm pool).
   */
  readonly derive?: { readonly options: EpisodeDefaults; readonly make: (ready: ReadySandbox, deps: EpisodeDeps) => Promise<Episode> };
}

export interface Tombstone {
  readonly reason: 'closed' | 'expired';
  readonly detail: string;
  readonly at: number;
  readonly taskId: string;
  /** Updated once: when a container removal that failed at retirement succeeds later. */
  summary: EpisodeSummary;
}

const EPISODE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export function assertEpisodeId(id: string): void {
  if (!EPISODE_ID.test(id)) {
    throw new InvalidArgumentError(`episode_id must be 1-128 letters, digits, '_', '.', ':' or '-', starting with a letter or digit`);
  }
}
