import { InfraError } from '../common/errors.js';
import type { ShellInit } from '../sandbox/shell-session.js';
import { GIT_HYGIENE_SCRIPT } from './scripts.js';

export interface HygieneResult {
  /** The image's HEAD at reset: the agent's change is the diff against it. */
  readonly head: string;
  readonly removed: readonly string[];
}

/**
 * The reset's repository check (git-hygiene.sh: nothing after the base commit stays reachable),
 * run inside the agent's shell as it starts.
 */
export function gitHygieneInit(workdir: string, baseCommit: string): ShellInit {
  return { script: GIT_HYGIENE_SCRIPT, args: [workdir, baseCommit] };
}

export function parseHygiene(result: { output: string; exitCode: number } | undefined, workdir: string, baseCommit: string): HygieneResult {
  const lines = (result?.output ?? '').split('\n').filter((l) => l !== '');
  const head = lines.find((l) => l.startsWith('HEAD '))?.slice(5);
  if (!result || result.exitCode !== 0 || !head) {
    throw new InfraError(
      `the task image's repository at ${workdir} does not match base_commit ${baseCommit.slice(0, 12)} (exit ${result?.exitCode ?? 'none'}): ${lines.slice(-3).join(' | ')}`,
    );
  }
  return { head, removed: lines.filter((l) => l.startsWith('removed ')).map((l) => l.slice(8)) };
}
