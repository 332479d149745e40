import type { Task } from '../../tasks/task.js';
import { readEvalScript } from './eval-script.js';
import { SWE_BENCH_PARSERS, SWE_BENCH_SPECS, type VersionFacts } from './swe-bench-specs.js';
import { SWE_GYM_PARSERS, SWE_GYM_SPECS } from './swe-gym-specs.js';
import { smithLanguagePlan } from './swe-smith-language-plan.js';
import { SWE_SMITH_LANGUAGE_PROFILES, SWE_SMITH_DEFAULT_TEST_CMD, SWE_SMITH_PROFILES } from '../../languages/index.js';

export type { EvalPlan, PlanSource } from './plan-type.js';
import type { EvalPlan, PlanSource } from './plan-type.js';

/** SWE-bench's TEST_PYTEST as finally defined (the first definition in constants/python.py is overwritten). */
export const PYTEST_RA = 'pytest -rA';

/** swebench's NON_TEST_EXTS, "csv" without its dot as the harness has it. */
const NON_TEST_EXTS = ['.json', '.png', 'csv', '.txt', '.md', '.jpg', '.jpeg', '.pkl', '.yml', '.yaml', '.toml'];

/** get_test_directives: every `diff --git a/... b/<path>` of the test patch, less data files. */
export function harnessDirectives(testPatch: string, repo: string): string[] {
  const paths = [...testPatch.matchAll(/diff --git a\/.* b\/(.*)/g)].map((m) => m[1]!);
  const tests = paths.filter((path) => !NON_TEST_EXTS.some((ext) => path.endsWith(ext)));
  return repo === 'django/django' ? tests.map(djangoModule) : tests;
}

/** SWE-bench's Django directive: tests/a/b.py -> a.b */
export function djangoModule(path: string): string {
  let d = path.endsWith('.py') ? path.slice(0, -3) : path;
  if (d.startsWith('tests/')) d = d.slice('tests/'.length);
  return d.replaceAll('/', '.');
}

/** get_modified_files (unidiff): the `a/` source of every file the test patch does not create. */
export function harnessModifiedFiles(testPatch: string): string[] {
  const files: string[] = [];
  for (const chunk of testPatch.split(/^(?=diff --git )/m)) {
    const source = /^--- (\S.*?)(?:\t.*)?$/m.exec(chunk)?.[1];
    const header = /^diff --git a\/(.*) b\/.*$/m.exec(chunk)?.[1];
    const path =
      source !== undefined
        ? source
        : header !== undefined && /^Binary files |^rename from |^deleted file /m.test(chunk)
          ? `a/${header}`
          : undefined;
    if (path === undefined || path === '/dev/null' || !path.startsWith('a/')) continue;
    files.push(path.slice(2));
  }
  return files;
}

function findFacts(
  table: Readonly<Record<string, readonly VersionFacts[]>>,
  repo: string,
  version: string,
): { facts: VersionFacts | undefined; known: boolean } {
  const entries = lookup(table, repo);
  return { facts: entries?.find((f) => f.versions.includes(version)), known: entries !== undefined };
}

/** SWE-smith's "swesmith/owner__name.sha" is owner/name's code. */
function upstreamRepo(repo: string): string {
  const smith = /^swesmith\/([^_]+)__(.+)\.[0-9a-f]+$/i.exec(repo);
  return smith ? `${smith[1]}/${smith[2]}` : repo;
}

/** Only a row's own eval_script has steps around its test patch (the harness's tables put none there for Python). */
const NO_EXTRA_STEPS = { beforeTestPatch: [], afterTestPatch: [] } as const;

const plans = new WeakMap<Task, EvalPlan>();

/** The task's plan, computed once (the loader asks for it, so every task has one from the start). */
export function evalPlan(task: Task): EvalPlan {
  let plan = plans.get(task);
  if (!plan) {
    plan = Object.freeze(makePlan(task));
    plans.set(task, plan);
  }
  return plan;
}

function makePlan(task: Task): EvalPlan {
  const notes: string[] = [];
  const smith = /^swesmith\/(.+)$/i.exec(task.repo);
  if (smith && !task.evalScript) return smithPlan(task, smith[1]!);
  const repo = upstreamRepo(task.repo);
  const parser = task.logParser ?? lookup(SWE_BENCH_PARSERS, repo) ?? lookup(SWE_GYM_PARSERS, repo) ?? 'parse_log_pytest';
  if (task.evalScript) {
    const parts = readEvalScript(task.evalScript, task.baseCommit);
    if (!('error' in parts)) return { source: 'record-eval-script', ...parts, harnessParser: parser, notes: [...parts.notes] };
    notes.push(`${parts.error}: graded with the (repository, version) facts instead`);
  }
  const resetFiles = harnessModifiedFiles(task.testPatch);
  const bench = findFacts(SWE_BENCH_SPECS, repo, task.version);
  const gym = bench.known ? undefined : findFacts(SWE_GYM_SPECS, repo, task.version);
  const facts = bench.facts ?? gym?.facts;
  const source: PlanSource = bench.facts ? 'swe-bench' : gym?.facts ? 'swe-gym' : 'default';
  if (!facts && (bench.known || gym?.known))
    notes.push(
      `${repo} has no version ${JSON.stringify(task.version)} in the harness's table: its test command is pytest -rA and no install is re-run`,
    );
  const evalCommands = facts?.evalCommands ?? [];
  const install = task.install ?? facts?.install ?? '';
  if (task.testCmd) {
    return {
      source: 'record-test-cmd',
      evalCommands,
      install,
      ...NO_EXTRA_STEPS,
      testCommand: task.testCmd,
      resetFiles: gymResetFiles(source, task.testPatch) ?? resetFiles,
      harnessParser: parser,
      notes,
    };
  }
  const testCmd = facts?.testCmd ?? PYTEST_RA;
  if (facts && facts.testCmd === null) notes.push(`the harness has no test command for ${repo} ${task.version}: pytest -rA is used`);
  return {
    source,
    evalCommands,
    install,
    ...NO_EXTRA_STEPS,
    testCommand: testCommandFor(source, repo, testCmd, task),
    resetFiles: gymResetFiles(source, task.testPatch) ?? resetFiles,
    harnessParser: parser,
    notes,
  };
}

/** Repository names match case-insensitively: SWE-Gym lower-cases them. */
function lookup<T>(table: Readonly<Record<string, T>>, repo: string): T | undefined {
  const key = Object.keys(table).find((name) => name.toLowerCase() === repo.toLowerCase());
  return key === undefined ? undefined : table[key];
}

/** The fork takes every `--- a/<path>` it finds in the test patch (a regex, not a diff parser). */
function gymResetFiles(source: PlanSource, testPatch: string): string[] | undefined {
  if (source !== 'swe-gym') return undefined;
  return [...testPatch.matchAll(/--- a\/(.*)/g)].map((m) => m[1]!);
}

function testCommandFor(source: PlanSource, repo: string, testCmd: string, task: Task): string {
  if (source === 'swe-gym' && repo.toLowerCase() === 'python/mypy') {
    // The fork runs mypy's data-driven cases by the names the test patch declares.
    const cases = [...task.testPatch.matchAll(/\[case ([^\]]+)\]/g)].map((m) => m[1]!);
    return `${testCmd} "${cases.join(' or ')}"`;
  }
  const directives = task.testPatch.trim() !== '' ? harnessDirectives(task.testPatch, repo) : smithDirectives(task);
  return [testCmd, ...directives].join(' ');
}

/**
 * A SWE-smith task as its harness grades it: the profile's test command (the whole suite unless the
 * profile is `min_testing`, then the listed tests' files), its parser, no install re-run (its
 * images are graded as built), swebench 4.1's rules.
 */
function smithPlan(task: Task, repoName: string): EvalPlan {
  const notes: string[] = [];
  const profile = lookup(SWE_SMITH_PROFILES, repoName);
  // Not a Python profile: one of the package's other languages, when it has one.
  const languageProfile = profile ? undefined : lookup(SWE_SMITH_LANGUAGE_PROFILES, repoName);
  if (languageProfile) return smithLanguagePlan(task, languageProfile);
  if (!profile) notes.push(`swesmith has no profile ${repoName}: its PythonProfile defaults are used`);
  let testCommand = task.testCmd ?? profile?.testCmd ?? SWE_SMITH_DEFAULT_TEST_CMD;
  if (!task.testCmd && profile?.caseKeys) {
    const keys = [...task.testPatch.matchAll(/\[case ([^\]]+)\]/g)].map((m) => m[1]!);
    if (keys.length > 1) testCommand = `${testCommand} "${keys.join(' or ')}"`;
  } else if (!task.testCmd && profile?.minTesting) {
    const files = (names: readonly string[]) => [...new Set(names.map((n) => n.split('::')[0]!))].sort();
    const all = [...files(task.failToPass), ...files(task.passToPass)];
    if (all.length > 0) testCommand = `${testCommand} ${all.join(' ')}`;
  }
  return {
    source: task.testCmd ? 'record-test-cmd' : 'swe-smith',
    evalCommands: [],
    install: task.install ?? '',
    ...NO_EXTRA_STEPS,
    testCommand,
    resetFiles: harnessModifiedFiles(task.testPatch),
    harnessParser: task.logParser ?? profile?.parser ?? 'swesmith_pytest',
    notes,
    harnessGeneration: '4.1',
  };
}

/** SWE-smith has no test patch: the files its listed tests live in. */
function smithDirectives(task: Task): string[] {
  const files = [...task.failToPass, ...task.passToPass].map((name) => name.split('::')[0]!).filter((f) => f.endsWith('.py'));
  return [...new Set(files)];
}

/**
 * The steps whose effect is on the shell's environment (exports, activation, `cd`): the harness runs
 * its whole script in one shell, while the grader's test run is a separate process, so these are run
 * again right before its test command. Steps with effects on disk (locale-gen, sed, pip, make) run
 * once, where the harness runs them.
 */
export function environmentLines(commands: readonly string[]): string[] {
  return commands.filter(
    (line) => /^\s*(export|unset|source|\.|conda\s+activate|ulimit|cd)\s/.test(line) || /^\s*[A-Za-z_][A-Za-z0-9_]*=\S*\s*$/.test(line),
  );
}
