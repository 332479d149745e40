import { status as GrpcStatus } from '@grpc/grpc-js';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';
import { BASE_IMAGE, testSpec } from '../helpers/docker.js';
import { callWithServerDeadline } from '../helpers/server-deadline-call.js';

const servers: TestServer[] = [];

afterAll(async () => {
  for (const s of servers) {
    await s.stop();
    await expectNoContainers(s.server.provider);
  }
});

describe('admission control', () => {
  it('answers RESOURCE_EXHAUSTED when the server is full until the deadline, and admits again after a Close', async () => {
    const t = await startTestServer({ maxEpisodes: 1 });
    servers.push(t);
    const first = await t.client.reset({ taskId: 'swe-env-demo__textkit-1' });
    const started = Date.now();
    // The deadline is the server's alone, so the answer read is the server's, however busy the loop.
    const error = await callWithServerDeadline(t.server.address, 'Reset', { taskId: 'swe-env-demo__textkit-1' }, 5_000);
    expect(error.code, error.details).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(error.details).toMatch(/server is full: 1 live episodes/);
    expect(Date.now() - started).toBeGreaterThan(1000);

    // A waiting Reset is admitted as soon as a slot frees.
    const waiting = t.client.reset({ taskId: 'swe-env-demo__textkit-1' }, { timeoutS: 30 });
    await new Promise((r) => setTimeout(r, 300));
    await t.client.close(first.episodeId);
    const second = await waiting;
    expect(second.episodeId).not.toBe(first.episodeId);
    await t.client.close(second.episodeId);
  });
});

describe('a Reset whose caller gives up', () => {
  it('leaves no container behind, whichever phase the deadline hits', async () => {
    const t = await startTestServer();
    servers.push(t);
    let gaveUp = 0;
    for (const timeoutS of [0.02, 0.05, 0.08, 0.11, 0.14]) {
      const r = await t.client.reset({ taskId: 'swe-env-demo__textkit-1' }, { timeoutS }).catch(() => undefined);
      if (r)
        await t.client.close(r.episodeId); // in time after all: an ordinary episode
      else gaveUp += 1;
    }
    expect(gaveUp).toBeGreaterThanOrEqual(3);
    // A Reset given up on mid-create still finishes the create and start, then removes the container.
    await expect.poll(() => t.server.registry.liveCount, { timeout: 30_000, interval: 100 }).toBe(0);
    await expectNoContainers(t.server.provider);
  });
});

describe('start-up and shutdown', () => {
  it('removes containers a crashed predecessor with the same server id left behind', async () => {
    const serverId = `test-reaper-${Date.now()}`;
    const crashed = new DockerSandboxProvider(serverId);
    const leftover = await crashed.create(testSpec({ image: BASE_IMAGE }));
    expect(await leftover.isRunning()).toBe(true);
    const t = await startTestServer({ serverId });
    servers.push(t);
    expect(await crashed.listContainers()).toEqual([]);
  });

  it('reaps containers past their expiry label whichever server made them', async () => {
    const other = new DockerSandboxProvider(`test-expired-${Date.now()}`);
    // Expires in 30 s; every other test's container lives 600 s or more, so "now + 40 s" reaps only this one.
    const box = await other.create(testSpec({ image: BASE_IMAGE, maxLifetimeS: 30 }));
    try {
      expect(await other.listContainers()).toHaveLength(1);
      expect(await other.removeExpired(new Date(Date.now() + 40_000))).toBeGreaterThanOrEqual(1);
      expect(await other.listContainers()).toEqual([]);
    } finally {
      await box.remove();
    }
  });

  it('serves grpc.health.v1 and removes every episode container on shutdown', async () => {
    const t = await startTestServer();
    const definition = protoLoader.loadSync(healthProtoPath, { enums: String });
    const health = grpc.loadPackageDefinition(definition) as unknown as {
      grpc: { health: { v1: { Health: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client & { check: unknown } } } };
    };
    const client = new health.grpc.health.v1.Health(t.server.address, grpc.credentials.createInsecure());
    const answer = await new Promise<{ status: string }>((resolve, reject) =>
      (client.check as (req: object, cb: (e: Error | null, r: { status: string }) => void) => void).call(
        client,
        { service: 'swe_env.v1.SweEnv' },
        (e, r) => (e ? reject(e) : resolve(r)),
      ),
    );
    expect(answer.status).toBe('SERVING');
    client.close();

    // Server reflection (what grpcurl uses): the service and its file descriptor are discoverable.
    const reflectionProto = join(packageRoot(), 'node_modules/@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
    const reflection = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto, { keepCase: true })) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client } } };
    };
    const rc = new reflection.grpc.reflection.v1.ServerReflection(t.server.address, grpc.credentials.createInsecure());
    type ReflectionReply = { list_services_response?: { service: Array<{ name: string }> } };
    const services = await new Promise<string[]>((resolve, reject) => {
      const stream = (rc as unknown as Record<string, () => grpc.ClientDuplexStream<object, ReflectionReply>>)[
        'ServerReflectionInfo'
      ]!.call(rc);
      stream.on('data', (m: ReflectionReply) => {
        resolve((m.list_services_response?.service ?? []).map((x) => x.name));
        stream.end();
      });
      stream.on('error', reject);
      stream.write({ list_services: '' });
    });
    rc.close();
    expect(services).toContain('swe_env.v1.SweEnv');

    const a = await t.client.reset({ taskId: 'swe-env-demo__intervals-1' });
    const b = await t.client.reset({ taskId: 'swe-env-demo__intervals-2' });
    expect(a.episodeId).not.toBe(b.episodeId);
    expect(await t.server.provider.listContainers()).toHaveLength(2);
    await t.stop();
    await expectNoContainers(t.server.provider);
  });
});
