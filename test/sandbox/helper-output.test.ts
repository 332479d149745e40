import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

// A helper beside a sandbox (the offline route's, the timeout killer's) reports through the lines it
// prints. The engine can say the helper exited before the attach stream has handed over its last
// lines; reading stopped there, a loaded machine lost the offline-route helper's one line, and
// grading became INFRA_ERROR ("ended without saying how it set the route").
const provider = testProvider();
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await provider.create(testSpec({ workdir: '/tmp' }));
});

afterAll(async () => {
  await disposeAll(provider, sandbox ? [sandbox] : []);
  await expectNoContainers(provider);
});

describe("a helper's output", () => {
  it('is read to its last line, however much came before it, when the helper exits at once after printing', async () => {
    // 300 kB of lines before the last one: still in the attach stream when the exit is known.
    const script = 'head -c 300000 /dev/zero | tr "\\0" x | fold -w 100; echo last-line; printf no-newline';
    for (let round = 0; round < 5; round++) {
      const lines: string[] = [];
      const result = await sandbox.runBeside(['bash', '--noprofile', '--norc', '-c', script], {
        timeoutMs: 60_000,
        answer: (line) => {
          lines.push(line);
          return undefined;
        },
      });
      expect(result).toEqual({ exitCode: 0, timedOut: false });
      expect(lines.length, `round ${round}`).toBe(3002);
      expect(lines.slice(-2), `round ${round}`).toEqual(['last-line', 'no-newline']);
    }
  }, 180_000);
});
