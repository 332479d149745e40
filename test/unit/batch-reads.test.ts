import { describe, expect, it } from 'vitest';
import { groupReads, keptByBatch, type PlannedRoot } from '../../src/reward/capture/batch-reads.js';

const file = (rel: string, kind: 'added' | 'modified' = 'added'): PlannedRoot => ({ rel, kind, descendants: 0, hasChangedChildren: false });

describe('groupReads', () => {
  it('reads many roots under one top-level directory once, from their deepest common directory', () => {
    const roots = [
      ...Array.from({ length: 20 }, (_, i) => file(`src/vendor/lib/m${i}.py`)),
      file('src/vendor/other/x.py', 'modified'),
      file('README.md', 'modified'),
    ];
    const { batches, singles } = groupReads(roots, 16);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.dir).toBe('src/vendor');
    expect(batches[0]!.roots).toHaveLength(21);
    expect(singles.map((r) => r.rel)).toEqual(['README.md']);
  });

  it('reads a few roots one by one, and never the repository itself', () => {
    const roots = [...Array.from({ length: 30 }, (_, i) => file(`top${i}.py`)), file('a/b.py'), file('c/d.py')];
    const { batches, singles } = groupReads(roots, 16);
    expect(batches).toEqual([]);
    expect(singles).toHaveLength(32);
  });

  it('keeps the roots and what lies under a new directory, nothing beside them', () => {
    const batch = { dir: 'pkg', roots: [file('pkg/a.py', 'modified'), { ...file('pkg/new'), descendants: 2 }] };
    const kept = keptByBatch(batch);
    expect(kept('pkg/a.py')).toBe(true);
    expect(kept('pkg/new/x/y.py')).toBe(true);
    expect(kept('pkg/b.py')).toBe(false);
    expect(kept('pkg/newer/z.py')).toBe(false);
    expect(kept('pkg')).toBe(false);
  });
});
