import { describe, expect, it } from 'vitest';
import { freezeForCapture } from '../../src/reward/capture/freeze.js';
import type { Sandbox, TopProcess } from '../../src/sandbox/sandbox.js';
import { scriptedKeeper } from '../helpers/scripted-keeper.js';

/**
 * The capture's freeze when the engine keeps refusing it, against a sandbox whose processes are
 * scripted: the freezer refuses while a process waits on the disk, and a process that queued reads
 * by the gigabyte waits there past its SIGKILL for as long as the disk takes (seen with Linux AIO
 * O_DIRECT reads: the freeze refused for over a minute after the kill, and the submit was
 * INFRA_ERROR). The engine's own behaviour is in test/reward/capture-freeze.test.ts.
 */
interface Scripted {
  /** The processes but PID 1 after each kill (the last one stays); killPending as Docker's ps says it. */
  readonly afterKills: ReadonlyArray<ReadonlyArray<Pick<TopProcess, 'pid' | 'state' | 'killPending'>>>;
  /** Pauses refused before one succeeds (Infinity: never). */
  readonly refusals: number;
  readonly running?: boolean;
}

function scriptedSandbox(script: Scripted): { sandbox: Sandbox; kills: () => number; witnesses: () => number } {
  const keeper = scriptedKeeper();
  let pauses = 0;
  const others = (): TopProcess[] =>
    (script.afterKills[Math.min(keeper.kills(), script.afterKills.length) - 1] ?? [{ pid: 7, state: 'R' }]).map((p) => ({
      ...p,
      ppid: 1,
      command: 'aio-reads',
      init: false,
    }));
  const fake: Partial<Sandbox> = {
    ...keeper.calls,
    pause: () => (++pauses > script.refusals ? Promise.resolve() : Promise.reject(new Error('OCI runtime pause failed: unable to freeze'))),
    isRunning: () => Promise.resolve(script.running ?? true),
    processes: () => Promise.resolve([keeper.init, ...others(), ...keeper.witness()]),
  };
  return { sandbox: fake as Sandbox, kills: keeper.kills, witnesses: keeper.execs };
}

describe("the capture's freeze, refused", () => {
  it('is asked again after the kill and taken when granted', async () => {
    const { sandbox, kills } = scriptedSandbox({ refusals: 2, afterKills: [[{ pid: 7, state: 'R' }]] });
    expect(await freezeForCapture(sandbox)).toBe('frozen');
    expect(kills()).toBe(1);
  });

  it('refused for good, with only killed processes waiting in the kernel left: the capture goes on without it', async () => {
    const { sandbox, kills } = scriptedSandbox({
      refusals: Infinity,
      afterKills: [
        [
          { pid: 7, state: 'D' },
          { pid: 8, state: 'Z' },
        ],
        [{ pid: 7, state: 'D' }],
      ],
    });
    expect(await freezeForCapture(sandbox)).toBe('killed');
    // The first kill, then the witnessed one that shows they were all there before it.
    expect(kills()).toBe(2);
  });

  it('a process new since the witnessed kill (forked while it went round) is killed again before the capture goes on', async () => {
    const { sandbox, kills } = scriptedSandbox({
      refusals: Infinity,
      afterKills: [
        [{ pid: 7, state: 'D' }],
        [
          { pid: 7, state: 'D' },
          { pid: 9, state: 'D' },
        ],
        [{ pid: 9, state: 'D' }],
      ],
    });
    expect(await freezeForCapture(sandbox)).toBe('killed');
    expect(kills()).toBe(3);
  });

  it('a sandbox that is not running: the first refusal is thrown, nothing killed', async () => {
    const { sandbox, kills } = scriptedSandbox({ refusals: Infinity, running: false, afterKills: [] });
    await expect(freezeForCapture(sandbox)).rejects.toThrow(/unable to freeze/);
    expect(kills()).toBe(0);
  });

  it('where the engine reads pending signals: killed processes in the kernel let the capture go on with no witness run', async () => {
    const { sandbox, kills, witnesses } = scriptedSandbox({
      refusals: Infinity,
      afterKills: [
        [
          { pid: 7, state: 'D', killPending: true },
          { pid: 8, state: 'Z', killPending: false },
        ],
      ],
    });
    expect(await freezeForCapture(sandbox)).toBe('killed');
    expect(kills()).toBe(1);
    // Nothing of the sandbox (its /dev/ptmx, its working directory) takes part.
    expect(witnesses()).toBe(0);
  });

  it('where the engine reads pending signals: a process in the kernel with no SIGKILL pending keeps the freeze rule', async () => {
    const { sandbox } = scriptedSandbox({
      refusals: 3,
      afterKills: [[{ pid: 7, state: 'D', killPending: false }]],
    });
    // Granted at the third try after the kill: the capture waited for it.
    expect(await freezeForCapture(sandbox)).toBe('frozen');
  });
});
