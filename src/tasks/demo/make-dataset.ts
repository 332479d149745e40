import { writeFile } from 'node:fs/promises';
import type { Logger } from '../../common/logger.js';
import type { Grader } from '../../reward/grader.js';
import type { TestStatus } from '../../languages/index.js';
import type { DockerSandboxProvider } from '../../sandbox/docker-sandbox.js';
import type { Task } from '../task.js';
import { buildDemoImages, demoTask } from './demo-images.js';
import { DEMO_VERSION, readDemoSources } from './demo-sources.js';

/**
 * Regenerates tasks/demo/tasks.jsonl from the sources: patches from git, FAIL_TO_PASS and
 * PASS_TO_PASS from running the tests in the task image before and after the gold patch, exactly as
 * SWE-bench derives them. A developer tool: its output is committed.
 */
export async function makeDemoDataset(input: {
  demoDir: string;
  outFile: string;
  baseImage: string;
  provider: DockerSandboxProvider;
  grader: Grader;
  logger: Logger;
}): Promise<number> {
  const repos = await readDemoSources(input.demoDir);
  await buildDemoImages(input.provider, repos, input.baseImage, input.logger);
  const lines: string[] = [];
  for (const repo of repos) {
    for (const source of repo.tasks) {
      const task: Task = demoTask(repo, source, 'demo');
      const id = task.id;
      const before = await input.grader.runTests(task, Buffer.alloc(0));
      const after = await input.grader.runTests(task, Buffer.from(source.goldPatch));
      for (const run of [before, after]) {
        if (run.report.infraError) throw new Error(`${id}: ${run.report.error}`);
      }
      const failing = [...after.statuses].filter(([, s]) => s !== 'PASSED');
      if (failing.length > 0) throw new Error(`${id}: tests still fail after the gold patch: ${failing.map(([n]) => n).join(', ')}`);
      const passedBefore = (name: string): boolean => before.statuses.get(name) === ('PASSED' satisfies TestStatus);
      const names = [...after.statuses.keys()].sort();
      const failToPass = names.filter((n) => !passedBefore(n));
      const passToPass = names.filter((n) => passedBefore(n));
      if (failToPass.length === 0) throw new Error(`${id}: no test fails before the gold patch`);
      input.logger.info({ id, failToPass: failToPass.length, passToPass: passToPass.length }, 'demo task');
      lines.push(
        JSON.stringify({
          repo: task.repo,
          instance_id: id,
          base_commit: repo.baseCommit,
          patch: source.goldPatch,
          test_patch: source.testPatch,
          problem_statement: source.problemStatement,
          hints_text: source.hintsText,
          created_at: source.createdAt,
          version: DEMO_VERSION,
          // As in the Hugging Face exports: JSON-encoded strings.
          FAIL_TO_PASS: JSON.stringify(failToPass),
          PASS_TO_PASS: JSON.stringify(passToPass),
          environment_setup_commit: repo.baseCommit,
        }),
      );
    }
  }
  await writeFile(input.outFile, `${lines.join('\n')}\n`);
  return lines.length;
}
