/**
 * `swe-env images build --network-install` through the real CLI and engine, against a package
 * index served by this test on 127.0.0.1 (PEP 503 simple pages and one wheel; no internet): the
 * task's `pip install -e .` needs a dependency only the index has. Offline (the default) the install
 * fails; with the flag the build container has the host's network, pip is pointed at the index by
 * the PIP_INDEX_URL the CLI passes on, and the image, which runs with no network, has both.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { commitAll, git, newRepo, writeFiles } from '../helpers/git-repo.js';
import { makeWheel } from '../helpers/wheel.js';

const run = promisify(execFile);
const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const IMAGE = 'swe-env-test/network-install.needsdep:latest';
const HARNESS_IMAGE = 'swe-env-test/network-install.harness:latest';
const scratch: string[] = [];
let server: Server;
let indexUrl: string;
let tasksFile: string;
let repo: string;
let harnessTasksFile: string;
const requested: string[] = [];

async function cli(env: Record<string, string>, ...args: string[]): Promise<{ out: string; code: number }> {
  try {
    const { stdout, stderr } = await run('node', [CLI, ...args], { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...env } });
    return { out: stdout + stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { out: e.stdout + e.stderr, code: e.code };
  }
}

/** A PEP 503 simple index holding one project with one wheel. */
async function serveIndex(wheel: string): Promise<Server> {
  const name = basename(wheel);
  const content = await readFile(wheel);
  const pages: Record<string, string> = {
    '/simple/': '<html><body><a href="tinydep/">tinydep</a></body></html>',
    '/simple/tinydep/': `<html><body><a href="/files/${name}">${name}</a></body></html>`,
  };
  const index = createServer((request, response) => {
    const url = request.url ?? '/';
    requested.push(url);
    if (url === `/files/${name}`) return void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(content);
    const page = pages[url];
    if (page) return void response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => index.listen(0, '127.0.0.1', resolve));
  return index;
}

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-netinstall-'));
  scratch.push(dir);
  await mkdir(join(dir, 'wheels'));
  server = await serveIndex(await makeWheel(join(dir, 'wheels'), 'tinydep', '1.0', 'VALUE = "from the index"\n'));
  indexUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple/`;

  repo = await newRepo();
  scratch.push(repo);
  await writeFiles(repo, {
    'pyproject.toml': '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n',
    'setup.py':
      'from setuptools import setup\n\nsetup(name="needsdep", version="0.1", packages=["needsdep"], install_requires=["tinydep"])\n',
    'needsdep/__init__.py': 'import tinydep\n\n\ndef value():\n    return tinydep.VALUE.upper\n',
  });
  const base = await commitAll(repo, 'base');
  await writeFiles(repo, {
    'needsdep/__init__.py': 'import tinydep\n\n\ndef value():\n    return tinydep.VALUE.upper()\n',
    'tests/test_value.py': 'from needsdep import value\n\n\ndef test_value():\n    assert value() == "FROM THE INDEX"\n',
  });
  const fix = await commitAll(repo, 'fix');
  tasksFile = join(dir, 'tasks.jsonl');
  const record = {
    repo: 'example/needsdep',
    instance_id: 'example__needsdep-1',
    base_commit: base,
    patch: await git(repo, 'diff', base, fix, '--', 'needsdep'),
    test_patch: await git(repo, 'diff', base, fix, '--', 'tests'),
    problem_statement: 'value() returns a method',
    version: '0.1',
    FAIL_TO_PASS: ['tests/test_value.py::test_value'],
    PASS_TO_PASS: [],
    image_name: IMAGE,
    // No build isolation: the base has setuptools, the index only tinydep. No retries: offline fails at once.
    install: 'python -m pip install --no-build-isolation --retries 0 --timeout 15 -e .',
  };
  await writeFile(tasksFile, JSON.stringify(record));
  // A record named like a repository of the harness's table (sqlfluff 1.0: `python -m pip install
  // -e .`), with no install step of its own; setup.py only, so the editable install needs no build
  // backend from the index.
  await git(repo, 'rm', '-q', 'pyproject.toml');
  const harnessBase = await commitAll(repo, 'no pyproject');
  harnessTasksFile = join(dir, 'harness.jsonl');
  const noInstall: Partial<typeof record> = { ...record };
  delete noInstall.install;
  await writeFile(
    harnessTasksFile,
    JSON.stringify({
      ...noInstall,
      repo: 'sqlfluff/sqlfluff',
      version: '1.0',
      instance_id: 'sqlfluff__sqlfluff-1',
      base_commit: harnessBase,
      image_name: HARNESS_IMAGE,
    }),
  );
});

afterAll(async () => {
  server.close();
  await run('docker', ['rmi', '-f', IMAGE, HARNESS_IMAGE]).catch(() => undefined);
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
});

describe('images build --network-install', () => {
  it('offline (the default), an install that needs a download fails', async () => {
    const built = await cli({ PIP_INDEX_URL: indexUrl }, 'images', 'build', '--tasks', tasksFile, '--repo', repo, '--force');
    expect(built.code).not.toBe(0);
    expect(built.out).toMatch(/failed +[\d.]+s +swe-env-test\/network-install\.needsdep:latest/);
    expect(built.out).toContain('tinydep');
    expect(requested).toEqual([]);
  }, 300_000);

  it('with --network-install, the install downloads from the index; the image runs with no network and has both packages', async () => {
    const built = await cli(
      { PIP_INDEX_URL: indexUrl },
      'images',
      'build',
      '--tasks',
      tasksFile,
      '--repo',
      repo,
      '--force',
      '--network-install',
    );
    expect(built.code, built.out).toBe(0);
    expect(built.out).toMatch(/built +[\d.]+s +swe-env-test\/network-install\.needsdep:latest/);
    expect(requested).toContain('/simple/tinydep/');
    const { stdout } = await run('docker', [
      'run',
      '--rm',
      '--network',
      'none',
      IMAGE,
      'python',
      '-c',
      'import needsdep, tinydep; print(tinydep.VALUE)',
    ]);
    expect(stdout.trim()).toBe('from the index');
    const { stdout: labels } = await run('docker', ['image', 'inspect', '--format', '{{json .Config.Labels}}', IMAGE]);
    expect(JSON.parse(labels)).toMatchObject({ 'swe-env.network-install': 'true' });
    // The index's address was the build's only: it is not in the image's environment.
    const { stdout: env } = await run('docker', ['image', 'inspect', '--format', '{{json .Config.Env}}', IMAGE]);
    expect(env).not.toContain('PIP_INDEX_URL');
  }, 300_000);
});

describe('images build --network-install, a record with no install step', () => {
  it('gets the harness’s set-up for its repository and version, and says so', async () => {
    const built = await cli(
      { PIP_INDEX_URL: indexUrl },
      'images',
      'build',
      '--tasks',
      harnessTasksFile,
      '--repo',
      repo,
      '--force',
      '--network-install',
    );
    expect(built.code, built.out).toBe(0);
    expect(built.out).toContain("install: the SWE-bench harness's set-up for this repository and version (the record has none)");
    // The harness runs sqlfluff 1.0 on Python 3.9; the default base is Debian bookworm's 3.11.
    expect(built.out).toContain(
      'python: the harness runs this row on Python 3.9, the base has 3.11: a base with 3.9 is `images base --suite bullseye`',
    );
    const { stdout } = await run('docker', [
      'run',
      '--rm',
      '--network',
      'none',
      HARNESS_IMAGE,
      'python',
      '-c',
      'import needsdep, tinydep; print(tinydep.VALUE)',
    ]);
    expect(stdout.trim()).toBe('from the index');
  }, 300_000);

  it('offline, builds as the record asks: no install, nothing downloaded', async () => {
    requested.length = 0;
    const built = await cli({ PIP_INDEX_URL: indexUrl }, 'images', 'build', '--tasks', harnessTasksFile, '--repo', repo, '--force');
    expect(built.code, built.out).toBe(0);
    expect(built.out).not.toContain('install: the SWE-bench harness');
    expect(requested).toEqual([]);
    const probe = await run('docker', ['run', '--rm', '--network', 'none', HARNESS_IMAGE, 'python', '-c', 'import tinydep']).then(
      () => 'imported',
      () => 'missing',
    );
    expect(probe).toBe('missing');
  }, 300_000);
});
