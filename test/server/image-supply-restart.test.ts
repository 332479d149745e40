import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { DockerSandboxProvider } from '../../src/sandbox/docker-sandbox.js';
import { killCliServers, serveCli, stopCli } from '../helpers/cli-server.js';
import { startRegistry, stopAllRegistries, type LocalRegistry } from '../helpers/local-registry.js';
import { imagePresent, removeImages } from '../helpers/registry-images.js';
import { manifestGets, pushTaskImage, viaHost, writeRegistryConfig, writeTaskFile } from '../helpers/task-images.js';

/**
 * A server (the real CLI, its own process) SIGKILLed while it pulls a task's image from a real
 * registry; a new server with the same id starts and a Reset of that task succeeds.
 */
const docker = new Docker();
const auth = { user: 'trainer', password: 'correct horse' };
const TASK = 'swe-env-demo__minicalc-3';
const made = new Set<string>();
const dir = mkdtempSync(join(tmpdir(), 'swe-env-image-restart-'));
const clients: SweEnvClient[] = [];
let registry: LocalRegistry;
let slow: SlowProxy;
let provider: DockerSandboxProvider | undefined;

interface SlowProxy {
  readonly host: string;
  /** Blob bytes sent to the engine so far. */
  blobBytes(): number;
  requests(): { method: string; path: string; status: number }[];
  stop(): Promise<void>;
}

/** Forwards to the registry, sending blobs at about 1.6 MB/s: a pull of a few MB lasts seconds. */
async function startSlowProxy(target: string): Promise<SlowProxy> {
  const [hostname, port] = target.split(':');
  let blobBytes = 0;
  const seen: { method: string; path: string; status: number }[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const blob = /\/blobs\/sha256:/.test(path);
    const upstream = request({ hostname, port: Number(port), method: req.method, path, headers: req.headers }, (answer) => {
      seen.push({ method: req.method ?? 'GET', path, status: answer.statusCode ?? 502 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (!blob) return void answer.pipe(res);
      const trickle = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          blobBytes += chunk.length;
          setTimeout(() => callback(null, chunk), Math.ceil(chunk.length / 1600));
        },
      });
      answer.pipe(trickle).pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the slow proxy has no address');
  return {
    host: `127.0.0.1:${address.port}`,
    blobBytes: () => blobBytes,
    requests: () => [...seen],
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

beforeAll(async () => {
  registry = await startRegistry({ auth });
  slow = await startSlowProxy(registry.host);
}, 120_000);

afterAll(async () => {
  for (const c of clients) c.dispose();
  killCliServers();
  await provider?.removeServerContainers().catch(() => undefined);
  await slow?.stop();
  await removeImages(docker, made);
  await stopAllRegistries();
  rmSync(dir, { recursive: true, force: true });
});

describe('a server killed while it pulls', () => {
  it('is replaced by a server with the same id, whose Reset of the task pulls (or finds) the image and starts the episode', async () => {
    // 8 MB of its own: about 5 s through the slow proxy.
    const image = viaHost(await pushTaskImage(docker, registry, TASK, 'restart', made, 8), slow.host);
    made.add(image);
    expect(await imagePresent(docker, image)).toBe(false);
    const serverId = `test-pull-restart-${randomUUID().slice(0, 8)}`;
    provider = new DockerSandboxProvider(serverId);
    const args = [
      '--server-id',
      serverId,
      '--state-dir',
      join(dir, 'state'),
      '--no-trajectories',
      '--tasks',
      writeTaskFile(dir, { [TASK]: image }),
      '--registry-config',
      writeRegistryConfig(dir, { [slow.host]: auth }),
      '--pull-backoff',
      '0.2',
      '--shutdown-grace',
      '2',
    ];

    const first = await serveCli(args);
    const a = new SweEnvClient(first.address);
    clients.push(a);
    const interrupted = a.reset({ taskId: TASK, episodeId: 'restart-1' }, { timeoutS: 120 }).then(
      () => 'answered',
      (error: { code?: number }) => `failed ${error.code}`,
    );
    // The engine is downloading the image's own layer for this server: kill it there.
    await expect.poll(() => slow.blobBytes(), { timeout: 60_000, interval: 20 }).toBeGreaterThan(0);
    expect(await imagePresent(docker, image)).toBe(false);
    await stopCli(first.child, 'SIGKILL');
    expect(await interrupted).toMatch(/^failed /);

    const second = await serveCli(args);
    const b = new SweEnvClient(second.address);
    clients.push(b);
    const { episodeId } = await b.reset({ taskId: TASK, episodeId: 'restart-1' }, { timeoutS: 120 });
    expect(episodeId).toBe('restart-1');
    const look = await b.bash(episodeId, 0, 'wc -c < /opt/swe-env-test-payload && git rev-parse --is-inside-work-tree');
    expect([look.status, look.observation.trim().split('\n')]).toEqual(['STEP_STATUS_OK', [String(8 * 1024 * 1024), 'true']]);
    const info = await b.getServerInfo();
    expect(info.serverId).toBe(serverId);
    expect(info.images).toEqual([image]);
    const manifests = slow
      .requests()
      .filter((r) => r.path.includes('/manifests/'))
      .map((r) => `${r.method} ${r.path.slice(r.path.lastIndexOf('/') + 1, r.path.lastIndexOf('/') + 16)}`);
    console.info(
      `pull restart: manifest requests ${manifests.join(', ')} (${manifestGets(slow.requests(), image)} GETs); blob bytes sent ${slow.blobBytes()}; pulls done by the new server ${info.imageSupply!.pullsDone}`,
    );
    expect(info.imageSupply!.pullsDone).toBe(1);
    await b.close(episodeId);
    await stopCli(second.child, 'SIGTERM');
    expect(await provider.listContainers()).toEqual([]);
  });
});
