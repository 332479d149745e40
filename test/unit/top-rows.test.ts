import { describe, expect, it } from 'vitest';
import { topProcesses } from '../../src/sandbox/engines/top-rows.js';

describe("the engine's top rows", () => {
  it("Docker's: one column per field, host pids, the init found by its State.Pid", () => {
    const rows = [
      ['30398', '30377', 'Ss', 'bash --noprofile --norc -c keeper'],
      ['30450', '30398', 'D', 'sleep 300'],
    ];
    expect(topProcesses(rows, 30398)).toEqual([
      { pid: 30398, ppid: 30377, state: 'S', command: 'bash --noprofile --norc -c keeper', init: true },
      { pid: 30450, ppid: 30398, state: 'D', command: 'sleep 300', init: false },
    ]);
  });

  it("Podman's: each line one string, pids of the container's namespace, the init pid 1", () => {
    const rows = [['1       0 Ss   bash -c sleep 300 & wait'], ['6       1 Z+   sleep 300']];
    expect(topProcesses(rows, 30398)).toEqual([
      { pid: 1, ppid: 0, state: 'S', command: 'bash -c sleep 300 & wait', init: true },
      { pid: 6, ppid: 1, state: 'Z', command: 'sleep 300', init: false },
    ]);
  });

  it("a host view whose pid 1 is not the container's init does not make it one", () => {
    expect(
      topProcesses(
        [
          ['1', '0', 'Ss', 'host init'],
          ['500', '1', 'S', 'keeper'],
        ],
        500,
      ).map((p) => p.init),
    ).toEqual([false, true]);
  });
});
