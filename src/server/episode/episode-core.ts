import type { GradeReport } from '../../reward/report.js';
import type { Task } from '../../tasks/task.js';
import type { AssistantTurn } from '../../trajectories/trajectory-format.js';
import type { EpisodeTrajectory } from '../../trajectories/trajectory-recorder.js';
import type { EpisodeDefaults } from '../config.js';
import type { EpisodeRecord } from '../persistence/episode-record.js';
import { endState, initialState, recordOf, summaryOf, type EpisodeIdentity, type EpisodeState } from './episode-state.js';
import type { SandboxControl } from './sandbox-control.js';
import { endLine, stepLine } from './trajectory-lines.js';
import type { Action, EndReason, EpisodeDeps, EpisodeSummary, Lineage, RestoredState, StepOutcome } from './types.js';

/** Who the episode is, as given at reset (or read back from its record). */
export interface EpisodeSpec {
  readonly id: string;
  readonly task: Task;
  readonly options: EpisodeDefaults;
  readonly seed: number;
  readonly groupId: string;
  /** HEAD of the pristine repository at reset (base_commit, or the image's commit on top of it). */
  readonly pristineHead: string;
}

/**
 * What the step code works on: the episode's spec, its state (plain data), its sandbox, and the few
 * effects a step may have (end the episode, write its record, let its sandbox go, add to its
 * trajectory). The Episode owns one and orders the steps; the step code (execute-step.ts,
 * grading.ts, failures.ts...) takes it as its first argument.
 */
export class EpisodeCore {
  readonly state: EpisodeState;
  /** The change the grading captured (a unified diff), for the trajectory and SWE-bench predictions. */
  modelPatch: string | undefined;
  /** A grading (submit, or truncation with GRADE) is under way: Close waits for its outcome. */
  grading = false;
  /** Where the episode's trajectory is recorded (absent when recording is off). */
  trajectory: EpisodeTrajectory | undefined;

  /** Set for a fork's child (kept in its record, so it survives a restart). */
  readonly lineage: Lineage | undefined;

  constructor(
    readonly spec: EpisodeSpec,
    readonly box: SandboxControl,
    readonly deps: EpisodeDeps,
    restored?: RestoredState,
  ) {
    this.state = initialState(spec.task.workdir, restored);
    this.lineage = restored?.lineage;
  }

  get id(): string {
    return this.spec.id;
  }

  get task(): Task {
    return this.spec.task;
  }

  get options(): EpisodeDefaults {
    return this.spec.options;
  }

  end(reason: EndReason, reward: number, report: GradeReport | undefined): void {
    endState(this.state, reason, reward, report);
  }

  /** The sandbox was let go (the episode ended, Close, or detach). */
  get disposed(): boolean {
    return this.box.isDisposed;
  }

  /** Idempotent: closes the shell and removes the container (see SandboxControl.dispose). */
  dispose(): Promise<void> {
    return this.box.dispose();
  }

  snapshot(retired?: EpisodeRecord['retired']): EpisodeRecord {
    return recordOf(this.identity(), this.state, retired);
  }

  /** Writes the record; a failure is the journal's to report (it drops the record), never the step's. */
  async persist(retired?: EpisodeRecord['retired']): Promise<void> {
    await this.deps.persist?.(this.snapshot(retired));
  }

  summary(): EpisodeSummary {
    return summaryOf(this.identity(), this.state, this.box.removalFailure);
  }

  /** Hands the step (and the end, once the episode has one) to the trajectory; never waits for it. */
  recordStep(outcome: StepOutcome, action: Action, startedAt: number, assistant: AssistantTurn | undefined): void {
    if (!this.trajectory) return;
    this.trajectory.step(stepLine(outcome, action, startedAt, assistant));
    if (this.state.end) this.recordEnd();
  }

  /** Hands the end to the trajectory (which takes only the first). */
  recordEnd(): void {
    if (!this.trajectory || !this.state.end) return;
    this.trajectory.end(endLine(this.state, this.state.end, this.modelPatch));
  }

  private identity(): EpisodeIdentity {
    const { id, task, options, seed, groupId, pristineHead } = this.spec;
    const lineage = this.lineage ? { lineage: this.lineage } : {};
    return {
      id,
      taskId: task.id,
      serverId: this.deps.serverId,
      options,
      seed,
      groupId,
      containerId: this.box.id,
      pristineHead,
      ...lineage,
    };
  }
}
