import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../common/logger.js';
import type { Grader } from '../../reward/grader.js';
import type { DockerSandboxProvider } from '../../sandbox/docker-sandbox.js';
import { diffFiles } from '../../reward/diff-files.js';
import { buildBaseVariant } from '../base-variant.js';
import { familyPackages, isLanguageFamily, type LanguageFamily } from '../language-families.js';
import type { Task } from '../task.js';
import { buildDemoImages, demoTask } from './demo-images.js';
import { readDemoSources, type DemoRepoSource, type DemoTaskSource } from './demo-sources.js';

/**
 * The demo tasks beyond Python (tasks/demo-languages/): the same layout as tasks/demo/ (repos/,
 * tasks/<repo>-<n>/ with task.json, fix/, tests/) plus languages.json, which gives each repository
 * its toolchain family (the base variant its image is built on), the harness parser of its runner
 * and its test command. Its rows are SWE-bench 5.x shaped: the row's own eval_script (the harness's
 * shape for languages beyond Python) and log_parser, so they are graded as a Multilingual row is.
 */

export interface LanguageRepo {
  readonly family: LanguageFamily;
  readonly logParser: string;
  readonly testCommand: string;
}

export interface LanguageDemo {
  readonly repos: readonly DemoRepoSource[];
  readonly languages: ReadonlyMap<string, LanguageRepo>;
}

export async function readLanguageDemo(dir: string): Promise<LanguageDemo> {
  const raw = JSON.parse(await readFile(join(dir, 'languages.json'), 'utf8')) as Record<
    string,
    { family?: string; log_parser?: string; test_command?: string | string[] }
  >;
  const languages = new Map<string, LanguageRepo>();
  for (const [repo, entry] of Object.entries(raw)) {
    const testCommand = testCommandLines(entry.test_command);
    if (!entry.family || !isLanguageFamily(entry.family) || !entry.log_parser || testCommand === undefined) {
      throw new Error(`${dir}/languages.json: ${repo} needs a known family, a log_parser and a test_command`);
    }
    languages.set(repo, { family: entry.family, logParser: entry.log_parser, testCommand });
  }
  const repos = await readDemoSources(dir);
  const unlisted = repos.filter((r) => !languages.has(r.name)).map((r) => r.name);
  if (unlisted.length > 0) throw new Error(`${dir}/languages.json does not list ${unlisted.join(', ')}`);
  return { repos, languages };
}

/**
 * A test command as languages.json gives it: one string, or a list of commands run one after the
 * other (the harness's `test_cmd` list, as its Maven rows run one `mvn test -Dtest=...` per test),
 * written one per line as the harness writes them.
 */
function testCommandLines(command: string | string[] | undefined): string | undefined {
  if (typeof command === 'string') return command || undefined;
  if (Array.isArray(command) && command.length > 0 && command.every((c) => typeof c === 'string' && c !== '')) return command.join('\n');
  return undefined;
}

/** The eval.sh the harness writes for a row beyond Python (make_eval_script_list_common's shape, byte for byte). */
export function languageEvalScript(baseCommit: string, testPatch: string, testCommand: string): string {
  const testFiles = diffFiles(testPatch).map((f) => f.path);
  const reset = testFiles.length > 0 ? `git checkout ${baseCommit} ${testFiles.join(' ')}` : 'echo "No test files to reset"';
  const lines = [
    '#!/bin/bash',
    'set -uxo pipefail',
    'cd /testbed',
    'git config --global --add safe.directory /testbed',
    'cd /testbed',
    reset,
    `git apply --verbose --reject - <<'EOF_114329324912'\n${testPatch}\nEOF_114329324912`,
    ": '>>>>> Start Test Output'",
    testCommand,
    ": '>>>>> End Test Output'",
    reset,
  ];
  return `${lines.join('\n')}\n`;
}

/** Each family's base variant (one layer of Debian packages on the base image), built once. */
async function familyBases(
  provider: DockerSandboxProvider,
  baseImage: string,
  families: readonly LanguageFamily[],
): Promise<Map<LanguageFamily, string>> {
  const bases = new Map<LanguageFamily, string>();
  for (const family of [...new Set(families)].sort()) {
    bases.set(family, (await buildBaseVariant({ provider, baseImage, packages: familyPackages([family]) })).image);
  }
  return bases;
}

/** Builds the language demo's images (their family bases first); up-to-date ones are kept. */
export async function buildLanguageDemoImages(
  provider: DockerSandboxProvider,
  demo: LanguageDemo,
  baseImage: string,
  logger: Logger,
): Promise<string[]> {
  const bases = await familyBases(
    provider,
    baseImage,
    [...demo.languages.values()].map((l) => l.family),
  );
  const built: string[] = [];
  for (const repo of demo.repos) {
    const base = bases.get(demo.languages.get(repo.name)!.family)!;
    built.push(...(await buildDemoImages(provider, [repo], base, logger)));
  }
  return built;
}

/** A language demo task as the loader would make it from its row (lists empty until derived). */
export function languageDemoTask(repo: DemoRepoSource, source: DemoTaskSource, language: LanguageRepo): Task {
  return {
    ...demoTask(repo, source, 'demo-languages'),
    evalScript: languageEvalScript(repo.baseCommit, source.testPatch, language.testCommand),
    logParser: language.logParser,
  };
}

/**
 * Regenerates tasks/demo-languages/tasks.jsonl: FAIL_TO_PASS and PASS_TO_PASS from running each
 * task's tests before and after its gold patch through the grading path, named as the row's parser
 * names them. A developer tool: its output is committed.
 */
export async function makeLanguageDemoDataset(input: {
  dir: string;
  baseImage: string;
  provider: DockerSandboxProvider;
  grader: Grader;
  logger: Logger;
}): Promise<number> {
  const demo = await readLanguageDemo(input.dir);
  await buildLanguageDemoImages(input.provider, demo, input.baseImage, input.logger);
  const lines: string[] = [];
  for (const repo of demo.repos) {
    for (const source of repo.tasks) {
      const task = languageDemoTask(repo, source, demo.languages.get(repo.name)!);
      const before = await input.grader.runTests(task, Buffer.alloc(0));
      const after = await input.grader.runTests(task, Buffer.from(source.goldPatch));
      for (const run of [before, after]) {
        if (run.report.infraError) throw new Error(`${task.id}: ${run.report.error}`);
        if (run.report.integrityFlags.length > 0) throw new Error(`${task.id}: ${run.report.integrityFlags.join('; ')}`);
      }
      const failing = [...after.statuses].filter(([, s]) => s !== 'PASSED');
      if (failing.length > 0) throw new Error(`${task.id}: tests still fail after the gold patch: ${failing.map(([n]) => n).join(', ')}`);
      const names = [...after.statuses.keys()].sort();
      const failToPass = names.filter((n) => before.statuses.get(n) !== 'PASSED');
      const passToPass = names.filter((n) => before.statuses.get(n) === 'PASSED');
      if (failToPass.length === 0) throw new Error(`${task.id}: no test fails before the gold patch`);
      lines.push(
        JSON.stringify({
          repo: task.repo,
          instance_id: task.id,
          base_commit: task.baseCommit,
          patch: task.goldPatch,
          test_patch: task.testPatch,
          problem_statement: task.problemStatement,
          hints_text: task.hintsText,
          created_at: task.createdAt,
          version: task.version,
          FAIL_TO_PASS: JSON.stringify(failToPass),
          PASS_TO_PASS: JSON.stringify(passToPass),
          environment_setup_commit: task.environmentSetupCommit,
          eval_script: task.evalScript,
          log_parser: task.logParser,
        }),
      );
    }
  }
  await writeFile(join(input.dir, 'tasks.jsonl'), `${lines.join('\n')}\n`);
  return lines.length;
}
