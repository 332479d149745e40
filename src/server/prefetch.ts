import { InvalidArgumentError } from '../common/errors.js';
import type { ImageState } from '../generated/swe_env/v1/ImageState.js';
import type { ImageSupply as ImageSupplyProto } from '../generated/swe_env/v1/ImageSupply.js';
import type { PrefetchResponse } from '../generated/swe_env/v1/PrefetchResponse.js';
import type { PullState } from '../sandbox/images/image-pulls.js';
import type { ImageSupply, SupplySnapshot } from '../sandbox/images/image-supply.js';
import type { TaskStore } from '../tasks/task-store.js';

/** Task ids one Prefetch may name: a few batches ahead, not a whole data set per call. */
export const MAX_PREFETCH_TASKS = 10_000;

const PHASES = {
  present: 'IMAGE_PHASE_PRESENT',
  pulling: 'IMAGE_PHASE_PULLING',
  queued: 'IMAGE_PHASE_QUEUED',
  failed: 'IMAGE_PHASE_FAILED',
} as const;

export function pullStateToProto(state: PullState, taskIds: readonly string[] = []): ImageState {
  return {
    image: state.image,
    taskIds: [...taskIds],
    phase: PHASES[state.phase],
    error: state.error ?? '',
    bytesDone: state.bytesDone,
    bytesTotal: state.bytesTotal,
    layersDone: state.layersDone,
    layersTotal: state.layersTotal,
    attempt: state.attempt,
  };
}

export function supplyToProto(s: SupplySnapshot): ImageSupplyProto {
  const running = s.pulls.filter((p) => p.phase === 'pulling');
  return {
    pullsRunning: s.running,
    pullsQueued: s.queued,
    maxPulls: s.maxPulls,
    pullBytesDone: running.reduce((sum, p) => sum + p.bytesDone, 0),
    pullBytesTotal: running.reduce((sum, p) => sum + p.bytesTotal, 0),
    pulls: s.pulls.map((p) => pullStateToProto(p)),
    cacheBytes: s.cacheBytes,
    cacheHighBytes: s.highBytes,
    cacheLowBytes: s.lowBytes,
    evictions: s.evictions,
    pinnedImages: s.pinned,
    pullsDone: s.pullsDone,
  };
}

/**
 * Starts the pulls of the tasks' images and answers at once: one state per distinct image, in the
 * order first asked for. Unknown ids are listed, not fatal: the known ones still start, since a
 * trainer prefetching a batch must not lose the whole batch to one stale id.
 */
export async function prefetchTasks(tasks: TaskStore, supply: ImageSupply, taskIds: readonly string[]): Promise<PrefetchResponse> {
  if (taskIds.length > MAX_PREFETCH_TASKS) {
    throw new InvalidArgumentError(
      `Prefetch takes at most ${MAX_PREFETCH_TASKS} task ids per call, got ${taskIds.length}: send the next batches in several calls`,
    );
  }
  const byImage = new Map<string, string[]>();
  const unknown: string[] = [];
  for (const id of taskIds) {
    const task = tasks.find(id);
    if (!task) {
      unknown.push(id);
      continue;
    }
    const ids = byImage.get(task.image) ?? [];
    if (!ids.includes(id)) ids.push(id);
    byImage.set(task.image, ids);
  }
  const states = await supply.prefetch([...byImage.keys()]);
  return { images: states.map((state) => pullStateToProto(state, byImage.get(state.image) ?? [])), unknownTaskIds: unknown };
}
