import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { pythonEnv } from '../helpers/python-env.js';

/**
 * The Kubernetes manifests, validated against the Kubernetes schemas (kubernetes-validate from
 * PyPI, strict: unknown fields are errors) for the versions a cluster may run, and their server
 * and probe flags checked against this CLI. No cluster runs here: nothing is applied.
 */
const run = promisify(execFile);
const DIR = join(packageRoot(), 'deploy', 'kubernetes');
const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
let files: string[];
let validator: { python: string; path: string };

beforeAll(async () => {
  files = (await readdir(DIR)).filter((f) => f.endsWith('.yaml')).map((f) => join(DIR, f));
  const env = await pythonEnv();
  validator = { python: join(env, 'bin', 'python'), path: join(env, 'kubernetes-validate') };
});

async function validate(paths: string[], version: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(validator.python, ['-m', 'kubernetes_validate', '--strict', '-k', version, ...paths], {
      env: { ...process.env, PYTHONPATH: validator.path },
    });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe('deploy/kubernetes', () => {
  it('has the DaemonSet, headless Service, disruption budget, account and namespace', () => {
    expect(files.map((f) => f.split('/').at(-1)).sort()).toEqual([
      'daemonset.yaml',
      'namespace.yaml',
      'pdb.yaml',
      'service.yaml',
      'serviceaccount.yaml',
    ]);
  });

  it.each(['1.29.0', '1.31.0', '1.33.0'])('every manifest validates strictly against Kubernetes %s', async (version) => {
    const result = await validate(files, version);
    expect(result.code, result.out).toBe(0);
    expect(result.out.match(/passed for resource/g)).toHaveLength(files.length);
  });

  it('the validator does reject a broken manifest (an unknown field, a port that is not a number)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swe-env-k8s-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const broken = join(dir, 'broken.yaml');
    const text = await readFile(join(DIR, 'daemonset.yaml'), 'utf8');
    await writeFile(
      broken,
      text
        .replace('containerPort: 50051', 'containerPort: "fifty"')
        .replace('terminationGracePeriodSeconds: 660', 'terminationGracePeriodSeconds: 660\n      graceToDrain: 5'),
    );
    const result = await validate([broken], '1.31.0');
    expect(result.code).not.toBe(0);
  });

  it('every flag the DaemonSet passes to `serve` and its probes pass to `health` is one the CLI has', async () => {
    const text = await readFile(join(DIR, 'daemonset.yaml'), 'utf8');
    const serveFlags = [...text.matchAll(/^\s+- (--[a-z-]+)=/gm)].map((m) => m[1]!);
    const probeFlags = [
      ...new Set(
        [...text.matchAll(/health, ((?:--[a-z-]+=[^,\]]+,? ?)+)/g)].flatMap((m) => [...m[1]!.matchAll(/(--[a-z-]+)=/g)].map((f) => f[1]!)),
      ),
    ];
    expect(serveFlags.length).toBeGreaterThan(8);
    expect(probeFlags).toEqual(['--server', '--token-file', '--ca']);
    const serveHelp = (await run('node', [CLI, 'serve', '--help'])).stdout;
    const healthHelp = (await run('node', [CLI, 'health', '--help'])).stdout;
    for (const flag of serveFlags) expect(serveHelp, flag).toContain(flag);
    for (const flag of probeFlags) expect(healthHelp, flag).toContain(flag);
  });
});
