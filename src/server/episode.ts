import { FailedPreconditionError, messageOf } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { Grader } from '../reward/grader.js';
import { shellStartsOnPristineCopy } from './shell-control.js';
import { captureChange } from '../reward/patch-capture.js';
import { baseReport, type GradeReport } from '../reward/report.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { awaitJournaledCommand, stepJournalKey, type JournaledCommand } from '../sandbox/command-journal.js';
import { ShellSession } from '../sandbox/shell-session.js';
import type { Task } from '../tasks/task.js';
import type { EpisodeDefaults } from './config.js';
import { RECORD_VERSION, type EpisodeRecord, type InflightStep } from './persistence/episode-record.js';
import { MAX_ARGUMENT_DEPTH, jsonNestingDepth, parseAction } from './tools.js';
import type { EpisodeTrajectory } from '../trajectories/trajectory-recorder.js';
import type { AssistantTurn } from '../trajectories/trajectory-format.js';

/** Outcomes kept for retries: a client retries the step it has no answer for, the latest. */
export const RETAINED_OUTCOMES = 2;
/** The captured change goes back with the submit's answer up to this size (the trajectory has it whole). */
const PATCH_INFO_LIMIT = 1024 * 1024;

export type StepStatus = 'OK' | 'COMMAND_TIMEOUT' | 'INVALID_ACTION' | 'TRUNCATED_STEPS' | 'TRUNCATED_TIME' | 'INFRA_ERROR';
export type EndReason =
  | 'submitted'
  | 'truncated_steps'
  | 'truncated_time'
  | 'closed'
  | 'expired'
  | 'infra_error'
  | 'sandbox_oom'
  | 'sandbox_disk_quota'
  | 'sandbox_unstoppable_command'
  | 'sandbox_shell_broken';

export interface StepOutcome {
  readonly stepIndex: number;
  readonly callId: string;
  readonly observation: string;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly status: StepStatus;
  readonly exitCode: number;
  readonly info: Readonly<Record<string, unknown>>;
  readonly report?: GradeReport;
}

export interface EpisodeSummary {
  readonly episodeId: string;
  readonly taskId: string;
  readonly steps: number;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly endReason: EndReason | '';
  readonly durationS: number;
  readonly report?: GradeReport;
  readonly seed: number;
  readonly groupId: string;
  /** Why the container is not removed yet ('' once it is); the registry keeps retrying. */
  readonly containerRemovalPending: string;
}

export interface EpisodeDeps {
  readonly grader: Grader;
  readonly logger: Logger;
  readonly maxPatchBytes: number;
  readonly serverId: string;
  /** Writes the episode's record (restart survival); absent when the server keeps no state. */
  readonly persist?: (record: EpisodeRecord) => Promise<unknown>;
}

/** An episode's state as a restarted server read it back from its record. */
export interface RestoredState {
  readonly createdAt: number;
  readonly stepCount: number;
  readonly recent: readonly StepOutcome[];
  readonly cwd: string;
  readonly end?: EpisodeRecord['end'];
}

export interface Action {
  readonly name: string;
  readonly argumentsJson: string;
  readonly callId: string;
}

/**
 * One episode: its sandbox, its shell and the record of its steps. Steps are numbered by the
 * client; a step index that already ran returns the recorded outcome and runs nothing again.
 */
export class Episode {
  readonly createdAt: number;
  lastActivityAt = Date.now();
  /** Steps executed so far; only the last RETAINED outcomes are kept (a retry targets the latest). */
  private stepCount = 0;
  private readonly recent: StepOutcome[] = [];
  /** The step under way; `turn` is the model's message for the trajectory (a retry may bring it). */
  private inflight: { index: number; promise: Promise<StepOutcome>; turn: { assistant: AssistantTurn | undefined } } | undefined;
  private endReason: EndReason | undefined;
  private finalReward = 0;
  private finalReport: GradeReport | undefined;
  private endedAt: number | undefined;
  private disposed = false;
  /** A grading (submit, or truncation with GRADE) is under way: Close waits for its outcome. */
  private grading = false;
  /** The last failure to remove the container, until a retry succeeds. */
  private removalError: string | undefined;
  /** The shell's working directory after the last command (a restarted server's shell starts there). */
  private cwd: string;
  /** The step under way, as the record has it (a restart finds it unanswered). */
  private inflightRecord: InflightStep | undefined;
  /** The change a grading under way works on (kept in the record so a restart can grade it again). */
  private captured: { patchBase64: string; captureS: number } | undefined;
  /** Set when a restarted server found this episode's container gone: the next step says so. */
  private lostMessage: string | undefined;
  /** Where the episode's trajectory is recorded (absent when recording is off). */
  private trajectory: EpisodeTrajectory | undefined;
  /** The change the grading captured (a unified diff), for the trajectory and SWE-bench predictions. */
  private modelPatch: string | undefined;
  /** Left for the next start with a step running (detach): the step's outcome is that start's to give. */
  private left = false;
  /** Aborted at dispose: stops waiting on a command a restart found still running. */
  private readonly aborter = new AbortController();

  constructor(
    readonly id: string,
    readonly task: Task,
    readonly options: EpisodeDefaults,
    readonly seed: number,
    readonly groupId: string,
    private readonly sandbox: Sandbox,
    /**
     * Absent for an episode a restarted server restored after its end (nothing left to run), or
     * until the command the crash cut is accounted for (its successor starts in its last directory).
     */
    private shell: ShellSession | undefined,
    /** HEAD of the pristine repository at reset (base_commit, or the image's commit on top of it). */
    private readonly pristineHead: string,
    private readonly deps: EpisodeDeps,
    restored?: RestoredState,
  ) {
    this.createdAt = restored?.createdAt ?? Date.now();
    this.cwd = restored?.cwd ?? task.workdir;
    if (restored) {
      this.stepCount = restored.stepCount;
      this.recent.push(...restored.recent.slice(-RETAINED_OUTCOMES));
      if (restored.end) {
        this.endReason = restored.end.reason;
        this.finalReward = restored.end.reward;
        this.finalReport = restored.end.report;
        this.endedAt = restored.end.endedAt;
      }
    }
  }

  /** What a restarted server needs to go on with this episode (see EpisodeRecord). */
  snapshot(retired?: EpisodeRecord['retired']): EpisodeRecord {
    return {
      version: RECORD_VERSION,
      id: this.id,
      taskId: this.task.id,
      serverId: this.deps.serverId,
      options: this.options,
      seed: this.seed,
      groupId: this.groupId,
      containerId: this.sandbox.id,
      pristineHead: this.pristineHead,
      createdAt: this.createdAt,
      stepCount: this.stepCount,
      recent: [...this.recent],
      cwd: this.cwd,
      ...(this.inflightRecord ? { inflight: this.inflightRecord } : {}),
      ...(this.captured ? { captured: this.captured } : {}),
      ...(this.endReason ? { end: { reason: this.endReason, reward: this.finalReward, ...(this.finalReport ? { report: this.finalReport } : {}), endedAt: this.endedAt ?? Date.now() } } : {}),
      ...(retired ? { retired } : {}),
    };
  }

  /** Records the episode's trajectory there from now on. */
  attachTrajectory(trajectory: EpisodeTrajectory | undefined): void {
    this.trajectory = trajectory;
  }

  /** Writes the record; a failure is the journal's to report (it drops the record), never the step's. */
  async persist(retired?: EpisodeRecord['retired']): Promise<void> {
    await this.deps.persist?.(this.snapshot(retired));
  }

  get containerId(): string {
    return this.sandbox.id;
  }

  get busy(): boolean {
    return this.inflight !== undefined;
  }

  /**
   * Resolves once a grading under way has its outcome, so a Close during a submit's grading and the
   * submit agree on one end (the grade), instead of Close reporting 0 while the submit reports 1.
   */
  async gradingSettled(): Promise<void> {
    if (this.grading && this.inflight) await this.inflight.promise.catch(() => undefined);
  }

  get ended(): boolean {
    return this.endReason !== undefined;
  }

  touch(): void {
    this.lastActivityAt = Date.now();
  }

  private record(outcome: StepOutcome): void {
    this.stepCount += 1;
    this.recent.push(outcome);
    if (this.recent.length > RETAINED_OUTCOMES) this.recent.shift();
  }

  step(index: number, action: Action, assistant?: AssistantTurn): Promise<StepOutcome> {
    this.touch();
    if (index < this.stepCount) {
      const recorded = this.recent.find((o) => o.stepIndex === index);
      if (recorded) return Promise.resolve(recorded);
      throw new FailedPreconditionError(
        `step ${index} of episode ${this.id} already ran; only the results of the last ${RETAINED_OUTCOMES} steps are kept (next is ${this.stepCount})`,
      );
    }
    if (this.inflight) {
      if (this.inflight.index === index) {
        // A step a restart resumed has no model message (the record does not keep it): the
        // client's retry of the same step carries it, for the trajectory.
        this.inflight.turn.assistant ??= assistant;
        return this.inflight.promise;
      }
      throw new FailedPreconditionError(`step ${this.inflight.index} of episode ${this.id} is still running; step_index ${index} must wait for it`);
    }
    if (index !== this.stepCount) {
      throw new FailedPreconditionError(`episode ${this.id} expects step_index ${this.stepCount}, got ${index}`);
    }
    if (this.lostMessage) return this.answerLost(index, action, assistant, this.lostMessage);
    if (this.endReason) {
      throw new FailedPreconditionError(`episode ${this.id} has ended (${this.endReason}) after ${this.stepCount} steps; Close it`);
    }
    return this.begin(index, action, () => this.execute(index, action), assistant);
  }

  /**
   * Runs a step: its start is written to the record before anything runs (a restart then knows the
   * step's outcome is unknown, rather than run it again), its outcome before the answer goes out.
   */
  private begin(index: number, action: Action, run: () => Promise<StepOutcome>, assistant?: AssistantTurn): Promise<StepOutcome> {
    const startedAt = Date.now();
    this.inflightRecord = { index, name: action.name, argumentsJson: action.argumentsJson, callId: action.callId, startedAt };
    const turn = { assistant };
    const promise = this.persist()
      .then(run)
      .catch((error: unknown) => {
        // Whatever failed, the step gets a recorded outcome: the environment's failure, never a hang.
        this.deps.logger.error({ err: error, episode: this.id, step: index }, 'step failed in the environment');
        return this.infraFailure({ stepIndex: index, callId: action.callId }, error);
      })
      .then(async (outcome) => {
        // Left for the next start mid-step (detach): its record keeps the step running.
        if (this.left) return outcome;
        try {
          this.record(outcome);
          this.inflightRecord = undefined;
          this.captured = undefined;
          this.recordTrajectory(outcome, action, startedAt, turn.assistant);
          await this.persist();
        } catch (error) {
          // The outcome stands: a failure to keep it is logged, never a step left running forever.
          this.deps.logger.error({ err: error, episode: this.id, step: index }, 'recording a step failed');
        } finally {
          this.inflight = undefined;
          this.touch();
        }
        return outcome;
      });
    this.inflight = { index, promise, turn };
    return promise;
  }

  /** Hands the step (and the end, once the episode has one) to the trajectory; never waits for it. */
  private recordTrajectory(outcome: StepOutcome, action: Action, startedAt: number, assistant: AssistantTurn | undefined): void {
    if (!this.trajectory) return;
    let args: unknown = action.argumentsJson;
    // Too deep to serialise again safely (or not JSON): kept as the raw text the model wrote.
    if (jsonNestingDepth(action.argumentsJson, MAX_ARGUMENT_DEPTH) <= MAX_ARGUMENT_DEPTH) {
      try {
        args = JSON.parse(action.argumentsJson);
      } catch {
        // not JSON
      }
    }
    this.trajectory.step({
      type: 'step',
      index: outcome.stepIndex,
      call_id: outcome.callId,
      tool: action.name,
      arguments: args,
      ...(assistant && (assistant.content || assistant.reasoning || assistant.model) ? { assistant } : {}),
      observation: outcome.observation,
      status: outcome.status,
      exit_code: outcome.exitCode,
      duration_s: (Date.now() - startedAt) / 1000,
      reward: outcome.reward,
      terminated: outcome.terminated,
      truncated: outcome.truncated,
      // The grading report goes in the end line, once.
      info: outcome.info,
      at: new Date().toISOString(),
    });
    if (this.endReason) this.recordEnd();
  }

  /** The captured change for the client (SWE-bench predictions), when it is small enough to send. */
  private patchInfo(): Record<string, unknown> {
    if (this.modelPatch === undefined) return {};
    if (Buffer.byteLength(this.modelPatch) > PATCH_INFO_LIMIT) return { model_patch_omitted: `${Buffer.byteLength(this.modelPatch)} bytes, over ${PATCH_INFO_LIMIT}` };
    return { model_patch: this.modelPatch };
  }

  private recordEnd(): void {
    if (!this.trajectory || !this.endReason) return;
    this.trajectory.end({
      type: 'end',
      reward: this.finalReward,
      resolved: this.finalReport?.resolved ?? false,
      end_reason: this.endReason,
      steps: this.stepCount,
      duration_s: ((this.endedAt ?? Date.now()) - this.createdAt) / 1000,
      ...(this.finalReport ? { report: this.finalReport } : {}),
      ...(this.modelPatch !== undefined ? { model_patch: this.modelPatch } : {}),
      ended_at: new Date(this.endedAt ?? Date.now()).toISOString(),
    });
  }

  /** The episode's container was gone when the server restarted: this step, and the episode, end so. */
  private answerLost(index: number, action: Action, assistant: AssistantTurn | undefined, message: string): Promise<StepOutcome> {
    this.lostMessage = undefined;
    const callId = action.callId;
    const outcome: StepOutcome = {
      stepIndex: index,
      callId,
      observation: `[swe-env] The environment failed: ${message}`,
      reward: 0,
      terminated: false,
      truncated: true,
      status: 'INFRA_ERROR',
      exitCode: -1,
      info: { infra_error: message, server_restarted: true },
    };
    this.record(outcome);
    this.recordTrajectory(outcome, action, Date.now(), assistant);
    return this.persist().then(() => outcome);
  }

  /**
   * A restarted server found this episode's container gone (or its task no longer served): the
   * episode ends as the environment's failure, and the next step answers INFRA_ERROR saying why.
   */
  markLost(message: string): void {
    this.lostMessage = message;
    this.end('infra_error', 0, undefined);
  }

  /**
   * After a restart, the step that was running when the server died. A submit whose change was
   * captured is graded again from that change (grading is repeatable); a submit not yet captured
   * is run again (capture only reads the container). A bash command is never run twice: the
   * container's command journal says how it ended (waited for while it still runs), or that it
   * never started (it runs now); when the journal cannot tell, the step answers INFRA_ERROR.
   */
  resumeInflight(step: InflightStep, captured: { patchBase64: string; captureS: number } | undefined, containerAlive: boolean): void {
    const action: Action = { name: step.name, argumentsJson: step.argumentsJson, callId: step.callId };
    const submit = parseAction(step.name, step.argumentsJson).kind === 'submit';
    const base = { stepIndex: step.index, callId: step.callId };
    if (submit && captured) {
      this.captured = captured;
      void this.begin(step.index, action, () => this.finish(base, 'submitted', 'OK', 'Your solution was submitted and graded.', undefined, captured));
    } else if (submit && containerAlive) {
      void this.begin(step.index, action, () => this.execute(step.index, action));
    } else if (!submit && containerAlive) {
      void this.begin(step.index, action, () => this.recoverCommand(step, action));
    } else {
      const message = `the server restarted while step ${step.index} ran; its output was lost and its command may have run partly`;
      void this.begin(step.index, action, () => this.infraFailure(base, new Error(message)));
    }
  }

  /** The bash step a crash cut, answered from the container's command journal (see resumeInflight). */
  private async recoverCommand(step: InflightStep, action: Action): Promise<StepOutcome> {
    const base = { stepIndex: step.index, callId: step.callId };
    if (!step.sent) {
      // By the server's own record the command never went to a shell: it runs now, once.
      try {
        this.shell = await ShellSession.resume(this.sandbox, this.task.workdir, this.cwd, 'the server restarted');
      } catch (error) {
        return this.sandboxFailure(base, error);
      }
      return this.execute(step.index, action);
    }
    let found: JournaledCommand;
    try {
      found = await awaitJournaledCommand(this.sandbox, stepJournalKey(step.index), step.startedAt, step.startedAt + this.commandTimeoutMs(step.startedAt), this.aborter.signal);
    } catch (error) {
      if (this.disposed) return this.closedDuringStep(base);
      return this.sandboxFailure(base, error);
    }
    if (this.disposed) return this.closedDuringStep(base);
    if (found.kind === 'unknown') {
      return this.infraFailure(base, new Error(`the server restarted while step ${step.index} ran, and the container does not say how its command ended (${found.reason})`));
    }
    if (found.kind === 'ended' && found.cwd) this.cwd = found.cwd;
    try {
      this.shell = await ShellSession.resume(this.sandbox, this.task.workdir, this.cwd, 'the server restarted');
    } catch (error) {
      return this.sandboxFailure(base, error);
    }
    this.deps.logger.info({ episode: this.id, step: step.index, found: found.kind }, 'a command cut by a restart was accounted for');
    // The command was sent: whatever the journal says, it is never run again (a journal that says
    // it never started is the agent's to write, and would make it run twice).
    const observation =
      found.kind === 'ended'
        ? `[swe-env] The server restarted while this command ran. The command ran to its end${found.timedOut ? ' (killed at its time limit)' : ''} with exit code ${found.exitCode}; its output was lost.`
        : found.kind === 'shell-exited'
          ? '[swe-env] The server restarted while this command ran. The shell exited during the command (exit code unknown); its output was lost.'
          : '[swe-env] The server restarted while this command ran. The command was sent to the shell, but the container does not show how it ended (exit code unknown); its output was lost. It was not run again.';
    const timedOut = found.kind === 'ended' && found.timedOut;
    const outcome: StepOutcome = {
      ...base,
      observation,
      reward: 0,
      terminated: false,
      truncated: false,
      status: timedOut ? 'COMMAND_TIMEOUT' : 'OK',
      exitCode: found.kind === 'ended' ? (timedOut && found.exitCode === 0 ? 137 : found.exitCode) : -1,
      info: { server_restarted: true, output_lost: true, cwd: this.cwd },
    };
    if (step.index + 1 >= this.options.maxSteps) {
      return this.truncate(base, 'TRUNCATED_STEPS', `${outcome.observation}\n[swe-env] The episode's limit of ${this.options.maxSteps} steps was reached.`, outcome);
    }
    return outcome;
  }

  private async execute(index: number, action: Action): Promise<StepOutcome> {
    const base = { stepIndex: index, callId: action.callId };
    if (Date.now() - this.createdAt >= this.options.episodeTimeoutS * 1000) {
      return this.truncate(base, 'TRUNCATED_TIME', `The episode's time limit of ${this.options.episodeTimeoutS}s was reached.`);
    }
    const parsed = parseAction(action.name, action.argumentsJson);
    let outcome: StepOutcome;
    switch (parsed.kind) {
      case 'invalid':
        outcome = { ...base, observation: parsed.message, reward: 0, terminated: false, truncated: false, status: 'INVALID_ACTION', exitCode: -1, info: {} };
        break;
      case 'submit':
        return this.finish(base, 'submitted', 'OK', 'Your solution was submitted and graded.');
      case 'bash':
        outcome = await this.runBash(base, parsed.command);
        break;
    }
    if (outcome.status === 'INFRA_ERROR') return outcome;
    if (index + 1 >= this.options.maxSteps) {
      return this.truncate(base, 'TRUNCATED_STEPS', `${outcome.observation}\n[swe-env] The episode's limit of ${this.options.maxSteps} steps was reached.`, outcome);
    }
    return outcome;
  }

  /** A command's time limit: its own, cut to what is left of the episode's, at least a second. */
  private commandTimeoutMs(startedAt: number): number {
    const remainingMs = this.options.episodeTimeoutS * 1000 - (startedAt - this.createdAt);
    return Math.max(1000, Math.min(this.options.commandTimeoutS * 1000, remainingMs));
  }

  private async runBash(base: { stepIndex: number; callId: string }, command: string): Promise<StepOutcome> {
    const timeoutMs = this.commandTimeoutMs(Date.now());
    try {
      if (!this.shell) throw new Error('the episode has no shell');
      const result = await this.shell.run(command, {
        timeoutMs,
        outputLimitBytes: this.options.outputLimitBytes,
        // Journaled only when the server keeps records: only a restarted server reads the journal.
        ...(this.deps.persist ? { journalKey: stepJournalKey(base.stepIndex), beforeSend: () => this.markSent() } : {}),
      });
      this.cwd = result.cwd;
      const notes: string[] = [];
      if (result.timedOut) notes.push(`[swe-env] The command timed out after ${Math.round(timeoutMs / 100) / 10}s and was killed.`);
      if (result.shellRestarted) notes.push(`[swe-env] Note: ${result.shellRestarted}.`);
      const observation = notes.length > 0 ? `${result.output}${result.output.endsWith('\n') || result.output === '' ? '' : '\n'}${notes.join('\n')}` : result.output;
      return {
        ...base,
        observation,
        reward: 0,
        terminated: false,
        truncated: false,
        status: result.timedOut ? 'COMMAND_TIMEOUT' : 'OK',
        exitCode: result.exitCode,
        info: {
          duration_s: result.durationMs / 1000,
          output_bytes: result.outputBytes,
          omitted_bytes: result.omittedBytes,
          cwd: result.cwd,
          ...(result.shellRestarted ? { shell_restarted: true } : {}),
        },
      };
    } catch (error) {
      if (this.disposed) return this.closedDuringStep(base);
      return this.sandboxFailure(base, error);
    }
  }

  /** The record says the step's command went to the shell (see InflightStep.sent). */
  private async markSent(): Promise<void> {
    if (!this.inflightRecord) return;
    this.inflightRecord = { ...this.inflightRecord, sent: true };
    await this.persist();
  }

  /** Close (or expiry) removed the sandbox under a running command: that, not an environment failure. */
  private closedDuringStep(base: { stepIndex: number; callId: string }): StepOutcome {
    return {
      ...base,
      observation: '[swe-env] The episode was closed while this command ran; the command was stopped.',
      reward: 0,
      terminated: false,
      truncated: true,
      status: 'OK',
      exitCode: -1,
      info: { end_reason: this.endReason ?? 'closed' },
    };
  }

  /**
   * The sandbox failed under a command. When the engine reports it died of its own memory limit
   * (the command exhausted it, with PID 1 made the OOM killer's choice), or the disk watchdog stopped
   * it for writing past its disk quota, that is the model's failure: reward 0 and a clear end, not a
   * masked INFRA_ERROR. Anything else is the environment's.
   */
  private async sandboxFailure(base: { stepIndex: number; callId: string }, error: unknown): Promise<StepOutcome> {
    const own = await this.ownFault();
    if (own) {
      this.deps.logger.info({ episode: this.id, reason: own.reason }, 'sandbox ended by its own commands');
      this.end(own.reason, 0, undefined);
      await this.dispose();
      return {
        ...base,
        observation: `[swe-env] ${own.message} The episode ends with reward 0.`,
        reward: 0,
        terminated: true,
        truncated: false,
        status: 'OK',
        exitCode: own.exitCode,
        info: { end_reason: own.reason },
      };
    }
    if (await this.shellBrokenByEpisode(error)) {
      this.deps.logger.info({ episode: this.id, err: error }, 'the sandbox\'s own files keep its shell from starting');
      this.end('sandbox_shell_broken', 0, undefined);
      await this.dispose();
      return {
        ...base,
        observation: `[swe-env] A new shell could not be started in this sandbox (${messageOf(error)}), while one starts in a pristine copy of the task: the sandbox's own files keep it from starting (a start-up script that exits, a replaced bash). The episode ends with reward 0.`,
        reward: 0,
        terminated: true,
        truncated: false,
        status: 'OK',
        exitCode: -1,
        info: { end_reason: 'sandbox_shell_broken' },
      };
    }
    this.deps.logger.error({ err: error, episode: this.id }, 'bash step failed in the environment');
    return this.infraFailure(base, error);
  }

  /** A shell that cannot start in a live sandbox but starts in a pristine copy (the control): the episode's doing. */
  private async shellBrokenByEpisode(error: unknown): Promise<boolean> {
    if (!/the sandbox shell (exited before it was ready|did not start in time)/.test(messageOf(error))) return false;
    if (!(await this.sandbox.isRunning().catch(() => false))) return false;
    return shellStartsOnPristineCopy(this.deps.grader, this.task, this.id).catch(() => false);
  }

  /** Why a dead sandbox is the model's doing (its own memory limit, its disk quota), if it is. */
  private async ownFault(): Promise<{ reason: EndReason; message: string; exitCode: number } | undefined> {
    // Just after a kill the engine can still show the container running: rather than read that as
    // alive, wait a moment for its death report (the disk watchdog's record is there at once).
    const running = await this.sandbox.isRunning().catch(() => true);
    const fate = await this.sandbox.fate(running ? 2000 : undefined);
    if (fate?.terminated) {
      return { reason: 'sandbox_unstoppable_command', message: `The sandbox was stopped: ${fate.terminated}.`, exitCode: 137 };
    }
    if (fate?.diskOverrun) {
      const { usedBytes, limitBytes } = fate.diskOverrun;
      return {
        reason: 'sandbox_disk_quota',
        message: `The sandbox was stopped for using too much disk: ${mib(usedBytes)} MiB written, over its ${mib(limitBytes)} MiB quota.`,
        exitCode: fate.exitCode ?? 137,
      };
    }
    if (fate?.ownOutOfMemory) {
      return {
        reason: 'sandbox_oom',
        message: 'The sandbox ran out of memory and was killed: the commands exhausted its memory limit and took its init process with them.',
        exitCode: fate.exitCode ?? 137,
      };
    }
    return undefined;
  }

  private async infraFailure(base: { stepIndex: number; callId: string }, error: unknown): Promise<StepOutcome> {
    this.end('infra_error', 0, undefined);
    // Never throws: this is the answer of last resort for a failed step.
    await this.dispose().catch((disposeError: unknown) => this.deps.logger.error({ err: disposeError, episode: this.id }, 'dispose failed'));
    return {
      ...base,
      observation: `[swe-env] The environment failed: ${messageOf(error)}`,
      reward: 0,
      terminated: false,
      truncated: true,
      status: 'INFRA_ERROR',
      exitCode: -1,
      info: { infra_error: messageOf(error) },
    };
  }

  /** Ends the episode on a limit: grades the current state, or scores 0, as the options say. */
  private async truncate(
    base: { stepIndex: number; callId: string },
    status: 'TRUNCATED_STEPS' | 'TRUNCATED_TIME',
    observation: string,
    last?: StepOutcome,
  ): Promise<StepOutcome> {
    const reason: EndReason = status === 'TRUNCATED_STEPS' ? 'truncated_steps' : 'truncated_time';
    if (this.options.truncation === 'zero') {
      this.end(reason, 0, undefined);
      await this.dispose();
      return { ...base, observation, reward: 0, terminated: false, truncated: true, status, exitCode: last?.exitCode ?? -1, info: { ...(last?.info ?? {}) } };
    }
    return this.finish(base, reason, status, observation, last);
  }

  /** Grades the repository as it is now and ends the episode. */
  private async finish(
    base: { stepIndex: number; callId: string },
    reason: EndReason,
    status: StepStatus,
    observation: string,
    last?: StepOutcome,
    captured?: { patchBase64: string; captureS: number },
  ): Promise<StepOutcome> {
    this.grading = true;
    let report: GradeReport;
    try {
      report = await this.grade(captured);
    } finally {
      this.grading = false;
    }
    if (report.infraError) {
      this.end('infra_error', 0, report);
      await this.dispose();
      return {
        ...base,
        observation: `${observation}\n[swe-env] Grading failed in the environment: ${report.error}`,
        reward: 0,
        terminated: false,
        truncated: true,
        status: 'INFRA_ERROR',
        exitCode: -1,
        info: { infra_error: report.error },
        report,
      };
    }
    this.end(reason, report.reward, report);
    await this.dispose();
    const submitted = reason === 'submitted';
    return {
      ...base,
      observation,
      reward: report.reward,
      terminated: submitted,
      truncated: !submitted,
      status,
      exitCode: last?.exitCode ?? -1,
      info: { ...(last?.info ?? {}), resolved: report.resolved, ...this.patchInfo() },
      report,
    };
  }

  private async grade(recaptured?: { patchBase64: string; captureS: number }): Promise<GradeReport> {
    if (recaptured) {
      const patch = Buffer.from(recaptured.patchBase64, 'base64');
      this.modelPatch = patch.toString('utf8');
      await this.dispose();
      return this.deps.grader.grade(this.task, patch, { episodeId: this.id, captureS: recaptured.captureS });
    }
    const captured = await captureChange(this.sandbox, () => this.deps.grader.openScratch(this.task, this.id), {
      workdir: this.task.workdir,
      baseCommit: this.pristineHead,
      maxPatchBytes: this.deps.maxPatchBytes,
      timeoutMs: 120_000,
    }).catch((error: unknown) => ({ ok: false as const, error: messageOf(error), infra: true, durationS: 0 }));
    if (!captured.ok) {
      const report = baseReport(this.task.id);
      // A sandbox its own commands brought down has nothing to capture: the model's failure.
      const own = captured.infra ? await this.ownFault() : undefined;
      report.error = own ? `${own.message} Nothing could be captured.` : captured.error;
      report.infraError = captured.infra && !own;
      report.durations.captureS = captured.durationS;
      report.durations.totalS = captured.durationS;
      return report;
    }
    // Kept in the record while the grading runs: a restart grades this change again.
    this.captured = { patchBase64: captured.patch.toString('base64'), captureS: captured.durationS };
    this.modelPatch = captured.patch.toString('utf8');
    await this.persist();
    // The agent's container is no longer needed: free its memory before the grader starts.
    await this.dispose();
    return this.deps.grader.grade(this.task, captured.patch, { episodeId: this.id, captureS: captured.durationS });
  }

  private end(reason: EndReason, reward: number, report: GradeReport | undefined): void {
    this.endReason = reason;
    this.finalReward = reward;
    this.finalReport = report;
    this.endedAt = Date.now();
  }

  /** Marks an episode that did not end by itself (Close, idle expiry). */
  markEnded(reason: 'closed' | 'expired'): void {
    if (!this.endReason) this.end(reason, 0, undefined);
    this.recordEnd();
  }

  summary(): EpisodeSummary {
    const last = this.recent.at(-1);
    return {
      episodeId: this.id,
      taskId: this.task.id,
      steps: this.stepCount,
      reward: this.finalReward,
      terminated: last?.terminated ?? false,
      truncated: last?.truncated ?? false,
      endReason: this.endReason ?? '',
      durationS: ((this.endedAt ?? Date.now()) - this.createdAt) / 1000,
      ...(this.finalReport ? { report: this.finalReport } : {}),
      seed: this.seed,
      groupId: this.groupId,
      containerRemovalPending: this.removalError ?? '',
    };
  }

  /**
   * Idempotent: closes the shell and removes the container. A failed removal is not thrown: it shows
   * in the summary and the registry retries it; the container's expiry label and its self-ending
   * PID 1 bound its life meanwhile.
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.aborter.abort();
    await this.shell?.close();
    await this.retryRemoval();
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
    if (this.endReason) return false;
    if (this.inflight) this.left = true;
    // A submit whose grading is under way has let its container go already: nothing to keep, but
    // the record (the captured change) lets the next start grade it again.
    if (this.disposed) return false;
    this.disposed = true;
    this.aborter.abort();
    await this.shell?.close();
    await this.persist();
    return true;
  }

  get removalPending(): boolean {
    return this.removalError !== undefined;
  }

  /** Removes the container; true once it is gone. A failure is kept for the summary and retried by the registry. */
  async retryRemoval(): Promise<boolean> {
    try {
      await this.sandbox.remove();
      this.removalError = undefined;
      return true;
    } catch (error) {
      this.removalError = messageOf(error);
      this.deps.logger.warn({ err: error, episode: this.id }, 'cannot remove the episode container yet; retrying');
      return false;
    }
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 1024 ** 2);
}
