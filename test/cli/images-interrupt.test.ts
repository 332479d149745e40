/**
 * Ctrl-C in `swe-env images build`, through the real CLI and a real signal: the running build's
 * container is removed and the command says what is ready; a build killed outright leaves a
 * container named after its dead process, which the next CLI run removes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { BUILD_NAME_PREFIX } from '../../src/sandbox/labels.js';
import { commitAll, git, newRepo, writeFiles } from '../helpers/git-repo.js';

const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const docker = new Docker();
const children: ChildProcess[] = [];
const scratch: string[] = [];
let repo: string;
let tasksFile: string;

beforeAll(async () => {
  repo = await newRepo();
  scratch.push(repo);
  await writeFiles(repo, { 'calc/__init__.py': 'def add(a, b):\n    return a - b\n' });
  const base = await commitAll(repo, 'base');
  await writeFiles(repo, {
    'calc/__init__.py': 'def add(a, b):\n    return a + b\n',
    'tests/test_add.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
  });
  const future = await commitAll(repo, 'fix');
  const patch = await git(repo, 'diff', base, future, '--', 'calc');
  const testPatch = await git(repo, 'diff', base, future, '--', 'tests');
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-img-int-'));
  scratch.push(dir);
  tasksFile = join(dir, 'tasks.jsonl');
  const record = (n: number) => ({
    repo: 'example/slowcalc',
    instance_id: `example__slowcalc-${n}`,
    base_commit: base,
    patch,
    test_patch: testPatch,
    problem_statement: 'slow to build',
    version: '1.0',
    FAIL_TO_PASS: '["tests/test_add.py::test_add"]',
    PASS_TO_PASS: '[]',
    image_name: `swe-env-test/slowcalc-${n}:latest`,
  });
  await writeFile(tasksFile, [1, 2].map((n) => JSON.stringify(record(n))).join('\n'));
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const c of children)
    for (const b of await builds(c.pid!))
      await docker
        .getContainer(b.Id)
        .remove({ force: true })
        .catch(() => undefined);
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
  // The snapshot folders of the builds killed outright (named after their process).
  const killed = new Set(children.map((c) => `swe-env-image-${c.pid}-`));
  const left = (await readdir(tmpdir())).filter((name) => [...killed].some((prefix) => name.startsWith(prefix)));
  await Promise.all(left.map((name) => rm(join(tmpdir(), name), { recursive: true, force: true })));
});

/** This pid's build containers (named after it). */
async function builds(pid: number): Promise<Docker.ContainerInfo[]> {
  const all = await docker.listContainers({ all: true, filters: { name: [BUILD_NAME_PREFIX] } });
  return all.filter((c) => c.Names.some((n) => n.includes(`${BUILD_NAME_PREFIX}${hostname()}_${pid}_`)));
}

function build(): { child: ChildProcess; done: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  // An install step that never ends: the build runs until it is stopped.
  const child = spawn(
    'node',
    [CLI, 'images', 'build', '--tasks', tasksFile, '--repo', repo, '--concurrency', '1', '--force', '--install', 'sleep 900'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, done: new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr }))) };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('images build and Ctrl-C', () => {
  it("Ctrl-C removes the running build's container, starts no other, and says what is ready", async () => {
    const { child, done } = build();
    await until('the build container to run', async () => (await builds(child.pid!)).some((c) => c.State === 'running'));
    child.kill('SIGINT');
    const result = await done;
    expect(result.code, result.stderr).toBe(130);
    expect(result.stdout).toMatch(/interrupted +[\d.]+s +swe-env-test\/slowcalc-1:latest/);
    expect(result.stdout).toMatch(/interrupted: 0 of 2 images ready; run the same command again/);
    expect(result.stdout).not.toMatch(/slowcalc-2/);
    await until('no build container of it left', async () => (await builds(child.pid!)).length === 0, 30_000);
  });

  it('a build killed outright leaves its container to the next CLI run, which removes it', async () => {
    const first = build();
    await until('the build container to run', async () => (await builds(first.child.pid!)).some((c) => c.State === 'running'));
    first.child.kill('SIGKILL');
    await first.done;
    expect((await builds(first.child.pid!)).length).toBe(1);
    const next = spawn('node', [CLI, 'images', 'build', '--tasks', tasksFile, '--repo', repo, '--instance', 'example__slowcalc-2'], {
      stdio: 'ignore',
    });
    children.push(next);
    expect(await new Promise((resolve) => next.once('exit', resolve))).toBe(0);
    expect(await builds(first.child.pid!)).toEqual([]);
    await docker
      .getImage('swe-env-test/slowcalc-2:latest')
      .remove({ force: true })
      .catch(() => undefined);
  });
});
