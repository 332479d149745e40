import { isLanguageControlPath } from '../languages/index.js';
import { diffFiles } from './diff-files.js';

/**
 * The split SWE-bench makes between a fix and its tests, applied to the agent's change before
 * grading: edits to test files, to pytest's own configuration files and to interpreter start-up hooks
 * are dropped (and listed in the report), so a model cannot pass by rewriting what judges it. Headers
 * can name other paths than the applier writes, so this is a first pass: after applying, the grader
 * decides from what changed on disk (tree-changes.ts), where pytest settings inside setup.cfg and
 * pyproject.toml are compared with real parsers.
 */
const TEST_DIRS = new Set(['test', 'tests', 'testing', 'e2e']);
const ALWAYS_DROPPED = new Set(['conftest.py', 'pytest.ini', '.pytest.ini', 'tox.ini', 'sitecustomize.py', 'usercustomize.py']);

/**
 * What other runners read or run around their tests, which a change may no more touch than a
 * pytest configuration: each language's (src/languages/<language>/index.ts, runnerControl: Go's
 * test files and test data, cargo's configuration and build scripts, the JavaScript runners'
 * configuration, RSpec's and PHPUnit's, and the build definitions their tools read), a symlink named
 * like a test folder, and a Makefile that the test command's `make` runs. The task's own fix may
 * still change any of them (allowedPaths).
 */
export function isRunnerControlPath(path: string, testCommand = '', steps = ''): boolean {
  const base = path.split('/').at(-1) ?? '';
  // A symlink named like a test folder stands for it (a file named so is a test command's, see testCommandPaths).
  if (TEST_DIRS.has(base)) return true;
  // `make test` runs the Makefile whatever the language; as the change may not rewrite sympy's bin/test.
  if (MAKE.test(testCommand) && MAKEFILE.test(base)) return true;
  return isLanguageControlPath(path, testCommand, steps);
}

const MAKE = /(^|[\s;&|(])(make|gmake)(\s|$)/;
const MAKEFILE = /^(GNUmakefile|[Mm]akefile|.*\.mk)$/;

export function isTestPath(path: string): boolean {
  const parts = path.split('/');
  const base = parts.at(-1) ?? '';
  if (ALWAYS_DROPPED.has(base)) return true;
  if (parts.slice(0, -1).some((dir) => TEST_DIRS.has(dir))) return true;
  return /^test_.*\.py$/.test(base) || /_tests?\.py$/.test(base) || base === 'tests.py';
}

/** Splits a git diff into one chunk per file, keeping the bytes as they are (latin1 maps 1:1). */
export function splitDiff(diff: Buffer): string[] {
  const text = diff.toString('latin1');
  const chunks: string[] = [];
  let start = text.startsWith('diff --git ') ? 0 : text.indexOf('\ndiff --git ') + 1;
  if (start <= 0 && !text.startsWith('diff --git ')) return text.trim() === '' ? [] : [text];
  while (start < text.length) {
    const next = text.indexOf('\ndiff --git ', start);
    const end = next < 0 ? text.length : next + 1;
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}

export interface FilteredPatch {
  readonly patch: Buffer;
  /** Paths whose changes were left out, with why. */
  readonly dropped: string[];
}

/**
 * Repository files the test command runs (sympy's `bin/test`, Django's `./tests/runtests.py`): an
 * agent that rewrote them could print any result it liked.
 */
export function testCommandPaths(testCmd: string): string[] {
  return testCmd
    .split(/\s+/)
    .filter((word) => /^(\.\/)?[\w.-]+(\/[\w.-]+)+$/.test(word))
    .map((word) => word.replace(/^\.\//, ''));
}

/**
 * `protectedPaths`: dropped whatever they are (files the test command runs). `allowedPaths`: never
 * dropped (the files the task's own fix changes: a dataset may put a real fix under a test-like
 * path, e.g. django/test/ or a SWE-smith bug in a package's testing helpers). `steps`: what the
 * plan runs once the change is applied besides the test command (planSteps).
 */
export function filterAgentPatch(
  diff: Buffer,
  options: { protectedPaths?: readonly string[]; allowedPaths?: readonly string[]; testCommand?: string; steps?: string } = {},
): FilteredPatch {
  const kept: string[] = [];
  const dropped: string[] = [];
  const protectedPaths = new Set(options.protectedPaths ?? []);
  const allowedPaths = new Set(options.allowedPaths ?? []);
  for (const chunk of splitDiff(diff)) {
    const file = diffFiles(Buffer.from(chunk, 'latin1').toString('utf8'))[0];
    if (!file) {
      kept.push(chunk);
      continue;
    }
    const paths = [file.path, file.oldPath];
    if (paths.every((p) => allowedPaths.has(p))) {
      kept.push(chunk);
    } else if (paths.some(isTestPath)) {
      dropped.push(`${file.path} (test file)`);
    } else if (paths.some((p) => protectedPaths.has(p))) {
      dropped.push(`${file.path} (run by the test command)`);
    } else if (paths.some((p) => isRunnerControlPath(p, options.testCommand, options.steps))) {
      dropped.push(`${file.path} (read or run by the test runner)`);
    } else {
      kept.push(chunk);
    }
  }
  return { patch: Buffer.from(kept.join(''), 'latin1'), dropped };
}

/** What a plan runs once the change is applied besides its test command: its install and the steps around the test patch. */
export function planSteps(plan: {
  readonly install: string;
  readonly beforeTestPatch: readonly string[];
  readonly afterTestPatch: readonly string[];
}): string {
  return [plan.install, ...plan.beforeTestPatch, ...plan.afterTestPatch].join('\n');
}
