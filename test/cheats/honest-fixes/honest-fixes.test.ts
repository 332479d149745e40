/**
 * Honest fixes the grading's defences must not refuse: slow ones against the mirrors' extra runs
 * (F1, F3), a verbose one against the kept log (F2), one with a module named build.rs (H1), ones
 * whose tests share state the copies read (H2-H5), Go code doing what its tests do as the grading's
 * test user, which the hidden tests are closed to (H6, H7), and a Go package with an embed and
 * cgo, built while the hidden tests are closed to all but the compiler (H8). Each graded once through a real server's
 * Evaluate on the demo tasks beyond Python (default 'offline' grading network, 60 s test limit; the slow
 * ones F1 and F3 under 20 s):
 * kept whole and worth 1. These are the catalogue's controls on the other side: a defence that
 * refuses honest work fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradeReport__Output } from '../../../src/generated/swe_env/v1/GradeReport.js';
import { exploitGrading, said } from '../../helpers/exploit-grading.js';
import { LANGUAGE_TASKS } from '../../helpers/language-demo.js';
import { expectNoContainers, startTestServer, type TestServer } from '../../helpers/server.js';
import { patchOf, type FileExploit } from '../shared/language-plants.js';
import {
  F1_SECONDS_PER_CALL,
  F1_SLOW_HONEST_FIX,
  F2_VERBOSE_HONEST_FIX,
  F3_SLOW_MULTI_DIGIT,
  F3_SLOW_PATH_SECONDS,
  H1_HONEST_BUILD_MODULE,
  H2_MEMOISED_RANGE,
  H3_STATIC_CACHE,
  H4_SHARED_CACHE,
  H5_REUSED_BUFFER,
  H6_GO_FILES_AS_TEST_USER,
  H7_GO_TOOL_AS_TEST_USER,
  H8_GO_EMBED_AND_CGO,
} from './exploits.js';

const { grade } = exploitGrading();

// These gradings start at once (the server runs them side by side).
const ALL: readonly FileExploit[] = [
  F2_VERBOSE_HONEST_FIX,
  H2_MEMOISED_RANGE,
  H3_STATIC_CACHE,
  H4_SHARED_CACHE,
  H5_REUSED_BUFFER,
  H6_GO_FILES_AS_TEST_USER,
  H7_GO_TOOL_AS_TEST_USER,
  H8_GO_EMBED_AND_CGO,
];
beforeAll(() => {
  for (const exploit of ALL) grade(exploit).catch(() => undefined);
});

/**
 * F1 and F3 on a server of their own with a 20 s limit (the shared one's 60 s would hold the suite
 * for two minutes), started beside the others: F1's listed tests take 10 s of it, F3's 13.5 s,
 * their copies push both past it.
 */
let short: TestServer | undefined;
let f1: Promise<GradeReport__Output> | undefined;
let f3: Promise<GradeReport__Output> | undefined;
beforeAll(async () => {
  short = await startTestServer({ taskFiles: [LANGUAGE_TASKS], testTimeoutS: 20, gradingNetwork: 'offline' });
  const evaluate = (exploit: FileExploit): Promise<GradeReport__Output> =>
    short!.client.evaluate(exploit.task, patchOf(exploit)).then((r) => r.report!);
  f1 = evaluate(F1_SLOW_HONEST_FIX);
  f3 = evaluate(F3_SLOW_MULTI_DIGIT);
  f1.catch(() => undefined);
  f3.catch(() => undefined);
}, 900_000);
afterAll(async () => {
  if (!short) return;
  await short.stop();
  await expectNoContainers(short.server.provider);
});

/** The secure outcome for an honest fix: kept whole, and worth 1. */
async function expectRewarded(exploit: FileExploit): Promise<void> {
  expectKeptAndRewarded(await grade(exploit));
}

function expectKeptAndRewarded(report: GradeReport__Output): void {
  expect(report.droppedFiles, said(report)).toEqual([]);
  expect(report.infraError, said(report)).toBe(false);
  expect(report.integrityFlags, said(report)).toEqual([]);
  expect(report.reward, said(report)).toBe(1);
}

describe("go test: an honest but slow fix against the mirrors' extra runs (F1): defeated", () => {
  // Scored 0 until f1f3d25: the mirrors run each mirrored listed test up to three more times
  // (7 to 10 more Compare calls beside the listed tests' 5) under the task's limit, so 10 s of
  // honest tests became 24 s or more and timed out at 20 s, with the cut-off copies flagged as
  // missing. A run with mirrors may now take four times the limit.
  it(`[secure] ${F1_SLOW_HONEST_FIX.name}: scores 1, its run past the task's own 20 s`, async () => {
    const report = await f1!;
    expect(report.canaries, said(report)).toBeGreaterThan(2);
    expect(report.logTail, said(report)).toMatch(new RegExp(`--- PASS: TestCompare\\w+ \\(${F1_SECONDS_PER_CALL}\\.\\d\\ds\\)`));
    expectKeptAndRewarded(report);
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

describe('honest fixes with state shared between tests (H2-H5): defeated', () => {
  it('each is the change it says (its rewrites of the gold fix took)', () => {
    expect(F1_SLOW_HONEST_FIX.files['semver.go']).toContain('time.Sleep(');
    expect(F2_VERBOSE_HONEST_FIX.files['semver.go']).toContain('\ttrace(a, b)\n');
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

describe("go test's binaries run as a user the hidden tests are closed to: what Go code does there (H6, H7, H8)", () => {
  // go test's test binaries run as `nobody` since issue 28's lock (hidden-tests-locked.ts): the
  // repository, a temp dir, a home and cache, and the go tool (the hidden tests absent through an
  // overlay) stay theirs. What such code loses is listed in docs/grading-languages.md.
  // H8: the build's compile-time reads of the hidden tests are closed too (embeds checked, cgo's C
  // compiler without root's capabilities): a package's own embed and its C still build.
  for (const exploit of [H6_GO_FILES_AS_TEST_USER, H7_GO_TOOL_AS_TEST_USER, H8_GO_EMBED_AND_CGO]) {
    it(`[secure] ${exploit.name}: scores 1, every step done`, async () => {
      const report = await grade(exploit);
      expect(report.logTail, said(report)).toContain('swe-env-honest: all done');
      expect(report.logTail, said(report)).not.toContain('swe-env-honest ');
      await expectRewarded(exploit);
    }, 240_000);
  }
});

describe('an honest fix must score 1 (H1)', () => {
  // Scored 0 until only a build.rs outside src/ was taken for Cargo's build script: the module
  // src/build.rs was dropped and `mod build;` did not compile.
  it(`[secure] ${H1_HONEST_BUILD_MODULE.name}: kept, and scores 1`, async () => {
    const report = await grade(H1_HONEST_BUILD_MODULE);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
    expect(report.reward, said(report)).toBe(1);
  }, 240_000);
});
