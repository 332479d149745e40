import { messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { SandboxProvider, ServerContainer } from '../../sandbox/sandbox.js';
import { ShellSession } from '../../sandbox/shell-session.js';
import type { Task } from '../../tasks/task.js';
import type { TaskStore } from '../../tasks/task-store.js';
import type { ServerConfig } from '../config.js';
import { Episode } from '../episode.js';
import type { EpisodeRegistry } from '../episode-registry.js';
import type { EpisodeJournal } from './episode-journal.js';
import type { EpisodeRecord } from './episode-record.js';

/** What a start found of an earlier run of its server id, and what it did with it. */
export interface RecoveryReport {
  /** Live episodes going on in their containers, with a new shell. */
  readonly adopted: number;
  /**
   * Steps that were running when the server died: submits graded again, commands answered from the
   * container's command journal (or INFRA_ERROR when it cannot tell).
   */
  readonly resumedSteps: number;
  /** Live episodes whose container was gone (their next step answers INFRA_ERROR). */
  readonly lost: number;
  /** Ended episodes kept until Close, and retired ones kept as tombstones. */
  readonly ended: number;
  readonly tombstones: number;
  /** Containers of the earlier run no record claims (warm sandboxes, graders, strays): removed. */
  readonly removed: number;
}

export interface RecoveryDeps {
  readonly config: Readonly<ServerConfig>;
  readonly journal: EpisodeJournal;
  readonly provider: SandboxProvider;
  readonly tasks: TaskStore;
  readonly registry: EpisodeRegistry;
  readonly logger: Logger;
}

const RESTARTED = 'the server restarted';

/** What recoverEpisodes leaves running: each episode's adoption, summed up once all are done. */
export interface Recovery {
  readonly settled: Promise<RecoveryReport>;
}

/**
 * Takes over an earlier run's episodes: every record becomes a live episode again (container
 * re-adopted, shell restarted in its last directory), an ended one (answers retries, then Close),
 * a lost one (container gone: INFRA_ERROR saying so), or a tombstone. Containers no record claims
 * are removed, as a start without records removes them all.
 *
 * Returns once every episode is registered, before any is adopted: the server listens at once and
 * each adoption (a new shell, which the agent's files can make slow) goes on in the background; a
 * call on an episode still being adopted waits for it (the registry holds its adoption as the
 * episode's `ready`). One slow shell no longer holds the whole restart.
 */
export async function recoverEpisodes(deps: RecoveryDeps): Promise<Recovery> {
  const { journal, provider, registry, logger, config } = deps;
  const records = await journal.loadAll();
  const containers = new Map((await provider.serverContainers()).map((c) => [c.id, c]));
  const keep = new Set<string>();
  const counts = { adopted: 0, resumedSteps: 0, lost: 0, ended: 0, tombstones: 0 };
  const now = Date.now();
  const work: Array<Promise<unknown>> = [];
  for (const record of records) {
    if (record.retired) {
      if (now - record.retired.at >= config.tombstoneTtlS * 1000) {
        work.push(journal.remove(record.id));
      } else {
        registry.adoptTombstone({ ...record, retired: record.retired });
        counts.tombstones += 1;
      }
      continue;
    }
    const task = deps.tasks.find(record.taskId);
    if (!task) {
      // Without its task nothing can be graded or restored: the episode is the environment's loss.
      registry.adoptTombstone({ ...record, retired: lostTombstone(record, `was lost: ${RESTARTED} without its task ${record.taskId}`) });
      counts.lost += 1;
      continue;
    }
    const container = containers.get(record.containerId);
    if (!record.end && isAlive(container)) keep.add(record.containerId);
    const outcome = restore(deps, record, task, container);
    registry.adoptPending(
      record.id,
      task.id,
      outcome.then((o) => o.episode),
    );
    work.push(
      outcome.then((o) => {
        counts[o.kind] += 1;
        if (o.resumed) counts.resumedSteps += 1;
      }),
    );
  }
  const removed = await provider.removeServerContainers(keep);
  const settled = Promise.all(work).then(() => {
    const report: RecoveryReport = { ...counts, removed };
    if (records.length > 0)
      logger.warn(
        { ...report, serverId: config.serverId },
        `took over ${records.length} episode record(s) of an earlier run of server id ${config.serverId}`,
      );
    else if (removed > 0)
      logger.info(
        { removed, serverId: config.serverId },
        `removed ${removed} container(s) an earlier run of server id ${config.serverId} left (it kept no episode records of them)`,
      );
    return report;
  });
  return { settled };
}

function isAlive(container: ServerContainer | undefined): boolean {
  return container?.running === true && container.role === 'episode';
}

type Restored = { episode: Episode; kind: 'adopted' | 'lost' | 'ended'; resumed: boolean };

/** One episode's adoption; never rejects (whatever fails, the episode is lost, saying why). */
async function restore(deps: RecoveryDeps, record: EpisodeRecord, task: Task, container: ServerContainer | undefined): Promise<Restored> {
  const { config, provider, registry, logger } = deps;
  const alive = isAlive(container);
  const sandbox = provider.adopt(record.containerId, {
    image: task.image,
    workdir: task.workdir,
    maxLifetimeS: record.options.episodeTimeoutS + record.options.idleTimeoutS + 300,
    role: 'episode',
    episodeId: record.id,
    limits: config.limits,
  });
  const state = {
    createdAt: record.createdAt,
    ...(record.lineage ? { lineage: record.lineage } : {}),
    stepCount: record.stepCount,
    recent: record.recent,
    cwd: record.cwd,
    ...(record.end ? { end: record.end } : {}),
  };
  const make = (shell: ShellSession | undefined): Episode => {
    const episode = new Episode(
      record.id,
      task,
      record.options,
      record.seed,
      record.groupId,
      sandbox,
      shell,
      record.pristineHead,
      registry.episodeDeps(),
      state,
    );
    // The trajectory goes on in the same file (an ended one is complete already).
    if (!record.end) episode.attachTrajectory(registry.trajectories?.resume(record.id, record.createdAt));
    return episode;
  };
  const lose = async (episode: Episode, message: string): Promise<Restored> => {
    episode.markLost(message);
    // Removes what is left of the container (a stopped one) and takes it off the disk watchdog.
    await episode.dispose().catch(() => undefined);
    await episode.persist().catch(() => undefined);
    return { episode, kind: 'lost', resumed: false };
  };

  if (record.end) {
    const episode = make(undefined);
    await episode.dispose().catch(() => undefined);
    return { episode, kind: 'ended', resumed: false };
  }
  if (record.inflight) {
    // Graded again from its captured change, run again (a submit), or answered from the command
    // journal (a command; INFRA_ERROR when the journal cannot tell). The shell comes after it.
    const episode = make(undefined);
    episode.resumeInflight(record.inflight, record.captured, alive);
    return { episode, kind: 'adopted', resumed: true };
  }
  if (alive) {
    try {
      const shell = await ShellSession.resume(sandbox, task.workdir, record.cwd, `${RESTARTED} since the last command`);
      const episode = make(shell);
      await episode.persist();
      return { episode, kind: 'adopted', resumed: false };
    } catch (error) {
      logger.warn({ episode: record.id, err: messageOf(error) }, 'cannot restart the shell of an adopted episode');
      return lose(make(undefined), `${RESTARTED} and the episode's sandbox did not take a new shell (${messageOf(error)})`);
    }
  }
  return lose(
    make(undefined),
    `${RESTARTED} and the episode's container was gone (${container ? 'stopped' : 'removed'} while the server was down)`,
  );
}

function lostTombstone(record: EpisodeRecord, detail: string): NonNullable<EpisodeRecord['retired']> {
  return {
    reason: 'closed',
    detail,
    at: Date.now(),
    summary: {
      episodeId: record.id,
      taskId: record.taskId,
      steps: record.stepCount,
      reward: 0,
      terminated: false,
      truncated: true,
      endReason: 'infra_error',
      durationS: (Date.now() - record.createdAt) / 1000,
      seed: record.seed,
      groupId: record.groupId,
      containerRemovalPending: '',
    },
  };
}
