import { randomUUID } from 'node:crypto';
import { AlreadyExistsError, InvalidArgumentError } from '../../common/errors.js';
import type { EpisodeDefaults } from '../config.js';
import { Episode, type RestoredState } from '../episode.js';
import { forkedState } from '../episode/episode-state.js';
import type { EpisodeRegistry } from '../episode-registry.js';
import { applyLayer, captureLayer, type LayerCopy } from './layer-copy.js';
import { captureShell, removeThroughShell, restoreShell, type ShellState } from './shell-state.js';

export const MAX_FORK_COUNT = 64;
/** Content of the parent's writable layer a fork copies at most (it is held in memory once). */
export const MAX_FORK_LAYER_BYTES = 1024 ** 3;

export interface ForkRequest {
  readonly count: number;
  /** Fresh budgets: the children's clock starts now and each may run options.max_steps more steps. */
  readonly freshBudgets: boolean;
  /** Ids for the children (count of them); random ones when empty. */
  readonly childIds: readonly string[];
}

export interface ForkResult {
  readonly childIds: readonly string[];
  /** The parent's step count when it was copied: each child's next step_index. */
  readonly branchStep: number;
  readonly copiedEntries: number;
  readonly copiedBytes: number;
  readonly deletedPaths: number;
  readonly durationS: number;
}

/** What every child starts from, read from the parent once while it is held between steps. */
interface ForkSource {
  readonly layer: LayerCopy;
  readonly shell: ShellState;
  readonly state: RestoredState;
  readonly options: EpisodeDefaults;
  readonly pristineHead: string;
}

/**
 * Forks a live episode between steps into `count` children. Each child is a Reset of the parent's
 * task (same admission, limits, security options and warm pool as any episode) whose fresh
 * container gets the parent's writable layer laid over it and whose shell gets the parent's
 * exported variables and directory; its state (step count, budgets, recent outcomes) is the
 * parent's. All or nothing: when a child fails, the ones made are closed and the error returned.
 */
export async function forkEpisode(
  registry: EpisodeRegistry,
  parentId: string,
  request: ForkRequest,
  signal?: AbortSignal,
): Promise<ForkResult> {
  const ids = childIds(request);
  const started = Date.now();
  const parent = await registry.get(parentId);
  const source = await parent.hold(async (core): Promise<ForkSource> => {
    const shell = await captureShell(core.box, core.state.cwd);
    const layer = await captureLayer(core.box.sandbox, MAX_FORK_LAYER_BYTES);
    const options = request.freshBudgets
      ? Object.freeze({ ...core.options, maxSteps: core.state.stepCount + core.options.maxSteps })
      : core.options;
    return { layer, shell, state: forkedState(core.state, core.id, request.freshBudgets), options, pristineHead: core.spec.pristineHead };
  });
  const made = await Promise.allSettled(ids.map((id) => startChild(registry, parent, id, source, signal)));
  const failure = made.find((m): m is PromiseRejectedResult => m.status === 'rejected');
  if (failure) {
    const children = made.flatMap((m) => (m.status === 'fulfilled' ? [m.value.id] : []));
    await Promise.allSettled(children.map((id) => registry.close(id)));
    throw failure.reason;
  }
  const { layer } = source;
  return {
    childIds: ids,
    branchStep: source.state.stepCount,
    copiedEntries: layer.entries,
    copiedBytes: layer.bytes,
    deletedPaths: layer.deleted.length,
    durationS: (Date.now() - started) / 1000,
  };
}

function childIds(request: ForkRequest): string[] {
  if (request.childIds.length > 0) {
    if (request.count !== 0 && request.count !== request.childIds.length)
      throw new InvalidArgumentError(`count is ${request.count} but ${request.childIds.length} child episode ids were given`);
    if (new Set(request.childIds).size !== request.childIds.length) throw new InvalidArgumentError('child episode ids must differ');
    if (request.childIds.length > MAX_FORK_COUNT) throw new InvalidArgumentError(`at most ${MAX_FORK_COUNT} children per Fork`);
    return [...request.childIds];
  }
  if (!Number.isInteger(request.count) || request.count < 1 || request.count > MAX_FORK_COUNT)
    throw new InvalidArgumentError(`count must be 1 to ${MAX_FORK_COUNT}`);
  return Array.from({ length: request.count }, () => randomUUID());
}

/** One child; a retried Fork finds a child it already made (same id, same parent) and keeps it. */
async function startChild(
  registry: EpisodeRegistry,
  parent: Episode,
  id: string,
  source: ForkSource,
  signal: AbortSignal | undefined,
): Promise<Episode> {
  const { episode, created } = await registry.reset(
    {
      task: parent.task,
      episodeId: id,
      seed: parent.seed,
      groupId: parent.groupId,
      options: {},
      derive: {
        options: source.options,
        make: async (ready, deps) => {
          await applyLayer(ready.sandbox, source.layer, (paths) => removeThroughShell(ready.shell, paths));
          await restoreShell(ready.shell, source.shell);
          return new Episode(
            id,
            parent.task,
            source.options,
            parent.seed,
            parent.groupId,
            ready.sandbox,
            ready.shell,
            source.pristineHead,
            deps,
            source.state,
          );
        },
      },
    },
    signal,
  );
  if (!created && episode.lineage?.parentEpisodeId !== parent.id)
    throw new AlreadyExistsError(`episode ${id} already exists and is no child of ${parent.id}`);
  return episode;
}
