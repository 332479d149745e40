import { dirname } from 'node:path/posix';
import { Readable } from 'node:stream';
import { extract, pack } from 'tar-stream';
import { FailedPreconditionError } from '../../common/errors.js';
import type { Sandbox } from '../../sandbox/sandbox.js';

/**
 * A container's writable layer as data, to lay over a fresh container of the same image: the paths
 * the layer deleted, and one tar (extracted at `/`) of everything it added or changed. Built only
 * through the sandbox contract (the engine's diff and archive reads: nothing runs in the source),
 * so the copy is the same for every engine; see docs/fork.md for why a copy and not a commit.
 */
export interface LayerCopy {
  /** Deleted paths, the topmost of each deleted tree only. */
  readonly deleted: readonly string[];
  /** Added and changed entries with their modes, owners and times; empty when there are none. */
  readonly archive: Buffer;
  readonly entries: number;
  /** Bytes of file content in `archive`. */
  readonly bytes: number;
}

/** Mounts the engine gives every container, and the kernel's filesystems: never the layer's. */
const NOT_LAYER = /^\/(proc|sys|dev)(\/|$)|^\/etc\/(hosts|hostname|resolv\.conf)$/;

type Headers = Parameters<ReturnType<typeof pack>['entry']>[0];

interface Entry {
  readonly header: Headers;
  readonly body: Buffer;
}

/**
 * Reads the layer of `sandbox`. An added path is read whole (a new directory with its tree); a
 * changed directory gives only its own entry (mode, owner, times: its changed children are listed
 * on their own); a changed file is read whole. More than `maxBytes` of content is refused.
 */
export async function captureLayer(sandbox: Sandbox, maxBytes: number): Promise<LayerCopy> {
  const changes = (await sandbox.changes()).filter((c) => !NOT_LAYER.test(c.path)).sort((a, b) => (a.path < b.path ? -1 : 1));
  const deleted = topmost(changes.filter((c) => c.kind === 'deleted').map((c) => c.path));
  const present = changes.filter((c) => c.kind !== 'deleted' && c.path !== '/').map((c) => c.path);
  const packed = await tarInSource(sandbox, present, maxBytes);
  if (packed) return { deleted, archive: packed, entries: present.length, bytes: packed.length };
  const whole = new Set<string>();
  const roots: Array<{ path: string; kind: 'added' | 'modified' }> = [];
  for (const change of changes) {
    if (change.kind === 'deleted' || change.path === '/' || underAny(change.path, whole)) continue;
    roots.push({ path: change.path, kind: change.kind });
    if (change.kind === 'added') whole.add(change.path);
  }
  const budget = { left: maxBytes };
  // Each engine read is a round trip and a mount in the engine (tens of milliseconds): a few at once.
  const reads = await mapConcurrently(roots, READ_CONCURRENCY, (root) => readPath(sandbox, root.path, root.kind === 'modified', budget));
  const entries = reads.flat();
  const archive = entries.length > 0 ? await packEntries(entries) : Buffer.alloc(0);
  return { deleted, archive, entries: entries.length, bytes: maxBytes - budget.left };
}

const READ_CONCURRENCY = 8;

/**
 * The listed paths (the engine's diff names every one, a new directory's contents too) as one tar
 * made by the source's own `tar`: one exec instead of an engine read per path, which the engine
 * serialises per container (tens of milliseconds each). The source's `tar` is the agent's to
 * replace, and that is harmless here: what it writes only ever becomes the starting files of the
 * agent's own children, which the agent could write in their first step anyway; a child's reward
 * is graded from its own container like any episode's. Undefined when it fails (no GNU tar, a
 * broken one): the engine reads then do the copy.
 */
async function tarInSource(sandbox: Sandbox, paths: readonly string[], maxBytes: number): Promise<Buffer | undefined> {
  if (paths.length === 0) return Buffer.alloc(0);
  const argv = ['tar', '-C', '/', '-c', '-f', '-', '--no-recursion', '--ignore-failed-read', '--null', '-T', '-'];
  const stdin = paths.map((p) => p.slice(1)).join('\0');
  const result = await sandbox
    .exec(argv, { stdin, separateStderr: true, outputLimitBytes: maxBytes, timeoutMs: 120_000 })
    .catch(() => undefined);
  if (!result || result.exitCode !== 0 || result.timedOut) return undefined;
  if (result.omittedBytes > 0)
    throw new FailedPreconditionError(
      `the episode's writable layer holds more than ${Math.floor(maxBytes / 2 ** 20)} MiB; it cannot be forked`,
    );
  return result.output;
}

/** `fn` over every item, at most `limit` at a time; the results in the items' order. */
async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const at = next++;
      results[at] = await fn(items[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Lays a captured layer over `sandbox` (a fresh container of the source's image): the deletions
 * first, by `remove` (the caller runs them with the image's own `rm`, before anything of the
 * copied layer has landed), then the tar.
 */
export async function applyLayer(sandbox: Sandbox, copy: LayerCopy, remove: (paths: readonly string[]) => Promise<void>): Promise<void> {
  if (copy.deleted.length > 0) await remove(copy.deleted);
  if (copy.archive.length > 0) await sandbox.putArchive(copy.archive, '/');
}

/** The entries of one path, named from `/`; a changed directory gives its own entry only. */
async function readPath(sandbox: Sandbox, path: string, directoryItselfOnly: boolean, budget: { left: number }): Promise<Entry[]> {
  const prefix = dirname(path) === '/' ? '' : `${dirname(path).slice(1)}/`;
  const source = Readable.from(sandbox.streamArchive(path, budget.left + 64 * 1024 * 1024));
  const tar = extract();
  source.on('error', (error) => tar.destroy(error));
  source.pipe(tar);
  const entries: Entry[] = [];
  try {
    for await (const entry of tar) {
      const { header } = entry;
      if (header.size && header.size > budget.left) {
        throw new FailedPreconditionError(
          `the episode's writable layer holds more than ${Math.floor(budget.left / 2 ** 20)} MiB more than can be forked (at ${path})`,
        );
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry as AsyncIterable<Buffer>) chunks.push(chunk);
      const body = Buffer.concat(chunks);
      budget.left -= body.length;
      // Only the fields a tar header holds: a long name's PAX record is written again by pack.
      const named: Headers = {
        name: `${prefix}${header.name}`,
        type: header.type,
        mode: header.mode,
        uid: header.uid,
        gid: header.gid,
        mtime: header.mtime,
        linkname: header.type === 'link' && header.linkname ? `${prefix}${header.linkname}` : header.linkname,
        uname: header.uname,
        gname: header.gname,
        devmajor: header.devmajor,
        devminor: header.devminor,
      };
      entries.push({ header: named, body });
      if (directoryItselfOnly && entries.length === 1 && header.type === 'directory') break;
    }
  } catch (error) {
    // A path the engine no longer has (removed since the diff) has nothing to copy.
    if (/could not find|no such (file|container path)|\b404\b/i.test(String(error))) return [];
    throw error;
  } finally {
    source.destroy();
    tar.destroy();
  }
  return entries;
}

async function packEntries(entries: readonly Entry[]): Promise<Buffer> {
  const out = pack();
  const collected = (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of out as AsyncIterable<Buffer>) chunks.push(chunk);
    return Buffer.concat(chunks);
  })();
  for (const { header, body } of entries) {
    await new Promise<void>((resolve, reject) => {
      out.entry({ ...header, size: body.length }, body, (error) => (error ? reject(error) : resolve()));
    });
  }
  out.finalize();
  return collected;
}

/** The paths not under another of them (sorted input: a parent comes before its children). */
function topmost(paths: readonly string[]): string[] {
  const kept = new Set<string>();
  for (const path of paths) if (!underAny(path, kept)) kept.add(path);
  return [...kept];
}

function underAny(path: string, roots: ReadonlySet<string>): boolean {
  for (let at = dirname(path); at !== '/' && at !== '.'; at = dirname(at)) if (roots.has(at)) return true;
  return false;
}
