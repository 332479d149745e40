import { FailedPreconditionError } from '../common/errors.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { ShellSession } from '../sandbox/shell-session.js';
import type { Task } from '../tasks/task.js';
import type { AssistantTurn } from '../trajectories/trajectory-format.js';
import type { EpisodeTrajectory } from '../trajectories/trajectory-recorder.js';
import type { EpisodeDefaults } from './config.js';
import { EpisodeCore } from './episode/episode-core.js';
import { RETAINED_OUTCOMES, recordOutcome, recordedOutcome, type CapturedChange } from './episode/episode-state.js';
import { executeStep } from './episode/execute-step.js';
import { infraFailure, lostOutcome } from './episode/failures.js';
import { resumedStep } from './episode/resume-inflight.js';
import { SandboxControl } from './episode/sandbox-control.js';
import type { Action, EpisodeDeps, EpisodeSummary, Lineage, RestoredState, StepOutcome } from './episode/types.js';
import type { EpisodeRecord, InflightStep } from './persistence/episode-record.js';

export { RETAINED_OUTCOMES } from './episode/episode-state.js';
export type { Action, EndReason, EpisodeDeps, EpisodeSummary, Lineage, RestoredState, StepOutcome, StepStatus } from './episode/types.js';

/** The step under way; `turn` is the model's message for the trajectory (a retry may bring it). */
interface Inflight {
  readonly index: number;
  readonly promise: Promise<StepOutcome>;
  readonly turn: { assistant: AssistantTurn | undefined };
}

/**
 * One episode: its sandbox, its shell and the record of its steps. Steps are numbered by the
 * client; a step index that already ran returns the recorded outcome and runs nothing again.
 * This class orders the steps (one at a time, each recorded before and after it runs); what a
 * step does is in ./episode/ (execute-step.ts and what it calls), on the episode's EpisodeCore.
 */
export class Episode {
  readonly createdAt: number;
  lastActivityAt = Date.now();
  private readonly core: EpisodeCore;
  private inflight: Inflight | undefined;
  /** Set when a restarted server found this episode's container gone: the next step says so. */
  private lostMessage: string | undefined;
  /** Left for the next start with a step running (detach): the step's outcome is that start's to give. */
  private left = false;
  /** A fork is copying this episode's state: no step may start until it is done. */
  private held = false;

  constructor(
    readonly id: string,
    readonly task: Task,
    readonly options: EpisodeDefaults,
    readonly seed: number,
    readonly groupId: string,
    sandbox: Sandbox,
    /**
     * Absent for an episode a restarted server restored after its end (nothing left to run), or
     * until the command the crash cut is accounted for (its successor starts in its last directory).
     */
    shell: ShellSession | undefined,
    /** HEAD of the pristine repository at reset (base_commit, or the image's commit on top of it). */
    pristineHead: string,
    deps: EpisodeDeps,
    restored?: RestoredState,
  ) {
    const box = new SandboxControl(sandbox, shell, deps.logger, id);
    this.core = new EpisodeCore({ id, task, options, seed, groupId, pristineHead }, box, deps, restored);
    this.createdAt = this.core.state.createdAt;
  }

  /** What a restarted server needs to go on with this episode (see EpisodeRecord). */
  snapshot(retired?: EpisodeRecord['retired']): EpisodeRecord {
    return this.core.snapshot(retired);
  }

  /** Records the episode's trajectory there from now on. */
  attachTrajectory(trajectory: EpisodeTrajectory | undefined): void {
    this.core.trajectory = trajectory;
  }

  /** Writes the record; a failure is the journal's to report (it drops the record), never the step's. */
  async persist(retired?: EpisodeRecord['retired']): Promise<void> {
    await this.core.persist(retired);
  }

  get containerId(): string {
    return this.core.box.id;
  }

  get busy(): boolean {
    return this.inflight !== undefined;
  }

  /**
   * Resolves once a grading under way has its outcome, so a Close during a submit's grading and the
   * submit agree on one end (the grade), instead of Close reporting 0 while the submit reports 1.
   */
  async gradingSettled(): Promise<void> {
    if (this.core.grading && this.inflight) await this.inflight.promise.catch(() => undefined);
  }

  get ended(): boolean {
    return this.core.state.end !== undefined;
  }

  touch(): void {
    this.lastActivityAt = Date.now();
  }

  /** Interrupt: stops the bash command running now (its Step answers exit 130); false when none runs. */
  interrupt(): boolean {
    this.touch();
    return this.core.box.interrupt();
  }

  step(index: number, action: Action, assistant?: AssistantTurn): Promise<StepOutcome> {
    this.touch();
    const { state } = this.core;
    if (index < state.stepCount) {
      const recorded = recordedOutcome(state, index);
      if (recorded) return Promise.resolve(recorded);
      throw new FailedPreconditionError(
        `step ${index} of episode ${this.id} already ran; only the results of the last ${RETAINED_OUTCOMES} steps are kept (next is ${state.stepCount})`,
      );
    }
    if (this.held) throw new FailedPreconditionError(`episode ${this.id} is being forked; send step ${index} once the Fork has answered`);
    if (this.inflight) {
      if (this.inflight.index === index) {
        // A step a restart resumed has no model message (the record does not keep it): the
        // client's retry of the same step carries it, for the trajectory.
        this.inflight.turn.assistant ??= assistant;
        return this.inflight.promise;
      }
      throw new FailedPreconditionError(
        `step ${this.inflight.index} of episode ${this.id} is still running; step_index ${index} must wait for it`,
      );
    }
    if (index !== state.stepCount) {
      throw new FailedPreconditionError(`episode ${this.id} expects step_index ${state.stepCount}, got ${index}`);
    }
    if (this.lostMessage) return this.answerLost(index, action, assistant, this.lostMessage);
    if (state.end) {
      throw new FailedPreconditionError(`episode ${this.id} has ended (${state.end.reason}) after ${state.stepCount} steps; Close it`);
    }
    return this.begin(index, action, () => executeStep(this.core, index, action), assistant);
  }

  /**
   * Runs `copy` between steps, with no step allowed to start meanwhile (a Fork reading the state
   * its children start from). Refused while a step runs, during another fork, or after the end.
   */
  async hold<T>(copy: (core: EpisodeCore) => Promise<T>): Promise<T> {
    this.touch();
    if (this.inflight || this.held)
      throw new FailedPreconditionError(`episode ${this.id} is running a step or being forked; fork it between steps`);
    if (this.core.state.end || this.lostMessage || this.core.disposed) {
      throw new FailedPreconditionError(`episode ${this.id} has ended; only a live episode can be forked`);
    }
    this.held = true;
    try {
      return await copy(this.core);
    } finally {
      this.held = false;
      this.touch();
    }
  }

  /** The parent episode and branch step of a fork's child; undefined for an episode a Reset started. */
  get lineage(): Lineage | undefined {
    return this.core.lineage;
  }

  /**
   * Runs a step: its start is written to the record before anything runs (a restart then knows the
   * step's outcome is unknown, rather than run it again), its outcome before the answer goes out.
   */
  private begin(index: number, action: Action, run: () => Promise<StepOutcome>, assistant?: AssistantTurn): Promise<StepOutcome> {
    const { core } = this;
    const startedAt = Date.now();
    core.state.inflight = { index, name: action.name, argumentsJson: action.argumentsJson, callId: action.callId, startedAt };
    const turn = { assistant };
    const promise = core
      .persist()
      .then(run)
      .catch((error: unknown) => {
        // Whatever failed, the step gets a recorded outcome: the environment's failure, never a hang.
        core.deps.logger.error({ err: error, episode: this.id, step: index }, 'step failed in the environment');
        return infraFailure(core, { stepIndex: index, callId: action.callId }, error);
      })
      .then(async (outcome) => {
        // Left for the next start mid-step (detach): its record keeps the step running.
        if (this.left) return outcome;
        try {
          recordOutcome(core.state, outcome);
          core.state.inflight = undefined;
          core.state.captured = undefined;
          core.recordStep(outcome, action, startedAt, turn.assistant);
          await core.persist();
        } catch (error) {
          // The outcome stands: a failure to keep it is logged, never a step left running forever.
          core.deps.logger.error({ err: error, episode: this.id, step: index }, 'recording a step failed');
        } finally {
          this.inflight = undefined;
          this.touch();
        }
        return outcome;
      });
    this.inflight = { index, promise, turn };
    return promise;
  }

  /** The episode's container was gone when the server restarted: this step, and the episode, end so. */
  private answerLost(index: number, action: Action, assistant: AssistantTurn | undefined, message: string): Promise<StepOutcome> {
    this.lostMessage = undefined;
    const outcome = lostOutcome({ stepIndex: index, callId: action.callId }, message);
    recordOutcome(this.core.state, outcome);
    this.core.recordStep(outcome, action, Date.now(), assistant);
    return this.core.persist().then(() => outcome);
  }

  /**
   * A restarted server found this episode's container gone (or its task no longer served): the
   * episode ends as the environment's failure, and the next step answers INFRA_ERROR saying why.
   */
  markLost(message: string): void {
    this.lostMessage = message;
    this.core.end('infra_error', 0, undefined);
  }

  /** After a restart, answers the step that was running when the server died (see resumedStep). */
  resumeInflight(step: InflightStep, captured: CapturedChange | undefined, containerAlive: boolean): void {
    const { action, run } = resumedStep(this.core, step, captured, containerAlive);
    void this.begin(step.index, action, run);
  }

  /** Marks an episode that did not end by itself (Close, idle expiry). */
  markEnded(reason: 'closed' | 'expired'): void {
    if (!this.core.state.end) this.core.end(reason, 0, undefined);
    this.core.recordEnd();
  }

  summary(): EpisodeSummary {
    return this.core.summary();
  }

  /**
   * Idempotent: closes the shell and removes the container. A failed removal is not thrown: it shows
   * in the summary and the registry retries it; the container's expiry label and its self-ending
   * PID 1 bound its life meanwhile.
   */
  async dispose(): Promise<void> {
    await this.core.dispose();
  }

  /**
   * Leaves the episode for the next start of this server id (shutdown with 'leave'): the step under
   * way gets up to `graceMs` to end, then the shell is let go and the record written; the container
   * stays. A step still running then is left running: its record says so, and the next start
   * answers it (a command from the container's command journal, a submit graded again); whatever
   * this process still makes of it is not recorded, since the container it needs (a grader) may be
   * gone with this server. False when there is no container to leave (the episode ended, or its
   * submit is being graded: the next start grades it again from the record).
   */
  async detach(graceMs: number): Promise<boolean> {
    const running = this.inflight?.promise;
    if (running) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([running.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
    }
    if (this.core.state.end) return false;
    if (this.inflight) this.left = true;
    // A submit whose grading is under way has let its container go already: nothing to keep, but
    // the record (the captured change) lets the next start grade it again.
    if (!(await this.core.box.release())) return false;
    await this.core.persist();
    return true;
  }

  get removalPending(): boolean {
    return this.core.box.removalFailure !== undefined;
  }

  /** Removes the container; true once it is gone. A failure is kept for the summary and retried by the registry. */
  async retryRemoval(): Promise<boolean> {
    return this.core.box.retryRemoval();
  }
}
