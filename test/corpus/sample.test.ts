/**
 * A sample of the real-task corpus (tasks/corpus/), built and graded on a fresh machine: each row's
 * repository comes from a depth-1 git bundle at its base commit committed under tasks/corpus/ci/
 * (no fetch), its image from `swe-env images build` on the base variant its repository asks for in
 * tasks/corpus/selection.json (Debian packages; no language registry), and the gold patch must score
 * 1 and the empty patch 0, neither with an integrity flag or an infrastructure error. The rows are ones
 * whose gold verdict held under CPU load (`scripts/corpus/run.mjs --load-runs`: a row whose own tests
 * race a timer, like fluent__fluentd-3328, fails now and then on a loaded machine whatever the grader
 * does, and is kept out). A fail-only row (marked's jasmine) also takes a change that fakes a
 * finished suite: 0 here, 1 under the harness's rule, and the other changes of jasmine-attacks.ts.
 * Every image and container it creates is removed, whatever the outcome.
 */
import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { Grader } from '../../src/reward/grader.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { loadTaskFiles } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { corpusGrader } from '../helpers/corpus-grader.js';
import { describeJasmineAttacks, summary } from './jasmine-attacks.js';

const run = promisify(execFile);
const ROOT = packageRoot();
const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const CI = join(ROOT, 'tasks', 'corpus', 'ci');

interface Sample {
  readonly instances: readonly string[];
}
interface Selection {
  readonly repos: Record<string, { packages?: string; networkInstall?: boolean }>;
  readonly defaultPackages?: string;
}

const docker = new Docker();
const provider = new DockerSandboxProvider(`corpus-sample-${process.pid}`, { ownedByThisProcess: true });
const created: string[] = [];
let dir = '';
let tasks: Task[] = [];
let grader: Grader;
const built = new Map<string, string>();

async function cli(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('node', [CLI, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`swe-env ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

async function imageExists(name: string): Promise<boolean> {
  return docker
    .getImage(name)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

beforeAll(async () => {
  const sample = JSON.parse(await readFile(join(CI, 'sample.json'), 'utf8')) as Sample;
  const selection = JSON.parse(await readFile(join(ROOT, 'tasks', 'corpus', 'selection.json'), 'utf8')) as Selection;
  dir = await mkdtemp(join(tmpdir(), 'swe-env-corpus-sample-'));
  // The sample's rows, under image names of this test's own.
  const rows = (await readFile(join(ROOT, 'tasks', 'corpus', 'tasks.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);
  const picked: Record<string, string>[] = sample.instances.map((id) => {
    const row = rows.find((r) => r.instance_id === id);
    if (!row) throw new Error(`${id}: not in tasks/corpus/tasks.jsonl`);
    return { ...row, image_name: `swe-env-test/corpus-${id.toLowerCase()}:latest` };
  });
  const tasksFile = join(dir, 'tasks.jsonl');
  await writeFile(tasksFile, picked.map((r) => JSON.stringify(r)).join('\n') + '\n');
  tasks = await loadTaskFiles([tasksFile], {}, (p) => {
    throw new Error(`${p.where} ${p.field}: ${p.message}`);
  });
  // One bare repository per owner+name, holding every sampled base commit from its bundle.
  const repos = join(dir, 'repos');
  for (const row of picked) {
    const bare = join(repos, (row.repo ?? '').replace('/', '+'));
    await run('git', ['init', '-q', '--bare', bare]).catch(() => undefined);
    // A depth-1 bundle: its objects unbundled as they are, its commit marked as a shallow boundary
    // (a fetch from it would look for the parents and refuse).
    const { stdout } = await run('git', ['-C', bare, 'bundle', 'unbundle', join(CI, 'bundles', `${row.instance_id ?? ''}.bundle`)]);
    const commit = stdout.trim().split(/\s+/)[0] ?? '';
    expect(commit).toBe(row.base_commit);
    await appendFile(join(bare, 'shallow'), `${commit}\n`);
    await run('git', ['-C', bare, 'update-ref', `refs/heads/${row.instance_id ?? ''}`, commit]);
  }
  for (const task of tasks) {
    const entry = selection.repos[task.repo] ?? {};
    const packages = entry.packages ?? selection.defaultPackages;
    let base = 'swe-env/base:latest';
    if (packages) {
      const out = await cli('images', 'base', '--packages', packages);
      base = /swe-env\/base:[\w.-]+-plus-[0-9a-f]+/.exec(out)?.[0] ?? '';
      expect(base, out).not.toBe('');
    }
    if (!created.includes(task.image)) created.push(task.image);
    const args = ['images', 'build', '--tasks', tasksFile, '--repo', repos, '--base', base, '--instance', task.id, '--concurrency', '1'];
    // A row's own install, or the harness's for its repository where the selection asks for the registry (marked: npm).
    if ((task.install && entry.networkInstall !== false) || entry.networkInstall === true) args.push('--network-install');
    built.set(task.id, await cli(...args));
  }
  grader = corpusGrader(provider);
}, 900_000);

afterAll(async () => {
  await provider.removeServerContainers().catch(() => undefined);
  for (const image of created)
    await docker
      .getImage(image)
      .remove({ force: true })
      .catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 180_000);

describe('the corpus sample: gold 1, empty 0, no integrity flag', () => {
  it('builds and grades every sampled row', async () => {
    expect(tasks.length).toBeGreaterThanOrEqual(4);
    for (const task of tasks) {
      expect(await imageExists(task.image), built.get(task.id)).toBe(true);
      const gold = await grader.grade(task, Buffer.from(task.goldPatch, 'utf8'));
      expect(gold.infraError, `${task.id} gold ${summary(gold)}`).toBe(false);
      expect(gold.integrityFlags, `${task.id} gold ${summary(gold)}`).toEqual([]);
      expect(gold.reward, `${task.id} gold ${summary(gold)}`).toBe(1);
      const empty = await grader.grade(task, Buffer.alloc(0));
      expect(empty.infraError, `${task.id} empty ${summary(empty)}`).toBe(false);
      expect(empty.integrityFlags, `${task.id} empty ${summary(empty)}`).toEqual([]);
      expect(empty.reward, `${task.id} empty ${summary(empty)}`).toBe(0);
    }
  }, 900_000);
});

// The fail-only row's attacks, on the image built above (one build of it per run).
describeJasmineAttacks(() => {
  const task = tasks.find((t) => t.id === 'markedjs__marked-2811');
  if (!task) throw new Error('markedjs__marked-2811 is not in tasks/corpus/ci/sample.json');
  return { task, grader };
});
