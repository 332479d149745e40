import { randomUUID } from 'node:crypto';
import type { Logger } from '../common/logger.js';
import { DeadlineExceededError, ResourceExhaustedError, messageOf } from '../common/errors.js';
import { Semaphore } from '../common/semaphore.js';
import type { Sandbox, SandboxLimits, SandboxProvider } from '../sandbox/sandbox.js';
import type { Task } from '../tasks/task.js';
import { addedLines, diffFiles } from './diff-files.js';
import { installDecision, type InstallRerun } from './eval-plan/install-policy.js';
import { environmentLines, evalPlan, type EvalPlan } from './eval-plan/plan.js';
import { harnessParse, type HarnessGeneration } from './harness/log-parsers.js';
import { harnessVerdict } from './harness/verdict.js';
import { ownParser, parseTestLog } from './log-parsers/index.js';
import { filterAgentPatch, testCommandPaths } from './patch-filter.js';
import { scanPatch } from './patch-scan.js';
import type { TestStatus } from './test-status.js';
import { baseReport, type GradeReport, type RewardRule } from './report.js';
import { pytestSettings } from './pytest-config.js';
import { READ_FILE_LIMIT, parseReadFiles } from './read-files.js';
import { APPLY_PATCH_SCRIPT, PRE_TEST_SCRIPT, PREPARE_TESTS_SCRIPT, READ_FILES_SCRIPT, REVERT_PATHS_SCRIPT, RUN_TESTS_SCRIPT, SNAPSHOT_TREE_SCRIPT, bashArgv } from './scripts.js';
import { importedModules, supportStems } from './test-support.js';
import { changedPaths, configCandidates, parseSnapshot, sweepDecision, type TreeSnapshot } from './tree-changes.js';
import { decideVerdict, type Verdict } from './verdict.js';
import { RECORDER_SOURCE, disagreements, newRecorderChannel, readRecords, recorderApplies, type RecorderChannel } from './result-recorder.js';

export interface GradeOptions {
  readonly episodeId?: string;
  readonly captureS?: number;
  /** Evaluate's call signal: a cancelled or timed-out caller stops the grading and frees its container. */
  readonly signal?: AbortSignal;
  /** Which verdict the reward follows for this grading; the grader's configured rule otherwise. */
  readonly rewardRule?: RewardRule;
}

export interface GraderConfig {
  readonly limits: SandboxLimits;
  /** Hard limit on the test command inside the container. */
  readonly testTimeoutS: number;
  /** Bytes of test log kept (head + tail); the summary pytest prints is at the end. */
  readonly logLimitBytes: number;
  /** Gradings at once at most; more wait (Evaluate until its deadline, then RESOURCE_EXHAUSTED). */
  readonly maxGradings: number;
  /** When the plan's install is re-run after the patch (default when-needed). */
  readonly installRerun?: InstallRerun;
  /** Which verdict the reward follows (default swe-env). */
  readonly rewardRule?: RewardRule;
  /** Which swebench grading the harness verdict reproduces (default 5). */
  readonly harnessGeneration?: HarnessGeneration;
  /** Told of every finished grading (metrics). */
  readonly onGraded?: (report: GradeReport) => void;
}

const GRADING_DIR = '/swe_env/grading';
const LOG_TAIL_BYTES = 8 * 1024;
/** How long a signal-killed step waits for the engine to say whether the whole container died. */
const CONTAINER_SETTLE_MS = 3000;
/** apply-patch.sh's exit codes: the harness's chain, in its order. */
const APPLY_METHODS: Readonly<Record<number, string>> = {
  10: 'git apply',
  12: 'git apply --3way',
  13: 'git apply --reject',
  11: 'patch --fuzz=5',
  14: 'already applied (the chain left it applied)',
};

/** The test run's script: the plan's environment lines (exports, activation), then its test command. */
function testScript(plan: EvalPlan): string {
  return [...environmentLines(plan.evalCommands), plan.testCommand].join('\n');
}

function seconds(fromMs: number): number {
  return Math.round((Date.now() - fromMs)) / 1000;
}

/** The test command for a task: its eval plan's (the record's override, or the harness's with its directives). */
export function testCommand(task: Task): string {
  return evalPlan(task).testCommand;
}

/** How often a grading checks that its container is not frozen (`docker pause`, a stuck freezer). */
const PAUSE_CHECK_MS = 2000;

/**
 * Runs a step of the grading with a watch on its container: a paused container would hold the
 * submit for the whole test timeout and a minute, reading as a timeout (the model's 0). Nothing
 * inside can pause it, so a pause is the environment's failure, reported as soon as it is seen.
 */
async function watchingPause<T>(sandbox: Sandbox, signal: AbortSignal | undefined, step: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const paused = new AbortController();
  const timer = setInterval(() => {
    sandbox.isPaused().then(
      (yes) => {
        if (yes) paused.abort(new Error('the grading container was paused from outside (docker pause or a frozen cgroup); nothing inside can pause it'));
      },
      () => undefined,
    );
  }, PAUSE_CHECK_MS);
  try {
    const result = await step(signal ? AbortSignal.any([signal, paused.signal]) : paused.signal);
    if (paused.signal.aborted) throw paused.signal.reason;
    return result;
  } finally {
    clearInterval(timer);
  }
}

/** The patch's own code brought the grading down (its disk quota): reward 0, not INFRA_ERROR. */
class ModelFault extends Error {}

/**
 * The grading container must still be up after a step: the patch's code cannot stop it (its PID 1
 * ignores every signal from inside), so a container that is gone was killed from outside, by an
 * engine restart or by the host running out of memory, and the grading is an infrastructure failure.
 */
async function assertAlive(sandbox: Sandbox, during: string, exitCode: number): Promise<void> {
  // A process killed by a signal (exit >= 128, or no exit code) may be the first sign of the whole
  // container going down: the engine marks it stopped a moment after its processes die.
  const settleMs = exitCode >= 128 || exitCode < 0 ? CONTAINER_SETTLE_MS : 0;
  const until = Date.now() + settleMs;
  for (;;) {
    if (!(await sandbox.isRunning())) {
      const overrun = (await sandbox.fate())?.diskOverrun;
      if (overrun) {
        throw new ModelFault(
          `the grading container was stopped during ${during} for writing ${Math.round(overrun.usedBytes / 1024 ** 2)} MiB to disk, over its ${Math.round(overrun.limitBytes / 1024 ** 2)} MiB quota`,
        );
      }
      throw new Error(`the grading container stopped during ${during} (killed from outside, an engine restart or the host out of memory)`);
    }
    if (Date.now() >= until) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
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
  async openScratch(task: Task, episodeId: string): Promise<Sandbox> {
    const spec = { image: task.image, workdir: task.workdir, maxLifetimeS: 900, role: 'grader' as const, episodeId, limits: this.config.limits };
    return this.starts.with(() => this.provider.create(spec));
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
      const { report, statuses, removal } = await this.runAdmitted(task, rawPatch, options, started);
      removed = removal;
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
  ): Promise<{ report: GradeReport; statuses: ReadonlyMap<string, TestStatus>; removal: Promise<void> }> {
    let statuses: ReadonlyMap<string, TestStatus> = new Map();
    const report = baseReport(task.id);
    report.durations.captureS = options.captureS ?? 0;
    const plan = evalPlan(task);
    report.plan = plan;
    report.testCommand = plan.testCommand;
    report.rewardRule = options.rewardRule ?? this.config.rewardRule ?? 'swe-env';
    const filtered = filterAgentPatch(rawPatch, {
      protectedPaths: testCommandPaths(report.testCommand),
      allowedPaths: diffFiles(task.goldPatch).map((f) => f.path),
    });
    const patch = filtered.patch;
    report.droppedFiles = filtered.dropped;
    report.patchWarnings = scanPatch(filtered.patch.toString('utf8'));
    report.patchBytes = patch.length;
    report.patchEmpty = patch.toString('utf8').trim() === '';
    let sandbox: Sandbox | undefined;
    try {
      const startedContainer = Date.now();
      const spec = {
        image: task.image,
        workdir: task.workdir,
        maxLifetimeS: this.config.testTimeoutS + 600,
        role: 'grader' as const,
        episodeId: options.episodeId ?? `eval-${randomUUID()}`,
        limits: this.config.limits,
      };
      sandbox = await this.starts.with(() => this.provider.create(spec, options.signal), options.signal);
      report.durations.containerStartS = seconds(startedContainer);
      statuses = await this.run(sandbox, task, plan, patch, report, options.signal);
    } catch (error) {
      if (error instanceof ModelFault) {
        report.error = messageOf(error);
        report.resolved = false;
        report.reward = 0;
        statuses = new Map();
        this.logger.info({ task: task.id, reason: report.error }, 'grading ended by the patch\'s own code');
      } else {
        report.infraError = true;
        report.error = `grading failed in the environment: ${messageOf(error)}`;
        this.logger.error({ err: error, task: task.id }, 'grading failed');
      }
    }
    const removal = sandbox ? sandbox.remove().catch((error: unknown) => this.logger.warn({ err: error }, 'cannot remove grader container')) : Promise.resolve();
    // A grading cancelled (the call's deadline, its client gone, shutdown) answers at once: removing
    // a container whose test run was killed can take longer than what is left before the deadline.
    // Otherwise the answer comes once the container is gone.
    if (!options.signal?.aborted) await removal;
    report.durations.totalS = seconds(started) + report.durations.captureS;
    if (report.infraError) {
      report.resolved = false;
      report.reward = 0;
    }
    this.config.onGraded?.(report);
    return { report, statuses, removal };
  }

  private async run(
    sandbox: Sandbox,
    task: Task,
    plan: EvalPlan,
    patch: Buffer,
    report: GradeReport,
    signal?: AbortSignal,
  ): Promise<ReadonlyMap<string, TestStatus>> {
    const testFiles = diffFiles(task.testPatch);
    const modified = testFiles.filter((f) => !f.isNew).map((f) => f.oldPath);
    const created = testFiles.filter((f) => f.isNew).map((f) => f.path);
    const parser = ownParser(plan.harnessParser);
    const recorder = recorderApplies(parser, report.testCommand) ? newRecorderChannel(GRADING_DIR) : undefined;
    report.resultsSource = recorder ? 'recorder' : 'log';
    await sandbox.putFiles([
      { path: `${GRADING_DIR}/model.patch`, content: patch },
      { path: `${GRADING_DIR}/test.patch`, content: task.testPatch },
      { path: `${GRADING_DIR}/modified.list`, content: modified.map((p) => `${p}\0`).join('') },
      { path: `${GRADING_DIR}/new.list`, content: created.map((p) => `${p}\0`).join('') },
      ...(recorder
        ? [
            { path: `${recorder.dir}/swe_env_recorder.py`, content: RECORDER_SOURCE },
            { path: recorder.keyFile, content: recorder.key },
          ]
        : []),
    ]);

    const patchStarted = Date.now();
    let changed: readonly string[] = [];
    if (report.patchEmpty) {
      report.patchApplied = true;
    } else {
      const before = await this.snapshot(sandbox, task.workdir);
      const applied = await watchingPause(sandbox, signal, (watched) =>
        sandbox.exec(bashArgv(APPLY_PATCH_SCRIPT, 'swe-env-apply', [task.workdir, `${GRADING_DIR}/model.patch`]), {
          timeoutMs: 120_000,
          outputLimitBytes: 64 * 1024,
          signal: watched,
        }),
      );
      if (applied.timedOut) throw new Error(signal?.aborted ? 'grading was cancelled' : 'applying the patch timed out');
      await assertAlive(sandbox, 'applying the patch', applied.exitCode);
      const method = APPLY_METHODS[applied.exitCode];
      if (!method) {
        report.patchApplied = false;
        report.error = `the patch does not apply (tried git apply, --3way, --reject and patch --fuzz=5, as the harness does):\n${applied.output.toString('utf8').slice(-4000)}`;
        report.durations.patchS = seconds(patchStarted);
        return new Map();
      }
      report.patchApplied = true;
      report.patchApplyMethod = method;
      const swept = await this.sweep(sandbox, task, before, report);
      if (!swept) {
        report.durations.patchS = seconds(patchStarted);
        return new Map();
      }
      changed = swept;
    }
    await this.preTest(sandbox, task, plan, changed, report, signal);
    const prepared = await watchingPause(sandbox, signal, (watched) =>
      sandbox.exec(
        bashArgv(PREPARE_TESTS_SCRIPT, 'swe-env-prepare', [
          task.workdir,
          task.baseCommit,
          `${GRADING_DIR}/test.patch`,
          `${GRADING_DIR}/modified.list`,
          `${GRADING_DIR}/new.list`,
        ]),
        { timeoutMs: 120_000, outputLimitBytes: 64 * 1024, signal: watched },
      ),
    );
    // Applying and preparing, less the plan's steps before the tests (their own figure).
    report.durations.patchS = Math.max(0, Math.round((seconds(patchStarted) - report.durations.installS) * 1000) / 1000);
    if (signal?.aborted) throw new Error('grading was cancelled');
    if (prepared.timedOut || prepared.exitCode !== 0) {
      // The test patch is the task's, applied to files restored from base: if it fails, the task or
      // its image is broken, not the agent's work.
      throw new Error(`the task's test patch does not apply (exit ${prepared.exitCode}): ${prepared.output.toString('utf8').slice(-2000)}`);
    }

    const testStarted = Date.now();
    const run = await watchingPause(sandbox, signal, (watched) =>
      sandbox.exec(bashArgv(RUN_TESTS_SCRIPT, 'swe-env-tests', [task.workdir, String(this.config.testTimeoutS), testScript(plan)]), {
        timeoutMs: (this.config.testTimeoutS + 60) * 1000,
        outputLimitBytes: this.config.logLimitBytes,
        ...(recorder ? { env: recorder.env } : {}),
        signal: watched,
      }),
    );
    if (signal?.aborted) throw new Error('grading was cancelled');
    // A killed test process reads like a timeout (137); a dead container is not the patch's doing.
    await assertAlive(sandbox, 'the test run', run.exitCode);
    report.durations.testRunS = seconds(testStarted);
    const log = run.output.toString('utf8');
    report.logTail = log.slice(-LOG_TAIL_BYTES);
    report.testExitCode = run.exitCode;
    if (run.timedOut) throw new Error(`the test run did not end within ${this.config.testTimeoutS + 60}s`);
    if (run.exitCode === 124 || run.exitCode === 137) {
      report.testTimedOut = true;
      report.error = `the tests did not finish within ${this.config.testTimeoutS}s`;
    }
    const statuses = parseTestLog(parser, log);
    const generation = plan.harnessGeneration ?? this.config.harnessGeneration ?? '5';
    const harnessMap = harnessParse(plan.harnessParser, log, generation);
    const lists = { failToPass: task.failToPass, passToPass: task.passToPass, exitCode: run.exitCode, harnessMap };
    const logVerdict = decideVerdict({ results: statuses, ...lists });
    let verdict: Verdict = logVerdict;
    if (recorder) {
      const recorded = await this.readRecorder(sandbox, recorder, patch, task.workdir, run.exitCode, report.testTimedOut);
      verdict = decideVerdict({ results: recorded.statuses, ...lists });
      report.integrityFlags = [
        ...recorded.flags,
        ...disagreements(verdict.failToPass, logVerdict.failToPass),
        ...disagreements(verdict.passToPass, logVerdict.passToPass),
      ];
    }
    report.harnessRead = [...verdict.harnessRead];
    report.harness = harnessVerdict({ map: harnessMap, log, ...lists, timedOut: report.testTimedOut, generation });
    report.failToPass = [...verdict.failToPass];
    report.passToPass = [...verdict.passToPass];
    report.resolution = verdict.resolution;
    if (verdict.rejection) report.error = verdict.rejection;
    const trusted = report.integrityFlags.length === 0 && !logVerdict.rejection;
    if (!trusted && !report.error) report.error = `the test results are not trusted: ${report.integrityFlags.join('; ') || logVerdict.rejection}`;
    const ours = verdict.resolved && logVerdict.resolved && trusted && !report.testTimedOut;
    if (report.rewardRule === 'harness') {
      // The official harness's reading of the same run, for comparison with official results; the
      // run itself stays swe-env's (patch checks, test files put back, the recorder's flags reported).
      report.resolved = report.harness.resolved && !report.testTimedOut;
      report.resolution = report.harness.resolution;
    } else {
      report.resolved = ours;
      if (!report.resolved && report.resolution === 'FULL' && !trusted) report.resolution = 'NO';
    }
    report.reward = report.resolved ? 1 : 0;
    return statuses;
  }

  /**
   * The plan's steps before the tests: its eval commands, then its install step when the policy says
   * the patch needs it. The harness runs the tests whatever the install's outcome; so does swe-env,
   * and the report says what the install did and cost.
   */
  private async preTest(sandbox: Sandbox, task: Task, plan: EvalPlan, changed: readonly string[], report: GradeReport, signal?: AbortSignal): Promise<void> {
    const decision = installDecision(plan.install, changed, this.config.installRerun ?? 'when-needed');
    const commands = plan.evalCommands.filter((line) => !environmentLines([line]).length);
    report.install = { ran: false, reason: decision.reason, exitCode: 0, seconds: 0, outputTail: '' };
    if (!decision.run && commands.length === 0) return;
    const started = Date.now();
    const result = await watchingPause(sandbox, signal, (watched) =>
      sandbox.exec(bashArgv(PRE_TEST_SCRIPT, 'swe-env-pre-test', [task.workdir, plan.evalCommands.join('\n'), decision.run ? plan.install : '']), {
        timeoutMs: this.config.testTimeoutS * 1000,
        outputLimitBytes: 256 * 1024,
        signal: watched,
      }),
    );
    if (signal?.aborted) throw new Error('grading was cancelled');
    await assertAlive(sandbox, 'the install step', result.exitCode);
    if (result.timedOut) throw new Error(`the plan's steps before the tests did not end within ${this.config.testTimeoutS}s`);
    const seconds_ = seconds(started);
    report.durations.installS = seconds_;
    report.install = {
      ran: decision.run,
      reason: decision.reason,
      exitCode: result.exitCode,
      seconds: seconds_,
      outputTail: result.output.toString('utf8').slice(-4000),
    };
  }

  private async snapshot(sandbox: Sandbox, workdir: string): Promise<TreeSnapshot> {
    const listed = await sandbox.exec(bashArgv(SNAPSHOT_TREE_SCRIPT, 'swe-env-snapshot', [workdir]), {
      timeoutMs: 120_000,
      outputLimitBytes: 256 * 1024 * 1024,
      separateStderr: true,
    });
    if (listed.timedOut || listed.exitCode !== 0 || listed.omittedBytes > 0) {
      throw new Error(`cannot list the repository's files (exit ${listed.exitCode})`);
    }
    return parseSnapshot(listed.output);
  }

  /**
   * What the patch changed on disk, whatever its headers said (plain ---/+++ sections, a +++ name
   * unlike the diff --git line, copy/rename targets): test files and the like are put back as they
   * were; a patch writing inside .git is refused. What changed on disk (less what was put back), or undefined when the patch is refused.
   */
  private async sweep(sandbox: Sandbox, task: Task, before: TreeSnapshot, report: GradeReport): Promise<readonly string[] | undefined> {
    const after = await this.snapshot(sandbox, task.workdir);
    const changed = changedPaths(before, after);
    const allowedPaths = diffFiles(task.goldPatch).map((f) => f.path);
    if (changed.some((path) => path === '.git' || path.startsWith('.git/'))) {
      // Refused before anything below runs git here again.
      const decision = sweepDecision(changed, { protectedPaths: [], allowedPaths, supportStems: [], pytestConfigChanged: new Set() });
      report.patchApplied = false;
      report.error = `the patch writes inside .git (${decision.gitWrites.slice(0, 5).join(', ')}): refused`;
      return undefined;
    }
    const configs = configCandidates(changed, allowedPaths);
    const testFiles = diffFiles(task.testPatch).filter((f) => !f.isNew).map((f) => f.oldPath);
    const files = await this.readFiles(sandbox, task.workdir, [...configs, ...testFiles]);
    const pytestConfigChanged = new Set(configs.filter((path) => pytestSettings(path, files.get(path)?.head) !== pytestSettings(path, files.get(path)?.work)));
    const imported = [
      ...testFiles.flatMap((path) => importedModules(path, files.get(path)?.head ?? '')),
      ...diffFiles(task.testPatch).flatMap((f) => importedModules(f.path, addedLines(task.testPatch, f.path))),
    ];
    const decision = sweepDecision(changed, {
      protectedPaths: testCommandPaths(report.testCommand),
      allowedPaths,
      supportStems: supportStems(imported),
      pytestConfigChanged,
    });
    if (decision.gitWrites.length > 0) {
      report.patchApplied = false;
      report.error = `the patch writes inside .git (${decision.gitWrites.slice(0, 5).join(', ')}): refused`;
      return undefined;
    }
    if (decision.revert.length === 0) return changed;
    await sandbox.putFiles([{ path: `${GRADING_DIR}/revert.list`, content: decision.revert.map((r) => `${r.path}\0`).join('') }]);
    const reverted = await sandbox.exec(bashArgv(REVERT_PATHS_SCRIPT, 'swe-env-revert', [task.workdir, `${GRADING_DIR}/revert.list`]), {
      timeoutMs: 120_000,
      outputLimitBytes: 64 * 1024,
    });
    if (reverted.timedOut || reverted.exitCode !== 0) {
      throw new Error(`cannot put back the files the patch may not change (exit ${reverted.exitCode}): ${reverted.output.toString('utf8').slice(-1000)}`);
    }
    const already = new Set(report.droppedFiles.map((d) => d.split(' (')[0]));
    for (const { path, why } of decision.revert) {
      if (!already.has(path)) report.droppedFiles.push(`${path} (${why}, found on disk after applying)`);
    }
    const reverted_ = new Set(decision.revert.map((r) => r.path));
    return changed.filter((path) => !reverted_.has(path));
  }

  /**
   * Files as the pristine tree (HEAD) and the working tree hold them; undefined where absent, too
   * large (over 1 MiB: a configuration or test file that big is read as changed) or a link.
   */
  private async readFiles(sandbox: Sandbox, workdir: string, paths: readonly string[]): Promise<Map<string, { head?: string; work?: string }>> {
    const files = new Map<string, { head?: string; work?: string }>();
    if (paths.length === 0) return files;
    await sandbox.putFiles([{ path: `${GRADING_DIR}/read.list`, content: paths.map((p) => `${p}\0`).join('') }]);
    const read = await sandbox.exec(bashArgv(READ_FILES_SCRIPT, 'swe-env-read', [workdir, `${GRADING_DIR}/read.list`, String(READ_FILE_LIMIT)]), {
      timeoutMs: 120_000,
      outputLimitBytes: paths.length * 2 * (READ_FILE_LIMIT + 32),
      separateStderr: true,
    });
    if (read.timedOut || read.exitCode !== 0 || read.omittedBytes > 0) {
      throw new Error(`cannot read the repository's configuration and test files (exit ${read.exitCode}): ${read.stderr.slice(-500)}`);
    }
    const parsed = parseReadFiles(read.output, paths.length);
    paths.forEach((path, i) => files.set(path, parsed[i] ?? {}));
    return files;
  }

  /** The recorder's signed records, and every reason not to trust them. */
  private async readRecorder(
    sandbox: Sandbox,
    recorder: RecorderChannel,
    patch: Buffer,
    workdir: string,
    exitCode: number,
    timedOut: boolean,
  ): Promise<{ statuses: ReadonlyMap<string, TestStatus>; flags: string[] }> {
    const out = await sandbox.exec(['cat', recorder.outFile], { timeoutMs: 60_000, outputLimitBytes: 64 * 1024 * 1024, separateStderr: true });
    const records = readRecords(out.exitCode === 0 ? out.output.toString('utf8') : '', recorder.key);
    const flags = [...records.problems];
    const end = records.end;
    if (end) {
      if (!timedOut && end.exitStatus !== exitCode) {
        flags.push(`pytest ended with exit status ${end.exitStatus} but the process exited with ${exitCode}: something else decided the exit code`);
      }
      for (const name of end.tampered) flags.push(`the code under test replaced ${name}`);
      const changed = new Set(diffFiles(patch.toString('utf8')).map((f) => `${workdir.replace(/\/$/, '')}/${f.path}`));
      for (const plugin of end.hookPlugins) {
        if (changed.has(plugin)) flags.push(`${plugin}, changed by the patch, hooks into how pytest makes or reports outcomes`);
      }
    }
    return { statuses: records.statuses, flags };
  }
}

