import { dirname } from 'node:path/posix';

/** One path of the engine's writable-layer diff, as the capture reads it. */
export interface LayerChange {
  readonly path: string;
  readonly kind: 'modified' | 'added' | 'deleted';
}

/** What to take from the agent's container: each root is read with one engine archive call. */
export interface ChangePlan {
  /**
   * Paths to read, relative to the repository. `subtree` roots are new directories (everything
   * under them is new): one archive holds them whole. `descendants` counts the engine's listed
   * paths beneath, to bound the archive's tar overhead.
   */
  readonly roots: ReadonlyArray<{
    readonly rel: string;
    readonly kind: 'added' | 'modified';
    readonly descendants: number;
    readonly hasChangedChildren: boolean;
  }>;
  /** Paths gone from the layer (a directory stands for everything under it). */
  readonly deleted: readonly string[];
  /** Listed paths in the repository that are part of the change (not .git, not compiled files). */
  readonly pathCount: number;
}

/** Not part of a change: anything in a .git directory, compiled Python. */
export function excludedFromChange(rel: string): boolean {
  const parts = rel.split('/');
  return parts.includes('.git') || parts.includes('__pycache__') || /\.py[co]$/.test(rel);
}

/** A path of the change, relative to the repository. */
export interface RepoChange {
  readonly rel: string;
  readonly kind: LayerChange['kind'];
}

/** The engine's listed paths inside the repository, relative to it, but those not part of a change. */
export function repoChanges(changes: readonly LayerChange[], workdir: string): RepoChange[] {
  const root = workdir.replace(/\/+$/, '');
  // The engine answers `null` for a container that changed nothing (read as a buffer, not a list).
  const listed: readonly LayerChange[] = Array.isArray(changes) ? changes : [];
  return listed
    .filter((c) => typeof (c.path as unknown) === 'string' && c.path.startsWith(`${root}/`))
    .map((c) => ({ kind: c.kind, rel: c.path.slice(root.length + 1).replace(/\/+$/, '') }))
    .filter((c) => c.rel !== '' && !excludedFromChange(c.rel));
}

/** The folders above a relative path, nearest first: `a/b/c` gives `a/b`, `a`. */
export function foldersAbove(rel: string): string[] {
  const folders: string[] = [];
  for (let at = rel.lastIndexOf('/'); at > 0; at = rel.lastIndexOf('/', at - 1)) folders.push(rel.slice(0, at));
  return folders;
}

/** Whether the path or a folder above it is among `paths`. */
export function within(rel: string, paths: ReadonlySet<string>): boolean {
  return paths.size > 0 && (paths.has(rel) || foldersAbove(rel).some((folder) => paths.has(folder)));
}

/**
 * Turns the repository's changed paths into the reads the capture makes, leaving out `ignored`
 * (ignored-paths.ts) and everything under them. A new directory is one root (its children are not
 * read one by one) unless something under it is left out: then its children are roots themselves.
 * A modified directory is not read at all (its changed children are listed themselves), unless
 * nothing under it is listed (then a stat says what it is).
 */
export function planChange(changes: readonly RepoChange[], ignored: ReadonlySet<string> = new Set()): ChangePlan {
  const inRepo = changes.filter((c) => !within(c.rel, ignored));
  const added = new Set(inRepo.filter((c) => c.kind === 'added').map((c) => c.rel));
  // New directories with something left out beneath: not read whole.
  const partial = new Set<string>();
  for (const path of ignored) {
    for (let up = dirname(path); up !== '.' && added.has(up); up = dirname(up)) partial.add(up);
  }
  const whole = (rel: string): boolean => added.has(rel) && !partial.has(rel);
  const descendants = new Map<string, number>();
  const withChildren = new Set<string>();
  for (const change of inRepo) {
    let up = dirname(change.rel);
    if (up !== '.') withChildren.add(up);
    // Count under the topmost new directory read whole only: that is the root read.
    let top: string | undefined;
    while (up !== '.' && whole(up)) {
      top = up;
      up = dirname(up);
    }
    if (top !== undefined) descendants.set(top, (descendants.get(top) ?? 0) + 1);
  }
  const roots: Array<ChangePlan['roots'][number]> = [];
  for (const change of inRepo) {
    if (change.kind === 'deleted') continue;
    if (change.kind === 'added' && whole(dirname(change.rel))) continue; // inside a new directory read whole
    if (partial.has(change.rel)) continue; // a new directory read child by child
    if (change.kind === 'modified' && withChildren.has(change.rel)) continue; // a directory whose children are listed
    roots.push({
      rel: change.rel,
      kind: change.kind,
      descendants: descendants.get(change.rel) ?? 0,
      hasChangedChildren: withChildren.has(change.rel),
    });
  }
  return { roots, deleted: inRepo.filter((c) => c.kind === 'deleted').map((c) => c.rel), pathCount: inRepo.length };
}
