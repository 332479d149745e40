import { setTimeout as sleep } from 'node:timers/promises';
import type { Sandbox } from '../../sandbox/sandbox.js';

/** Waits between the asks after the kill: the last writers end once their flush returns. */
const RETRY_WAITS_MS = [250, 500, 1000, 2000, 4000, 8000, 15000];

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
  let last: unknown;
  for (const wait of RETRY_WAITS_MS) {
    await sleep(wait);
    try {
      await agent.pause();
      return;
    } catch (error) {
      last = error;
      if (!(await agent.isRunning())) break;
    }
  }
  throw last;
}
