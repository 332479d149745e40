import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import { diffFiles } from '../diff-files.js';
import { djangoModule, environmentLines, type EvalPlan } from '../eval-plan/plan.js';
import { canaryRunner, type LogParserName } from '../../languages/index.js';
import type { GradeReport } from '../report.js';
import { RUNNER_REPOSITORIES, channelFiles, newRecorderChannel, recorderApplies } from '../recorder-channel.js';
import { readRecords, type RecorderResult } from '../result-recorder.js';
import { RUN_TESTS_SCRIPT, bashArgv } from '../scripts.js';
import { GRADING_DIR, readRepoFiles } from './apply-stage.js';
import { planCanaries, stopsAtFirstFailure, type Canary, type CanaryPlan, type RunnerFamily } from './canaries.js';
import { afterTestPatchStage } from './after-test-patch.js';
import { prepareTests } from './prepare-tests.js';
import { hiddenTestPaths, judgeHiddenTestChanges, readHiddenTests } from './hidden-tests-kept.js';
import { quiesce } from './agent-steps.js';
import { canaryFile, commandRunsAll, languageRunner, planLanguageCanaries, stopsEarly, type LanguageRunner } from './language-canaries.js';
import { readContainerFile } from './container-file.js';
import { isLanguageRun } from './language-results.js';
import { assertAlive, seconds, watchingPause } from './container-watch.js';
import { attachReporter, type ReporterRun } from './result-reporter.js';
import { LOCK_LIST, lockHiddenTests } from './hidden-tests-locked.js';
import { compiledInTests } from './cargo-lock.js';
import type { Flag } from '../findings.js';

/**
 * The test stage, once no agent-driven step is left: the test files restored from base_commit and
 * the test patch applied, canaries written among the hidden tests, the boot (monitor, recorder) and
 * its key put outside the repository, and the test command run under a time limit enforced from
 * outside the container. The grading channel is read back through the engine.
 */

export interface TestRunInput {
  readonly task: Task;
  readonly plan: EvalPlan;
  readonly parser: LogParserName;
  readonly testTimeoutS: number;
  readonly logLimitBytes: number;
  /** Repository files the patch (or its install) changed: the monitor's "code the agent wrote". */
  readonly agentFiles: readonly string[];
  readonly plugins: readonly string[];
  /** The image's Python has no audit hooks (before 3.8): no monitor, no recorder; the log decides. */
  readonly noAuditHooks?: boolean;
  readonly patchEmpty: boolean;
  readonly openControl: () => Promise<Sandbox>;
  /** Canaries already planned (a reference run repeating a grading's): written as they are. */
  readonly canaryPlan?: CanaryPlan;
  /** The run is a control's reference run, not a submission's grading. */
  readonly reference?: boolean;
  /** False: no copies of listed tests among the canaries (see mirror-interference.ts). */
  readonly mirrors?: boolean;
}

export interface TestRunResult {
  readonly log: string;
  readonly exitCode: number;
  readonly family: RunnerFamily;
  readonly canaries: readonly Canary[];
  /** The canaries' files as written (runners beyond Python), for a reference run to write again. */
  readonly canaryPlan?: CanaryPlan;
  /** The grading channel (monitor events always; recorder records for pytest runs). */
  readonly channel: RecorderResult;
  readonly pytest: boolean;
  /** A fail-only row's reporter, attached to the run: its lines give the results (see result-reporter.ts). */
  readonly reported?: ReporterRun;
  /** A go test run whose hidden tests could not be made unreadable to the code under test: why. */
  readonly unlocked?: string;
  /** A locked cargo run's crates of the code under test that compiled a hidden test file in (integrity flags). */
  readonly compiledIn?: readonly Flag[];
}

export function runnerFamily(parser: LogParserName): RunnerFamily {
  return parser === 'django' ? 'unittest' : parser === 'sympy' ? 'sympy' : 'pytest';
}

const CHANNEL_LIMIT = 256 * 1024 * 1024;

/**
 * How much longer a test run with mirror canaries may take than the task's limit: a mirrored test
 * runs at most four times (itself, its exact, inverted and mutated copies), every other test once,
 * so four times the limit bounds what the harness's run would finish in (round 6's F3: twice was not
 * enough for an honest fix slow on the issue's inputs).
 */
export const MIRROR_TIME_FACTOR = 4;
/** How much more of its log is kept (up to fifteen copies of at most five listed tests print too). */
const MIRROR_LOG_FACTOR = 4;
/** A Python run's mirrored tests run twice (themselves and one copy), every other test once. */
const PYTHON_MIRROR_FACTOR = 2;

export async function testRunStage(
  sandbox: Sandbox,
  input: TestRunInput,
  report: GradeReport,
  signal?: AbortSignal,
): Promise<TestRunResult> {
  const { task, plan } = input;
  await prepareTests(sandbox, input, signal);
  // A reference run (the gold patch's, from a control) repeats a grading: it judges nothing itself.
  const judged = plan.afterTestPatch.length > 0 && !input.reference;
  const applied = judged ? await readHiddenTests(sandbox, task.workdir, hiddenTestPaths(task.testPatch)) : undefined;
  await afterTestPatchStage(sandbox, { task, plan, timeoutS: input.testTimeoutS }, report, signal);
  if (applied) await judgeHiddenTestChanges(sandbox, { ...input, testTimeoutS: input.testTimeoutS }, applied, signal);
  const runner = languageRunner(plan.harnessParser);
  const family = runner ?? runnerFamily(input.parser);
  // A reference run writes the canaries its grading planned, whatever the runner (mirror attribution).
  const canaryPlan = input.canaryPlan
    ? await writePlanned(sandbox, input.task.workdir, input.canaryPlan)
    : runner
      ? await writeLanguageCanaries(sandbox, input, runner)
      : isLanguageRun(plan.harnessParser)
        ? undefined
        : await writeCanaries(sandbox, input, family);
  // Python's canaries only where a Python runner reads the files: a runner beyond Python that takes
  // no canaries of its own (micropython's run-tests, jq's, redis') gets none, rather than pytest
  // functions appended to a script it runs as it is.
  const canaries = canaryPlan?.canaries ?? [];
  // Beyond Python the mirrors run up to five listed tests up to three more times, in Python a few
  // listed tests once more: a run the harness would finish in time must not time out for our copies
  // (an honest slow fix scored 0), so the limit grows with them.
  const mirrored = canaryPlan?.canaries.some((c) => c.mirrorOf) === true;
  const factor = runner !== undefined ? MIRROR_TIME_FACTOR : PYTHON_MIRROR_FACTOR;
  const limitS = mirrored ? input.testTimeoutS * factor : input.testTimeoutS;
  // Their output too: a log cut in its middle for the copies' lines lost listed results (round 6's F2).
  const logLimitBytes = mirrored
    ? input.logLimitBytes * (runner !== undefined ? MIRROR_LOG_FACTOR : PYTHON_MIRROR_FACTOR)
    : input.logLimitBytes;
  const pytest = recorderApplies(input.parser, plan.testCommand) && input.noAuditHooks !== true;
  const channel = newRecorderChannel(GRADING_DIR, pytest);
  const testFiles = diffFiles(task.testPatch)
    .filter((f) => !f.isDeleted && f.path.endsWith('.py'))
    .map((f) => f.path);
  await sandbox.putFiles(
    channelFiles(channel, {
      gradingDir: GRADING_DIR,
      workdir: task.workdir,
      agentFiles: input.agentFiles,
      testFiles,
      plugins: input.plugins,
      runnerIsRepository: RUNNER_REPOSITORIES.has(task.repo),
    }),
  );
  const attached = await attachReporter(sandbox, task, plan.harnessParser, plan.testCommand);
  const environment = environmentLines([...plan.evalCommands, ...plan.beforeTestPatch, ...plan.afterTestPatch]);
  // Last before the run: the canaries are in the files it locks.
  const lock = await lockHiddenTests(
    sandbox,
    { task, runner, environment: environment.join('\n'), testTimeoutS: input.testTimeoutS },
    canaryPlan,
  );
  // The harness's eval scripts trace their commands (`set -x`), and parse_log_maven names each test
  // from that trace (`+ mvn test ... -Dtest=X`): without it every Maven row's test reads MISSING.
  const script = [
    ...environment,
    ...(lock?.locked ? lock.runLines : []),
    `export PYTHONPATH="${channel.bootDir}\${PYTHONPATH:+:$PYTHONPATH}"`,
    'set -x',
    attached.testCommand,
  ].join('\n');
  const started = Date.now();
  const run = await watchingPause(sandbox, signal, (watched) =>
    sandbox.exec(bashArgv(RUN_TESTS_SCRIPT, 'swe-env-tests', [task.workdir, String(limitS), script]), {
      timeoutMs: (limitS + 60) * 1000,
      outputLimitBytes: logLimitBytes,
      env: channel.env,
      signal: watched,
    }),
  );
  if (signal?.aborted) throw new Error('grading was cancelled');
  // A killed test process reads like a timeout (137); a dead container is not the patch's doing.
  await assertAlive(sandbox, 'the test run', run.exitCode);
  report.durations.testRunS = seconds(started);
  const log = run.output.toString('utf8');
  report.logTail = log.slice(-8 * 1024);
  report.testExitCode = run.exitCode;
  if (run.timedOut || run.exitCode === 124 || run.exitCode === 137) {
    // The outer limit only fires when the code under test stopped the timeout inside: its doing.
    report.testTimedOut = true;
    report.error = `the tests did not finish within ${limitS}s${limitS !== input.testTimeoutS ? ` (${input.testTimeoutS}s, times ${factor} for the mirror canaries' runs)` : ''}`;
  }
  // What the tests left running (a daemon that keeps rewriting or shrinking the channel file while
  // it is read) is ended first: from here on nothing in the container moves.
  await quiesce(sandbox, 'the test run');
  const compiledIn = runner === 'cargo' && lock?.locked ? await compiledInTests(sandbox, task.workdir, LOCK_LIST) : [];
  const text = (await readContainerFile(sandbox, channel.outFile, CHANNEL_LIMIT))?.toString('utf8') ?? '';
  return {
    log,
    exitCode: run.exitCode,
    family,
    canaries: [...canaries, ...attached.canaries],
    ...(canaryPlan ? { canaryPlan } : {}),
    channel: readRecords(text, channel.key, pytest),
    pytest,
    ...(attached.reported ? { reported: attached.reported } : {}),
    ...(lock && !lock.locked ? { unlocked: lock.why } : {}),
    ...(compiledIn.length > 0 ? { compiledIn } : {}),
  };
}

/** Whether the test command runs a test file (it names it, or names no test file of the task at all). */
function commandRuns(testCommand: string, path: string, all: readonly string[], family: RunnerFamily): boolean {
  const names = (p: string): string[] => (family === 'unittest' ? [djangoModule(p), p] : [p]);
  const mentioned = (p: string): boolean => names(p).some((n) => testCommand.includes(n));
  if (mentioned(path)) return !testCommand.includes(`${path}::`);
  return !all.some(mentioned);
}

/**
 * A file the runner collects tests from by its name (pytest's test_*.py and *_test.py, Django's
 * test*.py and tests.py), not a module the tests read as data: sphinx's test roots
 * (the target modules under tests/roots) are documented by the tests, and a canary appended there showed up
 * in their output (sphinx-10325's gold patch scored 0).
 */
export function isTestModule(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base !== 'conftest.py' && (/^test.*\.py$/.test(base) || /_test\.py$/.test(base) || base === 'tests.py');
}

async function writeCanaries(sandbox: Sandbox, input: TestRunInput, family: RunnerFamily): Promise<CanaryPlan | undefined> {
  const testCommand = input.plan.testCommand;
  const all = diffFiles(input.task.testPatch)
    .filter((f) => !f.isDeleted)
    .map((f) => f.path)
    .filter(isTestModule);
  const paths = all.filter((p) => commandRuns(testCommand, p, all, family));
  if (paths.length === 0) return undefined;
  const read = await readRepoFiles(sandbox, input.task.workdir, paths);
  const targets = paths.flatMap((path) => {
    const content = read.get(path)?.work;
    return content === undefined ? [] : [{ path, content }];
  });
  return writePlanned(
    sandbox,
    input.task.workdir,
    planCanaries({
      targets,
      family,
      passToPass: input.task.passToPass,
      failToPass: input.task.failToPass,
      mustFail: !stopsAtFirstFailure(testCommand),
      ...(input.mirrors === false ? { mirrors: false } : {}),
    }),
  );
}

/** The planned canary files written into the repository. */
async function writePlanned(sandbox: Sandbox, workdir: string, plan: CanaryPlan): Promise<CanaryPlan> {
  const root = workdir.replace(/\/+$/, '');
  await sandbox.putFiles([...plan.files].map(([path, content]) => ({ path: `${root}/${path}`, content })));
  return plan;
}

/** Canaries in the hidden test files of a run beyond Python (see language-canaries.ts). */
async function writeLanguageCanaries(sandbox: Sandbox, input: TestRunInput, runner: LanguageRunner): Promise<CanaryPlan | undefined> {
  const root = input.task.workdir.replace(/\/+$/, '');
  const testCommand = input.plan.testCommand;
  const paths = diffFiles(input.task.testPatch)
    .filter((f) => !f.isDeleted && commandRunsAll(runner, testCommand, f.path))
    .map((f) => f.path);
  if (paths.length === 0) return undefined;
  const read = await readRepoFiles(sandbox, input.task.workdir, paths);
  const targets = paths.flatMap((path) => {
    const content = read.get(path)?.work;
    return canaryFile(runner, path, content) ? [{ path, content: content! }] : [];
  });
  if (targets.length === 0) return undefined;
  const script = canaryRunner(runner).reservedNamesScript;
  const reserved =
    script === undefined
      ? new Set<string>()
      : await reservedNames(
          sandbox,
          input.task.workdir,
          targets.map((t) => t.path),
          script,
        );
  const plan = planLanguageCanaries({
    runner,
    targets,
    mustFail: !stopsEarly(runner, testCommand),
    failToPass: input.task.failToPass,
    passToPass: input.task.passToPass,
    reserved,
    ...(input.mirrors === false ? { mirrors: false } : {}),
  });
  await sandbox.putFiles([...plan.files].map(([path, content]) => ({ path: `${root}/${path}`, content })));
  return plan;
}

/** Names a canary must not take beyond the file's own (Go: its package's other functions), as the runner's script lists them. */
async function reservedNames(sandbox: Sandbox, workdir: string, paths: readonly string[], script: string): Promise<Set<string>> {
  const dirs = [...new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '.')))];
  // Whatever the listing gives: the package's files are partly the agent's, and a listing they make
  // fail or overflow must not turn the grading into an infrastructure error (a collision they cause
  // only fails their own build).
  const list = await sandbox.exec(bashArgv(script, 'swe-env-go-names', [workdir, ...dirs]), {
    timeoutMs: 60_000,
    outputLimitBytes: 4 << 20,
    separateStderr: true,
  });
  return new Set(
    list.output
      .toString('utf8')
      .split('\n')
      .filter((n) => /^\w+$/.test(n)),
  );
}
