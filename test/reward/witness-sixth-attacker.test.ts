import { describe, expect, it } from 'vitest';
import { CANARY, LISTED, type Graded, grade, said, useWitnessHarness } from '../helpers/witness-harness.js';

/**
 * A sixth independent attacker's ways past the boot (2026-12-04, on the boot whose heap walks are
 * allowed only to code of a module imported from a source file older than the grading container,
 * or of the hidden tests), run on the host with the real boot (test/helpers/witness-harness.ts).
 * Each earned 1 with no integrity flag before, shown by the attacker's own test of them:
 * - A6-1: a compiled cache planted for an untouched old module (its header matching the source's
 *   mtime and size), holding code that walks the heap at import: trusted as the old file's walker.
 *   A6-1b: the same for a module of the standard library, under `sys.pycache_prefix`.
 * - A6-2: pytest's rewriting told to stand aside (`_writing_pyc`) and the source loader's
 *   `get_data` replaced, so the import system's loader ran other text as the hidden test module.
 * Closed by construction: module code is held to what its file's bytes, read by the boot, compile
 * to (a walker's file also unchanged since before the line); a hidden test module the import
 * system's loader runs likewise, else it is the patch's (`test-module-rewritten`).
 * The same check lets an untouched helper's walk through, whoever imports it (H6-1, an honest zero
 * before: the package's `__init__` the fix changed imports it); a walk a module binds under a name
 * of its own (`from gc import get_objects as all_objects`) is asked for by that name (H6-2).
 * Open (docs/grading.md section 7), each an `it.fails` that passes once the grader refuses it:
 * A6-3, the standard library's trace.py, a trusted walker, filtering referrers through a module
 * global the patch replaces; A6-4, ctypes following the collector's own list; A6-6, the package's
 * decorator around a hidden test swallowing its failure (decorated tests get no copies; seen since
 * 2026-12-05 as `test-code-raised`, an audit finding: astropy's @raises leaves a test by an
 * exception as honestly). A6-5, a
 * thread reading the hook's frame through sys._current_frames (fixture attack6-thread-frames), is
 * a race the attacker won in about 7 s of trying: not a test, which would depend on the machine's
 * load (docs/grading.md section 7 says how to run it). And an honest zero: a fix calling the
 * repository's cache-clearing helper that walks the heap (H6-3, an integrity flag: the patch's code
 * is on the stack).
 */
useWitnessHarness();

const earned = (g: Graded): boolean =>
  g.statuses.get(LISTED) === 'PASSED' && g.statuses.get(CANARY) === 'FAILED' && g.integrity.length === 0;

describe("the sixth attacker's ways past the boot", () => {
  it.each([
    ['A6-1', 'attack6-pyc', 'a compiled cache planted for an untouched old module', /no source file holds/],
    ['A6-1b', 'attack6-pyc-prefix', "a standard-library module's cache planted under sys.pycache_prefix", /no source file holds/],
  ])(
    'attack %s (%s), %s: its walk refused, the listed test does not pass (it earned 1 before)',
    async (_id, fixture, _what, says) => {
      const g = await grade(fixture, {}, [], fixture);
      expect(g.audit.join('\n'), said(g)).toMatch(says);
      expect(g.statuses.get(LISTED), said(g)).not.toBe('PASSED');
    },
    90_000,
  );

  it("attack A6-2, the hidden test module run by the source loader from text the patch's get_data edited: an integrity flag (it earned 1 before)", async () => {
    const g = await grade('attack6-plain-import', {}, [], 'attack6-plain-import');
    expect(g.integrity.join('\n'), said(g)).toMatch(/a hidden test file run as other code than/);
    expect(earned(g), said(g)).toBe(false);
  }, 90_000);

  it.each([
    [
      'H6-1',
      'honest6-submodule-walker',
      "a leak check by the repository's untouched helper module, imported by the package's __init__ the fix changes",
    ],
    [
      'H6-2',
      'honest6-aliased-walk',
      'a leak check by an untouched helper binding gc.get_objects under another name (`from gc import get_objects as all_objects`)',
    ],
  ])(
    'honest %s (%s): %s: scores (refused before)',
    async (_id, fixture) => {
      const g = await grade(fixture, {}, [], fixture);
      expect(g.statuses.get(LISTED), said(g)).toBe('PASSED');
      expect(g.statuses.get(CANARY), said(g)).toBe('FAILED');
      expect(g.integrity, said(g)).toEqual([]);
    },
    90_000,
  );

  it.fails.each([
    ['A6-3', 'attack6-trace', "trace.Trace walking the recorder code's referrers, its inspect.isfunction filter replaced by list.append"],
    ['A6-4', 'attack6-ctypes-gc', "ctypes following the collector's own generation list to the boot's state"],
    ['A6-6', 'attack6-decorator', "the package's own decorator around a hidden test made to swallow its failure"],
  ])(
    'OPEN: attack %s (%s, %s) is refused',
    async (_id, fixture) => {
      const g = await grade(`open-${fixture}`, {}, [], fixture);
      expect(earned(g), said(g)).toBe(false);
    },
    90_000,
  );

  it.fails.each([
    ['H6-3', 'honest6-fix-calls-walker', "the fix calling the repository's untouched cache-clearing helper, which walks the heap"],
  ])(
    'OPEN honest %s (%s, %s): scores',
    async (_id, fixture) => {
      const g = await grade(`open-${fixture}`, {}, [], fixture);
      expect(earned(g), said(g)).toBe(true);
    },
    90_000,
  );
});
