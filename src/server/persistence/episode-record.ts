import type { EpisodeIdentity } from '../episode/episode-state.js';
import type { GradeReport } from '../../reward/report.js';
import type { EndReason, EpisodeSummary, StepOutcome } from '../episode.js';

/** Bumped when a field changes meaning; a record of another version is not adopted. */
export const RECORD_VERSION = 1;

/** A step that had started when the record was written: after a restart its outcome is unknown. */
export interface InflightStep {
  readonly index: number;
  readonly name: string;
  readonly argumentsJson: string;
  readonly callId: string;
  readonly startedAt: number;
  /**
   * Set (and written) just before a bash command goes to the shell: the server's own word that it
   * was sent. A restart runs a command again only when this is absent; the container's journal,
   * which the agent can write, only ever answers how a sent command ended, never triggers a re-run.
   */
  readonly sent?: boolean;
}

/**
 * What a restarted server needs to go on with an episode: written as the episode changes, before
 * a step's answer goes out, so a retried Step finds the outcome its first call was given.
 */
export interface EpisodeRecord extends EpisodeIdentity {
  readonly version: typeof RECORD_VERSION;
  /** Epoch ms: the episode's wall clock runs on across a restart. */
  readonly createdAt: number;
  readonly stepCount: number;
  /** The retained outcomes (a retry targets the latest). */
  readonly recent: readonly StepOutcome[];
  /** The shell's working directory after the last step: a new shell starts there. */
  readonly cwd: string;
  readonly inflight?: InflightStep;
  /** The change a submit captured, kept while its grading runs so a restart can grade it again. */
  readonly captured?: { readonly patchBase64: string; readonly captureS: number };
  readonly end?: { readonly reason: EndReason; readonly reward: number; readonly report?: GradeReport; readonly endedAt: number };
  /** Set once the episode is retired (Close, expiry): the record is then its tombstone. */
  readonly retired?: { readonly reason: 'closed' | 'expired'; readonly detail: string; readonly at: number; readonly summary: EpisodeSummary };
}

/** A record read back from disk, checked enough that recovery can rely on its fields. */
export function parseRecord(text: string): EpisodeRecord {
  const value = JSON.parse(text) as Partial<EpisodeRecord> | null;
  if (!value || typeof value !== 'object') throw new Error('not an object');
  if (value.version !== RECORD_VERSION) throw new Error(`record version ${String(value.version)}, this server reads ${RECORD_VERSION}`);
  for (const key of ['id', 'taskId', 'serverId', 'containerId', 'pristineHead', 'groupId', 'cwd'] as const) {
    if (typeof value[key] !== 'string') throw new Error(`${key} is missing`);
  }
  for (const key of ['seed', 'createdAt', 'stepCount'] as const) {
    if (typeof value[key] !== 'number') throw new Error(`${key} is missing`);
  }
  if (!Array.isArray(value.recent) || typeof value.options !== 'object' || value.options === null) throw new Error('recent or options is missing');
  return value as EpisodeRecord;
}
