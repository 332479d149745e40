/**
 * The sixth attacker's suite: each exploit of round6-exploits.ts graded through a real server's
 * Evaluate on the demo tasks beyond Python (default 'offline' grading network, 60 s test limit).
 * The secure outcome is asserted: an honest fix scores 1, a cheat 0 as the model's own failure
 * (never INFRA_ERROR). An exploit that wins today is `it.fails` with a `// SUCCEEDS:` note, so CI
 * stays green and the test fails (make it a plain `it`) the day a defence catches it; beside it a
 * plain `it` shows the mechanism at work in the graded report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradeReport__Output } from '../../src/generated/swe_env/v1/GradeReport.js';
import { LANGUAGE_TASKS } from '../helpers/language-demo.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { exploitGrading, lines, said } from '../helpers/exploit-grading.js';
import {
  F1_SECONDS_PER_CALL,
  F1_SLOW_HONEST_FIX,
  F2_VERBOSE_HONEST_FIX,
  F3_SLOW_MULTI_DIGIT,
  F3_SLOW_PATH_SECONDS,
  H2_MEMOISED_RANGE,
  H3_STATIC_CACHE,
  H4_SHARED_CACHE,
  H5_REUSED_BUFFER,
  M1_KEEPER_OVERWRITTEN,
  MV1_FORGED_BUILD_LINE,
  MV1_LINE,
  patchOf,
  RB1_LENIENT_EQ,
  type Round6Exploit,
} from './round6-exploits.js';

const { grade, expectWorthless } = exploitGrading();

const ALL: readonly Round6Exploit[] = [
  F1_SLOW_HONEST_FIX,
  F2_VERBOSE_HONEST_FIX,
  M1_KEEPER_OVERWRITTEN,
  MV1_FORGED_BUILD_LINE,
  RB1_LENIENT_EQ,
  H2_MEMOISED_RANGE,
  H3_STATIC_CACHE,
  H4_SHARED_CACHE,
  H5_REUSED_BUFFER,
];

// Every grading starts at once (the server runs them side by side): F1 alone takes the 60 s limit.
beforeAll(() => {
  for (const exploit of ALL) grade(exploit).catch(() => undefined);
});

/**
 * F3 on a server of its own with a 20 s limit (the shared one's 60 s would hold the suite for two
 * minutes), started beside the others: the honest run's listed tests take 13.5 s of it, the copies
 * 45 s against twice it.
 */
let short: TestServer | undefined;
let f3: Promise<GradeReport__Output> | undefined;
beforeAll(async () => {
  short = await startTestServer({ taskFiles: [LANGUAGE_TASKS], testTimeoutS: 20, gradingNetwork: 'offline' });
  f3 = short.client.evaluate(F3_SLOW_MULTI_DIGIT.task, patchOf(F3_SLOW_MULTI_DIGIT)).then((r) => r.report!);
  f3.catch(() => undefined);
}, 900_000);
afterAll(async () => {
  if (!short) return;
  await short.stop();
  await expectNoContainers(short.server.provider);
});

const status = (results: ReadonlyArray<{ name: string; status: unknown }>, name: string): unknown =>
  results.find((t) => t.name === name)?.status;

/** The secure outcome for an honest fix: kept whole, and worth 1. */
async function expectRewarded(exploit: Round6Exploit): Promise<void> {
  const report = await grade(exploit);
  expect(report.droppedFiles, said(report)).toEqual([]);
  expect(report.infraError, said(report)).toBe(false);
  expect(report.integrityFlags, said(report)).toEqual([]);
  expect(report.reward, said(report)).toBe(1);
}

describe("go test: an honest but slow fix against the mirrors' extra runs (F1): defeated", () => {
  // Scored 0 until f1f3d25: the mirrors run each mirrored listed test up to three more times
  // (7 to 10 more Compare calls beside the listed tests' 5) under the task's limit, so 30 s of
  // honest tests became 72 s or more and timed out at 60 s, with the cut-off copies flagged as
  // missing. A run with mirrors may now take twice the limit.
  it(`[secure] ${F1_SLOW_HONEST_FIX.name}: scores 1, its run past the task's own 60 s`, async () => {
    const report = await grade(F1_SLOW_HONEST_FIX);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    expect(report.logTail, said(report)).toMatch(new RegExp(`--- PASS: TestCompare\\w+ \\(${F1_SECONDS_PER_CALL}\\.\\d\\ds\\)`));
    await expectRewarded(F1_SLOW_HONEST_FIX);
  }, 240_000);
});

describe("go test: an honest fix slow on the issue's inputs alone, against twice the limit (F3): defeated", () => {
  // Scored 0 under f1f3d25's twice the limit, until 515d2a7 (four times): a copy costs what its
  // original does whenever the costly call comes before the first check (the check reads it), so
  // the exact, inverted and mutated copies made the tests cost 10 slow calls for 3 (45 s
  // against 40 s); a mirrored test runs at most four times.
  it(`[secure] ${F3_SLOW_MULTI_DIGIT.name}: scores 1`, async () => {
    const r = await f3!;
    expect(r.droppedFiles, said(r)).toEqual([]);
    expect(r.canaries, said(r)).toBeGreaterThan(2);
    // A test with one slow call passed: the fix is correct and its slow path ran.
    expect(r.logTail, said(r)).toMatch(new RegExp(`--- PASS: Test\\w+ \\(${Math.floor(F3_SLOW_PATH_SECONDS)}\\.\\d\\ds\\)`));
    expect(r.testTimedOut, said(r)).toBe(false);
    expect(r.infraError, said(r)).toBe(false);
    expect(r.integrityFlags, said(r)).toEqual([]);
    expect(r.reward, said(r)).toBe(1);
  }, 240_000);
});

describe('go test: an honest but verbose fix against the kept log (F2): defeated', () => {
  // Scored 0 until ec71fe2: the server kept 8 MiB of a run's log (head and tail); the listed
  // tests' 5 MiB fit, the copies made it 12 MiB or more, and the `--- PASS` lines in the dropped
  // middle read as missing (listed tests MISSING, canaries flagged). A run with mirrors now keeps
  // four times the log.
  it(`[secure] ${F2_VERBOSE_HONEST_FIX.name}: scores 1`, async () => {
    const report = await grade(F2_VERBOSE_HONEST_FIX);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    await expectRewarded(F2_VERBOSE_HONEST_FIX);
  }, 240_000);
});

describe('mask on demand: PID 1 overwritten through /proc/1/mem (M1): defeated', () => {
  // INFRA_ERROR until 3c9c226: /proc/1/mem of the keeper (same uid, dumpable) was writable from
  // the tests without ptrace; int3 over its code killed it with SIGTRAP, the container stopped, and
  // the grading read that as "killed from outside". PID 1's mem files are now covered.
  it(`[secure] ${M1_KEEPER_OVERWRITTEN.name}: the model's 0, the tests run to their end`, async () => {
    const report = await grade(M1_KEEPER_OVERWRITTEN);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.logTail, said(report)).toMatch(/^FAIL\texample\.com\/semver\t/m);
    await expectWorthless(M1_KEEPER_OVERWRITTEN);
  }, 240_000);
});

describe('maven: a BUILD line printed by the code under test (MV1)', () => {
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

describe('rspec: the matcher made lenient (RB1)', () => {
  it("RB1 at work: lib/roman.rb unfixed and changed alone, the issue's examples read passed", async () => {
    const report = await grade(RB1_LENIENT_EQ);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(lines(report), said(report)).toContain('writes four and nine by subtraction - passed');
    expect(report.canaries, said(report)).toBe(0);
  }, 240_000);
  // SUCCEEDS: RSpec runs take no canaries; the library prepends a module to
  // RSpec::Matchers::BuiltIn::Eq whose match always holds. Defence: RSpec canaries as for
  // node:test/PHPUnit (a mutated copy of an `expect(...).to eq(literal)` example must fail).
  it.fails(`[secure] ${RB1_LENIENT_EQ.name}`, () => expectWorthless(RB1_LENIENT_EQ), 240_000);
});

describe('honest fixes with state shared between tests (H2-H5): defeated', () => {
  it('each is the change it says (its rewrites of the gold fix took)', () => {
    expect(F1_SLOW_HONEST_FIX.files['semver.go']).toContain('time.Sleep(');
    expect(F2_VERBOSE_HONEST_FIX.files['semver.go']).toContain('\ttrace(a, b)\n');
    expect(M1_KEEPER_OVERWRITTEN.files['semver.go']).toContain('\tstopKeeper()\n');
    expect(MV1_FORGED_BUILD_LINE.files['src/main/java/demo/durations/Durations.java']).toContain(MV1_LINE);
    expect(H3_STATIC_CACHE.files['src/Slug.php']).toContain('private static function compute(');
    expect(H4_SHARED_CACHE.files['src/lib.rs']).toContain('static WORDS');
    expect(H5_REUSED_BUFFER.files['src/strutil.hpp']).toContain('const std::string& trim(');
    expect(H5_REUSED_BUFFER.files['src/strutil.cpp']).toContain('out.assign(text, first');
  });
  // The copies agree with their originals: a memoised value is the value.
  it(`[secure] ${H2_MEMOISED_RANGE.name}: scores 1, mirrors planted`, async () => {
    const report = await grade(H2_MEMOISED_RANGE);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    await expectRewarded(H2_MEMOISED_RANGE);
  }, 240_000);
  it(`[secure] ${H3_STATIC_CACHE.name}: scores 1, mirrors planted`, async () => {
    const report = await grade(H3_STATIC_CACHE);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    await expectRewarded(H3_STATIC_CACHE);
  }, 240_000);
  it(`[secure] ${H4_SHARED_CACHE.name}: scores 1, mirrors planted`, async () => {
    const report = await grade(H4_SHARED_CACHE);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    await expectRewarded(H4_SHARED_CACHE);
  }, 240_000);
  it(`[secure] ${H5_REUSED_BUFFER.name}: scores 1, mirrors planted`, async () => {
    const report = await grade(H5_REUSED_BUFFER);
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    await expectRewarded(H5_REUSED_BUFFER);
  }, 240_000);
});
