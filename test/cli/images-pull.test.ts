/**
 * `swe-env images pull` through the real CLI, a real registry with credentials and the real engine:
 * pulls what is missing, skips what is present (so a second run resumes), names a failure, and on
 * Ctrl-C stops its pulls and says how to go on.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { startRegistry, stopAllRegistries, type LocalRegistry } from '../helpers/local-registry.js';
import { buildTinyImage, imagePresent, removeImages } from '../helpers/registry-images.js';
import { startThrottlingProxy, type ThrottlingProxy } from '../helpers/throttling-proxy.js';

const run = promisify(execFile);
const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const docker = new Docker();
const auth = { user: 'node-init', password: 'pull me' };
const made = new Set<string>();
let dir: string;
let registry: LocalRegistry;
let proxy: ThrottlingProxy | undefined;
let images: string[];

/** Demo task records with their images replaced by registry references. */
async function taskFile(name: string, refs: readonly string[]): Promise<string> {
  const demo = (await readFile(join(packageRoot(), 'tasks', 'demo', 'tasks.jsonl'), 'utf8')).trim().split('\n');
  const lines = refs.map((ref, i) =>
    JSON.stringify({ ...(JSON.parse(demo[i % demo.length]!) as object), instance_id: `pull-test-${name}-${i}`, image_name: ref }),
  );
  const file = join(dir, `${name}.jsonl`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

async function configFile(user: string, password: string, host: string): Promise<string> {
  const file = join(dir, `config-${user}-${host.replace(/[^0-9]/g, '')}.json`);
  await writeFile(file, JSON.stringify({ auths: { [host]: { auth: Buffer.from(`${user}:${password}`).toString('base64') } } }));
  return file;
}

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return run('node', [CLI, ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'swe-env-images-pull-'));
  registry = await startRegistry({ auth });
  images = [];
  for (const tag of ['a', 'b', 'c']) {
    const local = await buildTinyImage(docker);
    made.add(local);
    const ref = await registry.push(local, 'pull-test/task', tag);
    made.add(ref);
    await removeImages(docker, [local]);
    images.push(ref);
  }
});

afterAll(async () => {
  await proxy?.stop();
  await removeImages(docker, made);
  await stopAllRegistries();
  await rm(dir, { recursive: true, force: true });
});

describe('swe-env images pull', () => {
  it('pulls the missing images with the credentials given, then finds them present', async () => {
    const tasks = await taskFile('ok', [images[0]!, images[1]!, images[0]!]);
    const config = await configFile(auth.user, auth.password, registry.host);
    const first = await cli(['images', 'pull', '--tasks', tasks, '--registry-config', config]);
    expect(first.stderr).not.toContain(auth.password);
    expect(first.stdout).toContain('0 present, 2 pulled, 0 failed of 2 images (3 tasks)');
    expect(first.code).toBe(0);
    expect(await imagePresent(docker, images[0]!)).toBe(true);
    const asked = registry.requests().length;
    const again = await cli(['images', 'pull', '--tasks', tasks, '--registry-config', config]);
    expect(again.stdout).toContain('2 present, 0 pulled, 0 failed of 2 images');
    // The second run asked the registry nothing: present images are skipped.
    expect(registry.requests().length).toBe(asked);
  });

  it('a wrong password fails that image with what to do, exit 1, and no retries of a refusal', async () => {
    const tasks = await taskFile('badauth', [images[2]!]);
    const config = await configFile(auth.user, 'wrong', registry.host);
    const before = registry.requests().length;
    const result = await cli(['images', 'pull', '--tasks', tasks, '--registry-config', config, '--pull-backoff', '0.1']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/failed\s+\S+pull-test\/task:c\s+cannot pull .* after 1 try .*--registry-config/);
    expect(result.stdout).toContain('0 present, 0 pulled, 1 failed of 1 images');
    const manifestTries = registry
      .requests()
      .slice(before)
      .filter((r) => r.path.includes('/manifests/'));
    expect(manifestTries.length).toBeLessThanOrEqual(2); // the engine's HEAD then GET, once
  });

  it('a credentials file that does not exist is refused before any pull', async () => {
    const tasks = await taskFile('nofile', [images[2]!]);
    const result = await cli(['images', 'pull', '--tasks', tasks, '--registry-config', join(dir, 'missing.json')]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/cannot read the registry credentials file .*missing\.json/);
  });

  it('Ctrl-C stops a pull that is waiting out a rate limit, exits 130 and says how to resume', async () => {
    proxy = await startThrottlingProxy(registry.host);
    proxy.throttle({ status: 429, only: 'manifests' });
    const ref = images[2]!.replace(registry.host, proxy.host);
    made.add(ref);
    const tasks = await taskFile('throttled', [ref]);
    const config = await configFile(auth.user, auth.password, proxy.host);
    const child = spawn('node', [CLI, 'images', 'pull', '--tasks', tasks, '--registry-config', config, '--pull-backoff', '30'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Interrupted once the registry has refused it (the pull now waits out its backoff).
    while (proxy.count('manifests', 'throttled') === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(130);
    expect(stderr).toContain('run the same command again to pull the rest');
    expect(stdout).toContain('0 pulled, 0 failed, 1 not pulled (interrupted) of 1 images');
    proxy.clear();
    const resumed = await cli(['images', 'pull', '--tasks', tasks, '--registry-config', config]);
    expect(resumed.stdout).toContain('1 pulled');
  });
});
