/**
 * The sandbox's process list comes from the kernel, not from a program of the sandbox. The grader
 * trusts it: the install step's quiescing checks that no process of the change outlived the kill,
 * and the capture goes on unfrozen only when every process left is waiting in the kernel
 * (src/reward/capture/freeze.ts). The agent is root in its container and can replace its `ps`:
 * Podman (4.3, Debian 12's) ran the container's own `ps` for ps-style arguments, so a replaced one
 * listed whatever the agent liked (a daemon hidden, a running process shown as waiting in the kernel).
 * Runs on both engines (scripts/test-all.sh's Podman leg).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

const provider = testProvider();
let sandbox: Sandbox;
const opts = { timeoutMs: 30_000, outputLimitBytes: 64 * 1024 };

/** A `ps` that hides every `sleep` and lists a made-up process waiting in the kernel. */
const FAKE_PS = [
  '#!/bin/sh',
  'echo "    PID    PPID STAT COMMAND"',
  'echo "      1       0 Ss   fake-init"',
  'echo "   4242       1 D    fake-waiting-in-the-kernel"',
].join('\n');

beforeAll(async () => {
  sandbox = await provider.create(testSpec({ workdir: '/tmp' }));
});

afterAll(async () => {
  await disposeAll(provider, sandbox ? [sandbox] : []);
  await expectNoContainers(provider);
});

describe("the sandbox's process list", () => {
  it("is the kernel's, whatever the sandbox's root made of its ps", async () => {
    const started = await sandbox.exec(['bash', '-c', '(setsid sleep 7431 > /dev/null 2>&1 &); echo started'], opts);
    expect(started.output.toString()).toContain('started');
    // setsid becomes sleep by exec, some time after the shell has gone: wait for the exec.
    const sleeping = await vi.waitFor(
      async () => {
        const listed = (await sandbox.processes()).filter((p) => p.command.trim() === 'sleep 7431');
        expect(listed).toHaveLength(1);
        return listed;
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(sleeping.map((p) => p.state)).toEqual(['S']);

    // Every ps of the image replaced; the replacement works inside the container.
    const plant = await sandbox.exec(
      [
        'bash',
        '-c',
        `for p in $(command -v -a ps) /bin/ps /usr/bin/ps /usr/local/bin/ps; do printf '%s\\n' '${FAKE_PS}' > "$p" && chmod +x "$p"; done; ps -o pid,ppid,stat,args`,
      ],
      opts,
    );
    expect(plant.output.toString()).toContain('fake-waiting-in-the-kernel');

    const after = await sandbox.processes();
    expect(after.filter((p) => p.command.trim() === 'sleep 7431').map((p) => p.state)).toEqual(['S']);
    expect(after.some((p) => p.command.includes('fake'))).toBe(false);
    expect(after.filter((p) => p.init)).toHaveLength(1);
    expect(after.find((p) => p.init)?.command).not.toContain('fake');
  });
});
