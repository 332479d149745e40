import { randomInt } from 'node:crypto';
import type { Sandbox } from '../../sandbox/sandbox.js';

/**
 * Ending every process of a container but its PID 1, and knowing when that happened.
 *
 * The engine's signal reaches the keeper (PID 1) at once, but the keeper's `kill -9 -1` runs when
 * the kernel next schedules it: on a loaded machine (a trainer's hundreds of gradings, the CI's
 * parallel files) that can be seconds later. Looking at the processes for a fixed while after the
 * signal then reads a keeper that has not run yet as processes that survived it, and an honest test
 * run that leaves a process behind is scored 0. So a witness goes first: a process of ours that
 * only the keeper's kill ends. Once the engine says it ended, the kill has happened, however late;
 * what is left after that (forked while the kill went round) is signalled again.
 */

/** How long the witness lives by itself: past it the signal is sent again. */
const WITNESS_LIFE_S = 20;
/** How long a witness may take to show in the engine's list before the round goes on without it. */
const WITNESS_SHOW_MS = 15_000;

export interface KeeperKillRound {
  /** Whether a witness showed and ended after the signal: the keeper's kill has run. */
  readonly witnessed: boolean;
}

/**
 * Signals PID 1 to end every other process and waits until it has (its witness ended). Without a
 * witness (the image cannot run one, or it never showed), returns after the signal alone: the
 * caller then looks at the processes for a while, as it must for a process forked during the kill.
 */
export async function endAllButInit(sandbox: Sandbox): Promise<KeeperKillRound> {
  const mark = `0.${String(randomInt(100_000_000, 1_000_000_000))}`;
  const witness = runWitness(sandbox, mark);
  let shown = false;
  try {
    shown = await witnessShown(sandbox, mark, witness.finished);
  } finally {
    // Sent whatever the wait gave (a failed listing too): the caller asked for the processes ended.
    await sandbox.killAllButInit();
  }
  // A witness that never showed says nothing; it ends with the kill, its life or its container,
  // and its result never rejects, so it is not waited for.
  if (!shown) return { witnessed: false };
  // 137: SIGKILLed, which is what the keeper's kill does; an exit of its own (its read timed out)
  // says nothing of the kill. Either way it has ended: at most its life is waited for.
  return { witnessed: (await witness.result) === 137 };
}

interface Witness {
  /** The witness's exit code; -1 when it could not be run. Never rejects. */
  readonly result: Promise<number>;
  /** Whether it has ended (read while waiting for it to show). */
  readonly finished: () => boolean;
}

/**
 * The witness is PID 1's own program (`/proc/1/exe`: the keeper's bash, loaded from the pristine
 * image when the container started; a file replaced on disk since is another inode), waiting on a
 * pipe to a forked copy of itself that waits on the witness in turn (a coprocess): nothing writes
 * to either end, and no file of the container takes part, so removing or replacing one (the
 * sandbox's /dev/ptmx, its working directory) cannot end it early. Whatever still makes it end
 * early (no room for two processes) only leaves the round without a witness.
 */
const WITNESS_SCRIPT = `coproc { read -t ${String(WITNESS_LIFE_S + 5)}; }; read -t ${String(WITNESS_LIFE_S)} -u "\${COPROC[0]}"`;
const WITNESS_PROGRAM = '/proc/1/exe';

function runWitness(sandbox: Sandbox, mark: string): Witness {
  let done = false;
  // The mark is its $0, the last word of its line in the engine's list: it makes the witness ours to find.
  const result = sandbox
    .exec([WITNESS_PROGRAM, '--noprofile', '--norc', '-c', WITNESS_SCRIPT, mark], {
      // Not the container's working directory: the sandbox can move that away, and the exec fails.
      workdir: '/',
      timeoutMs: (WITNESS_LIFE_S + 40) * 1000,
      outputLimitBytes: 4096,
    })
    .then(
      (run) => run.exitCode,
      () => -1,
    )
    .finally(() => {
      done = true;
    });
  return { result, finished: () => done };
}

async function witnessShown(sandbox: Sandbox, mark: string, finished: () => boolean): Promise<boolean> {
  const until = Date.now() + WITNESS_SHOW_MS;
  for (;;) {
    if (finished()) return false;
    const listed = await sandbox.processes();
    if (listed.some((p) => isWitness(p.command, mark))) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The witness's line in the engine's list (its args). */
function isWitness(command: string, mark: string): boolean {
  const line = command.trim();
  return line.startsWith(`${WITNESS_PROGRAM} `) && line.endsWith(` ${mark}`);
}
