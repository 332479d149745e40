/**
 * Grading containers' 'offline' network: loopback only, with every other address routed into
 * loopback where packets die. A connect to an unroutable address then times out (what psf/requests'
 * TestTimeout tests expect, and what they get under the harness) instead of failing at once with
 * "Network is unreachable"; nothing outside the container, the host included, can be reached; the
 * route is set by a helper from the pristine image (its `ip`, else its python), never by anything
 * the sandbox holds, and the sandbox itself gets no NET_ADMIN. Agents' sandboxes keep no route.
 * The helper's report reaches the server before the helper exits: it waits for the server's word.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker-container.js';
import { setOfflineRoute, type NetworkHelper } from '../../src/sandbox/offline-network/offline-route.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { BASE_IMAGE, disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { buildFromFiles, removeImages } from '../helpers/registry-images.js';

const provider = testProvider();
const docker = new Docker();
const sandboxes: Sandbox[] = [];
const images: string[] = [];
const tag = `${process.pid}-${Date.now()}`;
const WITH_IP = `swe-env-test/offline-ip:${tag}`;
const NO_PYTHON = `swe-env-test/offline-nopython:${tag}`;
let hostServer: Server;
let hostPort = 0;
let hostConnections = 0;

/** What a connect from inside the sandbox came to: "connected", "timeout" or the error's errno name. */
const PROBE = `
import errno, socket, sys
s = socket.socket()
s.settimeout(float(sys.argv[3]))
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
    print("connected")
except socket.timeout:
    print("timeout")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
`;

async function probe(sandbox: Sandbox, host: string, port: number, timeoutS = 1.5): Promise<string> {
  const run = await sandbox.exec(['python3', '-c', PROBE, host, String(port), String(timeoutS)], { timeoutMs: 60_000 });
  return run.output.toString('utf8').trim();
}

async function open(image: string, network: 'offline' | undefined, role: 'grader' | 'episode' = 'grader'): Promise<Sandbox> {
  const sandbox = await provider.create(testSpec({ image, role, ...(network ? { network } : {}) }));
  sandboxes.push(sandbox);
  return sandbox;
}

/** The host's own `ip` and the libraries it needs, over the base image (both Debian 12): an image with iproute2 and no package download. */
async function imageWithIp(): Promise<void> {
  const libs = ['libbpf.so.1', 'libelf.so.1', 'libmnl.so.0', 'libbsd.so.0', 'libcap.so.2', 'libz.so.1', 'libmd.so.0'];
  const files: Record<string, Buffer | string | { content: Buffer; mode: number }> = {
    ip: { content: await readFile('/usr/sbin/ip'), mode: 0o755 },
  };
  for (const lib of libs) files[lib] = await readFile(`/lib/x86_64-linux-gnu/${lib}`);
  files['Dockerfile'] = [`FROM ${BASE_IMAGE}`, 'COPY ip /usr/sbin/ip', ...libs.map((l) => `COPY ${l} /usr/lib/x86_64-linux-gnu/${l}`)].join(
    '\n',
  );
  images.push(await buildFromFiles(docker, WITH_IP, files));
}

/** The base image with every python taken away (committed from a container: a build's RUN would want a network). */
async function imageWithoutPython(): Promise<void> {
  const container = await docker.createContainer({
    Image: BASE_IMAGE,
    Entrypoint: [''],
    Cmd: ['bash', '-c', 'rm -f /usr/bin/python3* /usr/bin/python /usr/local/bin/python3*'],
    NetworkDisabled: true,
    HostConfig: { NetworkMode: 'none' },
  });
  try {
    await container.start();
    await container.wait();
    const [repo, version] = NO_PYTHON.split(':') as [string, string];
    await container.commit({ repo, tag: version });
    images.push(NO_PYTHON);
  } finally {
    await container.remove({ force: true });
  }
}

beforeAll(async () => {
  await Promise.all([imageWithIp(), imageWithoutPython()]);
  hostServer = createServer((socket) => {
    hostConnections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => hostServer.listen(0, '0.0.0.0', resolve));
  hostPort = (hostServer.address() as { port: number }).port;
}, 300_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (hostServer ? hostServer.close(() => resolve()) : resolve()));
  await disposeAll(provider, sandboxes);
  await removeImages(docker, images);
  expect(await provider.listContainers()).toEqual([]);
}, 120_000);

describe("an 'offline' grading sandbox", () => {
  it('times out a connect to an unroutable address, where a network-less sandbox fails at once', async () => {
    const offline = await open(BASE_IMAGE, 'offline');
    expect(offline.offlineRoute).toEqual({ applied: true, via: 'python' });
    const plain = await open(BASE_IMAGE, undefined);
    expect(plain.offlineRoute).toBeUndefined();
    expect(await probe(offline, '10.255.255.1', 80)).toBe('timeout');
    expect(await probe(plain, '10.255.255.1', 80)).toBe('ENETUNREACH');
    // Name lookups still fail at once (the resolver's servers are unreachable), never by waiting them out.
    const lookup = await offline.exec(
      [
        'python3',
        '-c',
        'import socket\ntry:\n    socket.getaddrinfo("swe-env.invalid", 80)\nexcept socket.gaierror as e:\n    print("gaierror", e.errno)\n',
      ],
      { timeoutMs: 60_000 },
    );
    expect(lookup.output.toString()).toMatch(/^gaierror -?\d+/);
  });

  it('keeps loopback and reaches nothing outside: the host answers on all its addresses, the sandbox connects to none', async () => {
    const offline = await open(BASE_IMAGE, 'offline');
    const local = await offline.exec(
      [
        'python3',
        '-c',
        'import socket\ns = socket.socket()\ns.bind(("127.0.0.1", 0))\ns.listen()\nc = socket.create_connection(s.getsockname(), timeout=5)\nprint("loopback ok")\n',
      ],
      { timeoutMs: 60_000 },
    );
    expect(local.output.toString()).toContain('loopback ok');
    const addresses = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && a.family === 'IPv4' && !a.internal)
      .map((a) => a!.address);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) {
      expect(await probe(offline, address, hostPort), address).toBe('timeout');
    }
    expect(hostConnections).toBe(0);
  });

  it("gives the sandbox's own processes no NET_ADMIN: root inside cannot change the routes", async () => {
    const offline = await open(BASE_IMAGE, 'offline');
    const flush = await offline.exec(
      [
        'python3',
        '-c',
        [
          'import socket, struct',
          'body = struct.pack("BBBBBBBBI", socket.AF_INET, 0, 0, 0, 254, 3, 253, 1, 0) + struct.pack("HHI", 8, 4, socket.if_nametoindex("lo"))',
          's = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)',
          's.send(struct.pack("IHHII", 16 + len(body), 25, 0x5, 1, 0) + body)', // RTM_DELROUTE, REQUEST|ACK
          'print("errno", -struct.unpack("i", s.recv(4096)[16:20])[0])',
        ].join('\n'),
      ],
      { timeoutMs: 60_000 },
    );
    expect(flush.output.toString().trim()).toBe('errno 1'); // EPERM
    expect(await probe(offline, '10.255.255.1', 80)).toBe('timeout');
  });

  it("sets the route with the image's `ip` when it has one", async () => {
    const offline = await open(WITH_IP, 'offline');
    expect(offline.offlineRoute).toEqual({ applied: true, via: 'ip' });
    expect(await probe(offline, '10.255.255.1', 80)).toBe('timeout');
  });

  it('leaves an image with neither ip nor python as it was, and says why', async () => {
    const offline = await open(NO_PYTHON, 'offline');
    expect(offline.offlineRoute?.applied).toBe(false);
    expect(offline.offlineRoute?.why).toMatch(/neither `ip` nor python/);
    const routes = await offline.exec(['cat', '/proc/net/route']);
    expect(routes.output.toString().trim().split('\n')).toHaveLength(1); // the header alone
  });

  it("leaves an agent's sandbox with no route at all", async () => {
    const episode = await open(BASE_IMAGE, undefined, 'episode');
    const routes = await episode.exec(['cat', '/proc/net/route']);
    expect(routes.output.toString().trim().split('\n')).toHaveLength(1);
    expect(await probe(episode, '10.255.255.1', 80)).toBe('ENETUNREACH');
  });

  it('exits 0 only once the server has acknowledged its report, so an exit seen before the output loses nothing', async () => {
    const offline = await open(BASE_IMAGE, 'offline');
    expect(offline).toBeInstanceOf(DockerSandbox);
    const sandbox = offline as DockerSandbox;
    const helper: NetworkHelper = (argv, options) => sandbox.runBeside(argv, options, 'network');
    // The server's side of the exchange, with its acknowledgement replaced: the helper must not take its line as delivered.
    const unheard: NetworkHelper = (argv, options) =>
      sandbox.runBeside(
        argv,
        {
          ...options,
          answer: (line) => {
            options.answer?.(line);
            return 'not heard';
          },
        },
        'network',
      );
    await expect(setOfflineRoute(unheard)).rejects.toThrow(/did not reach the server/);
    expect(await setOfflineRoute(helper)).toEqual({ applied: true, via: 'python' });
  });
});
