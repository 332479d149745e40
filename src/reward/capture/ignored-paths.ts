import { pack as tarPack } from 'tar-stream';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { bashArgv, CAPTURE_IGNORED_SCRIPT } from '../scripts.js';
import { foldersAbove, type RepoChange } from './change-plan.js';

/** Where the check's input goes in the scratch container (outside any repository). */
const INPUT_DIR = '/swe_env/capture-ignored';

/**
 * The paths of the agent's change that git leaves out of an agent's own diff: untracked files the
 * pristine checkout's ignore rules ignore (caches, build output, an egg-info `pip install -e .`
 * rewrote, compiled extensions, packages an install put in node_modules). A harness's model patch
 * (`git diff`) never holds them; taken into the change, one the image already has is a "new file"
 * that does not apply, and a big cache makes the change too large: a correct fix scored 0.
 *
 * Asked of the scratch container's git (the task's pristine image), never of the agent's; only
 * paths the base commit does not track are left out, a directory only when it holds none. A change
 * that edits an ignore file may mean to un-ignore what it adds, so then nothing is left out. A
 * check that fails leaves nothing out: the capture is then what it was without it.
 */
export async function ignoredPaths(
  scratch: Sandbox,
  input: { workdir: string; baseCommit: string; changes: readonly RepoChange[]; timeoutMs: number },
): Promise<ReadonlySet<string>> {
  const present = input.changes.filter((c) => c.kind !== 'deleted');
  if (present.length === 0 || present.some((c) => c.rel === '.gitignore' || c.rel.endsWith('/.gitignore'))) return new Set();
  const directories = new Set(input.changes.flatMap((c) => foldersAbove(c.rel)));
  const candidates = present.map((c) => (directories.has(c.rel) ? `${c.rel}/` : c.rel));
  const list = Buffer.from(candidates.map((c) => `${c}\0`).join(''), 'utf8');
  const archive = tarPack();
  archive.entry({ name: `${INPUT_DIR.slice(1)}/`, type: 'directory', mode: 0o755 });
  archive.entry({ name: `${INPUT_DIR.slice(1)}/candidates`, mode: 0o644 }, list);
  archive.finalize();
  try {
    await scratch.putArchive(archive as unknown as NodeJS.ReadableStream, '/');
    const run = await scratch.exec(
      bashArgv(CAPTURE_IGNORED_SCRIPT, 'swe-env-capture-ignored', [input.workdir, input.baseCommit, INPUT_DIR]),
      {
        workdir: '/',
        separateStderr: true,
        // Every candidate at most once as ignored and once as tracked, with its tag.
        outputLimitBytes: 2 * (list.length + 2 * candidates.length) + 64 * 1024,
        timeoutMs: input.timeoutMs,
      },
    );
    if (run.timedOut || run.exitCode !== 0) return new Set();
    return leftOut(run.output.toString('utf8'));
  } catch {
    return new Set();
  }
}

/** The ignored paths of the script's records, but those the base commit tracks at or under. */
export function leftOut(records: string): ReadonlySet<string> {
  const ignored: string[] = [];
  const tracked: string[] = [];
  for (const record of records.split('\0')) {
    if (record.startsWith('I ')) ignored.push(record.slice(2).replace(/\/$/, ''));
    else if (record.startsWith('T ')) tracked.push(record.slice(2));
  }
  const holdsTracked = new Set(tracked.flatMap((file) => [file, ...foldersAbove(file)]));
  return new Set(ignored.filter((path) => path !== '' && !holdsTracked.has(path)));
}
