import type { ExecResult, Sandbox, TopProcess } from '../../src/sandbox/sandbox.js';

/**
 * The keeper side of a scripted sandbox (unit tests of what keeper-kill.ts drives): PID 1, its kill
 * of every other process, and the witness exec that the kill ends (exit 137), listed while it runs.
 * The test's own `processes()` lists `init`, its scripted processes (by `kills()`) and `witness()`.
 */
export interface ScriptedKeeper {
  readonly init: TopProcess;
  /** The sandbox's killAllButInit and exec, as the keeper answers them. */
  readonly calls: Pick<Sandbox, 'killAllButInit' | 'exec'>;
  /** Kills sent so far. */
  readonly kills: () => number;
  /** Witness execs started so far. */
  readonly execs: () => number;
  /** The witness's line in the engine's list while it runs (empty otherwise). */
  readonly witness: () => TopProcess[];
}

export function scriptedKeeper(o: { witnessFails?: boolean } = {}): ScriptedKeeper {
  let kills = 0;
  let execs = 0;
  let running: { mark: string; end: (code: number) => void } | undefined;
  return {
    init: { pid: 1, ppid: 0, state: 'S', command: 'bash keeper', init: true },
    calls: {
      killAllButInit: () => {
        kills++;
        running?.end(137);
        running = undefined;
        return Promise.resolve();
      },
      exec: (argv: readonly string[]) =>
        new Promise<ExecResult>((resolve, reject) => {
          execs++;
          if (o.witnessFails) return reject(new Error('OCI runtime exec failed'));
          running = { mark: argv[argv.length - 1]!, end: (exitCode) => resolve({ exitCode } as ExecResult) };
        }),
    },
    kills: () => kills,
    execs: () => execs,
    witness: () =>
      running ? [{ pid: 99, ppid: 0, state: 'S', command: `/proc/1/exe --noprofile --norc -c read ${running.mark}`, init: false }] : [],
  };
}
