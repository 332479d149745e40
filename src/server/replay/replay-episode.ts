import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from '../../common/errors.js';
import type { TaskStore } from '../../tasks/task-store.js';
import { fullSteps } from '../../trajectories/lineage.js';
import { parseTrajectory, readTrajectory, type Trajectory, type TrajectoryStep } from '../../trajectories/trajectory-format.js';
import type { TrajectoryRecorder } from '../../trajectories/trajectory-recorder.js';
import type { EpisodeDefaults } from '../config.js';
import type { Episode, StepOutcome } from '../episode.js';
import type { EpisodeRegistry } from '../episode-registry.js';

export interface ReplayInput {
  /** A trajectory this server recorded, by its episode id; or `trajectoryJsonl`, the text of one. */
  readonly sourceEpisodeId: string;
  readonly trajectoryJsonl: string;
  /** Recorded steps to run again; 0: every recorded bash step before the first other tool. */
  readonly steps: number;
  readonly episodeId: string;
  readonly options: Partial<EpisodeDefaults>;
}

export interface Divergence {
  readonly stepIndex: number;
  readonly field: 'observation' | 'exit_code' | 'status';
  readonly recorded: string;
  readonly replayed: string;
}

export interface ReplayResult {
  readonly episodeId: string;
  readonly steps: number;
  readonly divergences: readonly Divergence[];
  readonly firstDivergence: number;
  readonly durationS: number;
}

export interface ReplayDeps {
  readonly registry: EpisodeRegistry;
  readonly tasks: TaskStore;
  readonly trajectories: TrajectoryRecorder | undefined;
}

/**
 * Starts an episode from a recording: a Reset of its task, then the recorded bash commands of its
 * first `steps` steps (a fork child's with its ancestors' prefix) run again as the episode's own
 * steps, each outcome compared with the recording. Every difference is reported; the episode goes
 * on from the last replayed step either way. Only bash steps replay: a submit ends an episode.
 */
export async function replayEpisode(deps: ReplayDeps, input: ReplayInput, signal?: AbortSignal): Promise<ReplayResult> {
  const started = Date.now();
  const recording = await loadRecording(deps.trajectories, input);
  const all = await fullSteps(recording, async (id) => {
    const file = await deps.trajectories?.find(id);
    return file ? readTrajectory(file) : undefined;
  });
  const prefix = replayable(all, input.steps);
  const task = deps.tasks.get(recording.header.task_id);
  const { episode, created } = await deps.registry.reset(
    { task, episodeId: input.episodeId, seed: recording.header.seed, groupId: recording.header.group_id, options: input.options },
    signal,
  );
  if (!created) throw new AlreadyExistsError(`episode ${episode.id} already exists; replay into a new episode_id`);
  const divergences: Divergence[] = [];
  let ran = 0;
  for (const step of prefix) {
    const outcome = await rerun(episode, ran, step);
    divergences.push(...compare(step, outcome, ran));
    ran += 1;
    if (outcome.terminated || outcome.truncated || episode.ended) break;
  }
  return {
    episodeId: episode.id,
    steps: ran,
    divergences,
    firstDivergence: divergences[0]?.stepIndex ?? -1,
    durationS: (Date.now() - started) / 1000,
  };
}

async function loadRecording(trajectories: TrajectoryRecorder | undefined, input: ReplayInput): Promise<Trajectory> {
  if (input.trajectoryJsonl) {
    const parsed = parseTrajectory(input.trajectoryJsonl, '<request>');
    if (!parsed) throw new InvalidArgumentError('trajectory_jsonl holds no swe-env trajectory header');
    return parsed;
  }
  if (!input.sourceEpisodeId) throw new InvalidArgumentError('source_episode_id or trajectory_jsonl is required');
  if (!trajectories) throw new NotFoundError('this server records no trajectories (--trajectory-dir): send trajectory_jsonl instead');
  const file = await trajectories.find(input.sourceEpisodeId);
  const parsed = file ? await readTrajectory(file) : undefined;
  if (!parsed) throw new NotFoundError(`no trajectory of episode ${input.sourceEpisodeId} is recorded on this server`);
  return parsed;
}

/** The steps to run again: numbered from 0 without a gap, bash only. */
function replayable(steps: readonly TrajectoryStep[], count: number): TrajectoryStep[] {
  if (!Number.isInteger(count) || count < 0) throw new InvalidArgumentError('steps must be a whole number, 0 or more');
  const out: TrajectoryStep[] = [];
  for (const [at, step] of steps.entries()) {
    if (count > 0 && out.length === count) break;
    if (step.index !== at)
      throw new InvalidArgumentError(`the recording has no step ${at} (steps were dropped): it cannot be replayed past step ${at}`);
    if (step.tool !== 'bash') {
      if (count === 0) break;
      throw new InvalidArgumentError(`recorded step ${at} is a ${step.tool} call; only bash steps replay (ask for at most ${at} steps)`);
    }
    out.push(step);
  }
  if (count > out.length)
    throw new InvalidArgumentError(`the recording has ${out.length} replayable steps, fewer than the ${count} asked for`);
  return out;
}

function rerun(episode: Episode, index: number, step: TrajectoryStep): Promise<StepOutcome> {
  const argumentsJson = typeof step.arguments === 'string' ? step.arguments : JSON.stringify(step.arguments);
  return episode.step(index, { name: step.tool, argumentsJson, callId: step.call_id }, step.assistant);
}

function compare(step: TrajectoryStep, outcome: StepOutcome, index: number): Divergence[] {
  const found: Divergence[] = [];
  if (step.status !== outcome.status) found.push({ stepIndex: index, field: 'status', recorded: step.status, replayed: outcome.status });
  if (step.exit_code !== outcome.exitCode)
    found.push({ stepIndex: index, field: 'exit_code', recorded: String(step.exit_code), replayed: String(outcome.exitCode) });
  if (step.observation !== outcome.observation)
    found.push({ stepIndex: index, field: 'observation', recorded: step.observation, replayed: outcome.observation });
  return found;
}
