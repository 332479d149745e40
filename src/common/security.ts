import { timingSafeEqual } from 'node:crypto';

/** Where a server's credentials come from (files, read once at start). */
export interface ServerSecurity {
  /** A bearer token every call must carry (`authorization: Bearer <token>`). */
  readonly authTokenFile?: string;
  /** The token itself (from SWE_ENV_AUTH_TOKEN), when no file is given. */
  readonly authToken?: string;
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
  /** Clients must present a certificate signed by this CA (mutual TLS). */
  readonly tlsClientCaFile?: string;
}

/** Compares a presented secret with the expected one in constant time. */
export function sameSecret(got: string, expected: Buffer): boolean {
  const value = Buffer.from(got);
  return value.length === expected.length && timingSafeEqual(value, expected);
}
