import { setTimeout as sleep } from 'node:timers/promises';
import type { Sandbox } from '../../sandbox/sandbox.js';
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
 * queue that at will. Such a process never returns to its own code: once a witnessed kill has gone
 * round and nothing is left but processes waiting in the kernel (state D, or ended: Z, X), none of
 * them new since before it, the sandbox is as still as a frozen one and the capture goes on.
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

/**
 * Whether every process but PID 1 is waiting in the kernel or ended, and still is after a
 * witnessed kill, with no process new since: each of them then has SIGKILL pending.
 */
async function onlyInTheKernel(agent: Sandbox): Promise<boolean> {
  const before = await waitingPids(agent);
  if (before === undefined) return false;
  if (!(await endAllButInit(agent)).witnessed) return false;
  const after = await waitingPids(agent);
  return after !== undefined && [...after].every((pid) => before.has(pid));
}

/** The pids of the processes but PID 1 when every one is waiting in the kernel or ended; else undefined. */
async function waitingPids(agent: Sandbox): Promise<Set<number> | undefined> {
  const others = (await agent.processes()).filter((p) => !p.init);
  return others.every((p) => NOT_RUNNING.has(p.state)) ? new Set(others.map((p) => p.pid)) : undefined;
}
