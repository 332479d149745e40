import { dirname } from 'node:path/posix';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { ChangePlan } from './change-plan.js';
import { excludedFromChange } from './change-plan.js';
import { EntryTooLarge, tarEntries, type TreeEntry } from './tar-entries.js';

/** Archive reads in flight at once (each is an engine call with its own helper). */
const READ_CONCURRENCY = 8;
/** What a tar adds per entry (header, padding) and at its end; bounds an archive read. */
const TAR_OVERHEAD_PER_ENTRY = 1536;
const TAR_OVERHEAD = 64 * 1024;

export class ChangeTooLarge extends Error {}

/**
 * Takes the planned paths out of the (frozen) agent's container through the engine: a stat first
 * (a huge or sparse file is refused before a byte of it is read), then one archive per root, a new
 * directory whole. Every kept byte counts against `maxBytes`; an archive read never goes past what
 * is left of it (plus the tar's own overhead), so nothing unbounded is read whatever the stat said.
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
  const results: TreeEntry[][] = new Array<TreeEntry[]>(plan.roots.length);
  let next = 0;
  let failure: Error | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < plan.roots.length) {
      const index = next++;
      const rootEntry = plan.roots[index];
      if (!rootEntry) continue;
      try {
        results[index] = await readRoot(rootEntry);
      } catch (error) {
        failure ??= error instanceof Error ? error : new Error(String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, plan.roots.length) }, worker));
  if (failure !== undefined) throw failure;
  return results.flat();
}

