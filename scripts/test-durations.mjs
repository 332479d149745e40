#!/usr/bin/env node
// Writes test/durations.json (the order test/duration-sequencer.ts runs the files in) from the log
// of a full `npx vitest run`: each file's line, " ✓ test/x.test.ts (N tests) 12345ms".
// Usage: npx vitest run > /tmp/v.log; node scripts/test-durations.mjs /tmp/v.log
import { readFileSync, writeFileSync } from 'node:fs';

const LOG = process.argv[2];
if (!LOG) {
  console.error('usage: node scripts/test-durations.mjs VITEST_LOG');
  process.exit(2);
}
const line = /^\s*[✓❯×↓]\s+(test\/\S+\.test\.ts)\s+\((?:\d+ tests?)[^)]*\)\s+(?:\d+ \w+\s+)?([\d.]+)(ms|s)\s*$/u;
const durations = {};
for (const text of readFileSync(LOG, 'utf8').replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
  const match = line.exec(text);
  if (!match) continue;
  const [, file, amount, unit] = match;
  durations[file] = Math.round(Number(amount) * (unit === 's' ? 1000 : 1));
}
const count = Object.keys(durations).length;
if (count === 0) {
  console.error(`no test file's duration found in ${LOG}: is it the default reporter's output of a full run?`);
  process.exit(1);
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(new URL('../test/durations.json', import.meta.url), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${count} files`);
