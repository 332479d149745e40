import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { makePki } from './certs.js';
import { CERTS_D, OWNER_FILE, registerExitKill, sweepLeftovers, unregisterExitKill } from './registry-leftovers.js';
import { followProgress, removeImages, type RegistryAuthConfig } from './registry-images.js';

const run = promisify(execFile);
const REGISTRY_BIN = '/usr/bin/docker-registry';

export interface RegistryOptions {
  /** htpasswd (bcrypt) Basic auth for every request but none. */
  auth?: { user: string; password: string };
  /** HTTPS with a throw-away CA the Docker engine trusts through /etc/docker/certs.d/HOST/ca.crt. */
  tls?: boolean;
}

/** One line of the registry's access log. */
export interface RegistryRequest {
  method: string;
  path: string;
  status: number;
}

export interface LocalRegistry {
  /** `127.0.0.1:PORT`, the registry part of an image reference. */
  readonly host: string;
  /** `http://127.0.0.1:PORT` or `https://...`. */
  readonly url: string;
  /** The CA certificate's path (TLS only): trusted by the engine already; for a Node client's `ca`. */
  readonly caCertPath: string | undefined;
  /** The credentials (when `auth` was given) for `serveraddress`, by default this registry's host. */
  authconfig(serveraddress?: string): RegistryAuthConfig;
  /** Tags `localImage` as HOST/repository:tag, pushes it, untags it; returns HOST/repository:tag. */
  push(localImage: string, repository: string, tag?: string): Promise<string>;
  /** Every request the registry answered so far (from its access log), oldest first. */
  requests(): RegistryRequest[];
  /** The registry's output so far (for failure messages). */
  logs(): string;
  /** Kills the registry and removes its data, certificates and certs.d entry. Idempotent. */
  stop(): Promise<void>;
}

const running = new Set<LocalRegistry>();

/** Stops every registry this process started and has not stopped; call it from `afterAll`. */
export async function stopAllRegistries(): Promise<void> {
  await Promise.allSettled([...running].map((registry) => registry.stop()));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

interface Tls {
  certificate: string;
  key: string;
  caCertPath: string;
}

/**
 * A throw-away CA and a server certificate for 127.0.0.1 (makePki's), copied into the registry's
 * own temp dir at once so that the leftovers sweep, which knows that dir, also covers them.
 */
async function makeTls(dir: string): Promise<Tls> {
  const pki = await makePki();
  try {
    const tlsDir = join(dir, 'tls');
    mkdirSync(tlsDir);
    const tls = { certificate: join(tlsDir, 'server.pem'), key: join(tlsDir, 'server.key'), caCertPath: join(tlsDir, 'ca.pem') };
    copyFileSync(pki.serverCert, tls.certificate);
    copyFileSync(pki.serverKey, tls.key);
    copyFileSync(pki.caCert, tls.caCertPath);
    return tls;
  } finally {
    rmSync(pki.dir, { recursive: true, force: true });
  }
}

function configYaml(dir: string, port: number, auth: boolean, tls: Tls | undefined): string {
  const lines = [
    'version: 0.1',
    'log:',
    '  level: warn',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'data')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    // A fixed secret silences the registry's warning; upload state never outlives one instance.
    '  secret: swe-env-test-registry',
  ];
  if (tls) lines.push('  tls:', `    certificate: ${tls.certificate}`, `    key: ${tls.key}`);
  if (auth) lines.push('auth:', '  htpasswd:', '    realm: swe-env-test', `    path: ${join(dir, 'htpasswd')}`);
  return `${lines.join('\n')}\n`;
}

/** Answers true once `GET /v2/` gets any HTTP answer (200, or 401 behind auth). */
async function answers(url: string, ca: Buffer | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = get(`${url}/v2/`, { method: 'GET', ca, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200 || res.statusCode === 401);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function waitUntilReady(child: ChildProcess, url: string, ca: Buffer | undefined, logs: () => string): Promise<void> {
  // Bounded by attempts, not by a clock: 200 tries of at most 2 s each, 50 ms apart.
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    if (await answers(url, ca)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the registry at ${url} did not come up:\n${logs()}`);
}

/** Spawns the registry so that it dies with this process even on SIGKILL (setpriv's parent-death signal). */
function spawnRegistry(config: string): ChildProcess {
  const argv = existsSync('/usr/bin/setpriv')
    ? ['/usr/bin/setpriv', '--pdeathsig', 'SIGKILL', REGISTRY_BIN, 'serve', config]
    : [REGISTRY_BIN, 'serve', config];
  const [command, ...args] = argv as [string, ...string[]];
  return spawn(command, args, { detached: false, stdio: ['ignore', 'pipe', 'pipe'] });
}

function parseAccessLog(output: string): RegistryRequest[] {
  const requests: RegistryRequest[] = [];
  for (const match of output.matchAll(/"([A-Z]+) (\S+) HTTP\/[\d.]+" (\d{3}) /g)) {
    requests.push({ method: match[1] ?? '', path: match[2] ?? '', status: Number(match[3]) });
  }
  return requests;
}

interface Launched {
  child: ChildProcess;
  host: string;
  url: string;
  output: () => string;
}

/** Waits for a spawned registry; undefined when its port was taken (worth another port, twice). */
async function launchedOrRetry(child: ChildProcess, host: string, tls: Tls | undefined, attempt: number): Promise<Launched | undefined> {
  let output = '';
  const append = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const url = `${tls ? 'https' : 'http'}://${host}`;
  try {
    await waitUntilReady(child, url, tls ? await readFile(tls.caCertPath) : undefined, () => output);
    return { child, host, url, output: () => output };
  } catch (error) {
    await stopChild(child);
    unregisterExitKill(child);
    if (attempt < 2 && output.includes('address already in use')) return undefined;
    throw error;
  }
}

/**
 * Starts Debian's distribution registry (v2.8, `scripts/setup.sh` installs it) on a free loopback
 * port with filesystem storage in a temp dir and deletes enabled. Without TLS the engine reaches it
 * over plain HTTP (127.0.0.0/8 is an insecure registry by default).
 */
export async function startRegistry(options: RegistryOptions = {}): Promise<LocalRegistry> {
  await sweepLeftovers();
  const dir = mkdtempSync(join(tmpdir(), 'swe-env-registry-'));
  writeFileSync(join(dir, OWNER_FILE), `${process.pid}\n`);
  let tls: Tls | undefined;
  let certsDir: string | undefined;
  let child: ChildProcess | undefined;
  const removeFiles = (): void => {
    for (const path of [dir, certsDir]) if (path) rmSync(path, { recursive: true, force: true });
  };
  try {
    if (options.auth) {
      const { stdout } = await run('htpasswd', ['-Bbn', options.auth.user, options.auth.password]);
      writeFileSync(join(dir, 'htpasswd'), stdout);
    }
    if (options.tls) tls = await makeTls(dir);
    // A free port can be taken between our probe and the registry's bind: then try another one.
    let launched: Launched | undefined;
    for (let attempt = 0; !launched; attempt++) {
      const port = await freePort();
      const host = `127.0.0.1:${port}`;
      if (tls) certsDir = trustInEngine(host, await readFile(tls.caCertPath));
      writeFileSync(join(dir, 'config.yml'), configYaml(dir, port, options.auth !== undefined, tls));
      child = spawnRegistry(join(dir, 'config.yml'));
      writeFileSync(join(dir, 'registry.pid'), `${child.pid ?? ''}\n`);
      registerExitKill(child, removeFiles);
      launched = await launchedOrRetry(child, host, tls, attempt);
      if (!launched && certsDir) rmSync(certsDir, { recursive: true, force: true });
    }
    const { host, url, output } = launched;
    const registry = makeHandle({ host, url, tls, options, child: launched.child, output, removeFiles });
    running.add(registry);
    return registry;
  } catch (error) {
    if (child) {
      child.kill('SIGKILL');
      unregisterExitKill(child);
    }
    removeFiles();
    throw error;
  }
}

/** The engine trusts a registry's CA per `host:port` directory; it reads it on each connection, no restart. */
function trustInEngine(host: string, ca: Buffer): string {
  const certsDir = join(CERTS_D, host);
  mkdirSync(certsDir, { recursive: true });
  writeFileSync(join(certsDir, 'ca.crt'), ca);
  // Read by the leftovers sweep; the engine ignores files not named *.crt, *.cert or *.key.
  writeFileSync(join(certsDir, OWNER_FILE), `${process.pid}\n`);
  return certsDir;
}

interface HandleParts {
  host: string;
  url: string;
  tls: Tls | undefined;
  options: RegistryOptions;
  child: ChildProcess;
  output: () => string;
  removeFiles: () => void;
}

function makeHandle(parts: HandleParts): LocalRegistry {
  const { host, url, tls, options, child, output, removeFiles } = parts;
  const docker = new Docker();
  const authconfig = (serveraddress = host): RegistryAuthConfig =>
    options.auth ? { username: options.auth.user, password: options.auth.password, serveraddress } : { serveraddress };
  let stopped: Promise<void> | undefined;
  const registry: LocalRegistry = {
    host,
    url,
    caCertPath: tls?.caCertPath,
    authconfig,
    push: async (localImage, repository, tag = 'latest') => {
      const reference = `${host}/${repository}:${tag}`;
      await docker.getImage(localImage).tag({ repo: `${host}/${repository}`, tag });
      try {
        // The engine insists on an X-Registry-Auth header on push, even an empty one.
        const stream = await docker.getImage(`${host}/${repository}`).push({ tag, authconfig: authconfig() });
        await followProgress(docker, stream);
      } finally {
        await removeImages(docker, [reference]);
      }
      return reference;
    },
    requests: () => parseAccessLog(output()),
    logs: output,
    stop: () => {
      stopped ??= stopChild(child).then(() => {
        unregisterExitKill(child);
        removeFiles();
        running.delete(registry);
      });
      return stopped;
    },
  };
  return registry;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}
