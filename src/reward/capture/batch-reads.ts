import { dirname } from 'node:path/posix';
import type { ChangePlan } from './change-plan.js';

export type PlannedRoot = ChangePlan['roots'][number];

/** One engine read of a directory that holds many of the change's roots; only those are kept from it. */
export interface DirectoryRead {
  /** Relative to the repository; never the repository itself (its .git would come along). */
  readonly dir: string;
  readonly roots: readonly PlannedRoot[];
}

/** From this many roots under one top-level directory, one read of their common directory beats a read each. */
export const MIN_BATCH = 16;

/**
 * Splits the change's roots into directory reads and single reads. Each engine read costs a round
 * trip and a helper in the engine (tens of milliseconds), so thousands of changed files spread over
 * existing directories took minutes one by one. Roots are grouped by their top-level directory; a
 * group of at least MIN_BATCH is read once, from the deepest directory that holds all of it, and the
 * unchanged files that come along are skipped as they stream past. Top-level entries are read alone.
 */
export function groupReads(roots: readonly PlannedRoot[], minBatch = MIN_BATCH): { batches: DirectoryRead[]; singles: PlannedRoot[] } {
  const byTop = new Map<string, PlannedRoot[]>();
  const singles: PlannedRoot[] = [];
  for (const root of roots) {
    const slash = root.rel.indexOf('/');
    if (slash < 0) {
      singles.push(root);
      continue;
    }
    const top = root.rel.slice(0, slash);
    const group = byTop.get(top) ?? [];
    group.push(root);
    byTop.set(top, group);
  }
  const batches: DirectoryRead[] = [];
  for (const group of byTop.values()) {
    if (group.length < minBatch) singles.push(...group);
    else batches.push({ dir: commonDirectory(group.map((r) => dirname(r.rel))), roots: group });
  }
  return { batches, singles };
}

/** The deepest directory that is, or holds, each of `dirs` (all below the repository's root). */
function commonDirectory(dirs: readonly string[]): string {
  let common = (dirs[0] ?? '').split('/');
  for (const dir of dirs.slice(1)) {
    const parts = dir.split('/');
    let same = 0;
    while (same < common.length && same < parts.length && common[same] === parts[same]) same++;
    common = common.slice(0, same);
  }
  return common.join('/');
}

/**
 * Which paths of a directory read belong to the change: a root itself, or anything under a root
 * that is a new directory (read whole, as a single read of it would).
 */
export function keptByBatch(batch: DirectoryRead): (rel: string) => boolean {
  const exact = new Set(batch.roots.map((r) => r.rel));
  const newDirs = new Set(batch.roots.filter((r) => r.kind === 'added').map((r) => r.rel));
  return (rel: string): boolean => {
    if (exact.has(rel)) return true;
    for (let up = dirname(rel); up !== '.' && up !== '' && up.length >= batch.dir.length; up = dirname(up)) {
      if (newDirs.has(up)) return true;
    }
    return false;
  };
}
