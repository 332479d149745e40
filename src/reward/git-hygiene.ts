import { InfraError } from '../common/errors.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { GIT_HYGIENE_SCRIPT, bashArgv } from './scripts.js';

export interface HygieneResult {
  /** The image's HEAD at reset: the agent's change is the diff against it. */
  readonly head: string;
  readonly removed: readonly string[];
}

/** Makes commits after the base unreachable in the agent's repository (see git-hygiene.sh). */
export async function enforceGitHygiene(sandbox: Sandbox, workdir: string, baseCommit: string): Promise<HygieneResult> {
  const result = await sandbox.exec(bashArgv(GIT_HYGIENE_SCRIPT, 'swe-env-hygiene', [workdir, baseCommit]), {
    workdir: '/',
    timeoutMs: 60_000,
    outputLimitBytes: 256 * 1024,
  });
  const lines = result.output.toString('utf8').split('\n').filter((l) => l !== '');
  const head = lines.find((l) => l.startsWith('HEAD '))?.slice(5);
  if (result.timedOut || result.exitCode !== 0 || !head) {
    throw new InfraError(
      `the task image's repository at ${workdir} does not match base_commit ${baseCommit.slice(0, 12)} (exit ${result.exitCode}): ${lines.slice(-3).join(' | ')}`,
    );
  }
  return { head, removed: lines.filter((l) => l.startsWith('removed ')).map((l) => l.slice(8)) };
}
