import { pack as tarPack } from 'tar-stream';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { bashArgv, CAPTURE_IGNORED_SCRIPT } from '../scripts.js';
import { Semaphore } from '../../common/semaphore.js';
import { buildOutputs } from '../../languages/index.js';
import { readContainerFile } from '../grading/container-file.js';
import { foldersAbove, type RepoChange } from './change-plan.js';

/** Where the check's input goes in the scratch container (outside any repository). */
const INPUT_DIR = '/swe_env/capture-ignored';

/** At most this many ignore files of the change are read, each at most IGNORE_FILE_LIMIT bytes. */
const MAX_IGNORE_FILES = 1000;
const IGNORE_FILE_LIMIT = 1024 * 1024;

/**
 * The paths of the agent's change that git leaves out of an agent's own diff: untracked files the
 * ignore rules ignore (caches, build output, an egg-info `pip install -e .` rewrote, compiled
 * extensions, packages an install put in node_modules), by the pristine checkout's rules with the
 * change's own ignore files in place (pytest writes `.pytest_cache/.gitignore`, a developer adds
 * a line for their build folder), and what a build tool writes beside a manifest the base commit
 * tracks (Language.buildOutputs: cargo's or Maven's `target`, whatever stands there), ignored or
 * not. A harness's model patch (`git diff`) never holds them; taken into the change, one the image
 * already has is a "new file" that does not apply, a stale build output is newer than the fixed
 * source it was built from (cargo and Maven then skip the build), and a big cache makes the change
 * too large: a correct fix scored 0. Leaving a path out only takes it from what is graded.
 *
 * Asked of the scratch container's git (the task's pristine image), never of the agent's; only
 * paths the base commit does not track are left out, a directory only when it holds none. The
 * change's ignore files are read through the engine from the frozen sandbox. A check that fails, or
 * an ignore file that cannot be read as a file, leaves nothing out: the capture is then what it was
 * without it.
 */
export async function ignoredPaths(
  scratch: Sandbox,
  agent: Sandbox,
  input: { workdir: string; baseCommit: string; changes: readonly RepoChange[]; timeoutMs: number },
): Promise<ReadonlySet<string>> {
  const present = input.changes.filter((c) => c.kind !== 'deleted');
  if (present.length === 0) return new Set();
  const ignoreFiles = input.changes.filter((c) => isIgnoreFile(c.rel));
  const written = await changedIgnoreFiles(
    agent,
    input.workdir,
    ignoreFiles.filter((c) => c.kind !== 'deleted'),
  );
  if (written === undefined) return new Set();
  const directories = new Set(input.changes.flatMap((c) => foldersAbove(c.rel)));
  const candidates = present.map((c) => (directories.has(c.rel) ? `${c.rel}/` : c.rel));
  const list = Buffer.from(candidates.map((c) => `${c}\0`).join(''), 'utf8');
  const outputs = outputsNamed(present);
  const root = input.workdir.replace(/^\/+|\/+$/g, '');
  const archive = tarPack();
  archive.entry({ name: `${INPUT_DIR.slice(1)}/`, type: 'directory', mode: 0o755 });
  archive.entry({ name: `${INPUT_DIR.slice(1)}/candidates`, mode: 0o644 }, list);
  const deleted = ignoreFiles.filter((c) => c.kind === 'deleted').map((c) => `${c.rel}\0`);
  archive.entry({ name: `${INPUT_DIR.slice(1)}/ignore-deleted`, mode: 0o644 }, deleted.join(''));
  archive.entry({ name: `${INPUT_DIR.slice(1)}/outputs`, mode: 0o644 }, outputs.map((o) => `${o.manifest}\t${o.output}\0`).join(''));
  for (const [rel, content] of written) {
    for (const dir of foldersAbove(rel)) archive.entry({ name: `${root}/${dir}/`, type: 'directory', mode: 0o755 });
    archive.entry({ name: `${root}/${rel}`, mode: 0o644 }, content);
  }
  archive.finalize();
  try {
    await scratch.putArchive(archive as unknown as NodeJS.ReadableStream, '/');
    const run = await scratch.exec(
      bashArgv(CAPTURE_IGNORED_SCRIPT, 'swe-env-capture-ignored', [input.workdir, input.baseCommit, INPUT_DIR, manifestPattern(outputs)]),
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

function isIgnoreFile(rel: string): boolean {
  return rel === '.gitignore' || rel.endsWith('/.gitignore');
}

/**
 * The change's ignore files as the frozen sandbox holds them (read through the engine); undefined
 * when one is not a regular file, too large, or there are too many.
 */
async function changedIgnoreFiles(agent: Sandbox, workdir: string, files: readonly RepoChange[]): Promise<Map<string, Buffer> | undefined> {
  if (files.length > MAX_IGNORE_FILES) return undefined;
  const root = workdir.replace(/\/+$/, '');
  // A few engine reads at once: a vendored tree can hold hundreds of them.
  const reads = new Semaphore(8);
  const contents = await Promise.all(
    files.map((file) => reads.with(() => readContainerFile(agent, `${root}/${file.rel}`, IGNORE_FILE_LIMIT).catch(() => undefined))),
  );
  const read = new Map<string, Buffer>();
  for (const [i, file] of files.entries()) {
    const content = contents[i];
    if (content === undefined) return undefined;
    read.set(file.rel, content);
  }
  return read;
}

/** The build outputs whose names some path of the change holds (only those are looked for). */
function outputsNamed(present: readonly RepoChange[]): Array<{ manifest: string; output: string }> {
  const names = new Set(present.flatMap((c) => c.rel.split('/')));
  return buildOutputs().flatMap(({ manifest, outputs }) => outputs.filter((o) => names.has(o)).map((output) => ({ manifest, output })));
}

/** An extended regular expression matching the paths of those outputs' manifests. */
function manifestPattern(outputs: ReadonlyArray<{ manifest: string }>): string {
  const names = [...new Set(outputs.map((o) => o.manifest.replace(/[.[\]()*+?^$|{}\\]/g, '\\$&')))];
  return names.length === 0 ? '^$' : `(^|/)(${names.join('|')})$`;
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
