import { isRunnerControlPath, isTestPath } from './patch-filter.js';
import { PYTEST_CONFIG_FILES } from './pytest-config.js';
import { isSupportPath } from './test-support.js';

/** A working tree as snapshot-tree.sh lists it: path -> "size mtime". */
export type TreeSnapshot = ReadonlyMap<string, string>;

export function parseSnapshot(output: Buffer): TreeSnapshot {
  const fields = output.toString('utf8').split('\0');
  const snapshot = new Map<string, string>();
  for (let i = 0; i + 2 < fields.length; i += 3) snapshot.set(fields[i]!, `${fields[i + 1]} ${fields[i + 2]}`);
  return snapshot;
}

/** Paths created, removed or rewritten between two snapshots. */
export function changedPaths(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changed = new Set<string>();
  for (const [path, stamp] of after) if (before.get(path) !== stamp) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}

export interface SweepDecision {
  /** The patch wrote inside .git: it is refused whole (git config could run programs). */
  readonly gitWrites: readonly string[];
  /** Paths to put back as they were, with why. */
  readonly revert: ReadonlyArray<{ path: string; why: string }>;
}

/** Changed files whose pytest settings must be compared before the decision (setup.cfg, pyproject.toml at any depth). */
export function configCandidates(changed: readonly string[], allowedPaths: readonly string[]): string[] {
  const allowed = new Set(allowedPaths);
  return changed.filter((path) => !allowed.has(path) && !isTestPath(path) && PYTEST_CONFIG_FILES.has(path.split('/').at(-1) ?? ''));
}

export interface SweepOptions {
  readonly protectedPaths: readonly string[];
  /** The test command, whose tools' build definitions the change may not touch (isRunnerControlPath). */
  readonly testCommand?: string;
  /** The plan's other steps once the change is applied (planSteps): what an install step among them reads is the runner's. */
  readonly steps?: string;
  readonly allowedPaths: readonly string[];
  /** Test-support module stems the task's test files import (`pandas/_testing`). */
  readonly supportStems: readonly string[];
  /** Configuration files whose pytest settings differ from the pristine tree's (by real parsers). */
  readonly pytestConfigChanged: ReadonlySet<string>;
}

/**
 * What the applied patch changed on disk that grading must not keep, whatever its headers said:
 * test files, files the test command runs, test-support modules the tests import, compiled
 * artefacts (never a fix: a sourceless .pyc is importable), and configuration files whose pytest
 * settings changed. Files the task's own fix changes are kept.
 */
export function sweepDecision(changed: readonly string[], options: SweepOptions): SweepDecision {
  const allowed = new Set(options.allowedPaths);
  const protectedPaths = new Set(options.protectedPaths);
  const gitWrites: string[] = [];
  const revert: Array<{ path: string; why: string }> = [];
  for (const path of changed) {
    if (path === '.git' || path.startsWith('.git/')) {
      gitWrites.push(path);
      continue;
    }
    if (allowed.has(path)) continue;
    const base = path.split('/').at(-1) ?? '';
    if (isTestPath(path)) revert.push({ path, why: 'test file' });
    else if (protectedPaths.has(path)) revert.push({ path, why: 'run by the test command' });
    else if (isRunnerControlPath(path, options.testCommand, options.steps)) revert.push({ path, why: 'read or run by the test runner' });
    else if (base.endsWith('.pyc') || base.endsWith('.pyo') || path.split('/').includes('__pycache__'))
      revert.push({ path, why: 'compiled artefact' });
    else if (isSupportPath(path, options.supportStems)) revert.push({ path, why: 'test-support module the tests import' });
    else if (options.pytestConfigChanged.has(path)) revert.push({ path, why: 'pytest configuration' });
  }
  return { gitWrites, revert };
}
