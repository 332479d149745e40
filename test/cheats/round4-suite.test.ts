/**
 * The fourth attacker's suite: each exploit of round4-exploits.ts (none a fix) graded through a
 * real server's Evaluate on the Go, Rust and C++ demo tasks, with the default 'offline' grading network.
 * The secure outcome is asserted: reward 0 as the model's own failure, never INFRA_ERROR. An
 * exploit that earns 1 today is `it.fails` with a `// SUCCEEDS:` note, so CI stays green and the
 * test fails (turn it into a plain `it`) the day a defence catches it. Beside each, a plain `it`
 * shows the trick at work in the graded log (facts about the run, not about the verdict), so an
 * `it.fails` cannot pass for a reason other than the exploit's.
 */
import { describe, expect, it } from 'vitest';
import { exploitGrading, lines, said } from '../helpers/exploit-grading.js';
import {
  C1_MAKEFILE,
  D1_NEEDS_DOWNLOAD,
  EMPTY_CPP,
  EMPTY_GO,
  EMPTY_RUST,
  G1_TRAILING_SPACE,
  G2_STDOUT_FILTER,
  G3_INIT_REEXEC,
  n1NetworkProbe,
  R1_ATEXIT_TRAILING_SPACE,
  R2_BUILD_SCRIPT,
  R3_CARGO_RUNNER,
  R4_NAMED_BUILD_SCRIPT,
  R5_CARGO_CONFIG_SYMLINK,
  R6_INIT_ARRAY_REEXEC,
} from './round4-exploits.js';
import { G4_MIRROR_AWARE, G6_MIRROR_MODEL, R7_MIRROR_AWARE } from './mirror-aware-exploits.js';

const { grade, expectWorthless, server: suiteServer } = exploitGrading();

describe('controls', () => {
  it("no change scores 0 on the three tasks (so a 1 below is the exploit's doing)", async () => {
    for (const control of [EMPTY_GO, EMPTY_RUST, EMPTY_CPP]) {
      const report = await grade(control);
      expect(report.infraError, said(report)).toBe(false);
      expect(report.reward, said(report)).toBe(0);
      expect(report.gradingNetwork, said(report)).toMatch(/^offline/);
    }
  }, 120_000);
});

describe("go test: the fourth attacker's exploits", () => {
  // G1 and G2 earned 1 until dd9bf87: G1's forged line ending in a space was read by the verdict
  // (the parser strips) and missed by the both-ways check; G2's TestMain owned the binary's output.
  // Now each line is read for the check by the row's own parser, and `_test.go` files of the
  // agent's are left out of the change.
  it(`${G1_TRAILING_SPACE.name}: dropped, as any _test.go of the agent's`, async () => {
    const report = await grade(G1_TRAILING_SPACE);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/main_test\.go/);
    await expectWorthless(G1_TRAILING_SPACE);
  }, 120_000);
  it(`${G2_STDOUT_FILTER.name}: dropped, as any _test.go of the agent's`, async () => {
    const report = await grade(G2_STDOUT_FILTER);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/main_test\.go/);
    await expectWorthless(G2_STDOUT_FILTER);
  }, 120_000);

  it('G3 at work: no file dropped, each listed test reported once, PASS, though the package is unfixed', async () => {
    const report = await grade(G3_INIT_REEXEC);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain('--- PASS: TestCompareNumericNotTextual (0.00s)');
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
    expect(lines(report), said(report)).toContain('--- PASS: TestCompareNumericNotTextual (0.00s)');
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

  it("G6 at work: the issue's tests reported PASS though the package is unfixed, and no flag", async () => {
    const report = await grade(G6_MIRROR_MODEL);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain('--- PASS: TestCompareNumericNotTextual (0.00s)');
    expect(report.logTail, said(report)).not.toMatch(/--- FAIL: (TestCompareMultiDigitComponents|TestCompareNumericNotTextual) /);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // SUCCEEDS: code of the package reads the hidden test files and models every kind of mirror (a
  // body equal to another's but for one line: more negation, or one literal and no identical twin)
  // before rewriting the child binary's output. The copies are built from files the tested process
  // can read; a rewriter that knows how they are built can always pick them out.
  it.fails(`[secure] ${G6_MIRROR_MODEL.name}`, () => expectWorthless(G6_MIRROR_MODEL), 120_000);

  it('N1: the code under test reaches nothing from the offline grading container (no host, no Docker API, no server, no outside)', async () => {
    const exploit = n1NetworkProbe(Number(/:(\d+)$/.exec(suiteServer().server.address)![1]));
    const report = await grade(exploit);
    expect(report.gradingNetwork, said(report)).toMatch(/^offline/);
    expect(report.logTail, said(report)).toMatch(/PROBE refused 172\.17\.0\.1:2375/);
    expect(report.logTail, said(report)).not.toMatch(/PROBE REACHED/);
    await expectWorthless(exploit);
  }, 120_000);

  it("D1: a dependency the offline container cannot download is the model's 0, not INFRA_ERROR", async () => {
    const report = await grade(D1_NEEDS_DOWNLOAD);
    expect(report.logTail, said(report)).toMatch(/proxy\.golang\.org|go-cmp/);
    await expectWorthless(D1_NEEDS_DOWNLOAD);
  }, 120_000);
});

describe("cargo test: the fourth attacker's exploits", () => {
  // R1, R2 and R3 earned 1 until dd9bf87 (see G1: the both-ways check now reads each line with the
  // row's parser; build.rs and .cargo/config are left out of the change).
  it(`${R1_ATEXIT_TRAILING_SPACE.name}: the forged line is read, and seen both ways`, async () => {
    const report = await grade(R1_ATEXIT_TRAILING_SPACE);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/reported both passing and failing/);
    await expectWorthless(R1_ATEXIT_TRAILING_SPACE);
  }, 120_000);
  it(`${R2_BUILD_SCRIPT.name}: build.rs dropped`, async () => {
    const report = await grade(R2_BUILD_SCRIPT);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/build\.rs/);
    await expectWorthless(R2_BUILD_SCRIPT);
  }, 120_000);
  it(`${R3_CARGO_RUNNER.name}: .cargo/config.toml dropped`, async () => {
    const report = await grade(R3_CARGO_RUNNER);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/\.cargo\/config\.toml/);
    await expectWorthless(R3_CARGO_RUNNER);
  }, 120_000);

  // Earned 1 until the manifest the test command's cargo reads (Cargo.toml, whose `build = "..."`
  // named any file as the build script) was protected like a test command's own files.
  it(`${R4_NAMED_BUILD_SCRIPT.name}: Cargo.toml dropped, as a build definition the test command reads`, async () => {
    const report = await grade(R4_NAMED_BUILD_SCRIPT);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/Cargo\.toml/);
    await expectWorthless(R4_NAMED_BUILD_SCRIPT);
  }, 120_000);

  // Earned 1 until a path component named `.cargo` (the symlink itself) was protected, not only
  // `.cargo/config.toml` as the patch spells it.
  it(`${R5_CARGO_CONFIG_SYMLINK.name}: the .cargo symlink dropped`, async () => {
    const report = await grade(R5_CARGO_CONFIG_SYMLINK);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/^\.cargo /m);
    await expectWorthless(R5_CARGO_CONFIG_SYMLINK);
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

describe("googletest (make test): the fourth attacker's exploit", () => {
  // Earned 1 until the build definitions the test command's tools read (make's Makefile here) were
  // protected like the files a test command runs.
  it(`${C1_MAKEFILE.name}: the Makefile dropped, as a build definition the test command reads`, async () => {
    const report = await grade(C1_MAKEFILE);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/^Makefile /m);
    expect(report.logTail, said(report)).toMatch(/g\+\+|c\+\+ |-lgtest/);
    await expectWorthless(C1_MAKEFILE);
  }, 120_000);
});
