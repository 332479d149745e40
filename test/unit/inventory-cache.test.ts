import { describe, expect, it } from 'vitest';
import { InventoryCache, inventoryOf } from '../../src/reward/grading/inventory.js';
import type { ExecResult, Sandbox } from '../../src/sandbox/sandbox.js';

/** A container that answers the inventory's command with `output` and counts how often it ran. */
function container(imageId: string | undefined, output: string, exitCode = 0, timedOut = false): Sandbox & { runs: number } {
  const box = {
    runs: 0,
    imageId: () => Promise.resolve(imageId),
    exec: (): Promise<ExecResult> => {
      box.runs++;
      return Promise.resolve({
        exitCode,
        output: Buffer.from(output),
        stderr: '',
        outputBytes: output.length,
        omittedBytes: 0,
        timedOut,
        durationMs: 1,
      });
    },
  };
  return box as unknown as Sandbox & { runs: number };
}

const ONE = JSON.stringify({ plugins: ['pytest_cov'], owners: { '/site/a': ['a'] }, repo_dists: ['repo'] });

describe("a grader's inventories, one per image", () => {
  it('read once per image id and working directory, then kept', async () => {
    const cache = new InventoryCache();
    const first = container('sha256:one', ONE);
    expect((await inventoryOf(first, '/testbed', cache)).plugins).toEqual(['pytest_cov']);
    const again = container('sha256:one', '{}');
    expect((await inventoryOf(again, '/testbed', cache)).plugins).toEqual(['pytest_cov']);
    expect(again.runs).toBe(0);
    const otherImage = container('sha256:two', '{}');
    expect((await inventoryOf(otherImage, '/testbed', cache)).plugins).toEqual([]);
    expect(otherImage.runs).toBe(1);
    const otherDir = container('sha256:one', '{}');
    await inventoryOf(otherDir, '/work', cache);
    expect(otherDir.runs).toBe(1);
  });

  it('not kept when the read failed or the engine names no image', async () => {
    const cache = new InventoryCache();
    await inventoryOf(container('sha256:one', 'Traceback', 1), '/testbed', cache);
    const next = container('sha256:one', ONE);
    expect((await inventoryOf(next, '/testbed', cache)).plugins).toEqual(['pytest_cov']);
    expect(next.runs).toBe(1);
    await inventoryOf(container(undefined, ONE), '/testbed', cache);
    const unnamed = container(undefined, ONE);
    await inventoryOf(unnamed, '/testbed', cache);
    expect(unnamed.runs).toBe(1);
  });

  it("says when the image's Python has no audit hooks (before 3.8: no monitor, no recorder), and only then", async () => {
    expect((await inventoryOf(container('sha256:old', JSON.stringify({ audit_hooks: false })), '/testbed', undefined)).auditHooks).toBe(
      false,
    );
    expect((await inventoryOf(container('sha256:one', ONE), '/testbed', undefined)).auditHooks).toBeUndefined();
    expect(
      (await inventoryOf(container('sha256:odd', JSON.stringify({ audit_hooks: 'no' })), '/testbed', undefined)).auditHooks,
    ).toBeUndefined();
  });

  it('a read that did not end is the environment’s failure, never an empty inventory', async () => {
    await expect(inventoryOf(container('sha256:one', '', -1, true), '/testbed', new InventoryCache())).rejects.toThrow(/did not end/);
  });

  it('keeps at most its size, the oldest going first', async () => {
    const cache = new InventoryCache(2);
    for (const id of ['a', 'b', 'c']) await inventoryOf(container(id, ONE), '/t', cache);
    const a = container('a', ONE);
    await inventoryOf(a, '/t', cache);
    expect(a.runs).toBe(1);
    const c = container('c', ONE);
    await inventoryOf(c, '/t', cache);
    expect(c.runs).toBe(0);
  });
});
