import { setTimeout as sleep } from 'node:timers/promises';
import type { Sandbox, TopProcess } from '../../sandbox/sandbox.js';
import { endAllButInit } from '../grading/keeper-kill.js';

/**
 * How long the freeze is asked for after the kill while some process may still run: the killed
 * writers end once their flush returns. Past it, with a process still running, the failure is the
 * environment's.
 */
const AFTER_KILL_MS = 60_000;
const FIRST_WAIT_MS = 250;
const LONGEST_WAIT_MS = 5_000;

/**
 * How the sandbox was held still for the capture: the engine's freeze, or (refused) every process
 * but PID 1 killed and left only in the kernel, where no code of the sandbox runs again.
 */
export type Stillness = 'frozen' | 'killed';

/**
 * Holds the agent's sandbox still for the capture. The engine's freeze can be refused while the
 * container is running: the cgroup v1 freezer gives up ("unable to freeze") while a process of the
 * cgroup waits on the disk, which a background writer that flushes brings about every time and a
 * loaded host's disk now and then to any process. The episode is over once it is captured, so its
 * processes are ended (PID 1's kill, which nothing in the sandbox can refuse; the files stay as they
 * are) and the freeze is asked again while the killed ones finish their I/O.
 *
 * A killed process that waits on I/O it queued (reads queued by the gigabyte, which SIGKILL cannot
 * cut short) keeps the freezer refusing for as long as the disk takes, and the sandbox's code could
 * queue that at will. Such a process never returns to its own code: once nothing is left but
 * processes waiting in the kernel with SIGKILL pending or ended (states D, Z, X; see
 * onlyInTheKernel), the sandbox is as still as a frozen one and the capture goes on.
 *
 * Throws the first refusal when the sandbox is not running (the caller asks whose doing that was),
 * the last one when a process may still run past the wait.
 */
export async function freezeForCapture(agent: Sandbox): Promise<Stillness> {
  try {
    await agent.pause();
    return 'frozen';
  } catch (error) {
    if (!(await agent.isRunning())) throw error;
  }
  await agent.killAllButInit();
  const until = Date.now() + AFTER_KILL_MS;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    await sleep(Math.max(0, Math.min(wait, until - Date.now())));
    try {
      await agent.pause();
      return 'frozen';
    } catch (error) {
      if (!(await agent.isRunning())) throw error;
      if (await onlyInTheKernel(agent)) return 'killed';
      if (Date.now() >= until) throw error;
    }
  }
}

/** States of a process that will not run its own code again once SIGKILL is pending. */
const NOT_RUNNING = new Set(['D', 'Z', 'X']);
/** States of a process that has ended. */
const ENDED = new Set(['Z', 'X']);

/**
 * Whether every process but PID 1 is waiting in the kernel or ended, none of them to run its own
 * code again. Where the engine reads each process's pending signals (Docker: its host's ps), one
 * listing says it: SIGKILL pending on a process in the kernel ends it there, and an ended one runs
 * nothing; no process of the sandbox takes part (a witness is one, and the sandbox may stop it: a
 * pids limit it has taken up). Elsewhere (Podman) a witnessed kill must go round, with no process
 * new since before it (the witness waits on no file of the container: keeper-kill.ts).
 */
async function onlyInTheKernel(agent: Sandbox): Promise<boolean> {
  const others = (await agent.processes()).filter((p) => !p.init);
  if (others.every((p) => p.killPending !== undefined)) {
    return others.every((p) => ENDED.has(p.state) || (p.state === 'D' && p.killPending === true));
  }
  const before = waitingPids(others);
  if (before === undefined) return false;
  if (!(await endAllButInit(agent)).witnessed) return false;
  const after = waitingPids((await agent.processes()).filter((p) => !p.init));
  return after !== undefined && [...after].every((pid) => before.has(pid));
}

/** The pids of the processes when every one is waiting in the kernel or ended; else undefined. */
function waitingPids(others: readonly TopProcess[]): Set<number> | undefined {
  return others.every((p) => NOT_RUNNING.has(p.state)) ? new Set(others.map((p) => p.pid)) : undefined;
}
