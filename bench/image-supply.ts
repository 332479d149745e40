/**
 * Task images at dataset scale, against a real registry on loopback (Debian's docker-registry with
 * htpasswd) and the real engine. Each task image is a demo image plus a layer of its own
 * (incompressible, --layer-mb), so a pull downloads and extracts real bytes while the base is
 * shared, as SWE-bench's images share theirs.
 *  1. Reset p50/p95 of a task whose image must be pulled (cold) against one prefetched first, and
 *     against a present image (the baseline a prefetched Reset should match).
 *  2. 16 concurrent Resets of one missing image: pulls made, time until all are ready, against
 *     16 concurrent Resets of a present image.
 *  3. Churn: a GRPO-style run (groups of --group) over more images than the cache holds: Reset
 *     p50/p95, evictions, in-use evictions (must be 0), peak cache bytes against the high mark,
 *     pulls per image.
 * Usage: node dist/bench/image-supply.js [--images 6] [--layer-mb 24] [--burst 16] [--churn-images 8] [--rounds 2] [--group 4]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer, type RunningServer } from '../src/server/app.js';
import { compileConfig, type ImageSupplyConfig } from '../src/server/config.js';
import { loadTaskFiles } from '../src/tasks/loader.js';
import type { Task } from '../src/tasks/task.js';
import { startRegistry, stopAllRegistries, type LocalRegistry } from '../test/helpers/local-registry.js';
import { buildFromFiles, removeImages } from '../test/helpers/registry-images.js';
import { arg, describe, printRow, runMain } from './stats.js';

const docker = new Docker();
const AUTH = { user: 'bench', password: 'bench-secret' };
const made = new Set<string>();

/** A demo image plus one layer of `mb` random megabytes, pushed as HOST/bench/task-N and removed locally. */
async function pushTaskImage(registry: LocalRegistry, from: string, n: number, mb: number): Promise<string> {
  const local = `swe-env-bench/task-${randomUUID().slice(0, 8)}:latest`;
  await buildFromFiles(docker, local, {
    Dockerfile: `FROM ${from}\nCOPY blob /opt/swe-env-bench/blob\n`,
    blob: randomBytes(mb * 1024 * 1024),
  });
  made.add(local);
  const ref = await registry.push(local, 'bench/task', `n${n}-${randomUUID().slice(0, 6)}`);
  made.add(ref);
  await removeImages(docker, [local]);
  return ref;
}

async function serve(tasks: Task[], images: Partial<ImageSupplyConfig>, maxEpisodes: number): Promise<RunningServer> {
  return startServer(
    compileConfig({
      port: 0,
      serverId: `bench-images-${randomUUID().slice(0, 8)}`,
      maxEpisodes,
      maxConcurrentStarts: 4,
      limits: { memoryBytes: 256 * 1024 ** 2 },
      images,
    }),
    { logger: pino({ level: 'warn' }), tasks },
  );
}

async function untilPresent(client: SweEnvClient, taskIds: string[]): Promise<void> {
  for (;;) {
    const { images } = await client.prefetch(taskIds);
    if (images.every((i) => i.phase === 'IMAGE_PHASE_PRESENT')) return;
    const failed = images.find((i) => i.phase === 'IMAGE_PHASE_FAILED');
    if (failed) throw new Error(`prefetch of ${failed.image} failed: ${failed.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function timedReset(client: SweEnvClient, taskId: string): Promise<{ ms: number; episodeId: string }> {
  const started = performance.now();
  const r = await client.reset({ taskId }, { timeoutS: 600 });
  return { ms: performance.now() - started, episodeId: r.episodeId };
}

async function main(): Promise<void> {
  const count = arg('images', 6);
  const layerMb = arg('layer-mb', 24);
  const burst = arg('burst', 16);
  const churnImages = arg('churn-images', 8);
  const rounds = arg('rounds', 2);
  const group = arg('group', 4);
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-bench-images-'));
  const registry = await startRegistry({ auth: AUTH });
  const servers: RunningServer[] = [];
  try {
    const config = join(dir, 'config.json');
    await writeFile(
      config,
      JSON.stringify({ auths: { [registry.host]: { auth: Buffer.from(`${AUTH.user}:${AUTH.password}`).toString('base64') } } }),
    );
    const demo = (await loadTaskFiles([join(packageRoot(), 'tasks/demo/tasks.jsonl')], {}, () => undefined)).find(
      (t) => t.id === 'swe-env-demo__minicalc-1',
    )!;
    const base = demo.image;
    const total = 2 * count + 1 + churnImages;
    process.stdout.write(`making ${total} task images (${base} + ${layerMb} MB each) in a registry on ${registry.host}...\n`);
    const refs: string[] = [];
    for (let i = 0; i < total; i++) refs.push(await pushTaskImage(registry, base, i, layerMb));
    const tasks = refs.map((image, i): Task => ({ ...demo, id: `bench-task-${i}`, image }));
    const ids = tasks.map((t) => t.id);
    const supply = { registryConfig: config, maxPulls: 4, pullBackoffS: 0.5 };

    // 1. cold against prefetched against present.
    const server = await serve(tasks, supply, burst + 8);
    servers.push(server);
    const client = new SweEnvClient(server.address);
    const cold: number[] = [];
    const prefetched: number[] = [];
    const present: number[] = [];
    for (let i = 0; i < count; i++) {
      const c = await timedReset(client, ids[i]!);
      cold.push(c.ms);
      await client.close(c.episodeId);
      const p = await timedReset(client, ids[i]!); // now present
      present.push(p.ms);
      await client.close(p.episodeId);
      await untilPresent(client, [ids[count + i]!]);
      const f = await timedReset(client, ids[count + i]!);
      prefetched.push(f.ms);
      await client.close(f.episodeId);
    }
    const rc = describe('Reset, image pulled by the Reset (cold)', cold);
    const rf = describe('Reset, image prefetched', prefetched);
    const rp = describe('Reset, image present (baseline)', present);
    [rp, rf, rc].forEach(printRow);
    process.stdout.write(
      `prefetched/present: p50 ${(rf.p50 / rp.p50).toFixed(3)}x, p95 ${(rf.p95 / rp.p95).toFixed(3)}x; cold/present: p50 ${(rc.p50 / rp.p50).toFixed(2)}x\n`,
    );

    // 2. a GRPO group of `burst` Resets of one missing image, against the same of a present one.
    const burstOf = async (taskId: string): Promise<{ ms: number; pulls: number }> => {
      const before = (await client.getServerInfo()).imageSupply?.pullsDone ?? 0;
      const started = performance.now();
      const all = await Promise.all(Array.from({ length: burst }, () => client.reset({ taskId }, { timeoutS: 600 })));
      const ms = performance.now() - started;
      await Promise.all(all.map((r) => client.close(r.episodeId)));
      return { ms, pulls: ((await client.getServerInfo()).imageSupply?.pullsDone ?? 0) - before };
    };
    const asked = registry.requests().length;
    const missing = await burstOf(ids[2 * count]!);
    // The engine asks HEAD by tag, then GET by digest: every manifest request of the burst.
    const manifests = registry
      .requests()
      .slice(asked)
      .filter((r) => r.path.includes('/manifests/')).length;
    const warm = await burstOf(ids[2 * count]!);
    process.stdout.write(
      `${burst} concurrent Resets, image missing: ${missing.pulls} pull(s) by the server, ${manifests} manifest request(s) at the registry, all ready in ${missing.ms.toFixed(0)} ms\n`,
    );
    process.stdout.write(
      `${burst} concurrent Resets, image present: all ready in ${warm.ms.toFixed(0)} ms; missing/present ${(missing.ms / warm.ms).toFixed(2)}x\n`,
    );
    client.dispose();
    await server.shutdown();
    servers.pop();

    // 3. churn over more images than the cache holds.
    const churn = tasks.slice(2 * count + 1);
    const churnIds = churn.map((t) => t.id);
    const perImage = layerMb * 1024 * 1024;
    // Room for the shared base and about three task images: the rest must be evicted and come back.
    const baseBytes = (await docker.getImage(base).inspect()).Size;
    const high = baseBytes + 3.5 * perImage + 2 * perImage; // two pulls' worth of headroom for the reserve
    const churnServer = await serve(
      churn,
      { ...supply, maxPulls: 2, cacheHighBytes: Math.round(high), cacheLowBytes: Math.round(baseBytes + 2.5 * perImage) },
      group * 2 + 4,
    );
    servers.push(churnServer);
    const cc = new SweEnvClient(churnServer.address);
    // Measured afresh from the engine's image list every 200 ms, not the server's last figure.
    let peak = 0;
    let polling = true;
    const cache = churnServer.provider.images.cache!;
    const poller = (async () => {
      while (polling) {
        peak = Math.max(peak, (await cache.measure().catch(() => ({ bytes: 0 }))).bytes);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const resets: number[] = [];
    let failures = 0;
    let stepFailures = 0;
    for (let round = 0; round < rounds; round++) {
      for (const taskId of churnIds) {
        const results = await Promise.allSettled(Array.from({ length: group }, () => timedReset(cc, taskId)));
        for (const r of results) {
          if (r.status === 'fulfilled') {
            resets.push(r.value.ms);
            const step = await cc.bash(r.value.episodeId, 0, 'test -s /opt/swe-env-bench/blob && echo ok');
            if (!step.observation.includes('ok')) stepFailures += 1;
            await cc.close(r.value.episodeId);
          } else failures += 1;
        }
      }
    }
    polling = false;
    await poller;
    const info = await cc.getServerInfo();
    const s = info.imageSupply!;
    printRow(describe(`churn Reset (${churnImages} images, cache ~3.5)`, resets));
    process.stdout.write(
      `churn: ${failures} failed Resets, ${s.evictions} evictions, ${s.pullsDone} pulls for ${churnImages} images (${(s.pullsDone / churnImages).toFixed(2)} per image over ${rounds} rounds), ` +
        `peak cache ${(peak / 1e6).toFixed(0)} MB vs high mark ${(s.cacheHighBytes / 1e6).toFixed(0)} MB (${(peak / s.cacheHighBytes).toFixed(3)}x)\n`,
    );
    process.stdout.write(
      `in-use evictions: ${stepFailures} steps found their image gone; the engine refused ${cache.refusedInUse} removals of images in use (never forced)\n`,
    );
    cc.dispose();
  } finally {
    for (const server of servers) await server.shutdown().catch(() => undefined);
    await removeImages(docker, made);
    await stopAllRegistries();
    await rm(dir, { recursive: true, force: true });
  }
}

runMain(main);
