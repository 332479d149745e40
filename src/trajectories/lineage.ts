import type { Trajectory, TrajectoryStep } from './trajectory-format.js';

/** Finds another trajectory (a fork's parent) by its episode id; undefined when it is not kept. */
export type FindTrajectory = (episodeId: string) => Promise<Trajectory | undefined>;

/** Forks deeper than this are refused (a cycle of forged headers must not loop). */
const MAX_DEPTH = 64;

/**
 * A fork child's full conversation: its ancestors' steps before each branch point, then its own.
 * A trajectory without a parent is its own conversation. Throws when an ancestor is not kept,
 * since a conversation missing its prefix would teach a model the wrong context.
 */
export async function fullSteps(trajectory: Trajectory, find: FindTrajectory): Promise<TrajectoryStep[]> {
  const chain: Array<{ steps: readonly TrajectoryStep[]; from: number; below: number }> = [];
  let current = trajectory;
  let below = Number.POSITIVE_INFINITY;
  for (let depth = 0; ; depth++) {
    const branch = current.header.branch_step ?? 0;
    chain.push({ steps: current.steps, from: current.header.parent_episode_id ? branch : 0, below });
    const parentId = current.header.parent_episode_id;
    if (!parentId) break;
    if (depth >= MAX_DEPTH) throw new Error(`trajectory ${trajectory.header.episode_id} has more than ${MAX_DEPTH} fork ancestors`);
    const parent = await find(parentId);
    if (!parent)
      throw new Error(
        `the trajectory of ${current.header.episode_id}'s parent ${parentId} is not kept: its first ${branch} steps cannot be rebuilt`,
      );
    below = branch;
    current = parent;
  }
  const steps: TrajectoryStep[] = [];
  for (const { steps: own, from, below: limit } of chain.reverse()) {
    steps.push(...own.filter((s) => s.index >= from && s.index < limit));
  }
  return steps;
}

/**
 * Every fork child of `all` with its full conversation (see fullSteps), its parents found among
 * `all`; a child whose ancestor is not among them is left out, since its prefix cannot be rebuilt.
 */
export async function withFullConversations(all: readonly Trajectory[]): Promise<Trajectory[]> {
  const byId = new Map(all.map((t) => [t.header.episode_id, t]));
  const find: FindTrajectory = (id) => Promise.resolve(byId.get(id));
  const out: Trajectory[] = [];
  for (const t of all) {
    if (!t.header.parent_episode_id) out.push(t);
    else {
      const steps = await fullSteps(t, find).catch(() => undefined);
      if (steps) out.push({ ...t, steps });
    }
  }
  return out;
}
