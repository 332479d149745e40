import { describe, expect, it } from 'vitest';
import { quiesce } from '../../src/reward/grading/agent-steps.js';
import type { Sandbox, TopProcess } from '../../src/sandbox/sandbox.js';
import { scriptedKeeper } from '../helpers/scripted-keeper.js';

/**
 * Ending what a grading step left, against a sandbox whose process list is scripted: the kill's
 * round (a witness exec, the keeper's signal) only when the engine lists something but PID 1. The
 * engine's own behaviour, the keeper held from the host, is in test/reward/keeper-kill.test.ts.
 */
function scriptedSandbox(
  left: readonly string[],
  o: { witnessFails?: boolean } = {},
): { sandbox: Sandbox; kills: () => number; execs: () => number } {
  const keeper = scriptedKeeper(o);
  const fake: Partial<Sandbox> = {
    ...keeper.calls,
    processes: () => {
      const others =
        keeper.kills() > 0 ? [] : left.map((command, i): TopProcess => ({ pid: 10 + i, ppid: 1, state: 'S', command, init: false }));
      return Promise.resolve([keeper.init, ...others, ...keeper.witness()]);
    },
  };
  return { sandbox: fake as Sandbox, kills: keeper.kills, execs: keeper.execs };
}

describe('ending what a grading step left', () => {
  it('with nothing but PID 1 listed, signals nothing and runs no witness', async () => {
    const { sandbox, kills, execs } = scriptedSandbox([]);
    await quiesce(sandbox, 'the test run');
    expect(kills()).toBe(0);
    expect(execs()).toBe(0);
  });

  it('with a process left, ends it through a witnessed round', async () => {
    const { sandbox, kills, execs } = scriptedSandbox(['sleep 600']);
    await quiesce(sandbox, 'the test run');
    expect(kills()).toBe(1);
    expect(execs()).toBe(1);
    expect((await sandbox.processes()).filter((p) => !p.init)).toEqual([]);
  });

  it('a zombie left counts as left: it goes through the round too', async () => {
    const { sandbox, kills } = scriptedSandbox(['[defunct]']);
    await quiesce(sandbox, 'the install step');
    expect(kills()).toBe(1);
  });

  it('with no witness able to run (its exec fails), still ends them from the listing alone', async () => {
    const { sandbox, kills, execs } = scriptedSandbox(['sleep 600'], { witnessFails: true });
    await quiesce(sandbox, 'the test run');
    expect(execs()).toBe(1);
    expect(kills()).toBe(1);
    expect((await sandbox.processes()).filter((p) => !p.init)).toEqual([]);
  });
});
