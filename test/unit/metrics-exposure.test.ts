import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rm } from 'node:fs/promises';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveMetrics, type MetricsEndpoint } from '../../src/metrics/metrics-http.js';
import { compileConfig } from '../../src/server/config.js';
import { makePki, type TestPki } from '../helpers/certs.js';

// Family 7: /metrics had no token, and --metrics-host 0.0.0.0 started without token or TLS. It now
// follows the gRPC port's rules.
const TOKEN = 'a-metrics-token-of-some-length';
let pki: TestPki;
let endpoint: MetricsEndpoint;

beforeAll(async () => {
  pki = await makePki();
  const registry = new Registry();
  new Counter({ name: 'swe_env_probe_total', help: 'probe', registers: [registry] }).inc();
  endpoint = await serveMetrics(registry, '127.0.0.1', 0, {
    token: TOKEN,
    security: { authToken: TOKEN, tlsCertFile: pki.serverCert, tlsKeyFile: pki.serverKey },
  });
});

afterAll(async () => {
  await endpoint?.close();
  if (pki) await rm(pki.dir, { recursive: true, force: true });
});

function get(options: { tls: boolean; token?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const common = {
      host: '127.0.0.1',
      port: endpoint.port,
      path: '/metrics',
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    };
    const done = (response: import('node:http').IncomingMessage): void => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    };
    pki
      .read(pki.caCert)
      .then((ca) => {
        const req = options.tls ? httpsRequest({ ...common, ca, servername: 'localhost' }, done) : httpRequest(common, done);
        req.on('error', reject);
        req.end();
      })
      .catch(reject);
  });
}

describe('the metrics endpoint', () => {
  it('refuses to start off loopback without a token and TLS, like the gRPC port', () => {
    expect(() => compileConfig({ metricsPort: 0, metricsHost: '0.0.0.0' })).toThrow(
      /refusing to serve metrics on 0\.0\.0\.0 \(not loopback\) without a bearer token .* and TLS/,
    );
    expect(() => compileConfig({ metricsPort: 0, metricsHost: '0.0.0.0', security: { authToken: TOKEN } })).toThrow(/without TLS/);
    expect(() =>
      compileConfig({
        metricsPort: 0,
        metricsHost: '0.0.0.0',
        security: { authToken: TOKEN, tlsCertFile: '/x.pem', tlsKeyFile: '/x.key' },
      }),
    ).not.toThrow();
    // Not served at all: nothing to check.
    expect(() => compileConfig({ metricsHost: '0.0.0.0' })).not.toThrow();
  });

  it('answers only requests carrying the bearer token, over TLS with the server’s certificate', async () => {
    expect((await get({ tls: true })).status).toBe(401);
    expect((await get({ tls: true, token: 'wrong-token-of-the-same-len' })).status).toBe(401);
    const ok = await get({ tls: true, token: TOKEN });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('swe_env_probe_total 1');
    // Plain HTTP gets no metrics from a TLS port.
    const plain = await get({ tls: false, token: TOKEN }).catch((error: unknown) => ({ status: -1, body: String(error) }));
    expect(plain.status === -1 || plain.status === 400).toBe(true);
    expect(plain.body).not.toContain('swe_env_probe_total');
  });
});
