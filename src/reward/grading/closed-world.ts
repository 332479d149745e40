/**
 * The closed-world check after agent-driven steps (the install re-run executes the patch's setup.py,
 * build hooks and whatever they import, as root): from the engine's diff of the grading container's
 * writable layer (nothing runs inside), everything that changed outside the repository must be the
 * package's own installation metadata or scratch space. Anything else (a new `.pth` with code, a
 * sitecustomize, a `pytest11` entry point, a file of another installed package, a binary on PATH,
 * a conda activation script, `.git` configuration) is refused: reward 0, the model's failure, unless
 * the same step on the pristine repository makes the same change (the control run), in which case
 * it is the task's own doing.
 */

export interface LayerChange {
  readonly path: string;
  readonly kind: 'modified' | 'added' | 'deleted';
}

export interface OutsideChange extends LayerChange {
  readonly why: string;
}

export interface ClosedWorldInput {
  /** The layer before the agent-driven step (the task's own steps had run). */
  readonly before: readonly LayerChange[];
  readonly after: readonly LayerChange[];
  readonly workdir: string;
  /** Paths the grader itself wrote. */
  readonly ours: ReadonlySet<string>;
  /** The pristine image's ownership: `<site-packages>/<top-level entry>` -> distributions (normalised names). */
  readonly owners: ReadonlyMap<string, readonly string[]>;
  /** Distributions that are the repository itself (installed from the working directory). */
  readonly repoDists: ReadonlySet<string>;
}

/** A distribution's name as packaging normalises it (the metadata directory's prefix for dist-info and egg-info). */
export function normalisedDist(name: string): string {
  return name.replace(/[-_.]+/g, '-').toLowerCase();
}

export interface ClosedWorldFindings {
  /** Changes that are refused unless the control run makes them too. */
  readonly refused: readonly OutsideChange[];
  /** Files whose content decides (entry points, .pth): read and passed to contentProblems. */
  readonly readContent: readonly string[];
  /** Repository paths the step changed (what "code the agent wrote" includes from here on). */
  readonly repoChanges: readonly string[];
}

const SCRATCH = ['/tmp/', '/var/tmp/', '/root/.cache/', '/run/', '/var/cache/'];
const SCRATCH_DIRS = new Set(['/tmp', '/var/tmp', '/root', '/root/.cache', '/run', '/var', '/var/cache']);
const PACKAGES = /\/(?:site|dist)-packages\//;
/** What git itself rewrites when a build asks it for the version (setuptools-scm, versioneer). */
const GIT_ALLOWED = new Set(['.git', '.git/index', '.git/index.lock']);

function isAncestor(dir: string, paths: ReadonlySet<string>): boolean {
  for (const p of paths) if (p.startsWith(`${dir}/`)) return true;
  return false;
}

interface PackageContext {
  readonly base: string;
  readonly owners: ReadonlyMap<string, readonly string[]>;
  readonly repoDists: ReadonlySet<string>;
  readonly added: ReadonlySet<string>;
}

/**
 * A change inside a site-packages directory: the repository's own distribution may rewrite its
 * files and metadata (a non-editable re-install does); a new top-level entry is the install's;
 * anything an other distribution of the pristine image owns, and start-up code, is refused.
 */
function classifyPackageFile(change: LayerChange, inPackages: string, ctx: PackageContext): OutsideChange | 'content' | undefined {
  const top = inPackages.split('/')[0]!;
  if (/^(site|user)customize(\.py)?$/.test(top)) {
    return { ...change, why: 'interpreter start-up code (sitecustomize/usercustomize) in site-packages' };
  }
  const owners = ctx.owners.get(`${ctx.base}${top}`);
  const ownedByRepo = owners !== undefined && owners.length > 0 && owners.every((o) => ctx.repoDists.has(o));
  const isNewTop = ctx.added.has(`${ctx.base}${top}`) && owners === undefined;
  const metadata = /^(.+?)-[^/]*\.(dist|egg)-info$/.exec(top) ?? /^(.+)\.(dist|egg)-info$/.exec(top);
  if (metadata) {
    const name = normalisedDist(metadata[1]!);
    if (!(ownedByRepo || isNewTop || ctx.repoDists.has(name))) {
      return { ...change, why: `rewrites the metadata of ${name}, which is not the repository's distribution` };
    }
    return inPackages.endsWith('/entry_points.txt') ? 'content' : undefined;
  }
  if (top.endsWith('.egg-link'))
    return ctx.repoDists.has(normalisedDist(top.slice(0, -'.egg-link'.length))) || isNewTop
      ? undefined
      : { ...change, why: 'an egg-link of another distribution' };
  if (top.endsWith('.pth')) return change.kind === 'deleted' ? undefined : 'content';
  if (top.startsWith('__editable__')) return { ...change, why: 'an editable-install finder imported at interpreter start-up' };
  if (isNewTop) {
    // A new entry is the install's own only if it names no module another site directory already
    // provides: what an import resolves to, not where the file sits, decides what runs.
    const shadowed = shadowedOwners(ctx, top);
    return shadowed
      ? { ...change, why: `a new ${moduleName(top)} in ${ctx.base.replace(/\/$/, '')} that imports would find instead of ${shadowed}'s` }
      : undefined;
  }
  if (ownedByRepo) return undefined;
  const owner = owners?.join(', ') ?? 'no distribution the install made';
  return { ...change, why: `${change.kind === 'deleted' ? 'removes' : 'changes'} a file of ${owner}` };
}

/** The module a site directory's top-level entry provides (`x`, `x.py`, `x.cpython-311-x86_64-linux-gnu.so`). */
function moduleName(top: string): string {
  return top.replace(/\.(?:py|pyc|pyw)$/, '').replace(/(?:\.[\w-]+)?\.(?:so|pyd)$/, '');
}

/** The distributions of the pristine image that provide `top`'s module from another site directory (not the repository's own). */
function shadowedOwners(ctx: PackageContext, top: string): string | undefined {
  const name = moduleName(top);
  if (name === '' || name.includes('.') || name.endsWith('-info')) return undefined;
  for (const [entry, owners] of ctx.owners) {
    const slash = entry.lastIndexOf('/');
    const base = entry.slice(0, slash + 1);
    if (base === ctx.base || moduleName(entry.slice(slash + 1)) !== name) continue;
    const others = owners.filter((o) => !ctx.repoDists.has(o));
    if (others.length > 0) return others.join(', ');
  }
  return undefined;
}

export function closedWorldFindings(input: ClosedWorldInput): ClosedWorldFindings {
  const root = input.workdir.replace(/\/+$/, '');
  const seen = new Map(input.before.map((c) => [c.path, c.kind]));
  const fresh = input.after.filter((c) => seen.get(c.path) !== c.kind);
  const freshPaths = new Set(fresh.map((c) => c.path));
  const allPaths = new Set(input.after.map((c) => c.path));
  const added = new Set(fresh.filter((c) => c.kind === 'added').map((c) => c.path));
  const refused: OutsideChange[] = [];
  const readContent: string[] = [];
  const repoChanges: string[] = [];
  for (const change of fresh) {
    const { path } = change;
    if (input.ours.has(path)) continue;
    if (path === root || path.startsWith(`${root}/`)) {
      const rel = path.slice(root.length + 1);
      if (rel === '.git' || rel.startsWith('.git/')) {
        if (!GIT_ALLOWED.has(rel) && !(change.kind !== 'deleted' && isAncestor(path, freshPaths) && rel === '.git')) {
          refused.push({ ...change, why: "changes the repository's .git (configuration, hooks or objects)" });
        }
      } else if (rel !== '') {
        repoChanges.push(rel);
      }
      continue;
    }
    if (SCRATCH.some((dir) => path.startsWith(dir)) || SCRATCH_DIRS.has(path)) continue;
    // A directory that holds other changes is listed as changed too: its entries decide.
    if (change.kind === 'modified' && isAncestor(path, allPaths)) continue;
    const packages = PACKAGES.exec(path);
    if (packages) {
      const inPackages = path.slice(packages.index + packages[0].length);
      const base = path.slice(0, packages.index + packages[0].length);
      if (inPackages === '') continue;
      const verdict = classifyPackageFile(change, inPackages, { base, owners: input.owners, repoDists: input.repoDists, added });
      if (verdict === 'content') readContent.push(path);
      else if (verdict) refused.push(verdict);
      continue;
    }
    refused.push({ ...change, why: 'outside the repository and the package installation' });
  }
  return { refused, readContent, repoChanges };
}

/**
 * What a file's content makes of it: an entry point for pytest to load, or a `.pth` line that runs
 * code at every interpreter start. Undefined when harmless.
 */
export function contentProblem(path: string, content: string): string | undefined {
  if (path.endsWith('/entry_points.txt')) {
    return /^\s*\[\s*pytest11\s*\]/m.test(content) ? 'declares a pytest11 entry point (a plugin pytest would load)' : undefined;
  }
  if (path.endsWith('.pth')) {
    const code = content.split('\n').find((line) => /^\s*import[\s\t]/.test(line));
    return code ? `runs code at every interpreter start (${code.trim().slice(0, 120)})` : undefined;
  }
  return undefined;
}
