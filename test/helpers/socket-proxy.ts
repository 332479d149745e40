import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A Unix-socket relay in front of the Docker engine's socket that a test can cut and restore: with
 * it cut, every open connection drops and new ones are refused at once, which is what a server sees
 * when the engine restarts or hangs up. Nothing else about the engine changes.
 */
export interface SocketProxy {
  readonly path: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startSocketProxy(target = '/var/run/docker.sock'): Promise<SocketProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'swe-env-proxy-'));
  const path = join(dir, 'docker.sock');
  const open = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = createConnection(target);
    open.add(client).add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return {
    path,
    cut: () => {
      down = true;
      for (const socket of open) socket.destroy();
      open.clear();
    },
    restore: () => {
      down = false;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
