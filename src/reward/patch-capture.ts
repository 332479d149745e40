import type { Sandbox } from '../sandbox/sandbox.js';
import { planChange, repoChanges } from './capture/change-plan.js';
import { controlCapture } from './capture/control.js';
import { freezeForCapture } from './capture/freeze.js';
import { ignoredPaths } from './capture/ignored-paths.js';
import { ChangeTooLarge, readAgentChange } from './capture/read-agent-change.js';
import { scratchDiff } from './capture/scratch-diff.js';

export type CaptureResult =
  | { readonly ok: true; readonly patch: Buffer; readonly durationS: number }
  | { readonly ok: false; readonly error: string; readonly infra: boolean; readonly durationS: number };

/** More changed paths than this in the repository is not a change anyone can grade. */
const MAX_CHANGED_PATHS = 200_000;
/** Listed paths checked against the ignore rules at most (an install's node_modules can be most of them). */
const MAX_LISTED_PATHS = 2_000_000;

/**
 * Reads the agent's change without running anything in the agent's container, from a frozen
 * sandbox: the engine pauses it (a cgroup freeze nothing inside can undo, so no background process
 * races the read; when the freezer refuses, the episode's processes are ended first), its
 * writable-layer diff says what changed, its stat and archive API take the changed files out (a
 * new directory in one read, a huge or sparse file refused before it is read), and the sandbox is
 * thawed again (its PID 1's own expiry must keep working should the removal that follows fail).
 * The diff is computed in a fresh container from the task's pristine image by that
 * image's git, with plumbing only: no git, PATH, config, hook, filter or attribute of the agent's is
 * obeyed, and everything git can hold is kept (symlinks anywhere, the executable bit, binary bytes).
 * Compiled artefacts and anything inside .git are not part of a change. A change too large to grade
 * is the agent's doing. What the pristine checkout's ignore rules ignore and the base commit does
 * not track is left out, as an agent's own `git diff` leaves it (capture/ignored-paths.ts). Any
 * other failure is INFRA_ERROR only when the same steps on a pristine copy fail too
 * (controlCapture); otherwise it is the model's failure, with the reason.
 */
export async function captureChange(
  agent: Sandbox,
  openScratch: () => Promise<Sandbox>,
  input: { workdir: string; baseCommit: string; maxPatchBytes: number; timeoutMs: number },
): Promise<CaptureResult> {
  const started = Date.now();
  const elapsed = (): number => (Date.now() - started) / 1000;
  const tooLarge = (why: string): CaptureResult => ({
    ok: false,
    error: `the change is too large to grade: ${why}`,
    infra: false,
    durationS: elapsed(),
  });
  // The caller asks the engine whether the sandbox's own commands brought it down.
  const stopped = (): CaptureResult => ({
    ok: false,
    error: 'the sandbox stopped while its change was read',
    infra: true,
    durationS: elapsed(),
  });
  try {
    await freezeForCapture(agent);
  } catch (error) {
    // A sandbox that is gone or stopped (the episode asks the engine whether its own commands did
    // it), or one still refused a freeze after its processes were ended.
    return { ok: false, error: `could not freeze the sandbox to capture its change: ${String(error)}`, infra: true, durationS: elapsed() };
  }
  let failure: string;
  let scratch: Sandbox | undefined;
  try {
    let entries;
    let plan;
    try {
      const changes = repoChanges(await agent.changes(), input.workdir);
      if (changes.length > MAX_LISTED_PATHS) return tooLarge(`${changes.length} paths changed (at most ${MAX_LISTED_PATHS})`);
      // The scratch container is the pristine checkout whose ignore rules say what is left out.
      scratch = await openScratch();
      plan = planChange(changes, await ignoredPaths(scratch, agent, { ...input, changes }));
      if (plan.pathCount > MAX_CHANGED_PATHS) return tooLarge(`${plan.pathCount} paths changed (at most ${MAX_CHANGED_PATHS})`);
      entries = await readAgentChange(agent, plan, input.workdir, input.maxPatchBytes);
      // Its files read as gone while it ended (its disk quota's kill) are not its change.
      if (!(await agent.isRunning())) return stopped();
    } finally {
      await agent.unpause().catch(() => undefined);
    }
    const diff = await scratchDiff(scratch, { ...input, entries, deleted: plan.deleted });
    if (diff.ok) return { ok: true, patch: diff.patch, durationS: elapsed() };
    if (diff.tooLarge) return tooLarge(diff.error);
    failure = diff.error;
  } catch (error) {
    if (error instanceof ChangeTooLarge) return tooLarge(error.message);
    if (!(await agent.isRunning().catch(() => true))) return stopped();
    failure = `could not read the change: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await scratch?.remove().catch(() => undefined);
  }
  const control = await controlCapture(openScratch, input);
  if (control !== undefined) {
    return {
      ok: false,
      error: `the capture failed (${failure}), and so did its steps on a pristine copy of the task (${control})`,
      infra: true,
      durationS: elapsed(),
    };
  }
  return {
    ok: false,
    error: `the change could not be captured (the same steps on a pristine copy of the task work): ${failure}`,
    infra: false,
    durationS: elapsed(),
  };
}
