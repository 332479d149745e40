/**
 * The trajectory of one episode, as the server records it: one JSON-lines file, a header line, a
 * line per step, an end line. `swe-env trajectories export/view` and `swe-env collect` read and
 * write this one format.
 */
import { readFile } from 'node:fs/promises';
import type { GradeReport } from '../reward/report.js';

export const TRAJECTORY_FORMAT = 'swe-env-trajectory/1';

export interface AssistantTurn {
  readonly content: string;
  readonly reasoning: string;
  readonly model: string;
}

export interface TrajectoryHeader {
  readonly type: 'episode';
  readonly format: typeof TRAJECTORY_FORMAT;
  readonly episode_id: string;
  readonly task_id: string;
  readonly dataset: string;
  readonly repo: string;
  readonly base_commit: string;
  readonly group_id: string;
  readonly seed: number;
  readonly options: Readonly<Record<string, unknown>>;
  readonly server_id: string;
  readonly started_at: string;
  /** The task prompt the agent was given (Reset's observation). */
  readonly prompt: string;
  /** The tools in OpenAI function format, as Reset gave them. */
  readonly tools: readonly unknown[];
  /** Set by `swe-env collect`: the model, sampling and sample number. */
  readonly collect?: Readonly<Record<string, unknown>>;
  /** A system prompt the driver put before the task prompt, if any. */
  readonly system_prompt?: string;
  /** A fork's child: the episode it branched from, and that episode's step count then (its own steps start there). */
  readonly parent_episode_id?: string;
  readonly branch_step?: number;
}

export interface TrajectoryStep {
  readonly type: 'step';
  readonly index: number;
  readonly call_id: string;
  readonly tool: string;
  /** The call's arguments: parsed JSON, or the raw text when it was not JSON. */
  readonly arguments: unknown;
  readonly assistant?: AssistantTurn;
  /**
   * The model turn this call belongs to, when the driver knows it (`swe-env collect`): the calls of
   * one assistant message share it, so an export rebuilds that message with all its tool calls.
   */
  readonly turn?: number;
  readonly observation: string;
  readonly status: string;
  readonly exit_code: number;
  readonly duration_s: number;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly info: Readonly<Record<string, unknown>>;
  readonly at: string;
}

export interface TrajectoryEnd {
  readonly type: 'end';
  readonly reward: number;
  readonly resolved: boolean;
  readonly end_reason: string;
  readonly steps: number;
  readonly duration_s: number;
  readonly report?: GradeReport;
  /** The change the grading captured from the sandbox (a unified diff), when there was one. */
  readonly model_patch?: string;
  /** Steps left out because the episode's record reached its size bound. */
  readonly steps_dropped?: number;
  readonly ended_at: string;
}

export type TrajectoryEvent = TrajectoryHeader | TrajectoryStep | TrajectoryEnd;

export interface Trajectory {
  readonly file: string;
  readonly header: TrajectoryHeader;
  readonly steps: readonly TrajectoryStep[];
  readonly end: TrajectoryEnd | undefined;
}

/** Reads one trajectory file; undefined when it has no header (not a trajectory). */
export async function readTrajectory(file: string): Promise<Trajectory | undefined> {
  return parseTrajectory(await readFile(file, 'utf8'), file);
}

/** A trajectory from its JSONL text; undefined when it has no header. */
export function parseTrajectory(text: string, file: string): Trajectory | undefined {
  let header: TrajectoryHeader | undefined;
  const steps = new Map<number, TrajectoryStep>();
  let end: TrajectoryEnd | undefined;
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    let event: TrajectoryEvent;
    try {
      event = JSON.parse(line) as TrajectoryEvent;
    } catch {
      continue; // a torn last line: the writer died in its write
    }
    if (event.type === 'episode') header ??= event;
    // A step recorded twice (a retry across a restart) is the same step: the last copy stands.
    else if (event.type === 'step') steps.set(event.index, event);
    else if (event.type === 'end') end = event;
  }
  if (!header) return undefined;
  return { file, header, steps: [...steps.values()].sort((a, b) => a.index - b.index), end };
}
