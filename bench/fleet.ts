/**
 * Scale test of the fleet client: a scripted policy (a fixed mix of bash steps, then a submit of the
 * gold patch) over many episodes in GRPO groups against 1, 2 and 3 servers on this machine (one
 * engine; each server its own id and admission), printing episodes per minute, Reset p50/p95 and how
 * evenly groups spread; then, with 3 servers, one server is killed in the middle of a run: time to
 * fail over (from the kill to the first Reset placed elsewhere), episodes lost (those on the killed
 * server, every one INFRA_ERROR) and episodes completed elsewhere.
 * Usage: node dist/bench/fleet.js [--groups 6] [--group-size 4] [--in-flight 6] [--max-episodes 8]
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { FleetClient } from '../src/client/fleet.js';
import { packageRoot } from '../src/common/paths.js';
import { startServer, type RunningServer } from '../src/server/app.js';
import { compileConfig } from '../src/server/config.js';
import { loadTaskFile } from '../src/tasks/loader.js';
import type { Task } from '../src/tasks/task.js';
import { arg, describe, printRow, runMain } from './stats.js';

const DEMO = join(packageRoot(), 'tasks/demo/tasks.jsonl');

interface Outcome {
  readonly server: string;
  readonly resetMs: number;
  readonly end: 'resolved' | 'unresolved' | 'infra_error' | 'failed';
  /** When the episode was placed, and when it learned its server was lost. */
  readonly placedAt?: number;
  readonly lostAt?: number;
  readonly error?: string;
}

/** The scripted policy: look around, run the tests, apply the gold patch, submit. */
async function episode(fleet: FleetClient, task: Task, group: string): Promise<Outcome> {
  const started = Date.now();
  let server = '';
  try {
    const r = await fleet.reset({ taskId: task.id, groupId: group }, { timeoutS: 120 });
    server = r.server;
    const placedAt = Date.now();
    const resetMs = placedAt - started;
    const commands = [
      'ls',
      'git status --short',
      'python3 -m pytest -q -x 2>&1 | tail -n 3',
      `cat > /tmp/fix.patch <<'SWE_ENV_EOF'\n${task.goldPatch}SWE_ENV_EOF\ngit apply /tmp/fix.patch`,
    ];
    let index = 0;
    for (const command of commands) {
      const step = await fleet.bash(r.episodeId, index++, command);
      if (step.status === 'STEP_STATUS_INFRA_ERROR') return { server, resetMs, end: 'infra_error', placedAt, lostAt: Date.now() };
    }
    const submitted = await fleet.submit(r.episodeId, index);
    await fleet.close(r.episodeId).catch(() => undefined);
    if (submitted.status === 'STEP_STATUS_INFRA_ERROR') return { server, resetMs, end: 'infra_error', placedAt, lostAt: Date.now() };
    return { server, resetMs, end: submitted.reward === 1 ? 'resolved' : 'unresolved', placedAt };
  } catch (error) {
    return { server, resetMs: Date.now() - started, end: 'failed', error: String(error).slice(0, 160) };
  }
}

async function servers(n: number, maxEpisodes: number): Promise<RunningServer[]> {
  const out: RunningServer[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      await startServer(
        compileConfig({
          port: 0,
          serverId: `bench-fleet-${randomUUID().slice(0, 8)}`,
          taskFiles: [DEMO],
          maxEpisodes,
          maxGradings: 2,
          shutdownGraceS: 1,
          limits: { memoryBytes: 512 * 1024 ** 2 },
        }),
        { logger: pino({ level: 'silent' }) },
      ),
    );
  }
  return out;
}

async function run(
  fleet: FleetClient,
  tasks: readonly Task[],
  groups: number,
  groupSize: number,
  inFlight: number,
  onStart?: (i: number) => void,
): Promise<Outcome[]> {
  const run = randomUUID().slice(0, 4);
  const jobs = Array.from({ length: groups * groupSize }, (_, i) => {
    const g = Math.floor(i / groupSize);
    return { group: `g${g}-${run}`, task: tasks[g % tasks.length]! };
  });
  const out: Outcome[] = new Array<Outcome>(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < jobs.length) {
        const i = next++;
        onStart?.(i);
        out[i] = await episode(fleet, jobs[i]!.task, jobs[i]!.group);
      }
    }),
  );
  return out;
}

function spread(outcomes: readonly Outcome[], addresses: readonly string[]): string {
  return addresses.map((a) => outcomes.filter((o) => o.server === a).length).join('/');
}

async function main(): Promise<void> {
  const groups = arg('groups', 6);
  const groupSize = arg('group-size', 4);
  const inFlight = arg('in-flight', 6);
  const maxEpisodes = arg('max-episodes', 8);
  const { tasks } = await loadTaskFile(DEMO);
  process.stdout.write(
    `fleet scale test: ${groups} groups x ${groupSize} episodes, ${inFlight} in flight, max ${maxEpisodes} live per server\n`,
  );
  let baseline = 0;
  for (const n of process.argv.includes('--failover-only') ? [] : [1, 2, 3]) {
    const running = await servers(n, maxEpisodes);
    const fleet = await FleetClient.connect({ addresses: running.map((s) => s.address), infoTtlMs: 500, restartWaitMs: 1000 });
    try {
      const started = Date.now();
      const outcomes = await run(fleet, tasks, groups, groupSize, inFlight);
      const minutes = (Date.now() - started) / 60_000;
      const perMinute = outcomes.length / minutes;
      if (n === 1) baseline = perMinute;
      printRow(
        describe(
          `${n} server(s): Reset`,
          outcomes.map((o) => o.resetMs),
        ),
      );
      const resolved = outcomes.filter((o) => o.end === 'resolved').length;
      const splitGroups = Array.from(
        { length: groups },
        (_, g) => new Set(outcomes.slice(g * groupSize, (g + 1) * groupSize).map((o) => o.server)).size,
      ).filter((k) => k > 1).length;
      process.stdout.write(
        `${n} server(s): ${perMinute.toFixed(1)} episodes/min (${(perMinute / baseline).toFixed(2)}x of 1 server), resolved ${resolved}/${outcomes.length}, episodes per server ${spread(
          outcomes,
          running.map((s) => s.address),
        )}, groups split ${splitGroups}/${groups}\n`,
      );
    } finally {
      fleet.dispose();
      for (const s of running) await s.shutdown();
    }
  }

  // Failover: 3 servers, one killed once a third of the episodes have started.
  const running = await servers(3, maxEpisodes);
  const fleet = await FleetClient.connect({ addresses: running.map((s) => s.address), infoTtlMs: 500, restartWaitMs: 1000 });
  let victim = running[0]!;
  let killedAt = 0;
  const total = groups * groupSize;
  try {
    const outcomes = await run(fleet, tasks, groups, groupSize, inFlight, (i) => {
      if (i === Math.floor(total / 3) && !killedAt) {
        killedAt = Date.now();
        // The server holding the most episodes, stopped with a one-second grace: it stops answering
        // new calls at once and its containers go with it.
        const busiest = [...fleet.servers].sort(
          (a, b) => (b.info?.liveEpisodes ?? 0) + b.placed - ((a.info?.liveEpisodes ?? 0) + a.placed),
        )[0]!;
        victim = running.find((r) => r.address === busiest.address)!;
        void victim.shutdown();
      }
    });
    const detected = Math.min(...outcomes.filter((o) => o.lostAt).map((o) => o.lostAt!)) - killedAt;
    const placedAfter = outcomes.filter((o) => (o.placedAt ?? 0) > killedAt);
    const onVictim = outcomes.filter((o) => o.server === victim.address);
    for (const o of outcomes.filter((x) => x.error)) process.stdout.write(`  failed on ${o.server || 'no server'}: ${o.error}\n`);
    const lost = onVictim.filter((o) => o.end === 'infra_error' || o.end === 'failed').length;
    const zeroOnVictim = onVictim.filter((o) => o.end === 'unresolved').length;
    const elsewhere = outcomes.filter((o) => o.server !== victim.address);
    process.stdout.write(
      `failover: killed ${victim.address} after ${Math.floor(total / 3)} starts; first loss seen ${Number.isFinite(detected) ? `${detected} ms` : 'never'} after the kill; episodes on it ${onVictim.length} (finished before the kill ${onVictim.filter((o) => o.end === 'resolved').length}, lost as INFRA_ERROR ${lost}, scored a plain 0: ${zeroOnVictim}); placed after the kill ${placedAfter.length}, on the killed server ${placedAfter.filter((o) => o.server === victim.address).length}; elsewhere ${elsewhere.length}, resolved ${elsewhere.filter((o) => o.end === 'resolved').length}; server marked down: ${fleet.servers.find((s) => s.address === victim.address)?.down}\n`,
    );
  } finally {
    fleet.dispose();
    for (const s of running) await s.shutdown();
  }
}

runMain(main);
