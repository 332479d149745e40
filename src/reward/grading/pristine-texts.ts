import type { Sandbox } from '../../sandbox/sandbox.js';
import { readRepoFiles } from './apply-stage.js';

/**
 * Files as the task's image holds them, read in a fresh container of it: the graded container's
 * git objects were in reach of the code under test while it ran, a new container's are not.
 * Absolute paths under `root` in and out; a file the image lacks (or over 1 MiB) is left out.
 */
export async function pristineTexts(
  openControl: () => Promise<Sandbox>,
  root: string,
  files: readonly string[],
): Promise<ReadonlyMap<string, string>> {
  const texts = new Map<string, string>();
  const relative = files.filter((file) => file.startsWith(`${root}/`)).map((file) => file.slice(root.length + 1));
  if (relative.length === 0) return texts;
  const control = await openControl();
  try {
    const read = await readRepoFiles(control, root, relative);
    for (const [path, { head }] of read) if (head !== undefined) texts.set(`${root}/${path}`, head);
  } finally {
    await control.remove().catch(() => undefined);
  }
  return texts;
}
