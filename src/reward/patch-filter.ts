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
 * pytest configuration: Go's test files (a `TestMain` in any `_test.go` of the package owns the
 * test binary's output and exit) and test data; cargo's configuration (a `runner` wraps every test
 * binary), toolchain pins and build scripts (run by the test command after the hidden tests are in
 * place, with the power to rewrite them); the JavaScript runners' configuration (reporters, setup
 * files); RSpec's and PHPUnit's. The task's own fix may still change any of them (allowedPaths).
 */
export function isRunnerControlPath(path: string, testCommand = ''): boolean {
  const parts = path.split('/');
  const base = parts.at(-1) ?? '';
  const dirs = parts.slice(0, -1);
  // Whole components, the last one too: a symlink named `.cargo` or `testdata` stands for the folder.
  if (base.endsWith('_test.go') || parts.includes('testdata') || parts.includes('.cargo')) return true;
  // A symlink named like a test folder stands for it (a file named so is a test command's, see testCommandPaths).
  if (TEST_DIRS.has(base)) return true;
  if (buildDefinitionOf(testCommand, base)) return true;
  if (base === 'rust-toolchain' || base === 'rust-toolchain.toml') return true;
  // Cargo runs a package root's build.rs (beside its Cargo.toml); one under src/ is a module (`mod
  // build;`) of the crate's own code, and an honest fix may move code there. Another name for the
  // build script is Cargo.toml's `build = "..."`, and Cargo.toml is a build definition.
  if (base === 'build.rs' && !dirs.includes('src')) return true;
  if (/^(jest|vitest|karma|playwright)\.config\.[cm]?[jt]s$|^karma\.conf\.[cm]?js$|^\.mocharc(\.[\w]+)?$|^\.babelrc$|^babel\.config\.[cm]?js$/.test(base)) return true;
  if (base === '.rspec' || base.endsWith('_spec.rb') || (dirs.includes('spec') && base.endsWith('.rb'))) return true;
  return base === 'phpunit.xml' || base === 'phpunit.xml.dist' || base === '.phpunit.result.cache';
}

/**
 * The build definitions the test command's own tools read: `make test` runs the Makefile, `cargo
 * test` builds what Cargo.toml says (a `build = "..."` script of any name), `npm test` runs
 * package.json's script. The change may not rewrite them, as it may not rewrite sympy's bin/test;
 * grading is offline, so a new dependency they would name could not be fetched anyway.
 */
const BUILD_DEFINITIONS: ReadonlyArray<readonly [RegExp, RegExp]> = [
  [/(^|[\s;&|(])(make|gmake)(\s|$)/, /^(GNUmakefile|[Mm]akefile|.*\.mk)$/],
  [/(^|[\s;&|(/])(cmake|ctest)(\s|$)/, /^(CMakeLists\.txt|.*\.cmake)$/],
  [/(^|[\s;&|(])cargo(\s|$)/, /^Cargo\.(toml|lock)$/],
  [/(^|[\s;&|(])go(\s|$)/, /^go\.(mod|sum|work|work\.sum)$/],
  [/(^|[\s;&|(])(npm|npx|yarn|pnpm)(\s|$)/, /^package\.json$/],
  [/(^|[\s;&|(/])(mvn|mvnw)(\s|$)/, /^pom\.xml$/],
  [/(^|[\s;&|(/])(gradle|gradlew)(\s|$)/, /^(build|settings)\.gradle(\.kts)?$/],
  [/(^|[\s;&|(])(rake|bundle)(\s|$)/, /^(Rakefile|Gemfile)$/],
  [/(^|[\s;&|(/])(composer|phpunit)(\s|$)/, /^composer\.json$/],
];

function buildDefinitionOf(testCommand: string, base: string): boolean {
  return BUILD_DEFINITIONS.some(([tool, file]) => tool.test(testCommand) && file.test(base));
}

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
 * path, e.g. django/test/ or a SWE-smith bug in a package's testing helpers).
 */
export function filterAgentPatch(
  diff: Buffer,
  options: { protectedPaths?: readonly string[]; allowedPaths?: readonly string[]; testCommand?: string } = {},
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
    } else if (paths.some((p) => isRunnerControlPath(p, options.testCommand))) {
      dropped.push(`${file.path} (read or run by the test runner)`);
    } else {
      kept.push(chunk);
    }
  }
  return { patch: Buffer.from(kept.join(''), 'latin1'), dropped };
}
