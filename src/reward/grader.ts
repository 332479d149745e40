import { randomUUID } from 'node:crypto';
import type { Logger } from '../common/logger.js';
import { DeadlineExceededError, ResourceExhaustedError, messageOf } from '../common/errors.js';
import { Semaphore } from '../common/semaphore.js';
import type { Sandbox, SandboxProvider } from '../sandbox/sandbox.js';
import type { GradeOptions, GraderConfig } from './grading/grader-options.js';
import type { Task } from '../tasks/task.js';
import { diffFiles, namedPaths } from './diff-files.js';
import { environmentLines, evalPlan, type EvalPlan } from './eval-plan/plan.js';
import { prepareReport } from './grading/prepare-report.js';
import { repositoryTestFiles } from './grading/listed-files.js';
import { ownParser, type TestStatus } from '../languages/index.js';
import type { GradeReport } from './report.js';
import { agentSteps, taskSteps } from './grading/agent-steps.js';
import { GRADING_DIR, applyStage } from './grading/apply-stage.js';
import { ModelFault, explainStepFailure, seconds } from './grading/container-watch.js';
import { excuseMirrorFlags } from './grading/mirror-attribution.js';
import { InterferenceCache, failedWithCopies, type Interference } from './grading/mirror-interference.js';
import { judgeEnvironmentSkips } from './grading/environment-skips.js';
import { gatherEvidence } from './grading/evidence.js';
import { MIRROR_TIME_FACTOR, testRunStage } from './grading/test-run.js';
import { decideReport } from './grading/verdict-stage.js';
import { runResults, UnreadableLog } from './grading/language-results.js';
import { judgeUnreadableLog } from './grading/unreadable-log.js';
import type { CanaryPlan } from './grading/canaries.js';
import type { ReferenceRunInput } from './grading/reference-run.js';
import { InventoryCache } from './grading/inventory.js';
import { auditLines, flag, reportFindings } from './findings.js';
import { ChannelledSandbox } from '../sandbox/channelled-sandbox.js';
import { CHANNEL_DIR, runsNothingOfTheChange } from './grading/channel-gate.js';
import { networkOf } from './grading/network-note.js';

export type { GradeOptions, GraderConfig } from './grading/grader-options.js';

/** The test run's script: the plan's environment lines (exports, activation, cd), then its test command. */
export function testScriptOf(plan: EvalPlan): string {
  return [...environmentLines([...plan.evalCommands, ...plan.beforeTestPatch, ...plan.afterTestPatch]), plan.testCommand].join('\n');
}

/** The test command for a task: its eval plan's (the record's override, or the harness's with its directives). */
export function testCommand(task: Task): string {
  return evalPlan(task).testCommand;
}

/**
 * Grades a patch in a FRESH container from the task's pristine image: the agent's container is
 * never trusted. Steps: apply the patch, restore and re-apply the test files, run the tests under a
 * timeout, parse the log, decide. Infrastructure failures come back with infraError set, never as a
 * plain reward of 0.
 */
export class Grader {
  /** Every grading holds a place for its whole run: container, patch, tests. */
  private readonly pool: Semaphore;
  /** Each image's pristine inventory, read once (see inventory.ts). */
  private readonly inventories = new InventoryCache();
  /** Each task's answer to whether its mirror copies fail listed tests (see mirror-interference.ts). */
  private readonly interference = new InterferenceCache();

  constructor(
    private readonly provider: SandboxProvider,
    private readonly starts: Semaphore,
    private readonly config: GraderConfig,
    private readonly logger: Logger,
  ) {
    this.pool = new Semaphore(config.maxGradings);
  }

  /**
   * A container from the task's pristine image, for work that must not trust the agent's own
   * container (reading its change). The caller removes it.
   */
  async openScratch(task: Task, episodeId: string, runsTests = false): Promise<Sandbox> {
    // A container that runs the tests (a control, a reference) lives as long as a grading's run may.
    const maxLifetimeS = runsTests ? Math.max(900, this.gradingLifetimeS) : 900;
    const spec = {
      image: task.image,
      workdir: task.workdir,
      maxLifetimeS,
      role: 'grader' as const,
      episodeId,
      limits: this.config.limits,
      ...(runsTests ? { network: this.network, routeInBackground: this.config.execChannel !== false } : {}),
    };
    const created = await this.starts.with(() => this.provider.create(spec));
    return runsTests ? this.channelled(created) : created;
  }

  /**
   * The container with its steps before the change's code runs going through one attached process
   * (channel-gate.ts); the container itself when that is off or the image cannot run it.
   */
  private async channelled(sandbox: Sandbox): Promise<Sandbox> {
    if (this.config.execChannel === false) return sandbox;
    try {
      return await ChannelledSandbox.open(sandbox, CHANNEL_DIR, runsNothingOfTheChange);
    } catch (error) {
      await sandbox.remove().catch(() => undefined);
      throw error;
    }
  }

  /**
   * How long a container that grades may live: the sum of its steps' limits (the row's eval steps,
   * an install re-run and the steps after the test patch, each the test limit; the test run, up to
   * MIRROR_TIME_FACTOR times it) and room for the rest. A container that outlived its life would be
   * ended by its keeper mid-grading and read as killed from outside: a step the agent's code can
   * stretch to its limit must not get there (round 6).
   */
  private get gradingLifetimeS(): number {
    return this.config.testTimeoutS * (MIRROR_TIME_FACTOR + 3) + 600;
  }

  /** The network of containers that run tests (graders and their controls). */
  private get network(): 'offline' | 'none' {
    return this.config.gradingNetwork ?? 'offline';
  }

  /** Gradings holding a place in the pool now. */
  get gradingsRunning(): number {
    return this.pool.inUse;
  }

  /** A place in the grading pool; a wait that outlives the caller's deadline is RESOURCE_EXHAUSTED. */
  private async admit(signal?: AbortSignal): Promise<void> {
    try {
      await this.pool.acquire(signal);
    } catch (error) {
      if (error instanceof DeadlineExceededError) {
        throw new ResourceExhaustedError(`grading is full: ${this.pool.capacity} gradings at once; no room before the call's deadline`);
      }
      throw error;
    }
  }

  async grade(task: Task, patch: Buffer, options: GradeOptions = {}): Promise<GradeReport> {
    return (await this.runTests(task, patch, options)).report;
  }

  /**
   * Applies the patch and the test patch in a fresh container and runs the tests: the report (with
   * the verdict on the task's lists) and every test status the log holds.
   */
  async runTests(
    task: Task,
    rawPatch: Buffer,
    options: GradeOptions = {},
  ): Promise<{ report: GradeReport; statuses: ReadonlyMap<string, TestStatus> }> {
    const started = Date.now();
    await this.admit(options.signal);
    let removed: Promise<void> = Promise.resolve();
    try {
      const first = await this.runAdmitted(task, rawPatch, options, started);
      removed = first.removal;
      let { report, statuses } = first;
      if (first.copiesInterfere) {
        // The place in the pool holds one grading container at a time.
        await first.removal;
        const again = await this.runAdmitted(task, rawPatch, { ...options, mirrors: false }, started);
        removed = again.removal;
        ({ report, statuses } = again);
        noteGradedAgain(report, first.report, first.copiesInterfere);
      }
      this.config.onGraded?.(report);
      return { report, statuses };
    } finally {
      // The place in the pool waits for the grading container's removal, so that no more than
      // maxGradings grading containers ever exist at once (a cancelled grading answers before it).
      void removed.finally(() => this.pool.release());
    }
  }

  private async runAdmitted(
    task: Task,
    rawPatch: Buffer,
    options: GradeOptions,
    started: number,
  ): Promise<{ report: GradeReport; statuses: ReadonlyMap<string, TestStatus>; removal: Promise<void>; copiesInterfere?: Interference }> {
    let statuses: ReadonlyMap<string, TestStatus> = new Map();
    let copiesInterfere: Interference | undefined;
    const { report, plan, patch } = prepareReport(task, rawPatch, {
      captureS: options.captureS,
      rewardRule: options.rewardRule ?? this.config.rewardRule,
    });
    let sandbox: Sandbox | undefined;
    try {
      const startedContainer = Date.now();
      const spec = {
        image: task.image,
        workdir: task.workdir,
        maxLifetimeS: this.gradingLifetimeS,
        role: 'grader' as const,
        episodeId: options.episodeId ?? `eval-${randomUUID()}`,
        limits: this.config.limits,
        network: this.network,
        // The route is set while the steps before the change's code run; the channel's close waits for it.
        routeInBackground: this.config.execChannel !== false,
      };
      const created = await this.starts.with(() => this.provider.create(spec, options.signal), options.signal);
      // channelled() removes the container itself when the channel cannot be opened.
      sandbox = await this.channelled(created);
      report.durations.containerStartS = seconds(startedContainer);
      const running = sandbox;
      ({ statuses, copiesInterfere } = await this.run(running, task, plan, patch, report, options).catch(async (error: unknown) => {
        throw options.signal?.aborted ? error : await explainStepFailure(running, error);
      }));
    } catch (error) {
      if (error instanceof ModelFault) {
        report.error = messageOf(error);
        report.resolved = false;
        report.reward = 0;
        statuses = new Map();
        this.logger.info({ task: task.id, reason: report.error }, "grading ended by the patch's own code");
      } else {
        report.infraError = true;
        report.error = `grading failed in the environment: ${messageOf(error)}`;
        this.logger.error({ err: error, task: task.id }, 'grading failed');
      }
    }
    if (sandbox) report.gradingNetwork = await networkOf(sandbox, options.signal);
    const removal = sandbox
      ? sandbox.remove().catch((error: unknown) => this.logger.warn({ err: error }, 'cannot remove grader container'))
      : Promise.resolve();
    // A grading cancelled (the call's deadline, its client gone, shutdown) answers at once: removing
    // a container whose test run was killed can take longer than what is left before the deadline.
    // Otherwise the answer comes once the container is gone.
    if (!options.signal?.aborted) await removal;
    report.durations.totalS = seconds(started) + report.durations.captureS;
    if (report.infraError) {
      report.resolved = false;
      report.reward = 0;
    }
    return { report, statuses, removal, ...(copiesInterfere && !report.infraError ? { copiesInterfere } : {}) };
  }

  /** The pipeline: task steps, apply, agent steps, tests, evidence, verdict (each in src/reward/grading/). */
  private async run(
    sandbox: Sandbox,
    task: Task,
    plan: EvalPlan,
    patch: Buffer,
    report: GradeReport,
    options: GradeOptions,
  ): Promise<{ statuses: ReadonlyMap<string, TestStatus>; copiesInterfere?: Interference }> {
    const signal = options.signal;
    const openControl = (): Promise<Sandbox> => this.openScratch(task, `control-${randomUUID()}`, true);
    // Looked at first: nothing of the submission is on disk or has run yet.
    const repositoryFiles = await repositoryTestFiles(sandbox, task);
    const steps = await taskSteps(
      sandbox,
      task,
      plan,
      report,
      {
        timeoutS: this.config.testTimeoutS,
        installRerun: this.config.installRerun ?? 'when-needed',
        inventories: this.inventories,
        patchPaths: namedPaths(patch.toString('utf8')),
      },
      signal,
    );
    const patchStarted = Date.now();
    const changed = await applyStage(sandbox, task, patch, report, signal);
    if (changed === undefined) {
      report.durations.patchS = seconds(patchStarted);
      return { statuses: new Map() };
    }
    const installed = await agentSteps(
      sandbox,
      {
        task,
        plan,
        changed,
        baseline: steps.baseline,
        owners: steps.owners,
        repoDists: steps.repoDists,
        installRerun: this.config.installRerun ?? 'when-needed',
        timeoutS: this.config.testTimeoutS,
        ours: new Set([`${GRADING_DIR}/model.patch`, `${GRADING_DIR}/read.list`, `${GRADING_DIR}/revert.list`, GRADING_DIR, '/swe_env']),
        openControl,
      },
      report,
      signal,
    );
    report.durations.patchS = Math.max(0, Math.round((seconds(patchStarted) - report.install!.seconds) * 1000) / 1000);
    const agentFiles = [...new Set([...changed, ...installed])];
    const parser = ownParser(plan.harnessParser);
    const run = await testRunStage(
      sandbox,
      {
        task,
        plan,
        parser,
        testTimeoutS: this.config.testTimeoutS,
        logLimitBytes: this.config.logLimitBytes,
        agentFiles,
        plugins: steps.plugins,
        ...(steps.auditHooks === false ? { noAuditHooks: true } : {}),
        patchEmpty: report.patchEmpty,
        openControl,
        ...(options.mirrors === false ? { mirrors: false } : {}),
      },
      report,
      signal,
    );
    options.onTestLog?.(run.log);
    report.resultsSource = run.pytest ? 'recorder' : 'log';
    const root = task.workdir.replace(/\/+$/, '');
    const reference = { task, plan, parser, testTimeoutS: this.config.testTimeoutS, logLimitBytes: this.config.logLimitBytes, openControl };
    let logResults: Map<string, TestStatus>;
    try {
      logResults = runResults(plan.harnessParser, parser, run.log, task, run.reported);
    } catch (error) {
      if (!(error instanceof UnreadableLog)) throw error;
      return judgeUnreadableLog(error, reference, signal);
    }
    const gathered = gatherEvidence({
      logResults,
      channel: run.channel,
      pytest: run.pytest,
      canaries: run.canaries,
      family: run.family,
      exitCode: run.exitCode,
      timedOut: report.testTimedOut,
      // What the patch and its install changed on disk, beside what its diff headers name.
      agentPaths: new Set([...agentFiles, ...diffFiles(patch.toString('utf8')).map((f) => f.path)].map((path) => `${root}/${path}`)),
      taskPaths: new Set(diffFiles(task.goldPatch).map((f) => `${root}/${f.path}`)),
    });
    const excused = await excuseMirrorFlags(gathered, { ...reference, canaryPlan: run.canaryPlan, family: run.family }, signal);
    // The tests' text compiled into the code under test is the model's doing, whatever the results.
    const evidence = { ...excused, flags: [...excused.flags, ...(run.compiledIn ?? [])] };
    report.canaries = run.canaries.length;
    decideReport(report, {
      task,
      evidence,
      log: run.log,
      exitCode: run.exitCode,
      harnessParser: plan.harnessParser,
      generation: plan.harnessGeneration ?? this.config.harnessGeneration ?? '5',
      channelProblems: run.channel.problems,
      repositoryFiles,
    });
    if (run.unlocked) {
      const unlocked = [flag('hidden-tests-readable', `hidden tests readable by the code under test: ${run.unlocked}`)];
      report.auditFlags.push(...auditLines(unlocked));
      report.findings.push(...reportFindings(unlocked));
    }
    await judgeEnvironmentSkips(report, reference, signal);
    const copiesInterfere = await this.copiesInterfere(report, run.canaryPlan, reference, signal);
    return { statuses: evidence.logResults, ...(copiesInterfere ? { copiesInterfere } : {}) };
  }

  /** For a grading 0 for listed tests that ran beside copies: the listed tests the task's copies fail (see mirror-interference.ts). */
  private async copiesInterfere(
    report: GradeReport,
    plan: CanaryPlan | undefined,
    reference: ReferenceRunInput,
    signal?: AbortSignal,
  ): Promise<Interference | undefined> {
    if (!plan || !failedWithCopies(report, plan, reference.task)) return undefined;
    try {
      const interfered = await this.interference.of(reference, plan, signal);
      return interfered.length > 0 ? interfered : undefined;
    } catch (error) {
      if (signal?.aborted) throw error;
      const unknown = [
        flag(
          'mirror-reference-failed',
          `mirror copies: whether they fail listed tests is unknown, the gold patch's reference run failed (${messageOf(error)})`,
        ),
      ];
      report.auditFlags.push(...auditLines(unknown));
      report.findings.push(...reportFindings(unknown));
      return undefined;
    }
  }
}

/** The second grading's report says why it was made and what the first one read. */
function noteGradedAgain(report: GradeReport, first: GradeReport, interfered: Interference): void {
  const failed = [...first.failToPass, ...first.passToPass].filter((t) => t.status !== 'PASSED').map((t) => t.name);
  const note = [
    flag(
      'mirrors-interfere',
      `mirror copies: the gold patch's run fails ${interfered.slice(0, 5).join(', ')} with this task's copies and passes it without them; graded again without copies (the run with them failed ${failed.slice(0, 5).join(', ')})`,
    ),
  ];
  report.auditFlags.push(...auditLines(note));
  report.findings.push(...reportFindings(note));
}
