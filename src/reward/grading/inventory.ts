import { InfraError } from '../../common/errors.js';
import type { Sandbox } from '../../sandbox/sandbox.js';
import { INVENTORY_SCRIPT, bashArgv } from '../scripts.js';

/**
 * The pristine image's Python as the grading needs it (inventory.sh): pytest's plugins, loaded by
 * name in the test run, and which distribution owns each top-level entry of each site-packages
 * directory, for the install's closed-world check. Read in the grading container before anything of
 * the patch is on disk or the task's steps ran, so it is a function of the image alone: a grader
 * keeps it per image (by the engine's content id, not the image's name, which can move) and reads
 * it once however many gradings the image gets.
 */
export interface Inventory {
  readonly plugins: readonly string[];
  readonly owners: ReadonlyMap<string, readonly string[]>;
  /** The distributions that are the repository itself. */
  readonly repoDists: ReadonlySet<string>;
  /**
   * False when the image's Python has no audit hooks (before 3.8): no monitor can run there, and no
   * recorder (it hands its records to the monitor), so a pytest run is read from its log.
   */
  readonly auditHooks?: boolean;
}

export const NO_INVENTORY: Inventory = { plugins: [], owners: new Map(), repoDists: new Set() };

/** Inventories by image id and working directory; the oldest go first past its size. */
export class InventoryCache {
  private readonly entries = new Map<string, Inventory>();

  constructor(private readonly size = 512) {}

  get(key: string): Inventory | undefined {
    return this.entries.get(key);
  }

  set(key: string, inventory: Inventory): void {
    this.entries.delete(key);
    this.entries.set(key, inventory);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.size) break;
      this.entries.delete(oldest);
    }
  }
}

/** The image's inventory: from the cache when the image was read before, else read (and kept when it read cleanly). */
export async function inventoryOf(sandbox: Sandbox, workdir: string, cache: InventoryCache | undefined): Promise<Inventory> {
  const imageId = cache ? await sandbox.imageId() : undefined;
  const key = imageId === undefined ? undefined : `${imageId}\0${workdir}`;
  const kept = key === undefined ? undefined : cache?.get(key);
  if (kept) return kept;
  const { inventory, clean } = await readInventory(sandbox, workdir);
  if (key !== undefined && clean) cache?.set(key, inventory);
  return inventory;
}

async function readInventory(sandbox: Sandbox, workdir: string): Promise<{ inventory: Inventory; clean: boolean }> {
  const listed = await sandbox.exec(bashArgv(INVENTORY_SCRIPT, 'swe-env-inventory', [workdir]), {
    timeoutMs: 60_000,
    outputLimitBytes: 16 * 1024 * 1024,
    separateStderr: true,
  });
  // Nothing of the patch is on disk yet: a read that does not end is the machine's or the image's
  // trouble, and an empty inventory would leave the image's pytest plugins unloaded (an honest 0).
  if (listed.timedOut) throw new InfraError("reading the pristine image's Python (inventory.sh) did not end within 60 s");
  let parsed: { plugins?: unknown; owners?: unknown; repo_dists?: unknown; audit_hooks?: unknown } = {};
  let clean = listed.exitCode === 0 && listed.omittedBytes === 0;
  try {
    parsed = JSON.parse(listed.output.toString('utf8').trim() || '{}') as typeof parsed;
  } catch {
    parsed = {};
    clean = false;
  }
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const owners = new Map<string, string[]>();
  if (parsed.owners && typeof parsed.owners === 'object') {
    for (const [path, names] of Object.entries(parsed.owners as Record<string, unknown>)) owners.set(path, strings(names));
  }
  const inventory = {
    plugins: strings(parsed.plugins).filter((p) => /^[A-Za-z_][\w.]*$/.test(p)),
    owners,
    repoDists: new Set(strings(parsed.repo_dists)),
    ...(parsed.audit_hooks === false ? { auditHooks: false } : {}),
  };
  return { inventory, clean };
}
