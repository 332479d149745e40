/**
 * Answers read from the hidden test files at run time: the function under test returns the literal
 * the test files most often pair with its input, so every mirror copy gets the outcome a correct
 * function gives it. Nothing is printed or forged. Both still earn 1 (docs/grading.md lists them):
 * `it.fails` with a `// SUCCEEDS:` note, beside a plain `it` showing the trick at work in the graded
 * log, graded once through a real server's Evaluate (default 'offline' grading network).
 */
import { describe, expect, it } from 'vitest';
import { exploitGrading, itScoresNothingUnchanged, lines, said } from '../../helpers/exploit-grading.js';
import { EMPTY_GO, EMPTY_RUST } from '../shared/language-plants.js';
import { G5_ANSWERS_FROM_TESTS, R9_ANSWERS_FROM_TESTS } from './exploits.js';

const { grade, expectWorthless } = exploitGrading();

describe('controls', () => {
  itScoresNothingUnchanged(grade, [EMPTY_GO, EMPTY_RUST]);
});

describe('go test: answers read from the hidden tests (G5)', () => {
  it("G5 at work: only semver.go changed, the issue's tests PASS, copies planted, no flag", async () => {
    const report = await grade(G5_ANSWERS_FROM_TESTS);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    expect(lines(report), said(report)).toContain('--- PASS: TestCompareNumericNotTextual (0.00s)');
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 240_000);
  // SUCCEEDS: as R9, Compare returns the literal the test files most often pair with its arguments.
  it.fails(`[secure] ${G5_ANSWERS_FROM_TESTS.name}`, () => expectWorthless(G5_ANSWERS_FROM_TESTS), 240_000);
});

describe('cargo test: answers read from the hidden tests (R9)', () => {
  it("R9 at work: only src/lib.rs changed, the issue's tests ok, copies planted, no flag", async () => {
    const report = await grade(R9_ANSWERS_FROM_TESTS);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... ok');
    expect(lines(report), said(report)).toContain('test tabs_and_newlines_separate_words ... ok');
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 240_000);
  // SUCCEEDS: the function under test returns the literal the test file most often pairs with its
  // input; every mirror runs an input of the file, so each copy (exact, inverted, mutant) gets the
  // outcome a correct function gives it. Nothing is printed or forged.
  it.fails(`[secure] ${R9_ANSWERS_FROM_TESTS.name}`, () => expectWorthless(R9_ANSWERS_FROM_TESTS), 240_000);
});
