#!/usr/bin/env node
/**
 * Lists every test of the cheat catalogue (test/cheats) without running it: file, describe path,
 * title, and whether it is a plain `it` or an `it.fails` (an exploit that still earns 1). Run from
 * a checkout (`node scripts/list-cheats.mjs [folder]`); comparing two checkouts' outputs shows that
 * a reorganisation lost no exploit and turned no `it` into an `it.fails` or back.
 */
import { relative } from 'node:path';
import { createVitest } from 'vitest/node';

const folder = process.argv[2] ?? 'test/cheats';
const vitest = await createVitest('test', { watch: false, reporters: [] });
try {
  const { testModules } = await vitest.collect([folder]);
  const rows = [];
  for (const module of testModules) {
    const file = relative(process.cwd(), module.moduleId);
    for (const test of module.children.allTests()) {
      const path = [];
      for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) path.unshift(parent.name);
      rows.push(`${test.options.fails ? 'it.fails' : 'it'}\t${file}\t${[...path, test.name].join(' > ')}`);
    }
  }
  process.stdout.write(`${rows.sort().join('\n')}\n`);
} finally {
  await vitest.close();
}
