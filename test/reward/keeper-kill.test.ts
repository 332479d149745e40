/**
 * Ending what a test run or an install step left behind waits for the keeper's kill to have run,
 * not for a fixed while after the signal. On a loaded machine PID 1 may not be scheduled for
 * seconds after the engine's signal; the grading then read its leftover processes as having
 * survived being ended and scored an honest run that leaves a process behind 0. Here the keeper
 * is held from the host (SIGSTOP: the kernel does not schedule it, as under load, only longer):
 * the signal waits pending, and the processes are ended once it runs.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { quiesce } from '../../src/reward/grading/agent-steps.js';
import { endAllButInit } from '../../src/reward/grading/keeper-kill.js';
import { disposeAll, testProvider, testSpec } from '../helpers/docker.js';
import { expectNoContainers } from '../helpers/server.js';

const provider = testProvider();
const sandboxes: Sandbox[] = [];
const held = new Set<number>();
const USR2 = 1n << 11n; // signal 12's bit in /proc's masks

afterAll(async () => {
  for (const pid of held) resume(pid);
  await disposeAll(provider, sandboxes);
  await expectNoContainers(provider);
});

/** A sandbox whose keeper has its SIGUSR2 handler in place, with its host pid. */
async function sandboxWithKeeper(): Promise<{ sandbox: Sandbox; keeper: number }> {
  const sandbox = await provider.create(testSpec({ workdir: '/tmp' }));
  sandboxes.push(sandbox);
  const keeper = (await provider.docker.getContainer(sandbox.id).inspect()).State.Pid;
  // A signal sent before the keeper's trap is set is dropped (PID 1 ignores what it does not handle).
  await until(async () => ((await signalMask(keeper, 'SigCgt')) & USR2) !== 0n);
  return { sandbox, keeper };
}

async function signalMask(pid: number, field: 'SigCgt' | 'SigPnd' | 'ShdPnd'): Promise<bigint> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const hex = new RegExp(`^${field}:\\s*([0-9a-f]+)$`, 'm').exec(status)?.[1];
  if (hex === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return BigInt(`0x${hex}`);
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

function hold(pid: number): void {
  process.kill(pid, 'SIGSTOP');
  held.add(pid);
}

function resume(pid: number): void {
  held.delete(pid);
  try {
    process.kill(pid, 'SIGCONT');
  } catch {
    // already gone with its container
  }
}

/** Runs a setup script in the sandbox (the image's bash, by absolute path) and checks it got to its end. */
async function setUp(sandbox: Sandbox, script: string): Promise<void> {
  const run = await sandbox.exec(['/bin/bash', '-c', `${script} && echo set-up-done`], { timeoutMs: 30_000 });
  expect(run.output.toString()).toContain('set-up-done');
}

async function leaveDaemon(sandbox: Sandbox): Promise<void> {
  await setUp(sandbox, '{ setsid sleep 600 </dev/null >/dev/null 2>&1 & }');
  // setsid becomes sleep by exec, some time after the setup's shell has gone: until then it is
  // listed under its own name.
  await until(async () => (await commands(sandbox)).includes('sleep 600'));
}

async function commands(sandbox: Sandbox): Promise<string[]> {
  return (await sandbox.processes()).filter((p) => !p.init).map((p) => p.command.trim());
}

/**
 * Ends the sandbox's leftovers while its keeper is held from the host: holds it, starts the ending,
 * waits until the signal is pending at the held keeper, then 5 s more (longer than the whole of the
 * fixed rounds that once followed the signal, 2.5 s). Returns what had settled by then (undefined:
 * nothing, as it must be) and a function that releases the keeper and waits for the ending's outcome.
 */
async function quiesceWhileHeld(
  sandbox: Sandbox,
  keeper: number,
): Promise<{ settledWhileHeld: 'resolved' | Error | undefined; release: () => Promise<'resolved' | Error> }> {
  hold(keeper);
  let settled: 'resolved' | Error | undefined;
  const ending: Promise<'resolved' | Error> = quiesce(sandbox, 'the test run').then(
    (): 'resolved' => (settled = 'resolved'),
    (error: unknown) => (settled = error instanceof Error ? error : new Error(String(error))),
  );
  await until(async () => (((await signalMask(keeper, 'ShdPnd')) | (await signalMask(keeper, 'SigPnd'))) & USR2) !== 0n);
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const settledWhileHeld = settled;
  return {
    settledWhileHeld,
    release: async () => {
      resume(keeper);
      return ending;
    },
  };
}

describe('ending the processes a grading step left', () => {
  it('waits for a keeper that is not scheduled for a while, and ends them once it runs', async () => {
    const { sandbox, keeper } = await sandboxWithKeeper();
    await leaveDaemon(sandbox);
    const held = await quiesceWhileHeld(sandbox, keeper);
    // The fixed rounds read the held keeper's leftovers as survivors and failed the step.
    expect(held.settledWhileHeld).toBeUndefined();
    expect(await held.release()).toBe('resolved');
    expect(await commands(sandbox)).toEqual([]);
  }, 60_000);

  it('says the kill was witnessed, and leaves nothing behind it', async () => {
    const { sandbox } = await sandboxWithKeeper();
    await leaveDaemon(sandbox);
    const round = await endAllButInit(sandbox);
    expect(round.witnessed).toBe(true);
    await until(async () => (await commands(sandbox)).length === 0);
  }, 60_000);

  it('does not take a process named as the keeper’s own `sleep 5` for the keeper’s while the kill is still to come', async () => {
    const { sandbox, keeper } = await sandboxWithKeeper();
    // An orphan (PID 1's child, as the keeper's fallback loop's `sleep 5` is) that says "sleep 5" and
    // starts nothing: bash under that name, reading a script file named 5.
    await setUp(
      sandbox,
      "mkdir -p /tmp/d /tmp/w && cp /usr/bin/bash /tmp/d/sleep && printf 'while :; do read -t 1 -u 3 3<>/dev/ptmx; done\\n' > /tmp/w/5 && cd /tmp/w && setsid -f bash -c 'exec -a sleep /tmp/d/sleep 5' </dev/null >/dev/null 2>&1",
    );
    // Listed alone, as PID 1's child: nothing else of the setup is left.
    await until(async () => (await commands(sandbox)).join('|') === 'sleep 5');
    const orphan = (await sandbox.processes()).find((p) => p.command.trim() === 'sleep 5');
    expect(orphan?.ppid).toBe((await sandbox.processes()).find((p) => p.init)?.pid);
    const held = await quiesceWhileHeld(sandbox, keeper);
    // Ended only once the keeper has run: until then the grading must not go on.
    expect(held.settledWhileHeld).toBeUndefined();
    expect(await commands(sandbox)).toContain('sleep 5');
    expect(await held.release()).toBe('resolved');
    expect(await commands(sandbox)).toEqual([]);
  }, 60_000);

  it('is witnessed with the image’s bash and sleep replaced: the witness runs none of the container’s files', async () => {
    const { sandbox } = await sandboxWithKeeper();
    await leaveDaemon(sandbox);
    await setUp(
      sandbox,
      "printf '#!/bin/sh\\nexit 1\\n' > /tmp/fake && chmod +x /tmp/fake && for f in /usr/bin/sleep /usr/bin/bash; do cp /tmp/fake $f.new && mv -f $f.new $f; done",
    );
    expect((await sandbox.exec(['bash', '-c', 'echo ran'], { timeoutMs: 30_000 })).output.toString()).not.toContain('ran');
    const round = await endAllButInit(sandbox);
    expect(round.witnessed).toBe(true);
    await until(async () => (await commands(sandbox)).length === 0);
  }, 60_000);

  it('is witnessed with /dev/ptmx and the working directory gone: the witness waits on no file of the container', async () => {
    const { sandbox } = await sandboxWithKeeper();
    await leaveDaemon(sandbox);
    await setUp(sandbox, 'rm -f /dev/ptmx && rm -rf /tmp');
    const round = await endAllButInit(sandbox);
    expect(round.witnessed).toBe(true);
    await until(async () => (await commands(sandbox)).length === 0);
  }, 60_000);

  it('is witnessed with the pids limit taken up: the exec joins the container whatever its limit, and waits to fork its coprocess', async () => {
    const { sandbox } = await sandboxWithKeeper();
    // A filler forking sleepers until it cannot, and forking again whenever it can.
    await setUp(sandbox, "{ setsid bash -c 'while :; do sleep 600 & done' </dev/null >/dev/null 2>&1 & }");
    await until(async () => (await sandbox.processes()).length >= 256);
    const round = await endAllButInit(sandbox);
    expect(round.witnessed).toBe(true);
    await quiesce(sandbox, 'the test run');
    expect(await commands(sandbox)).toEqual([]);
  }, 120_000);
});
