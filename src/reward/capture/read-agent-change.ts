import { dirname } from 'node:path/posix';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { ChangePlan } from './change-plan.js';
import { excludedFromChange } from './change-plan.js';
import { groupReads, keptByBatch, type DirectoryRead } from './batch-reads.js';
import { EntryTooLarge, tarEntries, type TreeEntry } from './tar-entries.js';

/** Archive reads in flight at once (each is an engine call with its own helper). */
const READ_CONCURRENCY = 8;
/** What a tar adds per entry (header, padding) and at its end; bounds an archive read. */
const TAR_OVERHEAD_PER_ENTRY = 1536;
const TAR_OVERHEAD = 64 * 1024;
/**
 * What a directory read may carry beyond the change's own budget: the unchanged files beside it.
 * Past this the directory is read root by root instead (a tree of big files the change left alone).
 */
const BATCH_EXTRA_BYTES = 512 * 1024 * 1024;

export class ChangeTooLarge extends Error {}

/**
 * Takes the planned paths out of the (frozen) agent's container through the engine: a stat first
 * (a huge or sparse file is refused before a byte of it is read), then one archive per root, a new
 * directory whole. Every kept byte counts against `maxBytes`; an archive read never goes past what
 * is left of it (plus the tar's own overhead), so nothing unbounded is read whatever the stat said.
 * Many roots under one directory are read together instead (batch-reads.ts).
 */
export async function readAgentChange(agent: Sandbox, plan: ChangePlan, workdir: string, maxBytes: number): Promise<TreeEntry[]> {
  const root = workdir.replace(/\/+$/, '');
  let total = 0;
  const allow = (rel: string, size: number): void => {
    if (size > maxBytes) throw new ChangeTooLarge(`${rel} is ${size} bytes (at most ${maxBytes})`);
    total += size;
    if (total > maxBytes) throw new ChangeTooLarge(`the changed files add up to over ${maxBytes} bytes`);
  };
  const readRoot = async (rootEntry: ChangePlan['roots'][number]): Promise<TreeEntry[]> => {
    const path = `${root}/${rootEntry.rel}`;
    const stat = await agent.statPath(path);
    if (!stat) return []; // listed but gone (a whiteout's parent, a name the engine could not render)
    if (!stat.isFile && !stat.isSymlink) {
      // A directory: a new one is read whole; a modified one with nothing listed under it only
      // changed its own metadata, which git does not keep. Devices, fifos, sockets: not in git.
      if (rootEntry.kind !== 'added') return [];
    } else if (stat.isFile && stat.size > maxBytes) {
      throw new ChangeTooLarge(`${rootEntry.rel} is ${stat.size} bytes (at most ${maxBytes})`);
    }
    const bound = Math.max(0, maxBytes - total) + TAR_OVERHEAD_PER_ENTRY * (rootEntry.descendants + 1) + TAR_OVERHEAD;
    let archive: Buffer;
    try {
      archive = await agent.readArchive(path, bound);
    } catch (error) {
      if (/is larger than \d+ bytes/.test(String(error))) {
        throw new ChangeTooLarge(`${rootEntry.rel} holds over ${maxBytes} bytes of changed files`);
      }
      throw error;
    }
    const parent = dirname(rootEntry.rel);
    try {
      return await tarEntries(archive, parent === '.' ? '' : parent, (rel) => !excludedFromChange(rel), allow);
    } catch (error) {
      if (error instanceof EntryTooLarge) throw new ChangeTooLarge(error.message);
      throw error;
    }
  };
  // A directory read keeps what it may and charges the budget once it is whole: one that goes
  // past its own bound (big unchanged files, or compiled ones, beside the change) is read again
  // root by root, and nothing of it is counted twice.
  const readBatch = async (batch: DirectoryRead): Promise<TreeEntry[]> => {
    const keep = keptByBatch(batch);
    let kept = 0;
    const links: string[] = [];
    let entries: TreeEntry[];
    try {
      entries = await tarEntries(
        agent.streamArchive(`${root}/${batch.dir}`, maxBytes + BATCH_EXTRA_BYTES),
        dirname(batch.dir) === '.' ? '' : dirname(batch.dir),
        (rel) => keep(rel) && !excludedFromChange(rel),
        (rel, size) => {
          if (size > maxBytes) throw new ChangeTooLarge(`${rel} is ${size} bytes (at most ${maxBytes})`);
          kept += size;
          if (total + kept > maxBytes) throw new ChangeTooLarge(`the changed files add up to over ${maxBytes} bytes`);
        },
        (rel) => links.push(rel),
      );
    } catch (error) {
      if (error instanceof ChangeTooLarge) throw error;
      if (error instanceof EntryTooLarge) throw new ChangeTooLarge(error.message);
      if (!/is larger than \d+ bytes/.test(String(error))) throw error;
      return (await mapLimited(batch.roots, READ_CONCURRENCY, readRoot)).flat();
    }
    total += kept;
    if (total > maxBytes) throw new ChangeTooLarge(`the changed files add up to over ${maxBytes} bytes`);
    // A hard link to a file outside the change: its bytes were skipped, read it by itself.
    const linked = batch.roots.filter((r) => links.includes(r.rel));
    return [...entries, ...(await mapLimited(linked, READ_CONCURRENCY, readRoot)).flat()];
  };
  const { batches, singles } = groupReads(plan.roots);
  const jobs: Array<() => Promise<TreeEntry[]>> = [...batches.map((b) => () => readBatch(b)), ...singles.map((r) => () => readRoot(r))];
  return (await mapLimited(jobs, READ_CONCURRENCY, (job) => job())).flat();
}

/** `fn` over the items with at most `limit` at once, results in order; the first failure stops the rest. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: Error | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T);
      } catch (error) {
        failure ??= error instanceof Error ? error : new Error(String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure;
  return results;
}
