import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import { addedLines, diffFiles } from '../diff-files.js';
import { planSteps, testCommandPaths } from '../patch-filter.js';
import { pytestSettings } from '../pytest-config.js';
import { READ_FILE_LIMIT, parseReadFiles } from '../read-files.js';
import type { GradeReport } from '../report.js';
import { APPLY_PATCH_SCRIPT, READ_FILES_SCRIPT, REVERT_PATHS_SCRIPT, SNAPSHOT_TREE_SCRIPT, bashArgv } from '../scripts.js';
import { importedModules, supportStems } from '../test-support.js';
import { changedPaths, configCandidates, parseSnapshot, sweepDecision, type TreeSnapshot } from '../tree-changes.js';
import { assertAlive, watchingPause } from './container-watch.js';

export const GRADING_DIR = '/swe_env/grading';

/** apply-patch.sh's exit codes: the harness's chain, in its order. */
const APPLY_METHODS: Readonly<Record<number, string>> = {
  10: 'git apply',
  12: 'git apply --3way',
  13: 'git apply --reject',
  11: 'patch --fuzz=5',
  14: 'already applied (the chain left it applied)',
};

/** apply-patch.sh's exit when `patch` wrote inside .git and failed (no git ran after it). */
const GIT_WRITTEN = 15;

/**
 * The apply stage: the patch applied with the harness's chain (no program of the repository runs:
 * git without hooks, fsmonitor or the patch's .git/config), then what it changed on disk is swept.
 * Returns the repository paths it changed (less what was put back), or undefined when the patch
 * does not apply or is refused (the report says why).
 */
export async function applyStage(
  sandbox: Sandbox,
  task: Task,
  patch: Buffer,
  report: GradeReport,
  signal?: AbortSignal,
): Promise<readonly string[] | undefined> {
  if (report.patchEmpty) {
    report.patchApplied = true;
    return [];
  }
  await sandbox.putFiles([{ path: `${GRADING_DIR}/model.patch`, content: patch }]);
  const before = await snapshot(sandbox, task.workdir);
  const applied = await watchingPause(sandbox, signal, (watched) =>
    sandbox.exec(bashArgv(APPLY_PATCH_SCRIPT, 'swe-env-apply', [task.workdir, `${GRADING_DIR}/model.patch`]), {
      timeoutMs: 120_000,
      outputLimitBytes: 64 * 1024,
      signal: watched,
    }),
  );
  if (applied.timedOut) throw new Error(signal?.aborted ? 'grading was cancelled' : 'applying the patch timed out');
  await assertAlive(sandbox, 'applying the patch', applied.exitCode);
  if (applied.exitCode === GIT_WRITTEN) {
    report.patchApplied = false;
    report.error = `the patch writes inside .git (patch --fuzz=5 wrote there, then failed): refused\n${applied.output.toString('utf8').slice(-2000)}`;
    return undefined;
  }
  const method = APPLY_METHODS[applied.exitCode];
  if (!method) {
    report.patchApplied = false;
    report.error = `the patch does not apply (tried git apply, --3way, --reject and patch --fuzz=5, as the harness does):\n${applied.output.toString('utf8').slice(-4000)}`;
    return undefined;
  }
  report.patchApplied = true;
  report.patchApplyMethod = method;
  return sweep(sandbox, task, before, report);
}

async function snapshot(sandbox: Sandbox, workdir: string): Promise<TreeSnapshot> {
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
 * were; a patch writing inside .git is refused.
 */
async function sweep(sandbox: Sandbox, task: Task, before: TreeSnapshot, report: GradeReport): Promise<readonly string[] | undefined> {
  const after = await snapshot(sandbox, task.workdir);
  const changed = changedPaths(before, after);
  const allowedPaths = diffFiles(task.goldPatch).map((f) => f.path);
  const refuseGitWrites = (paths: readonly string[]): undefined => {
    report.patchApplied = false;
    report.error = `the patch writes inside .git (${paths.slice(0, 5).join(', ')}): refused`;
    return undefined;
  };
  if (changed.some((path) => path === '.git' || path.startsWith('.git/'))) {
    // Refused before anything below runs git here again.
    return refuseGitWrites(
      sweepDecision(changed, { protectedPaths: [], allowedPaths, supportStems: [], pytestConfigChanged: new Set() }).gitWrites,
    );
  }
  const configs = configCandidates(changed, allowedPaths);
  const testFiles = diffFiles(task.testPatch)
    .filter((f) => !f.isNew)
    .map((f) => f.oldPath);
  const files = await readRepoFiles(sandbox, task.workdir, [...configs, ...testFiles]);
  const pytestConfigChanged = new Set(
    configs.filter((path) => pytestSettings(path, files.get(path)?.head) !== pytestSettings(path, files.get(path)?.work)),
  );
  const imported = [
    ...testFiles.flatMap((path) => importedModules(path, files.get(path)?.head ?? '')),
    ...diffFiles(task.testPatch).flatMap((f) => importedModules(f.path, addedLines(task.testPatch, f.path))),
  ];
  const decision = sweepDecision(changed, {
    protectedPaths: testCommandPaths(report.testCommand),
    testCommand: report.testCommand,
    steps: report.plan ? planSteps(report.plan) : '',
    allowedPaths,
    supportStems: supportStems(imported),
    pytestConfigChanged,
  });
  if (decision.gitWrites.length > 0) return refuseGitWrites(decision.gitWrites);
  if (decision.revert.length === 0) return changed;
  await sandbox.putFiles([{ path: `${GRADING_DIR}/revert.list`, content: decision.revert.map((r) => `${r.path}\0`).join('') }]);
  const reverted = await sandbox.exec(bashArgv(REVERT_PATHS_SCRIPT, 'swe-env-revert', [task.workdir, `${GRADING_DIR}/revert.list`]), {
    timeoutMs: 120_000,
    outputLimitBytes: 64 * 1024,
  });
  if (reverted.timedOut || reverted.exitCode !== 0) {
    throw new Error(
      `cannot put back the files the patch may not change (exit ${reverted.exitCode}): ${reverted.output.toString('utf8').slice(-1000)}`,
    );
  }
  const already = new Set(report.droppedFiles.map((d) => d.split(' (')[0]));
  for (const { path, why } of decision.revert) {
    if (!already.has(path)) report.droppedFiles.push(`${path} (${why}, found on disk after applying)`);
  }
  const revertedPaths = new Set(decision.revert.map((r) => r.path));
  return changed.filter((path) => !revertedPaths.has(path));
}

/**
 * Files as the pristine tree (HEAD) and the working tree hold them; undefined where absent, too
 * large (over 1 MiB: a configuration or test file that big is read as changed) or a link.
 */
export async function readRepoFiles(
  sandbox: Sandbox,
  workdir: string,
  paths: readonly string[],
): Promise<Map<string, { head?: string; work?: string }>> {
  const files = new Map<string, { head?: string; work?: string }>();
  if (paths.length === 0) return files;
  await sandbox.putFiles([{ path: `${GRADING_DIR}/read.list`, content: paths.map((p) => `${p}\0`).join('') }]);
  const read = await sandbox.exec(
    bashArgv(READ_FILES_SCRIPT, 'swe-env-read', [workdir, `${GRADING_DIR}/read.list`, String(READ_FILE_LIMIT)]),
    {
      timeoutMs: 120_000,
      outputLimitBytes: paths.length * 2 * (READ_FILE_LIMIT + 32),
      separateStderr: true,
    },
  );
  if (read.timedOut || read.exitCode !== 0 || read.omittedBytes > 0) {
    throw new Error(`cannot read the repository's configuration and test files (exit ${read.exitCode}): ${read.stderr.slice(-500)}`);
  }
  const parsed = parseReadFiles(read.output, paths.length);
  paths.forEach((path, i) => files.set(path, parsed[i] ?? {}));
  return files;
}
