import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FleetClient } from '../../src/client/fleet.js';
import { SweEnvClient } from '../../src/client/client.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The fleet client against three real servers on loopback (their own server ids, one engine):
 * group placement, bounded load, RESOURCE_EXHAUSTED moving a Reset on, and a server that stops
 * answering taken out with its episodes ended as INFRA_ERROR.
 */
let servers: TestServer[];
let fleet: FleetClient;

beforeAll(async () => {
  servers = [
    await startTestServer({ maxEpisodes: 8 }),
    await startTestServer({ maxEpisodes: 8 }),
    await startTestServer({ maxEpisodes: 1 }),
  ];
  // The stopped server is not restarted: after a short wait for a restart its episodes are lost.
  fleet = await FleetClient.connect({ addresses: servers.map((s) => s.server.address), infoTtlMs: 0, restartWaitMs: 500 });
}, 60_000);

afterAll(async () => {
  fleet?.dispose();
  for (const s of servers ?? []) await s.stop();
  for (const s of servers ?? []) await expectNoContainers(s.server.provider);
});

describe('fleet client', () => {
  it('reports every server, and what each can take', () => {
    expect(fleet.servers.map((s) => s.info?.serverId)).toEqual(servers.map((s) => s.server.config.serverId));
    for (const s of fleet.servers) {
      expect(s.down).toBe(false);
      expect(s.info!.images).toContain('sweb.eval.x86_64.swe-env-demo__minicalc-1:latest');
    }
  });

  it('puts every episode of a group on one server, spreads groups, and keeps them off a full server', async () => {
    const started: Array<{ id: string; server: string; group: string }> = [];
    try {
      // Groups of different tasks: a new group is placed by its task id.
      const tasks = { g1: 'swe-env-demo__minicalc-1', g2: 'swe-env-demo__intervals-1', g3: 'swe-env-demo__textkit-1' };
      for (const [group, taskId] of Object.entries(tasks)) {
        for (let i = 0; i < 3; i++) {
          const r = await fleet.reset({ taskId, groupId: group });
          started.push({ id: r.episodeId, server: r.server, group });
        }
      }
      // The third server takes one episode: a group that hashed there moves its other episodes on
      // (it is full); apart from that, a group's episodes share one server.
      const third = servers[2]!.server.address;
      expect(started.filter((s) => s.server === third).length).toBeLessThanOrEqual(1);
      for (const group of ['g1', 'g2', 'g3']) {
        expect(new Set(started.filter((s) => s.group === group && s.server !== third).map((s) => s.server)).size).toBe(1);
      }
      expect(new Set(started.map((s) => s.server)).size).toBeGreaterThanOrEqual(2);
      // Each episode really is where the fleet says.
      for (const s of started) expect(fleet.serverOf(s.id)).toBe(s.server);
      const step = await fleet.bash(started[0]!.id, 0, 'echo placed');
      expect(step.observation).toBe('placed\n');
    } finally {
      for (const s of started) await fleet.close(s.id);
    }
  });

  it('prefetches each task on the server its groups are then placed on (one Prefetch per server)', async () => {
    const two = await FleetClient.connect({ addresses: [servers[0]!.server.address, servers[1]!.server.address], infoTtlMs: 0 });
    const started: string[] = [];
    try {
      const taskIds = (await new SweEnvClient(servers[0]!.server.address).listTasks()).tasks.map((t) => t.taskId);
      const answers = await two.prefetch([...taskIds, 'no-such-task']);
      expect(answers.length).toBeLessThanOrEqual(2);
      const home = new Map<string, string>();
      for (const a of answers) {
        for (const image of a.images) {
          expect(image.phase).toBe('IMAGE_PHASE_PRESENT');
          for (const id of image.taskIds) home.set(id, a.server);
        }
      }
      expect([...home.keys()].sort()).toEqual([...taskIds].sort());
      expect(answers.flatMap((a) => a.unknownTaskIds)).toEqual(['no-such-task']);
      // One Prefetch per server. How many servers the tasks' homes cover depends on the servers'
      // ports (the rendezvous order hashes the address): all nine on one is 1 run in 256.
      expect(new Set(answers.map((a) => a.server)).size).toBe(answers.length);
      for (const taskId of taskIds) {
        const r = await two.reset({ taskId, groupId: `home-${taskId}` });
        started.push(r.episodeId);
        expect(r.server, taskId).toBe(home.get(taskId));
        await two.close(r.episodeId);
        started.pop();
      }
    } finally {
      for (const id of started) await two.close(id);
      two.dispose();
    }
  });

  it('RESOURCE_EXHAUSTED from a server the fleet thought had room moves the Reset to the next one', async () => {
    const small = servers[2]!;
    const filler = new SweEnvClient(small.server.address);
    const filled = await filler.reset({ taskId: 'swe-env-demo__minicalc-1' });
    // A fleet whose capacity reports are old: it believes the small server is empty.
    const stale = await FleetClient.connect({ addresses: [small.server.address, servers[0]!.server.address], infoTtlMs: 3_600_000 });
    const placed: string[] = [];
    try {
      const before = stale.servers.find((x) => x.address === small.server.address)!.info!.liveEpisodes;
      expect(before).toBe(1);
      // Trick it further: its report is from before the filler's episode.
      (stale.servers.find((x) => x.address === small.server.address)!.info as { liveEpisodes: number }).liveEpisodes = 0;
      // Each attempt has its own deadline: the full server holds the Reset until it passes, and the
      // next server must then start a container within it, which a loaded machine can take seconds over.
      for (let i = 0; i < 2; i++) {
        const r = await stale.reset({ taskId: 'swe-env-demo__minicalc-1', groupId: `stale-${i}` }, { timeoutS: 15 });
        placed.push(r.episodeId);
        expect(r.server).toBe(servers[0]!.server.address);
      }
    } finally {
      for (const id of placed) await stale.close(id);
      stale.dispose();
      await filler.close(filled.episodeId);
      filler.dispose();
    }
  });

  it('a server that stops answering: its episodes end as INFRA_ERROR (never a plain 0), new Resets go elsewhere', async () => {
    const victim = servers[1]!;
    const other = new SweEnvClient(victim.server.address);
    // An episode pinned on the victim through its group, and one elsewhere.
    // Groups are placed by task: one of the demo tasks hashes to the victim.
    const taskIds = (await other.listTasks()).tasks.map((t) => t.taskId);
    // Probes elsewhere stay open until one lands on the victim: a task may hash there, and if none
    // of them does, the bounded load sends the next groups there as the others fill.
    const probes: string[] = [];
    const onVictim = await (async () => {
      for (let i = 0; i < 16; i++) {
        const taskId = taskIds[i % taskIds.length]!;
        const r = await fleet.reset({ taskId, groupId: `probe-${i}` });
        if (r.server === victim.server.address) return r;
        probes.push(r.episodeId);
      }
      throw new Error('no probe was placed on the victim');
    })();
    for (const id of probes) await fleet.close(id);
    other.dispose();
    await victim.stop();
    const lost = await fleet.bash(onVictim.episodeId, 0, 'echo hi');
    expect(lost.status).toBe('STEP_STATUS_INFRA_ERROR');
    expect(lost.truncated).toBe(true);
    expect(SweEnvClient.structToObject(lost.info)['end_reason']).toBe('infra_error');
    expect(fleet.servers.find((s) => s.address === victim.server.address)!.down).toBe(true);
    const next = await fleet.reset({ taskId: 'swe-env-demo__minicalc-1', groupId: 'after' });
    expect(next.server).not.toBe(victim.server.address);
    expect((await fleet.bash(next.episodeId, 0, 'echo alive')).observation).toBe('alive\n');
    await fleet.close(next.episodeId);
    expect(await fleet.close(onVictim.episodeId)).toBeUndefined();
  });
});
