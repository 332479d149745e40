import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { exportHarbor } from '../../src/cli/export-command.js';
import { DEMO_TASKS } from '../../src/cli/options.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { HARBOR_ENVIRONMENT, harborDirName, harborTaskFiles } from '../../src/tasks/harbor-task.js';
import type { Task } from '../../src/tasks/task.js';

/** `swe-env export harbor`: Harbor task directories that hold no hidden test, graded by swe-env. */
const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('swe-env export harbor', () => {
  it('writes one directory per demo task, without the test patch or the hidden tests', async () => {
    const out = await mkdtemp(join(tmpdir(), 'swe-env-harbor-'));
    made.push(out);
    const { tasks } = await loadTaskFile(DEMO_TASKS);
    const written = await exportHarbor({ tasks: [DEMO_TASKS], out });
    expect(written.length).toBe(tasks.length);
    for (const task of tasks) {
      const dir = join(out, harborDirName(task.id));
      expect(await files(dir)).toEqual([
        'environment/Dockerfile',
        'environment/swe-env.json',
        'instruction.md',
        'solution/gold.patch',
        'solution/solve.sh',
        'task.toml',
        'tests/test.sh',
      ]);
      const all = await Promise.all((await files(dir)).map((f) => readFile(join(dir, f), 'utf8')));
      const text = all.join('\n');
      expect(text).not.toContain(task.testPatch);
      for (const test of [...task.failToPass, ...task.passToPass]) expect(text).not.toContain(test);
      expect(await readFile(join(dir, 'solution', 'gold.patch'), 'utf8')).toBe(task.goldPatch);
      expect((await stat(join(dir, 'tests', 'test.sh'))).mode & 0o111).not.toBe(0);
      const toml = parse(await readFile(join(dir, 'task.toml'), 'utf8')) as {
        metadata: { swe_env_task_id: string };
        environment: { workdir: string };
      };
      expect(toml.metadata.swe_env_task_id).toBe(task.id);
      expect(toml.environment.workdir).toBe(task.workdir);
    }
  });

  it('quotes what TOML and directory names cannot hold as is', () => {
    const demo = {
      id: 'org/repo"x\\y#1',
      repo: 'org/"repo"',
      baseCommit: 'abc',
      workdir: '/test bed',
      image: 'img:1',
      problemStatement: 'p',
      goldPatch: '',
      failToPass: [],
      passToPass: [],
    };
    const task = demo as unknown as Task;
    const toml = parse(harborTaskFiles(task).get('task.toml') ?? '') as {
      metadata: Record<string, string>;
      environment: { workdir: string };
    };
    expect(toml.metadata.swe_env_task_id).toBe(demo.id);
    expect(toml.metadata.repo).toBe(demo.repo);
    expect(toml.metadata.graded_by).toContain(HARBOR_ENVIRONMENT);
    expect(toml.environment.workdir).toBe('/test bed');
    expect(harborDirName(demo.id)).toBe('org_repo_x_y_1');
    expect(harborTaskFiles(task).get('solution/solve.sh')).toContain('cd "/test bed"');
  });
});
