import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { SweEnvClient } from '../../src/client/client.js';
import { compileConfig } from '../../src/server/config.js';
import { makePki, type TestPki } from '../helpers/certs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A server meant for a network: bearer token on every call (health included) and TLS, mutual TLS
 * when asked; one bound beyond loopback without them refuses to start.
 */
const run = promisify(execFile);
const TOKEN = 'test-token-0123456789abcdef';
let pki: TestPki;
let tls: TestServer;
let mtls: TestServer;

beforeAll(async () => {
  pki = await makePki();
  const tokenFile = join(pki.dir, 'token');
  await writeFile(tokenFile, `${TOKEN}\n`);
  const security = { authTokenFile: tokenFile, tlsCertFile: pki.serverCert, tlsKeyFile: pki.serverKey };
  tls = await startTestServer({ security });
  mtls = await startTestServer({ security: { ...security, tlsClientCaFile: pki.caCert } });
}, 120_000);

afterAll(async () => {
  await tls?.stop();
  await mtls?.stop();
  await rm(pki.dir, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<number> {
  return promise.then(
    () => grpc.status.OK,
    (error: { code?: number }) => error.code ?? -1,
  );
}

describe('token and TLS', () => {
  it('a call with the token over TLS with the right CA is served', async () => {
    const client = new SweEnvClient(`localhost:${tls.server.port}`, {}, { token: TOKEN, ca: await pki.read(pki.caCert) });
    try {
      expect((await client.listTasks()).tasks.length).toBeGreaterThan(0);
      const info = await client.getServerInfo();
      expect(info.serverId).toBe(tls.server.config.serverId);
      expect(info.engine).toMatch(/Engine .*\(API \d+\.\d+\)$/);
      expect(info.runtime).toBe('runc');
    } finally {
      client.dispose();
    }
  });

  it('without the token, or with a wrong one: UNAUTHENTICATED, health check included', async () => {
    const ca = await pki.read(pki.caCert);
    for (const token of [undefined, 'wrong-token-0123456789abcdef']) {
      const client = new SweEnvClient(`localhost:${tls.server.port}`, {}, { ca, ...(token ? { token } : {}) });
      try {
        expect(await code(client.listTasks())).toBe(grpc.status.UNAUTHENTICATED);
        expect(await code(client.reset({ taskId: 'swe-env-demo__minicalc-1' }))).toBe(grpc.status.UNAUTHENTICATED);
      } finally {
        client.dispose();
      }
    }
    const definition = protoLoader.loadSync(healthProtoPath, { enums: String });
    const health = grpc.loadPackageDefinition(definition) as unknown as {
      grpc: {
        health: {
          v1: {
            Health: new (
              a: string,
              c: grpc.ChannelCredentials,
            ) => grpc.Client & { check(r: object, cb: (e: grpc.ServiceError | null) => void): void };
          };
        };
      };
    };
    const probe = new health.grpc.health.v1.Health(`localhost:${tls.server.port}`, grpc.credentials.createSsl(ca));
    const healthCode = await new Promise<number>((resolve) => probe.check({ service: '' }, (e) => resolve(e?.code ?? grpc.status.OK)));
    probe.close();
    expect(healthCode).toBe(grpc.status.UNAUTHENTICATED);
    expect(await tls.server.provider.listContainers()).toEqual([]); // the refused Reset started nothing
  });

  it('a client trusting another CA, or speaking plaintext, does not get through', async () => {
    const wrongCa = new SweEnvClient(`localhost:${tls.server.port}`, {}, { token: TOKEN, ca: await pki.read(pki.otherCaCert) });
    const plain = new SweEnvClient(`localhost:${tls.server.port}`, {}, { token: TOKEN });
    try {
      expect(await code(wrongCa.listTasks({}, { timeoutS: 5 }))).toBe(grpc.status.UNAVAILABLE);
      expect(await code(plain.listTasks({}, { timeoutS: 5 }))).toBe(grpc.status.UNAVAILABLE);
    } finally {
      wrongCa.dispose();
      plain.dispose();
    }
  });

  it('mutual TLS: no client certificate, no call; with one, served', async () => {
    const ca = await pki.read(pki.caCert);
    const anonymous = new SweEnvClient(`localhost:${mtls.server.port}`, {}, { token: TOKEN, ca });
    const known = new SweEnvClient(
      `localhost:${mtls.server.port}`,
      {},
      { token: TOKEN, ca, cert: await pki.read(pki.clientCert), key: await pki.read(pki.clientKey) },
    );
    try {
      expect(await code(anonymous.listTasks({}, { timeoutS: 5 }))).toBe(grpc.status.UNAVAILABLE);
      expect((await known.listTasks()).tasks.length).toBeGreaterThan(0);
    } finally {
      anonymous.dispose();
      known.dispose();
    }
  });

  it("`swe-env health` (the probes' command) passes through the token and TLS, and fails without the token", async () => {
    const cli = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
    const args = ['health', `--server=localhost:${tls.server.port}`, `--ca=${pki.caCert}`];
    const ok = await run('node', [cli, ...args, `--token-file=${join(pki.dir, 'token')}`]);
    expect(ok.stdout).toContain(tls.server.config.serverId);
    // Which engine and runtime serve the sandboxes, as the engine names them.
    expect(ok.stdout).toMatch(/; (Docker|Podman) Engine \S+ \(API \d+\.\d+\), runtime runc\n$/);
    const env = { ...process.env };
    delete env['SWE_ENV_AUTH_TOKEN'];
    await expect(run('node', [cli, ...args], { env })).rejects.toMatchObject({ code: 1 });
  });

  it('a server bound beyond loopback without a token and TLS refuses to start, saying what is missing', () => {
    expect(() => compileConfig({ host: '0.0.0.0' })).toThrow(/refusing to listen on 0\.0\.0\.0 .*bearer token.*TLS/);
    expect(() => compileConfig({ host: '10.1.2.3', security: { authToken: TOKEN } })).toThrow(/TLS \(--tls-cert and --tls-key\)/);
    expect(() =>
      compileConfig({ host: '0.0.0.0', security: { authToken: TOKEN, tlsCertFile: 'c.pem', tlsKeyFile: 'k.pem' } }),
    ).not.toThrow();
    expect(() => compileConfig({ host: '127.0.0.1' })).not.toThrow();
  });
});
