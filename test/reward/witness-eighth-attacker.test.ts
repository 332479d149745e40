import { describe, expect, it } from 'vitest';
import { CANARY, LISTED, type Graded, grade, said, useWitnessHarness } from '../helpers/witness-harness.js';

/**
 * An eighth independent attacker's ways past the boot (2026-12-05, a helper session on the boot of
 * bbb52db, host harness: test/helpers/witness-harness.ts). Each earned 1 with no integrity flag
 * before, the attacker's own test showing it three runs in three:
 * - A8-1: a second audit hook of the patch's, which CPython calls for the events the boot's own
 *   hook raises while it works, with the boot's frames (and its closure) on the stack. Now refused
 *   (an audit hook added during grading).
 * - A8-2, A8-2b: pytest's rewritten cache (`-pytest-` .pyc) planted beside an old module, or beside
 *   a module of the patch's handed to pytest's exec_module with its code named after os.py: run as
 *   the old file's code, trusted as a heap walker. Now a rewritten cache written since the container
 *   started is not read: pytest rewrites the source itself.
 * - A8-3: the hidden test file rewritten on disk before its import, pytest's rewriting made to
 *   stand aside: the plain loader's code matched the file as it then was. Now held to the bytes the
 *   boot read at its start (integrity).
 * - A8-5: a name flipped between the boot's read of a walker's file and its stat of the file's age.
 *   Now the age is the very inode's the bytes came from.
 * - A8-4, the listed test replaced by a function of the patch's that holds it and never calls it
 *   ("wrapped", audit); A8-7, by a standard-library function whose __wrapped__ is set to it ("ok",
 *   no finding); A8-7b (found 2026-12-05), the same stand-in with no __wrapped__ ("unverified",
 *   audit). Closed together, by construction rather than a rule per shape: a passing call of a
 *   hidden test whose function is not its file's own counts only where a frame of the file's code
 *   for it ran in that call, entered with pytest's arguments (boot/swe_env_proof.py).
 * Open, an `it.fails` that passes once the grader refuses it (docs/grading.md section 7): A8-6, a
 * bait in a pytest frame's f_locals dropped by the witness's own f_locals read inside the hook, its
 * __del__ running there.
 */
useWitnessHarness();

const earned = (g: Graded): boolean =>
  g.statuses.get(LISTED) === 'PASSED' && g.statuses.get(CANARY) === 'FAILED' && g.integrity.length === 0;

const shown = (g: Graded): string => `statuses ${JSON.stringify([...g.statuses])}\naudit ${g.audit.join(' | ')}\n${said(g)}`;

describe("the eighth attacker's ways past the boot", () => {
  it("attack A8-1, an audit hook of the patch's run for the boot's own events: refused, the listed test does not pass (it earned 1 before)", async () => {
    const g = await grade('attack8-audit-hook', {}, [], 'attack8-audit-hook');
    expect(g.audit.join('\n'), shown(g)).toMatch(/an audit hook added \(refused\)/);
    expect(g.statuses.get(LISTED), shown(g)).not.toBe('PASSED');
  }, 90_000);

  it.each([
    ['A8-2', 'attack8-pytest-pyc', 'beside an old test_*.py module'],
    ['A8-2b', 'attack8-rewriter-direct', "beside a module of the patch's handed to pytest's exec_module"],
  ])(
    "attack %s (%s), pytest's rewritten cache planted %s: not read, the listed test does not pass (it earned 1 before)",
    async (_id, fixture) => {
      const g = await grade(fixture, {}, [], fixture);
      expect(g.statuses.get(LISTED), shown(g)).not.toBe('PASSED');
      expect(earned(g), shown(g)).toBe(false);
    },
    90_000,
  );

  it('attack A8-3, the hidden test file rewritten on disk before its import: an integrity flag (it earned 1 before)', async () => {
    const g = await grade('attack8-test-file-rewritten', {}, [], 'attack8-test-file-rewritten');
    expect(g.integrity.join('\n'), shown(g)).toMatch(/a hidden test file run as other code than its text makes/);
  }, 90_000);

  it("attack A8-5, a walker's file name flipped between the boot's read and its stat: every walk refused (it earned 1 before)", async () => {
    const g = await grade('attack8-ctime-race', {}, [], 'attack8-ctime-race');
    expect(g.statuses.get(LISTED), shown(g)).not.toBe('PASSED');
    expect(earned(g), shown(g)).toBe(false);
  }, 120_000);

  it.each([
    ['A8-4', 'attack8-held-closure', "the listed test replaced by a function of the patch's that holds it and never calls it"],
    ['A8-7', 'attack8-foreign-wrapper', 'the listed test replaced by importlib.invalidate_caches with __wrapped__ set to it'],
    ['A8-7b', 'attack8-plain-stand-in', 'the listed test replaced by importlib.invalidate_caches, no __wrapped__ at all'],
  ])(
    "attack %s (%s, %s): the test's code never returned, an integrity flag (it earned 1 before)",
    async (_id, fixture) => {
      const g = await grade(fixture, {}, [], fixture);
      expect(g.integrity.join('\n'), shown(g)).toMatch(/never ran with pytest's arguments in its call/);
    },
    90_000,
  );

  it.fails.each([
    ['A8-6', 'attack8-locals-bait', "a bait in a pytest frame's f_locals, dropped inside the hook by the witness's own read"],
  ])(
    'OPEN: attack %s (%s, %s) is refused',
    async (_id, fixture) => {
      const g = await grade(`open-${fixture}`, {}, [], fixture);
      expect(earned(g), shown(g)).toBe(false);
    },
    90_000,
  );
});
