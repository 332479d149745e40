import { stepJournalKey, type JournaledCommand } from '../../sandbox/command-journal.js';
import type { InflightStep } from '../persistence/episode-record.js';
import type { EpisodeCore } from './episode-core.js';
import { executeStep } from './execute-step.js';
import { closedDuringStep, infraFailure, sandboxFailure } from './failures.js';
import { commandTimeoutMs, truncateAtStepLimit } from './limits.js';
import type { Action, StepBase, StepOutcome } from './types.js';

const RESTARTED = 'the server restarted';

/**
 * The bash step a crash cut, answered from the container's command journal. A command is never
 * run twice: one the record says was never sent runs now; one that was sent is answered from
 * the journal (waited for while it still runs), or INFRA_ERROR when the journal cannot tell.
 */
export async function recoverCommand(core: EpisodeCore, step: InflightStep, action: Action): Promise<StepOutcome> {
  const base = { stepIndex: step.index, callId: step.callId };
  if (!step.sent) {
    // By the server's own record the command never went to a shell: it runs now, once.
    try {
      await core.box.resumeShell(core.task.workdir, core.state.cwd, RESTARTED);
    } catch (error) {
      return sandboxFailure(core, base, error);
    }
    return executeStep(core, step.index, action);
  }
  let found: JournaledCommand;
  try {
    const deadline = step.startedAt + commandTimeoutMs(core.options, core.state.createdAt, step.startedAt);
    found = await core.box.awaitJournal(stepJournalKey(step.index), step.startedAt, deadline);
  } catch (error) {
    if (core.disposed) return closedDuringStep(core, base);
    return sandboxFailure(core, base, error);
  }
  if (core.disposed) return closedDuringStep(core, base);
  if (found.kind === 'unknown') {
    return infraFailure(
      core,
      base,
      new Error(
        `the server restarted while step ${step.index} ran, and the container does not say how its command ended (${found.reason})`,
      ),
    );
  }
  if (found.kind === 'ended' && found.cwd) core.state.cwd = found.cwd;
  try {
    await core.box.resumeShell(core.task.workdir, core.state.cwd, RESTARTED);
  } catch (error) {
    return sandboxFailure(core, base, error);
  }
  core.deps.logger.info({ episode: core.id, step: step.index, found: found.kind }, 'a command cut by a restart was accounted for');
  return truncateAtStepLimit(core, base, cutCommandOutcome(base, found, core.state.cwd));
}

/**
 * What the step says of a sent command a restart cut. Whatever the journal says, it is never run
 * again (a journal that says it never started is the agent's to write, and would make it run twice).
 */
function cutCommandOutcome(base: StepBase, found: Exclude<JournaledCommand, { kind: 'unknown' }>, cwd: string): StepOutcome {
  const observation =
    found.kind === 'ended'
      ? `[swe-env] The server restarted while this command ran. The command ran to its end${found.timedOut ? ' (killed at its time limit)' : ''} with exit code ${found.exitCode}; its output was lost.`
      : found.kind === 'shell-exited'
        ? '[swe-env] The server restarted while this command ran. The shell exited during the command (exit code unknown); its output was lost.'
        : '[swe-env] The server restarted while this command ran. The command was sent to the shell, but the container does not show how it ended (exit code unknown); its output was lost. It was not run again.';
  const timedOut = found.kind === 'ended' && found.timedOut;
  return {
    ...base,
    observation,
    reward: 0,
    terminated: false,
    truncated: false,
    status: timedOut ? 'COMMAND_TIMEOUT' : 'OK',
    exitCode: found.kind === 'ended' ? (timedOut && found.exitCode === 0 ? 137 : found.exitCode) : -1,
    info: { server_restarted: true, output_lost: true, cwd },
  };
}
