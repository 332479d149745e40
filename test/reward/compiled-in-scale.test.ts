/**
 * After a locked cargo run the grader reads rustc's dep-info for every compilation that read a
 * hidden test file (compiled-in.sh). A crate's dep-info names every file its compilation read, and
 * `include_bytes!` makes that any number: the read took a few processes per path, so a change
 * embedding 40,000 files (a table of embedded data) ran past the read's 120 s and the grading was
 * INFRA_ERROR, on demand for any policy about to fail a Rust task, and for a real crate that large
 * (found by an independent attacker). Now a few processes per compilation: the fix scores 1. What
 * the read finds (a hidden file read directly, through a link or as a copy) is
 * test/cheats/answers-from-tests' R10 and R10l.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { exploitGrading, said } from '../helpers/exploit-grading.js';
import { treeDiff } from '../helpers/tree-diff.js';

const TASK = 'swe-env-demo__wordcount-1';
const REPO = join(packageRoot(), 'tasks', 'demo-languages', 'repos', 'wordcount');
const GOLD_LIB = readFileSync(join(packageRoot(), 'tasks', 'demo-languages', 'tasks', 'wordcount-1', 'fix', 'src', 'lib.rs'), 'utf8');
const { server } = exploitGrading();

/** More files than the old read could take within its limit (about 12,000 at 5 ms a path). */
const EMBEDDED = 20_000;

/** A new file's diff, by hand: the helper's `git diff` would hold 20,000 of them in one buffer. */
function newFile(path: string, text: string): string {
  const head = `diff --git a/${path} b/${path}\nnew file mode 100644\n`;
  if (text === '') return `${head}index 0000000..e69de29\n`;
  const lines = text.split('\n').slice(0, -1);
  return `${head}--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;
}

const evaluate = async (patch: string) => (await server().client.evaluate(TASK, patch)).report!;

describe("the read of a cargo run's dep-info", () => {
  it(`the fix in a crate embedding ${EMBEDDED} files: read within its limit, 1 (was INFRA_ERROR)`, async () => {
    const table = Array.from({ length: EMBEDDED }, (_, k) => `pub const T${k}: &[u8] = include_bytes!("assets/t${k}");\n`).join('');
    const patch = [
      treeDiff(REPO, { 'src/lib.rs': `${GOLD_LIB}\npub mod assets;\n` }),
      newFile('src/assets.rs', `//! Embedded data tables.\n#![allow(dead_code)]\n${table}`),
      ...Array.from({ length: EMBEDDED }, (_, k) => newFile(`src/assets/t${k}`, '')),
    ].join('');
    const report = await evaluate(patch);
    expect(report.infraError, said(report)).toBe(false);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.reward, said(report)).toBe(1);
  }, 600_000);
});
