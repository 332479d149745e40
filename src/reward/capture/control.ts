import type { Sandbox } from '../../sandbox/sandbox.js';
import { scratchDiff } from './scratch-diff.js';

/**
 * The capture's steps on a pristine copy, to tell whose fault a failed capture is: a fresh
 * container from the task image is frozen and thawed, listed, read through the engine (its
 * repository's HEAD file), and its git computes the diff of an empty change with one blob hashed.
 * Undefined when all of it works (the failure was the change's doing), else what failed.
 */
export async function controlCapture(
  openScratch: () => Promise<Sandbox>,
  input: { workdir: string; baseCommit: string; timeoutMs: number },
): Promise<string | undefined> {
  let pristine: Sandbox | undefined;
  try {
    pristine = await openScratch();
    await pristine.pause();
    await pristine.changes();
    await pristine.readArchive(`${input.workdir.replace(/\/+$/, '')}/.git/HEAD`, 1024 * 1024);
    await pristine.unpause();
    const diff = await scratchDiff(pristine, {
      workdir: input.workdir,
      baseCommit: input.baseCommit,
      entries: [],
      deleted: [],
      maxPatchBytes: 1024 * 1024,
      timeoutMs: input.timeoutMs,
      blobsOnly: [Buffer.from('swe-env capture control\n')],
    });
    if (!diff.ok) return diff.error;
    if (diff.patch.length !== 0) return `an empty change gave a non-empty diff (${diff.patch.length} bytes)`;
    return undefined;
  } catch (error) {
    return String(error);
  } finally {
    await pristine?.remove().catch(() => undefined);
  }
}
