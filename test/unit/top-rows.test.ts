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

  it("Docker's with the PENDING column: SIGKILL pending read from the kernel's mask", () => {
    const titles = ['PID', 'PPID', 'STAT', 'PENDING', 'COMMAND'];
    const rows = [
      ['30398', '30377', 'Ss', '0000000000000000', 'bash keeper'],
      ['30450', '30398', 'D', '0000000000000100', 'aio reads'],
      ['30451', '30398', 'D', '0000000000004000', 'dd oflag=direct'],
    ];
    expect(topProcesses(rows, 30398, titles).map((p) => [p.pid, p.state, p.killPending, p.command])).toEqual([
      [30398, 'S', false, 'bash keeper'],
      [30450, 'D', true, 'aio reads'],
      [30451, 'D', false, 'dd oflag=direct'],
    ]);
  });

  it("Podman's own reading (psgo): one column per field, nothing said of pending signals", () => {
    const titles = ['PID', 'PPID', 'STATE', 'COMMAND'];
    const parsed = topProcesses(
      [
        ['1', '0', 'S', 'bash keeper'],
        ['7', '1', 'D', 'reads from disk'],
      ],
      30398,
      titles,
    );
    expect(parsed.map((p) => [p.pid, p.state, p.killPending, p.command, p.init])).toEqual([
      [1, 'S', undefined, 'bash keeper', true],
      [7, 'D', undefined, 'reads from disk', false],
    ]);
  });
});
