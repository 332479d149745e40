import { pyLines, pyStrip, type StatusMap } from '../shared/py-re.js';
import { pyWords } from '../shared/py-more.js';
import type { TestStatus } from '../shared/test-status.js';

/** swesmith 0.0.9's parser for C# (swesmith/profiles/csharp.py). */

const DOTNET_PREFIXES: ReadonlyArray<[string, TestStatus]> = [
  ['Passed', 'PASSED'],
  ['Failed', 'FAILED'],
  ['Skipped', 'SKIPPED'],
];

/**
 * VirtualClient's (dotnet test): a stripped line starting with Passed/Failed/Skipped names its
 * second word. A line of one word (`Passed!` of the summary) raises in the package, so here too.
 */
export function parseSmithDotnet(log: string): StatusMap {
  const map: StatusMap = new Map();
  for (const raw of pyLines(log)) {
    const line = pyStrip(raw);
    const prefix = DOTNET_PREFIXES.find(([p]) => line.startsWith(p));
    if (!prefix) continue;
    const name = pyWords(line)[1];
    if (name === undefined) throw new Error('IndexError: list index out of range');
    map.set(name, prefix[1]);
  }
  return map;
}
