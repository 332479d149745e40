/**
 * A sandbox's loopback is the harness's: the harness's containers (the default bridge network) have
 * `::1` on `lo`, and code that binds or connects to it, or a test that first checks the host can
 * (fluentd's `ipv6_enabled?`, skipping fluent__fluentd-3641's FAIL_TO_PASS otherwise), behaves
 * the same in an episode and in its grading. Docker starts a network-'none' container with IPv6 off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

const provider = testProvider();
const boxes: Sandbox[] = [];

beforeAll(async () => {
  boxes.push(await provider.create(testSpec()), await provider.create(testSpec({ role: 'grader' })));
}, 120_000);

afterAll(async () => {
  await disposeAll(provider, boxes);
  await expectNoContainers(provider);
});

// A server on the address, a client that connects and reads its greeting: both ends of a test.
const ECHO = `
import socket, sys
family, host = (socket.AF_INET6, "::1") if sys.argv[1] == "6" else (socket.AF_INET, "127.0.0.1")
server = socket.socket(family); server.bind((host, 0)); server.listen(1)
client = socket.create_connection((host, server.getsockname()[1]), timeout=10)
peer, _ = server.accept(); peer.sendall(b"hello over " + sys.argv[1].encode())
print(client.recv(64).decode())
`;

async function python(box: Sandbox, ...args: string[]): Promise<string> {
  const result = await box.exec(['python3', '-c', ECHO, ...args], { timeoutMs: 60_000 });
  return result.output.toString().trim();
}

describe.each([
  ['an episode', 0],
  ['a grading', 1],
] as const)('%s sandbox’s loopback', (_name, index) => {
  it('serves IPv6 on ::1 as the harness’s containers do', async () => {
    expect(await python(boxes[index]!, '6')).toBe('hello over 6');
  });

  it('serves IPv4 on 127.0.0.1', async () => {
    expect(await python(boxes[index]!, '4')).toBe('hello over 4');
  });

  it('has no interface but loopback', async () => {
    const result = await boxes[index]!.exec(['bash', '-c', 'ls /sys/class/net'], { timeoutMs: 30_000 });
    expect(result.output.toString().trim().split(/\s+/)).toEqual(['lo']);
  });
});
