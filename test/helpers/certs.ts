import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestPki {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A CA that signed nothing here: a client trusting it must not reach the server. */
  readonly otherCaCert: string;
  read(path: string): Promise<Buffer>;
}

async function ca(dir: string, name: string): Promise<{ cert: string; key: string }> {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  return { cert, key };
}

async function leaf(dir: string, name: string, issuer: { cert: string; key: string }, san: string): Promise<{ cert: string; key: string }> {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.pem`);
  await run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', key, '-out', csr]);
  const ext = join(dir, `${name}.ext`);
  await run('bash', ['-c', `printf 'subjectAltName=${san}\\n' > ${ext}`]);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    issuer.cert,
    '-CAkey',
    issuer.key,
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    cert,
    '-extfile',
    ext,
  ]);
  return { cert, key };
}

/** A throwaway CA, a server certificate for localhost/127.0.0.1, a client certificate, and an unrelated CA. */
export async function makePki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'swe-env-pki-'));
  const root = await ca(dir, 'test-ca');
  const other = await ca(dir, 'other-ca');
  const server = await leaf(dir, 'server', root, 'DNS:localhost,IP:127.0.0.1');
  const client = await leaf(dir, 'client', root, 'DNS:client');
  return {
    dir,
    caCert: root.cert,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
    otherCaCert: other.cert,
    read: (path) => readFile(path),
  };
}
