import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import { diffFiles } from '../diff-files.js';
import { GO_CC_SCRIPT, GO_EXEC_SCRIPT, GO_TOOLEXEC_SCRIPT, LOCK_TESTS_SCRIPT, bashArgv } from '../scripts.js';
import { GRADING_DIR } from './apply-stage.js';
import type { CanaryPlan } from './canaries.js';
import type { LanguageRunner } from './language-canaries.js';
import { lockCargo } from './cargo-lock.js';

/**
 * Evidence by construction for `go test` (issue 28): the go tool compiles the test binaries as
 * root and runs each through `go test -exec` (go-exec.sh) as an unprivileged user, while the hidden
 * `_test.go` files, canaries and mirrors included, are a keeper's with mode 0600 (lock-tests.sh).
 * Code under test that opens them, the binary, the go tool's build cache or the grading directory
 * to learn what the tests expect gets EACCES, whatever form the trick takes. At compile time only
 * the compiler reads them, with root's capabilities, and it is refused an embed of them
 * (`-toolexec`, go-toolexec.sh); the assembler, cgo and the C compiler run as root without
 * capabilities (go-toolexec.sh, go-cc.sh), for which they do not open. What stays reachable:
 * the test process's own memory (the compiled tests are linked into the same binary) and files
 * the tests themselves read at run time (testdata), which the code under test can read as they do.
 * `cargo test` gets the same (cargo-lock.ts: its target runner, its target directory closed).
 */

/** The test user: `nobody` in Debian and Ubuntu images; owns nothing there. */
export const TEST_UID = 65534;
/** Who owns the hidden test files while they are locked: neither root nor the test user. */
export const KEEPER_UID = 65533;
/** Where lock-tests.sh puts go-exec.sh and go-toolexec.sh (readable and executable by the test user). */
const STATE = '/swe_env_exec';
export const GO_EXEC_PATH = `${STATE}/go-exec`;
export const GO_TOOLEXEC_PATH = `${STATE}/go-toolexec`;
export const LOCK_LIST = `${GRADING_DIR}/locked.list`;
/** lock-tests.sh's exit status when the image cannot switch users (no setpriv). */
const CANNOT_SWITCH = 10;

export type LockOutcome =
  { readonly locked: true; readonly runLines: readonly string[] } | { readonly locked: false; readonly why: string };

/**
 * Sources the test patch and the canaries leave for the toolchain to compile: Go's (testdata is
 * read at run time), Rust's (fixtures the tests read stay readable).
 */
export function lockedPaths(testPatch: string, canaryPlan: CanaryPlan | undefined, runner: LanguageRunner = 'go'): string[] {
  const compiled = (path: string): boolean =>
    runner === 'cargo' ? path.endsWith('.rs') : path.endsWith('.go') && !path.split('/').includes('testdata');
  const hidden = diffFiles(testPatch)
    .filter((f) => !f.isDeleted)
    .map((f) => f.path);
  return [...new Set([...hidden, ...(canaryPlan?.files.keys() ?? [])])].filter(compiled);
}

/**
 * Locks the hidden tests of a `go test` run; the lines returned go into the run's script, after
 * its environment (they add go-exec.sh to GOFLAGS). Runners other than go test: nothing to do.
 */
export async function lockHiddenTests(
  sandbox: Sandbox,
  input: { readonly task: Task; readonly runner: LanguageRunner | undefined; readonly environment: string; readonly testTimeoutS: number },
  canaryPlan: CanaryPlan | undefined,
): Promise<LockOutcome | undefined> {
  if (input.runner !== 'go' && input.runner !== 'cargo') return undefined;
  const go = input.runner === 'go';
  const paths = lockedPaths(input.task.testPatch, canaryPlan, input.runner);
  await sandbox.putFiles([{ path: LOCK_LIST, content: paths.map((p) => `${p}\0`).join('') }]);
  const run = await sandbox.exec(
    bashArgv(LOCK_TESTS_SCRIPT, 'swe-env-lock', [
      input.task.workdir,
      LOCK_LIST,
      input.environment,
      String(TEST_UID),
      go ? GO_EXEC_SCRIPT : '',
      go ? goOverlay(input.task.workdir, paths) : '{}',
      String(KEEPER_UID),
      go ? GO_TOOLEXEC_SCRIPT : '',
      go ? GO_CC_SCRIPT : '',
    ]),
    // A large repository changes owner file by file: as long as a test run may take, at least two minutes.
    { timeoutMs: Math.max(120, input.testTimeoutS) * 1000, outputLimitBytes: 64 * 1024 },
  );
  const said = run.output.toString('utf8').trim().slice(-2000);
  if (run.exitCode === CANNOT_SWITCH) return { locked: false, why: 'setpriv is missing or cannot switch to the test user' };
  if (run.exitCode !== 0 || run.timedOut) throw new Error(`locking the hidden tests failed (exit ${run.exitCode}): ${said}`);
  if (!go)
    return lockCargo(sandbox, {
      workdir: input.task.workdir,
      environment: input.environment,
      timeoutMs: Math.max(120, input.testTimeoutS) * 1000,
    });
  return { locked: true, runLines: goRunLines() };
}

/**
 * The run's settings for a locked go test: GOFLAGS' later entries win over earlier ones, the
 * command line's over both; the C compilers are go-cc.sh where the image has them (build-env,
 * written by lock-tests.sh).
 */
export function goRunLines(): string[] {
  return [`export GOFLAGS="\${GOFLAGS:+$GOFLAGS }${GO_FLAGS_ADDED}"`, `. ${STATE}/build-env`];
}

/** What the lock adds to GOFLAGS (go-exec.sh takes it back off for the tests' own `go` commands). */
export const GO_FLAGS_ADDED = `-exec=${GO_EXEC_PATH} -toolexec=${GO_TOOLEXEC_PATH}`;

/** `go -overlay`'s file: each locked file deleted (an empty replacement), by its absolute path. */
export function goOverlay(workdir: string, paths: readonly string[]): string {
  const root = workdir.replace(/\/+$/, '');
  return JSON.stringify({ Replace: Object.fromEntries(paths.map((p) => [`${root}/${p}`, ''])) });
}
