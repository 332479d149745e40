/**
 * `swe-env images base --packages / --wheels` through the real CLI and engine: a variant is one
 * layer on the existing base image (the base's layers shared, no debootstrap of its own), tagged
 * after the base plus a hash of what it adds, found again on a second run; it runs with no network.
 * And the base itself runs `python` (python-is-python3), as SWE-bench images do.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { BASE_IMAGE } from '../helpers/docker.js';
import { makeWheel } from '../helpers/wheel.js';

const run = promisify(execFile);
const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const scratch: string[] = [];
const images: string[] = [];
let wheels: string;

async function cli(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  try {
    const { stdout, stderr } = await run('node', [CLI, ...args], { maxBuffer: 16 * 1024 * 1024 });
    return { out: stdout, err: stderr, code: 0 };
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    return { out: e.stdout, err: e.stderr, code: e.code };
  }
}

async function layers(image: string): Promise<string[]> {
  const { stdout } = await run('docker', ['image', 'inspect', '--format', '{{json .RootFS.Layers}}', image]);
  return JSON.parse(stdout) as string[];
}

beforeAll(async () => {
  wheels = await mkdtemp(join(tmpdir(), 'swe-env-wheels-'));
  scratch.push(wheels);
  await makeWheel(wheels, 'swe_env_probe', '0.1', 'ANSWER = 42\n');
});

afterAll(async () => {
  if (images.length > 0) await run('docker', ['rmi', '-f', ...images]).catch(() => undefined);
  await Promise.all(scratch.map((p) => rm(p, { recursive: true, force: true })));
});

describe('the base image', () => {
  it('runs python as python3', async () => {
    const { stdout, stderr } = await run('docker', ['run', '--rm', '--network', 'none', BASE_IMAGE, 'python', '--version']);
    expect(`${stdout}${stderr}`).toMatch(/^Python 3\.\d+\.\d+/);
  });
});

describe('images base --packages --wheels', () => {
  it('layers the packages and wheels on the base image, tagged after it, and finds it again', async () => {
    const first = await cli('images', 'base', '--base', BASE_IMAGE, '--packages', 'jq', '--wheels', wheels);
    expect(first.code, first.err).toBe(0);
    const variant = first.out.split('\n')[0]!.trim();
    images.push(variant);
    expect(variant).toMatch(new RegExp(`^${BASE_IMAGE.replace(/[.:/]/g, '\\$&')}-plus-[0-9a-f]{12}$`));

    // One layer on top of the base's, which it shares: no debootstrap of its own.
    const baseLayers = await layers(BASE_IMAGE);
    const variantLayers = await layers(variant);
    expect(variantLayers.slice(0, baseLayers.length)).toEqual(baseLayers);
    expect(variantLayers).toHaveLength(baseLayers.length + 1);

    // What it adds works with no network, and python is still there.
    const probe =
      'jq --version && python -c "import swe_env_probe; print(swe_env_probe.ANSWER)" && ls /var/lib/apt/lists | grep -c _ || true';
    const { stdout } = await run('docker', ['run', '--rm', '--network', 'none', variant, 'bash', '-c', probe]);
    expect(stdout).toMatch(/^jq-\d/m);
    expect(stdout).toMatch(/^42$/m);
    expect(stdout.trim().split('\n').at(-1)).toBe('0');

    const again = await cli('images', 'base', '--base', BASE_IMAGE, '--packages', 'jq', '--wheels', wheels);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain(`${variant} (already built)`);
  }, 600_000);

  it('refuses what is not a Debian package name', async () => {
    const result = await cli('images', 'base', '--base', BASE_IMAGE, '--packages', 'jq;touch /x');
    expect(result.code).not.toBe(0);
    expect(result.err).toContain('not Debian package names: jq;touch /x');
  });
});
