/**
 * Fork and Replay (issue 22). After 20 steps of edits on a demo task: Fork of n = 1, 8, 16, time
 * until all children are ready (p50/p95), each child's disk (its writable layer) and memory (its
 * container's cgroup); against the other mechanism, measured in the same run on the same parent:
 * an engine commit of the parent and n containers created and started from the image. Then Replay
 * of the 20-step prefix against a Reset plus the same 20 steps run live.
 * Usage: node dist/bench/fork.js [--rounds 5] [--steps 20]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient } from '../src/client/client.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer, type RunningServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { arg, describe, printRow, runMain } from './stats.js';

const TASK = 'swe-env-demo__textkit-2';

/** Step i of the parent: edits to tracked files, new files, a deletion, a directory change, exports. */
function edit(i: number): string {
  const edits = [
    `echo "# edit ${i}" >> textkit/wrap.py`,
    `mkdir -p notes/d${i % 4} && seq 1 200 > notes/d${i % 4}/n${i}.txt`,
    `export STEP_${i}=${i} && cd /testbed/notes 2>/dev/null; cd /testbed`,
    `python3 -c "import textkit" && head -c 20000 /dev/urandom | base64 > /tmp/blob${i}`,
  ];
  return edits[i % edits.length]!;
}

async function runSteps(client: SweEnvClient, id: string, from: number, steps: number): Promise<void> {
  for (let i = from; i < from + steps; i++) {
    const answer = await client.bash(id, i, `cd /testbed && ${edit(i)}`);
    if (answer.status !== 'STEP_STATUS_OK') throw new Error(`step ${i}: ${answer.status} ${answer.observation}`);
  }
}

/** The child's writable layer (bytes) and its container's memory use (bytes), from the engine. */
async function childCost(server: RunningServer, episodeId: string): Promise<{ disk: number; memory: number }> {
  const [id] = await server.provider.listContainers({ episodeId });
  if (!id) throw new Error(`no container for ${episodeId}`);
  const container = server.provider.docker.getContainer(id);
  const [info] = await server.provider.docker.listContainers({ all: true, size: true, filters: { id: [id] } });
  const stats = (await container.stats({ stream: false })) as unknown as {
    memory_stats?: { usage?: number; stats?: { inactive_file?: number } };
  };
  const memory = (stats.memory_stats?.usage ?? 0) - (stats.memory_stats?.stats?.inactive_file ?? 0);
  return { disk: (info as { SizeRw?: number } | undefined)?.SizeRw ?? 0, memory };
}

/** The other mechanism: commit the parent's container, then create and start n containers from the image. */
async function commitAndCreate(server: RunningServer, parentId: string, n: number): Promise<number> {
  const docker = server.provider.docker;
  const [id] = await server.provider.listContainers({ episodeId: parentId });
  if (!id) throw new Error('no parent container');
  const started = performance.now();
  const committed = (await docker.getContainer(id).commit({ pause: true })) as { Id: string };
  const containers = await Promise.all(
    Array.from({ length: n }, async () => {
      const c = await docker.createContainer({
        Image: committed.Id,
        Entrypoint: [''],
        Cmd: ['sleep', '600'],
        NetworkDisabled: true,
        HostConfig: { NetworkMode: 'none', AutoRemove: true },
      });
      await c.start();
      return c;
    }),
  );
  const ms = performance.now() - started;
  await Promise.all(containers.map((c) => c.remove({ force: true }).catch(() => undefined)));
  await docker
    .getImage(committed.Id)
    .remove({ force: true })
    .catch(() => undefined);
  return ms;
}

async function main(): Promise<void> {
  const rounds = arg('rounds', 5);
  const steps = arg('steps', 20);
  const dir = mkdtempSync(join(tmpdir(), 'swe-env-bench-fork-'));
  const server = await startServer(
    compileConfig({
      port: 0,
      serverId: `bench-fork-${randomUUID().slice(0, 8)}`,
      taskFiles: [join(packageRoot(), 'tasks/demo/tasks.jsonl')],
      trajectoryDir: dir,
      maxEpisodes: 40,
      maxConcurrentStarts: 16,
      maxWarm: 16,
      limits: { memoryBytes: 256 * 1024 ** 2 },
    }),
    { logger: pino({ level: 'warn' }) },
  );
  const client = new SweEnvClient(server.address);
  try {
    const parent = (await client.reset({ taskId: TASK })).episodeId;
    await runSteps(client, parent, 0, steps);
    await client.close((await client.fork(parent, 1)).episodeIds[0]!); // warm-up of code paths

    for (const n of [1, 8, 16]) {
      const fork: number[] = [];
      const commit: number[] = [];
      const disk: number[] = [];
      const memory: number[] = [];
      let copied = '';
      for (let r = 0; r < (n === 16 ? Math.max(2, Math.ceil(rounds / 2)) : rounds); r++) {
        const started = performance.now();
        const answer = await client.fork(parent, n);
        fork.push(performance.now() - started);
        copied = `${answer.copiedEntries} entries, ${(Number(answer.copiedBytes) / 1024).toFixed(0)} KiB, ${answer.deletedPaths} deletions`;
        const costs = await Promise.all(answer.episodeIds.map((id) => childCost(server, id)));
        disk.push(...costs.map((c) => c.disk));
        memory.push(...costs.map((c) => c.memory));
        await Promise.all(answer.episodeIds.map((id) => client.close(id)));
        commit.push(await commitAndCreate(server, parent, n));
      }
      const f = describe(`Fork n=${n}, all children ready`, fork);
      const c = describe(`engine commit + ${n} creates (baseline)`, commit);
      printRow(f);
      printRow(c);
      const mib = (xs: number[]): string => (xs.reduce((a, b) => a + b, 0) / xs.length / 1024 ** 2).toFixed(2);
      process.stdout.write(
        `  fork/commit: p50 ${(f.p50 / c.p50).toFixed(3)}x, p95 ${(f.p95 / c.p95).toFixed(3)}x; copied ${copied}; per child: disk ${mib(disk)} MiB, memory ${mib(memory)} MiB\n`,
      );
    }
    // With the task prewarmed (Prewarm(task, n) before the Fork): children take ready sandboxes.
    for (const n of [8, 16]) {
      const warm: number[] = [];
      for (let r = 0; r < Math.max(2, Math.ceil(rounds / 2)); r++) {
        await client.prewarm(TASK, n);
        const until = Date.now() + 120_000;
        while ((await client.getServerInfo()).warmSandboxes < n && Date.now() < until)
          await new Promise((resolve) => setTimeout(resolve, 100));
        const started = performance.now();
        const answer = await client.fork(parent, n);
        warm.push(performance.now() - started);
        await client.prewarm(TASK, 0);
        await Promise.all(answer.episodeIds.map((id) => client.close(id)));
      }
      printRow(describe(`Fork n=${n}, task prewarmed`, warm));
    }
    await client.close(parent);

    const replay: number[] = [];
    const live: number[] = [];
    const divergent: number[] = [];
    for (let r = 0; r < rounds; r++) {
      let started = performance.now();
      const answer = await client.replay({ sourceEpisodeId: parent, steps });
      replay.push(performance.now() - started);
      divergent.push(answer.divergences.length);
      await client.close(answer.episodeId);
      started = performance.now();
      const id = (await client.reset({ taskId: TASK })).episodeId;
      await runSteps(client, id, 0, steps);
      live.push(performance.now() - started);
      await client.close(id);
    }
    const p = describe(`Replay of a ${steps}-step prefix`, replay);
    const l = describe(`Reset + ${steps} live steps (baseline)`, live);
    printRow(p);
    printRow(l);
    process.stdout.write(
      `replay/live: p50 ${(p.p50 / l.p50).toFixed(3)}x, p95 ${(p.p95 / l.p95).toFixed(3)}x; divergences per replay: ${divergent.join(', ')}\n`,
    );
  } finally {
    client.dispose();
    await server.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
