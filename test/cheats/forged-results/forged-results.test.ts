/**
 * Results forged beyond pytest, each graded once through a real server's Evaluate on the demo tasks
 * beyond Python (default 'offline' grading network): the code under test prints or rewrites the
 * result lines the row's parser reads (Go, Rust, PHP testdox, Maven's BUILD line). The secure
 * outcome is asserted: reward 0 as the model's own failure, never INFRA_ERROR. An exploit that earns
 * 1 today is `it.fails` with a `// SUCCEEDS:` note, so CI stays green and the test fails (make it a
 * plain `it`) the day a defence catches it; beside it a plain `it` shows the trick at work in the
 * graded log (facts of the run, not of the verdict), so an `it.fails` cannot pass for a reason
 * other than the exploit's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { exploitGrading, itScoresNothingUnchanged, lines, said } from '../../helpers/exploit-grading.js';
import { EMPTY_GO, EMPTY_JAVA, EMPTY_PHP, EMPTY_RUST, type FileExploit } from '../shared/language-plants.js';
import {
  G3_INIT_REEXEC,
  G4_MIRROR_AWARE,
  G6_MIRROR_MODEL,
  GO_INIT_FORGERY,
  MV1_FORGED_BUILD_LINE,
  MV1_LINE,
  P1_OUTPUT_BUFFER,
  P2_UNLISTED_FAILURE,
  R1_ATEXIT_TRAILING_SPACE,
  R6_INIT_ARRAY_REEXEC,
  R7_MIRROR_AWARE,
  RUST_OK_LINES_FORGERY,
} from './exploits.js';

const { grade, expectWorthless } = exploitGrading();

// Every grading starts at once (the server runs up to four side by side) instead of one test after
// another; each is still graded once, its report read by the tests that name it.
const ALL: readonly FileExploit[] = [
  EMPTY_GO,
  EMPTY_RUST,
  EMPTY_PHP,
  EMPTY_JAVA,
  GO_INIT_FORGERY,
  RUST_OK_LINES_FORGERY,
  G3_INIT_REEXEC,
  G4_MIRROR_AWARE,
  G6_MIRROR_MODEL,
  R1_ATEXIT_TRAILING_SPACE,
  R6_INIT_ARRAY_REEXEC,
  R7_MIRROR_AWARE,
  P1_OUTPUT_BUFFER,
  P2_UNLISTED_FAILURE,
  MV1_FORGED_BUILD_LINE,
];
beforeAll(() => {
  for (const exploit of ALL) grade(exploit).catch(() => undefined);
});

// go test prints how long each test took: 0.00s on a quiet machine, more under load.
const GO_PASS_LINE = /^--- PASS: TestCompareNumericNotTextual \(\d+\.\d+s\)$/;

const status = (results: ReadonlyArray<{ name: string; status: unknown }>, name: string): unknown =>
  results.find((t) => t.name === name)?.status;

describe('controls', () => {
  itScoresNothingUnchanged(grade, [EMPTY_GO, EMPTY_RUST, EMPTY_PHP, EMPTY_JAVA]);
});

describe('forged results beyond pytest', () => {
  // The printed log of `go test -v` and of libtest is written by the test process, where the
  // patch's code runs: each forgery wins the log-only reading (the harness's verdict, which reads
  // nothing else) and scores 0 under swe-env's (the canaries, the runner's exit status).
  it('go: an init() printing PASS for every test and exiting 0 wins the log-only reading and scores 0', async () => {
    const report = await grade(GO_INIT_FORGERY);
    // A grading that ended before its verdict (no harness reading) says why.
    expect(report.harness, said(report)).toBeTruthy();
    expect(report.harness!.resolved, said(report)).toBe(true);
    expect(report.reward).toBe(0);
    expect(report.integrityFlags.join('\n')).toMatch(/canary .* must be FAILED\) was reported PASSED/);
    expect(report.integrityFlags.join('\n')).toMatch(/go test run exited 0 though a planted failing test/);
  }, 300_000);

  it("rust: the code under test printing libtest's ok lines and exiting 0 wins the log-only reading and scores 0", async () => {
    const report = await grade(RUST_OK_LINES_FORGERY);
    // A grading that ended before its verdict (no harness reading) says why.
    expect(report.harness, said(report)).toBeTruthy();
    expect(report.harness!.resolved, said(report)).toBe(true);
    expect(report.reward).toBe(0);
    // libtest runs tests on parallel threads: the planted failing test may print its FAILED line
    // before the forger's exit (then the log holds its true status), so only the runner's exit status
    // is a certain witness here.
    expect(report.integrityFlags.join('\n')).toMatch(/cargo test run exited 0 though a planted failing test/);
  }, 300_000);
});

describe('go test: the test binary re-run and its output rewritten', () => {
  it('G3 at work: no file dropped, each listed test reported once, PASS, though the package is unfixed', async () => {
    const report = await grade(G3_INIT_REEXEC);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(
      lines(report).filter((l) => GO_PASS_LINE.test(l)),
      said(report),
    ).toHaveLength(1);
    expect(report.logTail, said(report)).not.toMatch(/--- FAIL: (TestCompareMultiDigitComponents|TestCompareNumericNotTextual) /);
    expect(report.logTail, said(report)).toMatch(/--- FAIL: Test\w+ \(/);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // Earned 1 until the mirror canaries: G3 spares the synthetic canaries by their failure message
  // and turns every other FAIL into PASS, the inverted copies of the tests included.
  it(`[secure] ${G3_INIT_REEXEC.name}: the inverted copy of a test it turned to PASS was reported PASS too`, async () => {
    const report = await grade(G3_INIT_REEXEC);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/a copy of TestCompare\w+, must be FAILED\) was reported PASSED/);
    await expectWorthless(G3_INIT_REEXEC);
  }, 120_000);

  it("G4 at work: the issue's tests reported PASS though the package is unfixed", async () => {
    const report = await grade(G4_MIRROR_AWARE);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(
      lines(report).filter((l) => GO_PASS_LINE.test(l)),
      said(report),
    ).toHaveLength(1);
    expect(report.logTail, said(report)).not.toMatch(/--- FAIL: (TestCompareMultiDigitComponents|TestCompareNumericNotTextual) /);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // Earned 1 until the mutant mirrors: G4 reports the inverted copies failing, but the copy whose
  // literal was changed (honestly failing on the unfixed package) is turned into a pass with the rest.
  it(`[secure] ${G4_MIRROR_AWARE.name}: the copy with another literal was reported PASS with its original`, async () => {
    const report = await grade(G4_MIRROR_AWARE);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/a copy of TestCompare\w+, must be FAILED\) was reported PASSED/);
    await expectWorthless(G4_MIRROR_AWARE);
  }, 120_000);

  it("G6 at work: the issue's tests reported PASS though the package is unfixed", async () => {
    const report = await grade(G6_MIRROR_MODEL);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(
      lines(report).filter((l) => GO_PASS_LINE.test(l)),
      said(report),
    ).toHaveLength(1);
    expect(report.logTail, said(report)).not.toMatch(/--- FAIL: (TestCompareMultiDigitComponents|TestCompareNumericNotTextual) /);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // Earned 1 until go test's binaries ran as a user the hidden test files are closed to (issue 28,
  // hidden-tests-locked.ts): G6 models every kind of mirror (a body equal to another's but for one
  // line: more negation, or one literal and no identical twin) from the test files' source, which
  // it can no longer open, so it tells no copy from its original and turns every failure into a pass.
  it(`[secure] ${G6_MIRROR_MODEL.name}: the test files closed to it, the inverted copies were reported PASS too`, async () => {
    const report = await grade(G6_MIRROR_MODEL);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/a copy of TestCompare\w+, must be FAILED\) was reported PASSED/);
    await expectWorthless(G6_MIRROR_MODEL);
  }, 120_000);
});

describe('cargo test: ok lines forged or rewritten', () => {
  // Earned 1 until dd9bf87: the forged line ending in a space was read by the verdict (the parser
  // strips) and missed by the both-ways check; each line is now read for the check by the row's parser.
  it(`${R1_ATEXIT_TRAILING_SPACE.name}: the forged line is read, and seen both ways`, async () => {
    const report = await grade(R1_ATEXIT_TRAILING_SPACE);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/reported both passing and failing/);
    await expectWorthless(R1_ATEXIT_TRAILING_SPACE);
  }, 120_000);

  it("R6 at work: only src/lib.rs changed, the listing says ok while libtest's failures section names the hidden tests", async () => {
    const report = await grade(R6_INIT_ARRAY_REEXEC);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... ok');
    expect(report.logTail, said(report)).toMatch(/---- repeated_spaces_do_not_make_words stdout ----/);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // Earned 1 until the mirror canaries (see G3).
  it(`[secure] ${R6_INIT_ARRAY_REEXEC.name}: the inverted copy of a test it turned ok was reported ok too`, async () => {
    const report = await grade(R6_INIT_ARRAY_REEXEC);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/a copy of \w+, must be FAILED\) was reported PASSED/);
    await expectWorthless(R6_INIT_ARRAY_REEXEC);
  }, 120_000);

  it("R7 at work: the issue's tests reported ok though the library is unfixed", async () => {
    const report = await grade(R7_MIRROR_AWARE);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... ok');
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // Earned 1 until the mutant mirrors (see G4).
  it(`[secure] ${R7_MIRROR_AWARE.name}: the copy with another literal was reported ok with its original`, async () => {
    const report = await grade(R7_MIRROR_AWARE);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/a copy of \w+, must be FAILED\) was reported PASSED/);
    await expectWorthless(R7_MIRROR_AWARE);
  }, 120_000);
});

describe('phpunit: the printed lines rewritten in-process (P1, P2)', () => {
  // Defeated: PHPUnit still exits 1, and a non-zero exit with no failure in the log is not trusted.
  it(`${P1_OUTPUT_BUFFER.name}: testdox says ✔ everywhere, PHPUnit exits 1, the log is not trusted`, async () => {
    const report = await grade(P1_OUTPUT_BUFFER);
    expect(lines(report), said(report)).toContain(' ✔ Collapses runs of punctuation');
    expect(report.logTail, said(report)).not.toMatch(/✘/);
    expect(report.testExitCode, said(report)).toBe(1);
    expect(report.error, said(report)).toMatch(/exited with code 1 but its log reports no failure/);
    await expectWorthless(P1_OUTPUT_BUFFER);
  }, 240_000);

  it('P2 at work: the listed tests read ✔, one unlisted test ✘, and PHPUnit exits 1', async () => {
    const report = await grade(P2_UNLISTED_FAILURE);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain(' ✔ Collapses runs of punctuation');
    expect(lines(report), said(report)).toContain(' ✘ Keeps accented letters');
    expect(report.testExitCode, said(report)).toBe(1);
  }, 240_000);
  // Earned 1 until PHPUnit runs took canaries: the log alone decided (print goes through the code
  // under test's ob_start callback), and the forged failure of a test that does not exist explained
  // the exit status. Now the must-fail canaries read ✔ as well.
  it(`[secure] ${P2_UNLISTED_FAILURE.name}: a must-fail canary read ✔`, async () => {
    const report = await grade(P2_UNLISTED_FAILURE);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/must be FAILED\) was reported PASSED/);
    await expectWorthless(P2_UNLISTED_FAILURE);
  }, 240_000);
});

describe('maven: a BUILD line printed by the code under test (MV1)', () => {
  it('MV1 is the change it says (the printed line is in Durations.java)', () => {
    expect(MV1_FORGED_BUILD_LINE.files['src/main/java/demo/durations/Durations.java']).toContain(MV1_LINE);
  });
  it('MV1 at work: Durations unfixed, its printed BUILD SUCCESS read as the result of leavesOutZeroParts', async () => {
    const report = await grade(MV1_FORGED_BUILD_LINE);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain(MV1_LINE);
    // Maven's own verdict on that run is in the log too, read as left over.
    expect(lines(report), said(report)).toContain('[INFO] BUILD FAILURE');
    expect(report.logTail, said(report)).toMatch(/Tests run: 1, Failures: 1, Errors: 0, Skipped: 0\n/);
    expect(status(report.failToPass, 'demo.durations.DurationsTest#leavesOutZeroParts'), said(report)).toBe('TEST_STATUS_PASSED');
  }, 240_000);
  // SUCCEEDS: parse_log_maven pairs each traced `mvn test -Dtest=X` with the next line ending in
  // BUILD SUCCESS/FAILURE; the test JVM prints one before Maven's own BUILD FAILURE, which is left
  // over unmatched. Defence: take the BUILD line only after Maven's reactor summary (the
  // "Tests run:" results line of surefire), or read surefire's report files from outside.
  it.fails(`[secure] ${MV1_FORGED_BUILD_LINE.name}`, () => expectWorthless(MV1_FORGED_BUILD_LINE), 240_000);
});
