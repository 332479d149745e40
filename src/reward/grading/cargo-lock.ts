import type { Sandbox } from '../../sandbox/sandbox.js';
import { flag, type Flag } from '../findings.js';
import { ModelFault } from './container-watch.js';
import { CARGO_EXEC_SCRIPT, CARGO_RUSTDOC_SCRIPT, COMPILED_IN_SCRIPT, LOCK_CARGO_SCRIPT, bashArgv } from '../scripts.js';

/**
 * Evidence by construction for `cargo test` (issue 28), after lock-tests.sh closed the hidden test
 * files: cargo builds as root and runs each test binary through its target runner (cargo-exec.sh)
 * as the test user, the doctests too (rustdoc's `--runtool`, through cargo-rustdoc.sh); cargo's
 * target directory, which holds the compiled tests, is root's with its files unreadable to others
 * (lock-cargo.sh; cargo-exec.sh closes what cargo wrote since, under the run's umask 077).
 * What the run-time lock cannot see is a read at compile time (rustc runs as root): rustc's
 * dep-info lists every file a crate's compilation read, so a crate of the code under test that
 * read a hidden test file is found after the run (compiled-in.sh), whatever the trick's form.
 */

/** Where lock-cargo.sh puts the runner and the rustdoc wrapper (readable and executable by the test user). */
export const CARGO_EXEC_PATH = '/swe_env_exec/cargo-exec';
export const CARGO_RUSTDOC_PATH = '/swe_env_exec/cargo-rustdoc';
/** lock-cargo.sh's exit status when rustc cannot name the host's target triple. */
const NO_HOST = 10;
/** lock-cargo.sh's exit status when the target directory in the repository is a file or a link (the change's). */
const NOT_A_FOLDER = 20;

export type CargoLock = { readonly locked: true; readonly runLines: readonly string[] } | { readonly locked: false; readonly why: string };

/** Installs the runner and closes the target directory; the lines returned go into the run's script. */
export async function lockCargo(
  sandbox: Sandbox,
  input: { readonly workdir: string; readonly environment: string; readonly timeoutMs: number },
): Promise<CargoLock> {
  const run = await sandbox.exec(
    bashArgv(LOCK_CARGO_SCRIPT, 'swe-env-lock-cargo', [input.workdir, input.environment, CARGO_EXEC_SCRIPT, CARGO_RUSTDOC_SCRIPT]),
    { timeoutMs: input.timeoutMs, outputLimitBytes: 64 * 1024 },
  );
  const said = run.output.toString('utf8').trim();
  if (run.exitCode === NO_HOST) return { locked: false, why: "rustc did not name the host's target triple" };
  if (run.exitCode === NOT_A_FOLDER)
    throw new ModelFault(
      `the change puts a file or a link where cargo builds (${said.split('\n').at(-1) ?? 'target'} in the repository): cargo cannot build there`,
    );
  if (run.exitCode !== 0 || run.timedOut)
    throw new Error(`locking cargo's target directory failed (exit ${run.exitCode}): ${said.slice(-2000)}`);
  const variable = said.split('\n').at(-1) ?? '';
  if (!/^CARGO_TARGET_[A-Z0-9_]+_RUNNER$/.test(variable)) throw new Error(`lock-cargo.sh named no runner variable: ${said.slice(-2000)}`);
  return {
    locked: true,
    runLines: [
      `export ${variable}=${CARGO_EXEC_PATH}`,
      `export RUSTDOC=${CARGO_RUSTDOC_PATH}`,
      // What cargo writes is root's alone from the start; cargo-exec.sh opens the folders' and
      // executables' execute bits before each binary and gives it the umask the run had.
      'umask 077',
    ],
  };
}

/**
 * After a locked run: the integrity flags for every crate of the code under test whose
 * compilation read a hidden test file (by rustc's dep-info; see compiled-in.sh).
 */
export async function compiledInTests(sandbox: Sandbox, workdir: string, lockList: string): Promise<Flag[]> {
  const run = await sandbox.exec(bashArgv(COMPILED_IN_SCRIPT, 'swe-env-compiled-in', [workdir, lockList]), {
    timeoutMs: 120_000,
    outputLimitBytes: 256 * 1024,
  });
  if (run.exitCode !== 0 || run.timedOut)
    throw new Error(`reading the run's dep-info failed (exit ${run.exitCode}): ${run.output.toString('utf8').slice(-2000)}`);
  return run.output
    .toString('utf8')
    .split('\n')
    .filter((l) => l.includes('\t'))
    .map((line) => {
      const [root, read, hidden] = line.split('\t');
      const how = read === hidden ? '' : ` (as ${read})`;
      return flag(
        'compiled-in-test',
        `the compilation of ${root} read the hidden test file ${hidden}${how}: the tests' text is compiled into the code under test`,
      );
    });
}
