import { killShell, killShellCommand } from './kill-command.js';
import type { Sandbox } from './sandbox.js';
import { COMMAND_JOURNAL_SCRIPT } from './shell-scripts.js';

/**
 * A command outlives the server that sent it: the engine drains its output when the server's
 * connection drops, and the shell runs it to the end before it sees its input closed. The shell
 * writes each journaled command's start and end under /dev/shm/swe-env (agent-shell.sh); a restarted
 * server reads them here to answer the step the crash cut instead of losing it. Its output went to
 * the dead connection and is lost.
 *
 * The journal lives in the agent's container, so the agent can write it: a forged one decides only
 * what the agent is told about its own command after a crash, never a reward (graded from the
 * captured change in a container of its own), and never that a command runs again: whether a
 * command was sent is the server's own record (InflightStep.sent), and a sent command is never run
 * twice whatever the journal says.
 */
export type JournaledCommand =
  /** The command ran to its end (or was killed at its deadline). */
  | { readonly kind: 'ended'; readonly exitCode: number; readonly cwd: string; readonly timedOut: boolean }
  /** The command's shell exited during it (the command ran `exit`, or killed its shell). */
  | { readonly kind: 'shell-exited' }
  /** No shell ran it and none is left to: it can run now, once. */
  | { readonly kind: 'not-started' }
  /** The journal does not tell (absent, unreadable, or the shell would not die). */
  | { readonly kind: 'unknown'; readonly reason: string };

interface JournalState {
  readonly start: { readonly key: string; readonly pid: number; readonly startedAt: string } | undefined;
  readonly end: { readonly key: string; readonly exitCode: number; readonly cwd: string } | undefined;
  readonly shells: readonly number[];
}

const POLL_MS = 250;
/** How long a killed command gets to let its shell write its end. */
const AFTER_KILL_GRACE_MS = 3_000;

/** The journal key of an episode's step (what the shell writes, what recovery looks for). */
export function stepJournalKey(stepIndex: number): string {
  return `step-${stepIndex}`;
}

function keyIndex(key: string): number | undefined {
  const match = /^step-(\d+)$/.exec(key);
  return match ? Number(match[1]) : undefined;
}

/** Reads the journal and the agent shells still running, in one exec. */
export async function readCommandJournal(sandbox: Sandbox): Promise<JournalState> {
  const result = await sandbox.exec(['bash', '--noprofile', '--norc', '-c', COMMAND_JOURNAL_SCRIPT], {
    timeoutMs: 15_000,
    outputLimitBytes: 64 * 1024,
  });
  if (result.timedOut || result.exitCode !== 0) throw new Error(`reading the command journal failed (exit ${result.exitCode})`);
  return parseJournal(result.output.toString('utf8'));
}

export function parseJournal(text: string): JournalState {
  const line = (name: string): string => {
    const found = text.split('\n').find((l) => l === name || l.startsWith(`${name} `));
    return found === undefined ? '' : found.slice(name.length + 1);
  };
  const [startKey, startPid, startedAt] = line('start').split(' ');
  // The cwd is the rest of the line: it may hold spaces.
  const [endKey, endCode, ...cwdParts] = line('end').split(' ');
  const endCwd = cwdParts.join(' ');
  return {
    start:
      startKey && startPid && /^\d+$/.test(startPid) ? { key: startKey, pid: Number(startPid), startedAt: startedAt ?? '' } : undefined,
    end: endKey && endCode && /^-?\d+$/.test(endCode) ? { key: endKey, exitCode: Number(endCode), cwd: endCwd } : undefined,
    shells: line('shells')
      .split(' ')
      .filter((p) => /^\d+$/.test(p))
      .map(Number),
  };
}

/**
 * How the command journaled as `key` ended, waiting for it while its shell still runs it, up to
 * `deadline` (epoch ms: the step's own time limit); a command still running then is killed, as the
 * server that started it would have: everything started since `sentAtMs` (epoch ms, the server's own
 * record of the step's start, never the journal's). `signal` aborts the wait (the episode closed meanwhile).
 */
export async function awaitJournaledCommand(
  sandbox: Sandbox,
  key: string,
  sentAtMs: number,
  deadline: number,
  signal?: AbortSignal,
): Promise<JournaledCommand> {
  const index = keyIndex(key);
  let killedAt = 0;
  for (;;) {
    if (signal?.aborted) return { kind: 'unknown', reason: 'the episode ended while the command was awaited' };
    const state = await readCommandJournal(sandbox);
    if (state.end?.key === key) return { kind: 'ended', exitCode: state.end.exitCode, cwd: state.end.cwd, timedOut: killedAt > 0 };
    const start = state.start;
    if (start?.key === key) {
      if (!state.shells.includes(start.pid)) return { kind: 'shell-exited' };
      if (killedAt === 0 && Date.now() >= deadline) {
        killedAt = Date.now();
        await killShellCommand(sandbox, start.pid, sentAtMs);
        continue;
      }
      if (killedAt > 0 && Date.now() - killedAt >= AFTER_KILL_GRACE_MS) {
        // The shell itself is stuck after its command was killed: end it (a new one takes over).
        await killShell(sandbox, start.pid);
        return { kind: 'ended', exitCode: 137, cwd: '', timedOut: true };
      }
    } else if (state.shells.length === 0) {
      // Nothing started it and no shell is left that could: safe to run it now. Anything else
      // (no journal, a key from another numbering) may hide a run, so it is not guessed at.
      const startIndex = start ? keyIndex(start.key) : undefined;
      const earlier =
        start !== undefined && (start.key === 'ready' || (startIndex !== undefined && index !== undefined && startIndex < index));
      return earlier
        ? { kind: 'not-started' }
        : {
            kind: 'unknown',
            reason: start ? `the journal names another command (${start.key})` : 'the container keeps no command journal',
          };
    } else if (Date.now() >= deadline + AFTER_KILL_GRACE_MS) {
      // An old shell is still up but never started the command: it holds no more input, so it can
      // only be a shell that will not exit; the command's fate cannot be told.
      return { kind: 'unknown', reason: 'an earlier shell is still running and never started the command' };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
