/**
 * Files the test command reads or runs, changed to rewrite or empty the tests: a TestMain of the
 * agent's (`_test.go`), build.rs, a Cargo.toml naming another build script, .cargo/config.toml (or
 * a .cargo symlink) naming a runner, the Makefile's test target, Maven's `.mvn/maven.config`. Each is left out of the change
 * before the run (patch-filter.ts) and graded once through a real server's Evaluate on the demo
 * tasks beyond Python (default 'offline' grading network): reward 0 as the model's own failure,
 * never INFRA_ERROR.
 */
import { describe, expect, it } from 'vitest';
import { exploitGrading, itScoresNothingUnchanged, said } from '../../helpers/exploit-grading.js';
import { EMPTY_CPP, EMPTY_GO, EMPTY_RUST } from '../shared/language-plants.js';
import {
  C1_MAKEFILE,
  G1_TRAILING_SPACE,
  G2_STDOUT_FILTER,
  GO_TESTMAIN_FORGERY,
  MV2_MAVEN_CONFIG,
  R2_BUILD_SCRIPT,
  R3_CARGO_RUNNER,
  R4_NAMED_BUILD_SCRIPT,
  R5_CARGO_CONFIG_SYMLINK,
} from './exploits.js';

const { grade, expectWorthless } = exploitGrading();

describe('controls', () => {
  itScoresNothingUnchanged(grade, [EMPTY_GO, EMPTY_RUST, EMPTY_CPP]);
});

describe('go test: a _test.go of the change owns the test binary', () => {
  it("go: a TestMain of the patch's own (re-printing PASS for the issue's tests, exiting 0) is left out of the change and scores 0", async () => {
    // A _test.go file of the package owns the test binary's output and exit: the change may not add one.
    const report = await grade(GO_TESTMAIN_FORGERY);
    expect(report.droppedFiles).toContain('main_test.go (read or run by the test runner)');
    expect(report.reward).toBe(0);
    expect(report.harness!.resolved).toBe(false);
  }, 300_000);
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
});

describe("cargo test: the build script and cargo's configuration", () => {
  // R2 and R3 earned 1 until dd9bf87: build.rs and .cargo/config are left out of the change.
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
});

describe('googletest (make test): the Makefile', () => {
  // Earned 1 until the build definitions the test command's tools read (make's Makefile here) were
  // protected like the files a test command runs.
  it(`${C1_MAKEFILE.name}: the Makefile dropped, as a build definition the test command reads`, async () => {
    const report = await grade(C1_MAKEFILE);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/^Makefile /m);
    expect(report.logTail, said(report)).toMatch(/g\+\+|c\+\+ |-lgtest/);
    await expectWorthless(C1_MAKEFILE);
  }, 120_000);
});

describe("maven: Maven's own configuration folder", () => {
  // Earned 1 until `.mvn/` (and the Maven and Gradle wrappers) were the runner's: the log alone
  // decides a Maven run, and the failed test's run ended in BUILD SUCCESS. Shown at work in an
  // agent's container in test/reward/capture-build-outputs.test.ts.
  it(`${MV2_MAVEN_CONFIG.name}: .mvn/maven.config dropped`, async () => {
    const report = await grade(MV2_MAVEN_CONFIG);
    expect(report.droppedFiles.join('\n'), said(report)).toMatch(/^\.mvn\/maven\.config /m);
    await expectWorthless(MV2_MAVEN_CONFIG);
  }, 240_000);
});
