import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { sameSecret, type ServerSecurity } from '../common/security.js';
import { readOptionFile } from '../common/option-file.js';

export interface MetricsEndpoint {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves GET /metrics in Prometheus' text format on a port of its own, read-only, under the gRPC
 * port's rules: with the server's bearer token, every request must carry it (`authorization:
 * Bearer <token>`, 401 otherwise); with the server's certificate, it is HTTPS (and with a client CA,
 * clients must present a certificate it signed). Off loopback the configuration refuses to start
 * without both (config.ts).
 */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
  access: { readonly token?: string | undefined; readonly security?: ServerSecurity } = {},
): Promise<MetricsEndpoint> {
  const expected = access.token === undefined ? undefined : Buffer.from(`Bearer ${access.token}`);
  const handle = (request: IncomingMessage, response: ServerResponse): void => {
    if (expected) {
      const got = request.headers.authorization;
      if (typeof got !== 'string' || !sameSecret(got, expected)) {
        response
          .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' })
          .end('this endpoint needs a bearer token: authorization: Bearer <token>\n');
        return;
      }
    }
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics is served here\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
    );
  };
  const security = access.security ?? {};
  let server: Server;
  if (security.tlsCertFile && security.tlsKeyFile) {
    const ca = security.tlsClientCaFile ? readOptionFile('--tls-client-ca', security.tlsClientCaFile) : undefined;
    server = createTlsServer(
      {
        cert: readOptionFile('--tls-cert', security.tlsCertFile),
        key: readOptionFile('--tls-key', security.tlsKeyFile),
        ...(ca ? { ca, requestCert: true, rejectUnauthorized: true } : {}),
      },
      handle,
    );
  } else {
    server = createServer(handle);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
