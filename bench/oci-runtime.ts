/**
 * runc against crun as the OCI runtime of sandboxes: the time a Reset pays for its container
 * (create + start with the sandbox's own options, until the keeper runs), alternating runtimes in
 * the same run on one engine that has both (scripts/extra-engine.sh with crun registered; crun
 * is Debian's package, installed here if missing).
 * Usage: node dist/bench/oci-runtime.js [--starts 30]
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { packageRoot } from '../src/common/paths.js';
import { DockerSandboxProvider } from '../src/sandbox/docker-sandbox.js';
import { arg, describe, printRow, runMain } from './stats.js';

function engineWithCrun(): string {
  try {
    execFileSync('sh', ['-c', 'command -v crun'], { stdio: 'ignore' });
  } catch {
    execFileSync('bash', ['-c', `. ${join(packageRoot(), 'scripts', 'lib.sh')} && apt_install crun`], { stdio: 'inherit' });
  }
  const out = execFileSync('bash', [join(packageRoot(), 'scripts', 'extra-engine.sh'), 'oci', 'swe-env/base:latest'], {
    env: { ...process.env, SWE_ENV_ENGINE_RUNTIMES: 'crun=/usr/bin/crun' },
  });
  return out.toString().trim().split('\n').at(-1)!;
}

async function main(): Promise<void> {
  const starts = arg('starts', 30);
  const socket = engineWithCrun();
  const samples: Record<string, number[]> = { runc: [], crun: [] };
  const runtimes = ['runc', 'crun'];
  try {
    await startOnce(socket, 'crun', -1);
  } catch (error) {
    // crun 1.8 (bookworm) refuses cgroup hybrid mode (v1 controllers with a v2 mount), as here.
    process.stdout.write(`crun cannot start a sandbox on this machine: ${String(error).split('\n')[0]}\nruntime stays runc; runc alone:\n`);
    runtimes.pop();
  }
  for (let i = 0; i < starts * runtimes.length + runtimes.length; i++) {
    const runtime = runtimes[i % runtimes.length]!;
    const ms = await startOnce(socket, runtime, i);
    if (i >= runtimes.length) samples[runtime]!.push(ms); // the first of each warms the engine's caches
  }
  const runc = describe('container create+start, runc', samples['runc']!);
  printRow(runc);
  if (samples['crun']!.length > 0) {
    const crun = describe('container create+start, crun', samples['crun']!);
    printRow(crun);
    process.stdout.write(`crun/runc: p50 ${(crun.p50 / runc.p50).toFixed(3)}x, p95 ${(crun.p95 / runc.p95).toFixed(3)}x\n`);
  }
}

/** One sandbox container created and started the way a Reset does it, then removed: milliseconds. */
async function startOnce(socket: string, runtime: string, i: number): Promise<number> {
  const provider = new DockerSandboxProvider(`bench-oci-${randomUUID().slice(0, 8)}`, { socketPath: socket, ociRuntime: runtime });
  const started = performance.now();
  const sandbox = await provider.create({
    image: 'swe-env/base:latest',
    workdir: '/',
    maxLifetimeS: 120,
    role: 'episode',
    episodeId: `oci-${i}`,
    limits: { memoryBytes: 512 * 1024 ** 2, nanoCpus: 1e9, pidsLimit: 256, diskBytes: 0 },
  });
  const ms = performance.now() - started;
  await sandbox.remove();
  return ms;
}

runMain(main);
