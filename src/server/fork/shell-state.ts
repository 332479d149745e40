import { FailedPreconditionError, InfraError } from '../../common/errors.js';
import type { ShellSession } from '../../sandbox/shell-session.js';
import type { SandboxControl } from '../episode/sandbox-control.js';

/** The shell state a fork carries over: its exported variables (as `declare -x` lines) and cwd. */
export interface ShellState {
  readonly exports: string;
  readonly cwd: string;
}

const CAPTURE_TIMEOUT_MS = 15_000;
const MAX_EXPORTS_BYTES = 4 * 1024 * 1024;

/**
 * Asks the parent's own shell for its exported variables (they live only in that bash's memory).
 * What it prints is the agent's to shape (its shell, its functions): it is only ever run again in
 * the agent's own forked sandboxes, so a lie there changes nothing but the agent's own children.
 */
export async function captureShell(box: SandboxControl, cwd: string): Promise<ShellState> {
  // A shell replaced before this command (a restart) lists its own exports: those are the state.
  const result = await box.runAside('builtin export -p', { timeoutMs: CAPTURE_TIMEOUT_MS, outputLimitBytes: MAX_EXPORTS_BYTES });
  if (result.timedOut || result.interrupted) {
    throw new FailedPreconditionError(
      `the episode's shell did not list its exported variables (${result.interrupted ? 'interrupted' : 'timed out'}); it cannot be forked now`,
    );
  }
  if (result.omittedBytes > 0)
    throw new FailedPreconditionError(`the episode's exported variables exceed ${MAX_EXPORTS_BYTES} bytes; it cannot be forked`);
  return { exports: result.output, cwd: result.cwd || cwd };
}

/**
 * Puts a captured shell state into a child's fresh shell: every exported variable the new shell
 * has goes (the parent may have unset one), the parent's come back, and the shell goes to the
 * parent's directory. Run through the shell itself, as one command the agent never sees.
 */
export async function restoreShell(shell: ShellSession, state: ShellState): Promise<void> {
  const script = [
    'for __swe_env_v in $(builtin compgen -e); do builtin unset -v "$__swe_env_v" 2>/dev/null; done; builtin unset -v __swe_env_v',
    state.exports,
    `builtin cd -- ${quote(state.cwd)}`,
  ].join('\n');
  const result = await shell.run(script, { timeoutMs: CAPTURE_TIMEOUT_MS, outputLimitBytes: 64 * 1024 });
  if (result.timedOut || result.shellRestarted)
    throw new InfraError(`the forked shell did not take the parent's state (${result.shellRestarted ?? 'timed out'})`);
}

/**
 * Deletes paths through a child's fresh shell (a command of the image's own `rm`, no exec round
 * trip), a few hundred per `rm` so no argument list is too long.
 */
export async function removeThroughShell(shell: ShellSession, paths: readonly string[]): Promise<void> {
  const commands: string[] = [];
  for (let at = 0; at < paths.length; at += 500)
    commands.push(
      `rm -rf -- ${paths
        .slice(at, at + 500)
        .map(quote)
        .join(' ')}`,
    );
  const result = await shell.run(commands.join(' && '), { timeoutMs: 120_000, outputLimitBytes: 8192 });
  if (result.exitCode !== 0 || result.timedOut || result.shellRestarted) {
    throw new InfraError(
      `cannot delete the parent's deleted paths in the forked sandbox (exit ${result.exitCode}): ${result.output.slice(0, 500)}`,
    );
  }
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
