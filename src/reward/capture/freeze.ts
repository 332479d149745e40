import { setTimeout as sleep } from 'node:timers/promises';
import type { Sandbox } from '../../sandbox/sandbox.js';

/**
 * How long the freeze is asked for after the kill: the killed writers end once their flush
 * returns, and a flush is bounded by the sandbox's page cache (its memory limit) over the disk's
 * speed. Past it, the failure is the environment's (a disk that slow is no sandbox's doing).
 */
const AFTER_KILL_MS = 60_000;
const FIRST_WAIT_MS = 250;
const LONGEST_WAIT_MS = 5_000;

/**
 * Freezes the agent's sandbox for the capture. The engine's freeze can be refused while the
 * container is running: the cgroup v1 freezer gives up ("unable to freeze") while a process of the
 * cgroup waits on the disk, which a background writer that flushes brings about every time and a
 * loaded host's disk now and then to any process. The episode is over once it is captured, so its
 * processes are ended (PID 1's kill, which nothing in the sandbox can refuse; the files stay as they
 * are) and the freeze is asked again while the killed ones finish their I/O. Throws the first
 * refusal when the sandbox is not running (the caller asks whose doing that was), the last one when
 * the freeze is still refused after the kill.
 */
export async function freezeForCapture(agent: Sandbox): Promise<void> {
  try {
    await agent.pause();
    return;
  } catch (error) {
    if (!(await agent.isRunning())) throw error;
  }
  await agent.killAllButInit();
  const until = Date.now() + AFTER_KILL_MS;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    await sleep(Math.max(0, Math.min(wait, until - Date.now())));
    try {
      await agent.pause();
      return;
    } catch (error) {
      if (Date.now() >= until || !(await agent.isRunning())) throw error;
    }
  }
}
