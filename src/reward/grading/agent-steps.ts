import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import { installDecision, type InstallRerun } from '../eval-plan/install-policy.js';
import { environmentLines, type EvalPlan } from '../eval-plan/plan.js';
import type { GradeReport } from '../report.js';
import { PRE_TEST_SCRIPT, bashArgv } from '../scripts.js';
import { NO_INVENTORY, inventoryOf, type InventoryCache } from './inventory.js';
import { closedWorldFindings, contentProblem, type LayerChange, type OutsideChange } from './closed-world.js';
import { readContainerFile } from './container-file.js';
import { ModelFault, assertAlive, seconds, watchingPause } from './container-watch.js';
import { isLanguageRun } from '../../languages/index.js';
import { endAllButInit } from './keeper-kill.js';

/**
 * The stages before the tests. The task's own steps (the plan's eval commands: locale, exports,
 * pinned tools) run first, before anything of the patch is on disk, so nothing the agent wrote runs
 * with them. The agent-driven step (the install re-run, which executes the patch's setup.py and
 * build hooks as root) runs after the patch, while no grading input (test patch, recorder, key,
 * results channel) exists in the container yet; then every process it left is ended through PID 1
 * (checked from the host) and the closed-world check decides whether anything it changed outside
 * the repository is more than the package's own installation.
 */

export interface TaskStepsResult {
  /** The pristine image's pytest plugins (modules), loaded by name in the test run. */
  readonly plugins: readonly string[];
  /** Which distribution owns each top-level entry of each site-packages directory. */
  readonly owners: ReadonlyMap<string, readonly string[]>;
  /** The distributions that are the repository itself. */
  readonly repoDists: ReadonlySet<string>;
  /** False when the image's Python has no audit hooks (before 3.8: inventory.ts). */
  readonly auditHooks?: boolean;
  /**
   * The container's layer once the task's steps ran: the closed-world check's baseline. Undefined
   * when the install will not run for this patch (the plan has none, re-runs are off, or the paths
   * the patch's text names would not re-run it): the engine's diff of a layer is the costliest read
   * of a grading (0.3-0.4 s whatever the layer holds), so it is only made when needed, and it is
   * read while the patch is applied (see baselineOf).
   */
  readonly baseline: Promise<readonly LayerChange[]> | undefined;
}

/**
 * The engine's diff, started now and read later: what the apply stage writes meanwhile is the
 * repository's files and the grader's own, which the closed-world check does not judge by the
 * baseline (repository changes are the patch's either way, the grader's are set aside), and no
 * code of the change runs before the install. Its failure is the install's to meet (awaited there),
 * never an unhandled rejection when the grading ends before it.
 */
function baselineOf(sandbox: Sandbox): Promise<readonly LayerChange[]> {
  const diff = sandbox.changes();
  void diff.catch(() => undefined);
  return diff;
}

export async function taskSteps(
  sandbox: Sandbox,
  task: Task,
  plan: EvalPlan,
  report: GradeReport,
  options: {
    readonly timeoutS: number;
    readonly installRerun: InstallRerun;
    readonly inventories?: InventoryCache;
    /** The paths the patch's text names (both sides of a rename): whether its install will re-run (unknown: as if it will). */
    readonly patchPaths?: readonly string[];
  },
  signal?: AbortSignal,
): Promise<TaskStepsResult> {
  const timeoutS = options.timeoutS;
  const installCanRun = plan.install.trim() !== '' && options.installRerun !== 'never';
  // The inventory (a Python start, 0.1 s) is for pytest's plugins and the install's closed-world
  // check: a run of another language's runner with no install needs neither.
  const inventory =
    isLanguageRun(plan.harnessParser) && !installCanRun ? NO_INVENTORY : await inventoryOf(sandbox, task.workdir, options.inventories);
  const commands = plan.evalCommands.filter((line) => !environmentLines([line]).length);
  if (commands.length > 0) {
    const started = Date.now();
    const result = await watchingPause(sandbox, signal, (watched) =>
      sandbox.exec(bashArgv(PRE_TEST_SCRIPT, 'swe-env-task-steps', [task.workdir, plan.evalCommands.join('\n'), '']), {
        timeoutMs: timeoutS * 1000,
        outputLimitBytes: 256 * 1024,
        signal: watched,
      }),
    );
    if (signal?.aborted) throw new Error('grading was cancelled');
    await assertAlive(sandbox, "the task's eval commands", result.exitCode);
    if (result.timedOut) throw new Error(`the plan's eval commands did not end within ${timeoutS}s on the pristine repository`);
    report.durations.installS += seconds(started);
  }
  const installWillRun =
    installCanRun && (options.patchPaths === undefined || installDecision(plan.install, options.patchPaths, options.installRerun).run);
  return { ...inventory, baseline: installWillRun ? baselineOf(sandbox) : undefined };
}

export interface AgentStepsInput {
  readonly task: Task;
  readonly plan: EvalPlan;
  readonly changed: readonly string[];
  readonly baseline: Promise<readonly LayerChange[]> | undefined;
  readonly owners: ReadonlyMap<string, readonly string[]>;
  readonly repoDists: ReadonlySet<string>;
  readonly installRerun: InstallRerun;
  readonly timeoutS: number;
  readonly ours: ReadonlySet<string>;
  /** A fresh container from the task's image for the control run (the caller removes it). */
  readonly openControl: () => Promise<Sandbox>;
}

/** Runs the install re-run when the policy says; returns the repository paths it changed. */
export async function agentSteps(
  sandbox: Sandbox,
  input: AgentStepsInput,
  report: GradeReport,
  signal?: AbortSignal,
): Promise<readonly string[]> {
  const decision = installDecision(input.plan.install, input.changed, input.installRerun);
  report.install = { ran: false, reason: decision.reason, exitCode: 0, seconds: 0, outputTail: '' };
  if (!decision.run) return [];
  const baseline = input.baseline;
  // The baseline was left out because the patch's text names no path that re-runs the install; on
  // disk it changed one (a hunk `patch` applied under another name than its header's): the model's.
  if (baseline === undefined)
    throw new ModelFault(
      `the patch changed what re-runs the install (${decision.reason}) though its text names no such path: the paths a patch changes must be the ones its headers name`,
    );
  // Read in full before the install starts: a diff still being read while the install writes could
  // take the install's own changes for the baseline's.
  const before = await baseline;
  const started = Date.now();
  const result = await runInstall(sandbox, input, signal);
  if (signal?.aborted) throw new Error('grading was cancelled');
  await assertAlive(sandbox, 'the install step', result.exitCode);
  const took = seconds(started);
  report.durations.installS += took;
  report.install = {
    ran: true,
    reason: decision.reason,
    exitCode: result.exitCode,
    seconds: took,
    outputTail: result.output.toString('utf8').slice(-4000),
  };
  if (result.timedOut) {
    // The harness's install on the pristine repository ends (the task was validated): one that does
    // not is the patch's setup.py or build hooks.
    throw new ModelFault(`the install step did not end within ${input.timeoutS}s (the patch's setup.py or build hooks)`);
  }
  await quiesce(sandbox);
  const findings = closedWorldFindings({
    before,
    after: await sandbox.changes(),
    workdir: input.task.workdir,
    ours: input.ours,
    owners: input.owners,
    repoDists: input.repoDists,
  });
  const refused = [...findings.refused, ...(await contentRefusals(sandbox, findings.readContent))];
  if (refused.length === 0) return findings.repoChanges;
  const remaining = await notInControl(refused, sandbox, input);
  if (remaining.length > 0) {
    const listed = remaining.slice(0, 8).map((c) => `${c.path} (${c.kind}: ${c.why})`);
    throw new ModelFault(
      `the install step run on the patch changed what it may not, outside the package's own installation (the same step on the pristine repository does not): ${listed.join('; ')}${remaining.length > 8 ? `; and ${remaining.length - 8} more` : ''}`,
    );
  }
  return findings.repoChanges;
}

function runInstall(
  sandbox: Sandbox,
  input: { task: Task; plan: EvalPlan; timeoutS: number },
  signal?: AbortSignal,
): ReturnType<Sandbox['exec']> {
  return watchingPause(sandbox, signal, (watched) =>
    sandbox.exec(
      bashArgv(PRE_TEST_SCRIPT, 'swe-env-install', [
        input.task.workdir,
        environmentLines(input.plan.evalCommands).join('\n'),
        input.plan.install,
      ]),
      {
        // Limited from outside: code that stops a timeout inside runs into this one.
        timeoutMs: input.timeoutS * 1000,
        outputLimitBytes: 256 * 1024,
        signal: watched,
      },
    ),
  );
}

/**
 * Ends every process the agent-driven step left (a daemon waiting for the test patch to appear),
 * through PID 1, and checks from the host that none is left (after the steps after the test patch too).
 * Each round waits until the keeper's kill has run (keeper-kill.ts), however loaded the machine;
 * a process left after that was forked while the kill went round, and is signalled again.
 */
export async function quiesce(sandbox: Sandbox, what = 'the install step'): Promise<void> {
  // The engine lists every process of the container from the host: with none but PID 1 (ours) there
  // is nothing to end and nothing that could fork one, so the kill's round (a witness exec, about
  // 0.1 s) is spent only when something is left, which most steps leave nothing.
  if (leftOver(await sandbox.processes(), { keepersSleep: false }).length === 0) return;
  for (let attempt = 0; attempt < 5; attempt++) {
    await endAllButInit(sandbox);
    // Looked at again until none is left or the round's time is up: the ended processes are
    // listed until PID 1 reaps them, and without a witness its kill itself may still be to come.
    // Every process but PID 1 counts here, one named as the keeper's own `sleep 5` too: only
    // once the rounds are over is that one taken for the keeper's.
    const until = Date.now() + 100 + attempt * 200;
    for (;;) {
      if (leftOver(await sandbox.processes(), { keepersSleep: false }).length === 0) return;
      if (Date.now() >= until) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const left = leftOver(await sandbox.processes(), { keepersSleep: true });
  if (left.length > 0) {
    throw new ModelFault(
      `processes started by ${what} survived being ended: ${left
        .slice(0, 3)
        .map((p) => p.command.slice(0, 80))
        .join('; ')}`,
    );
  }
}

/**
 * Processes other than PID 1 and, with keepersSleep, PID 1's children named `sleep 5`: the keeper's
 * fallback loop (an image whose /run is read-only) always has one, and a process of the change can
 * take the same name, so it is set aside only after every round.
 */
function leftOver(processes: Awaited<ReturnType<Sandbox['processes']>>, o: { keepersSleep: boolean }): typeof processes {
  const init = processes.find((p) => p.init)?.pid;
  return processes.filter((p) => !p.init && !(o.keepersSleep && p.ppid === init && p.command.trim() === 'sleep 5'));
}

const CONTENT_LIMIT = 1024 * 1024;

function fileContent(sandbox: Sandbox, path: string): Promise<Buffer | undefined> {
  return readContainerFile(sandbox, path, CONTENT_LIMIT);
}

async function contentRefusals(sandbox: Sandbox, paths: readonly string[]): Promise<OutsideChange[]> {
  const out: OutsideChange[] = [];
  for (const path of paths) {
    const content = await fileContent(sandbox, path);
    const problem =
      content === undefined ? 'cannot be read to check (over 1 MiB or not a file)' : contentProblem(path, content.toString('utf8'));
    if (problem) out.push({ path, kind: 'added', why: problem });
  }
  return out;
}

/**
 * The control run: the task's steps and the same install on the pristine repository in a fresh
 * container. A refused change it makes too, with the same content, is the task's own doing.
 */
async function notInControl(refused: readonly OutsideChange[], sandbox: Sandbox, input: AgentStepsInput): Promise<OutsideChange[]> {
  const control = await input.openControl();
  try {
    const scratch = { ...emptyReport() };
    await taskSteps(control, input.task, input.plan, scratch as GradeReport, { timeoutS: input.timeoutS, installRerun: 'never' });
    const result = await runInstall(control, input);
    if (result.timedOut) return [...refused];
    const made = new Map((await control.changes()).map((c) => [c.path, c.kind]));
    const remaining: OutsideChange[] = [];
    for (const change of refused) {
      if (made.get(change.path) !== change.kind) {
        remaining.push(change);
        continue;
      }
      if (change.kind === 'deleted') continue;
      const [ours, theirs] = await Promise.all([fileContent(sandbox, change.path), fileContent(control, change.path)]);
      if (ours === undefined || theirs === undefined ? ours !== theirs : !ours.equals(theirs)) remaining.push(change);
    }
    return remaining;
  } finally {
    await control.remove().catch(() => undefined);
  }
}

function emptyReport(): Pick<GradeReport, 'durations'> {
  return { durations: { captureS: 0, containerStartS: 0, patchS: 0, testRunS: 0, installS: 0, totalS: 0 } };
}
