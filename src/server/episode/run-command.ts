import { stepJournalKey } from '../../sandbox/command-journal.js';
import type { BashResult } from '../../sandbox/shell-session.js';
import type { EpisodeCore } from './episode-core.js';
import { closedDuringStep, sandboxFailure } from './failures.js';
import { commandTimeoutMs } from './limits.js';
import type { StepBase, StepOutcome } from './types.js';

/** Runs a bash step in the episode's shell; a sandbox failure under it is classified, never thrown. */
export async function runBash(core: EpisodeCore, base: StepBase, command: string): Promise<StepOutcome> {
  const timeoutMs = commandTimeoutMs(core.options, core.state.createdAt, Date.now());
  try {
    const result = await core.box.run(command, {
      timeoutMs,
      outputLimitBytes: core.options.outputLimitBytes,
      // Journaled only when the server keeps records: only a restarted server reads the journal.
      ...(core.deps.persist ? { journalKey: stepJournalKey(base.stepIndex), beforeSend: () => markSent(core) } : {}),
    });
    core.state.cwd = result.cwd;
    return commandOutcome(base, result, timeoutMs);
  } catch (error) {
    if (core.disposed) return closedDuringStep(core, base);
    return sandboxFailure(core, base, error);
  }
}

/** The record says the step's command went to the shell (see InflightStep.sent). */
async function markSent(core: EpisodeCore): Promise<void> {
  if (!core.state.inflight) return;
  core.state.inflight = { ...core.state.inflight, sent: true };
  await core.persist();
}

/** The step's answer: the command's output, with notes on a timeout or a replaced shell after it. */
function commandOutcome(base: StepBase, result: BashResult, timeoutMs: number): StepOutcome {
  const notes: string[] = [];
  if (result.timedOut) notes.push(`[swe-env] The command timed out after ${Math.round(timeoutMs / 100) / 10}s and was killed.`);
  if (result.interrupted) notes.push('[swe-env] The command was interrupted (Ctrl-C): it and everything it started were stopped.');
  if (result.shellRestarted) notes.push(`[swe-env] Note: ${result.shellRestarted}.`);
  const observation =
    notes.length > 0
      ? `${result.output}${result.output.endsWith('\n') || result.output === '' ? '' : '\n'}${notes.join('\n')}`
      : result.output;
  return {
    ...base,
    observation,
    reward: 0,
    terminated: false,
    truncated: false,
    status: result.timedOut ? 'COMMAND_TIMEOUT' : 'OK',
    exitCode: result.exitCode,
    info: {
      duration_s: result.durationMs / 1000,
      output_bytes: result.outputBytes,
      omitted_bytes: result.omittedBytes,
      cwd: result.cwd,
      ...(result.shellRestarted ? { shell_restarted: true } : {}),
      ...(result.interrupted ? { interrupted: true } : {}),
    },
  };
}
