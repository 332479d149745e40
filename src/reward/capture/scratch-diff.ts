import { pack as tarPack } from 'tar-stream';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { bashArgv, CAPTURE_PATCH_SCRIPT } from '../scripts.js';
import { blobId, blobPack } from './blob-pack.js';
import type { TreeEntry } from './tar-entries.js';

/** Where the capture's inputs go in the scratch container (outside any repository). */
const INPUT_DIR = '/swe_env/capture';

export type ScratchDiff =
  { readonly ok: true; readonly patch: Buffer } | { readonly ok: false; readonly tooLarge: boolean; readonly error: string };

/**
 * The change as a diff, computed in a scratch container from the task's pristine image: the entries
 * (one pack of blobs) and deletions go in with one archive, and that image's git builds the new tree by plumbing
 * (capture-patch.sh) and diffs it against the base commit. The work tree is never written.
 */
export async function scratchDiff(
  scratch: Sandbox,
  input: {
    workdir: string;
    baseCommit: string;
    entries: readonly TreeEntry[];
    deleted: readonly string[];
    maxPatchBytes: number;
    timeoutMs: number;
    /** Blobs hashed and written without entering the tree (the control's check of the object format). */
    blobsOnly?: readonly Buffer[];
  },
): Promise<ScratchDiff> {
  const blobs = new Map<string, Buffer>();
  for (const content of input.blobsOnly ?? []) blobs.set(blobId(content), content);
  const records: Buffer[] = [];
  for (const entry of input.entries) {
    const id = blobId(entry.content);
    blobs.set(id, entry.content);
    records.push(Buffer.from(`${entry.mode} ${id}\t${entry.rel}\0`, 'utf8'));
  }
  const ids = [...blobs.keys()].sort();
  const archive = tarPack();
  const add = (name: string, content: Buffer | string): void => {
    archive.entry(
      { name: `${INPUT_DIR.slice(1)}/${name}`, mode: 0o644 },
      typeof content === 'string' ? Buffer.from(content, 'utf8') : content,
    );
  };
  archive.entry({ name: `${INPUT_DIR.slice(1)}/`, type: 'directory', mode: 0o755 });
  if (ids.length > 0) add('objects.pack', blobPack(ids.map((id) => blobs.get(id) ?? Buffer.alloc(0))));
  add('objects.ids', ids.map((id) => `${id}\n`).join(''));
  add('index-info', Buffer.concat(records));
  add('deleted', input.deleted.map((d) => `${d}\0`).join(''));
  archive.finalize();
  await scratch.putArchive(archive as unknown as NodeJS.ReadableStream, '/');
  const diff = await scratch.exec(bashArgv(CAPTURE_PATCH_SCRIPT, 'swe-env-capture', [input.workdir, input.baseCommit, INPUT_DIR]), {
    workdir: '/',
    separateStderr: true,
    outputLimitBytes: input.maxPatchBytes + 1,
    timeoutMs: input.timeoutMs,
  });
  if (diff.timedOut) return { ok: false, tooLarge: false, error: `computing the diff did not finish in ${input.timeoutMs / 1000} s` };
  if (diff.exitCode !== 0)
    return { ok: false, tooLarge: false, error: `computing the diff failed (exit ${diff.exitCode}): ${diff.stderr.trim().slice(-2000)}` };
  if (diff.outputBytes > input.maxPatchBytes)
    return { ok: false, tooLarge: true, error: `the diff is ${diff.outputBytes} bytes (at most ${input.maxPatchBytes})` };
  return { ok: true, patch: diff.output };
}
