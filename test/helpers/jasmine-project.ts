import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { onTestFinished } from 'vitest';
import { JASMINE_REPORTER } from '../../src/languages/javascript/jasmine-reporter.js';
import { harnessParse, type ReporterCanary, type TestStatus } from '../../src/languages/index.js';
import { planReporterCanaries, reportedResults } from '../../src/reward/grading/result-reporter.js';
import { REPORTER_CANARY_FILE, checkCanaries, type Canary } from '../../src/reward/grading/canaries.js';

/**
 * swe-env's jasmine reporter run by jasmine-npm from npm on a scratch project, attached the way a
 * fail-only grading attaches it, and the run read the way the grader reads it (reporter lines, the
 * runner's own failures overruling, the reporter's canaries checked).
 */
const run = promisify(execFile);
/** jasmine-npm as marked's rows lock it: 3.1 (no --require), 3.x and 4.x. */
export const VERSIONS = ['jasmine31', 'jasmine3', 'jasmine4'] as const;
export type Version = (typeof VERSIONS)[number];
export const TOKEN = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
export const COMMAND = './node_modules/.bin/jasmine --no-color --config=jasmine.json';

export interface Project {
  readonly dir: string;
  readonly module: string;
  readonly canaries: readonly ReporterCanary[];
}

/** `files`: paths under the project (spec files end in `-spec.js`, under spec/). */
export async function project(
  files: Record<string, string>,
  listed: readonly string[],
  config: Record<string, unknown> = {},
): Promise<Project> {
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-jasmine-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'jasmine.json'), JSON.stringify({ spec_dir: 'spec', spec_files: ['**/*-spec.js'], random: true, ...config }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const grading = join(dir, 'grading');
  await mkdir(grading);
  const canaries = planReporterCanaries(listed);
  const planFile = join(grading, 'plan');
  await writeFile(planFile, JASMINE_REPORTER.planText(TOKEN, canaries));
  const module = join(grading, JASMINE_REPORTER.moduleFile);
  await writeFile(module, JASMINE_REPORTER.moduleText(planFile));
  return { dir, module, canaries };
}

export async function jasmine(version: Version, { dir, module }: Project, command = COMMAND): Promise<string> {
  const bin = join(process.cwd(), 'node_modules', version, 'bin', 'jasmine.js');
  const args = JASMINE_REPORTER.attach(command, module).split(' ').slice(1);
  // Both streams into one pipe, as a grading's run-tests.sh has them (node's own stdio would be a socket).
  const piped = ['-c', '"$0" "$@" 2>&1 | cat', process.execPath, bin, ...args];
  const result = await run('sh', piped, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout: string }) => error);
  return result.stdout;
}

export interface Graded {
  /** 1 when every listed spec passed and no canary flagged. */
  readonly reward: 0 | 1;
  readonly listed: Record<string, TestStatus | 'MISSING'>;
  readonly flags: readonly string[];
}

/** The run read as the grader reads a fail-only row's log. */
export function grade(log: string, project: Project, listed: readonly string[]): Graded {
  const own = harnessParse('parse_log_marked', log, '5', { instanceId: 'markedjs__marked-1', version: '1' });
  const results = reportedResults({ reporter: JASMINE_REPORTER, token: TOKEN }, log, own);
  const canaries: Canary[] = project.canaries.map((c, i) => ({
    file: REPORTER_CANARY_FILE,
    name: `#canary:${i}`,
    expect: c.values.reduce((a, b) => a + b, 0) === c.expected ? 'PASSED' : 'FAILED',
  }));
  const { flags, results: rest } = checkCanaries(canaries, results, 'pytest', 'printed log');
  const statuses = Object.fromEntries(listed.map((name) => [name, rest.get(name) ?? 'MISSING'] as const));
  const reward = flags.length === 0 && Object.values(statuses).every((s) => s === 'PASSED') ? 1 : 0;
  return { reward, listed: statuses, flags: flags.map((f) => f.line) };
}
