import { isIP } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { InvalidArgumentError } from '../common/errors.js';
import { readOptionFile } from '../common/option-file.js';
import { sameSecret, type ServerSecurity } from '../common/security.js';

export { sameSecret, type ServerSecurity } from '../common/security.js';

/** 127.0.0.0/8, ::1 and localhost: a server there is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '[::1]';
}

/**
 * A server bound to anything but loopback serves sandboxes that run arbitrary commands: it refuses
 * to start without a token and TLS. Loopback stays as simple as before (both optional).
 */
export function checkExposure(host: string, security: ServerSecurity, what = 'listen'): void {
  if (isLoopback(host)) return;
  const token = Boolean(security.authTokenFile ?? security.authToken);
  const tls = Boolean(security.tlsCertFile && security.tlsKeyFile);
  if (!token || !tls) {
    throw new InvalidArgumentError(
      `refusing to ${what} on ${host} (not loopback) without ${[!token && 'a bearer token (--auth-token-file or SWE_ENV_AUTH_TOKEN)', !tls && 'TLS (--tls-cert and --tls-key)'].filter(Boolean).join(' and ')}`,
    );
  }
}

export function readToken(security: ServerSecurity): string | undefined {
  const token = security.authTokenFile
    ? readOptionFile('--auth-token-file', security.authTokenFile).toString('utf8').trim()
    : security.authToken?.trim();
  if (token === undefined) return undefined;
  if (token.length < 16) throw new InvalidArgumentError('the auth token must be at least 16 characters');
  return token;
}

export function serverCredentials(security: ServerSecurity): grpc.ServerCredentials {
  if (!security.tlsCertFile || !security.tlsKeyFile) {
    if (security.tlsCertFile || security.tlsKeyFile || security.tlsClientCaFile)
      throw new InvalidArgumentError('TLS needs both --tls-cert and --tls-key');
    return grpc.ServerCredentials.createInsecure();
  }
  const ca = security.tlsClientCaFile ? readOptionFile('--tls-client-ca', security.tlsClientCaFile) : null;
  return grpc.ServerCredentials.createSsl(
    ca,
    [{ cert_chain: readOptionFile('--tls-cert', security.tlsCertFile), private_key: readOptionFile('--tls-key', security.tlsKeyFile) }],
    ca !== null,
  );
}

/**
 * Checks the bearer token on every call, health and reflection included, before any handler
 * sees it: a call without it ends UNAUTHENTICATED and its messages are never delivered.
 */
export function bearerTokenInterceptor(token: string): grpc.ServerInterceptor {
  const expected = Buffer.from(`Bearer ${token}`);
  return (_method, call) => {
    let denied = false;
    return new grpc.ServerInterceptingCall(call, {
      start: (next) => {
        next({
          onReceiveMetadata: (metadata, nextMetadata) => {
            const got = metadata.get('authorization')[0];
            if (typeof got !== 'string' || !sameSecret(got, expected)) {
              denied = true;
              call.sendStatus({
                code: grpc.status.UNAUTHENTICATED,
                details: 'this server needs a bearer token: authorization: Bearer <token>',
              });
              return;
            }
            nextMetadata(metadata);
          },
          onReceiveMessage: (message, nextMessage) => {
            if (!denied) nextMessage(message);
          },
          onReceiveHalfClose: (nextHalfClose) => {
            if (!denied) nextHalfClose();
          },
        });
      },
    });
  };
}
