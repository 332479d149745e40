/**
 * The fourth attacker's suite: each exploit of round4-exploits.ts (none a fix) graded through a
 * real server's Evaluate on the Go and Rust demo tasks, with the default 'offline' grading network.
 * The secure outcome is asserted: reward 0 as the model's own failure, never INFRA_ERROR. An
 * exploit that earns 1 today is `it.fails` with a `// SUCCEEDS:` note, so CI stays green and the
 * test fails (turn it into a plain `it`) the day a defence catches it. Beside each, a plain `it`
 * shows the trick at work in the graded log (facts about the run, not about the verdict), so an
 * `it.fails` cannot pass for a reason other than the exploit's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GradeReport__Output } from '../../src/generated/swe_env/v1/GradeReport.js';
import { buildLanguageDemoImages, LANGUAGE_TASKS } from '../helpers/language-demo.js';
import { expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import {
  D1_NEEDS_DOWNLOAD,
  EMPTY_GO,
  EMPTY_RUST,
  G1_TRAILING_SPACE,
  G2_STDOUT_FILTER,
  n1NetworkProbe,
  R1_ATEXIT_TRAILING_SPACE,
  R2_BUILD_SCRIPT,
  R3_CARGO_RUNNER,
  patchOf,
  type Round4Exploit,
} from './round4-exploits.js';

let server: TestServer | undefined;

beforeAll(async () => {
  await buildLanguageDemoImages();
  // The default grading network ('offline'), which N1 and D1 attack.
  server = await startTestServer({ taskFiles: [LANGUAGE_TASKS], testTimeoutS: 60, gradingNetwork: 'offline' });
}, 900_000);

afterAll(async () => {
  if (!server) return;
  await server.stop();
  await expectNoContainers(server.server.provider);
});

/** Each exploit graded once, shared by the tests that read its report. */
const graded = new Map<string, Promise<GradeReport__Output>>();
function grade(exploit: Round4Exploit): Promise<GradeReport__Output> {
  let report = graded.get(exploit.name);
  if (!report) {
    report = server!.client.evaluate(exploit.task, patchOf(exploit)).then((r) => r.report!);
    graded.set(exploit.name, report);
  }
  return report;
}

const said = (r: GradeReport__Output): string => `${r.error}\nflags: ${r.integrityFlags.join(' | ')}\nnetwork: ${r.gradingNetwork}\n${r.logTail}`;

/** The secure outcome: worth nothing, and the model's own 0 (not a masked INFRA_ERROR). */
async function expectWorthless(exploit: Round4Exploit): Promise<void> {
  const report = await grade(exploit);
  expect(report.infraError, `${exploit.name}: ${said(report)}`).toBe(false);
  expect(report.reward, `${exploit.name}: ${said(report)}`).toBe(0);
}

const lines = (r: GradeReport__Output): string[] => r.logTail.split('\n');

describe('controls', () => {
  it('no change scores 0 on both tasks (so a 1 below is the exploit\'s doing)', async () => {
    for (const control of [EMPTY_GO, EMPTY_RUST]) {
      const report = await grade(control);
      expect(report.infraError, said(report)).toBe(false);
      expect(report.reward, said(report)).toBe(0);
      expect(report.gradingNetwork, said(report)).toMatch(/^offline/);
    }
  }, 120_000);
});

describe("go test: the fourth attacker's exploits", () => {
  it('G1 at work: the hidden tests really FAIL, a forged PASS line ending in a space follows, no flag', async () => {
    const report = await grade(G1_TRAILING_SPACE);
    expect(lines(report), said(report)).toContain('--- FAIL: TestCompareNumericNotTextual (0.00s)');
    expect(lines(report), said(report)).toContain('--- PASS: TestCompareNumericNotTextual (0.00s) ');
    expect(report.testExitCode, said(report)).not.toBe(0);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // SUCCEEDS: the row's parser reads each line through Python's str.strip() and keeps the last
  // result per name, while contradictedResults() (language-results.ts) matches the unstripped line
  // against `\(.+\)$`: a PASS line with a trailing space, printed by an agent TestMain after m.Run(),
  // overrides the real FAIL unseen; canaries (left alone by shape) and the exit status stay honest.
  it.fails(`[secure] ${G1_TRAILING_SPACE.name}`, () => expectWorthless(G1_TRAILING_SPACE), 120_000);

  it('G2 at work: each listed test reported once, PASS, though the package is unfixed; the must-fail canary still FAILs', async () => {
    const report = await grade(G2_STDOUT_FILTER);
    expect(lines(report), said(report)).toContain('--- PASS: TestCompareNumericNotTextual (0.00s)');
    expect(report.logTail, said(report)).not.toMatch(/--- FAIL: TestCompare/);
    expect(report.logTail, said(report)).toMatch(/--- FAIL: Test\w+ \(/);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // SUCCEEDS: an agent-added `_test.go` file's TestMain owns the test binary's stdout (os.Stdout
  // swapped for a pipe before m.Run) and prints whatever results it likes; the grader reads only
  // that text. Canaries are told apart by their failure message ("total = N, want M") and left
  // alone, the non-zero exit is theirs: no contradiction, no missing canary, no exit-0 flag.
  it.fails(`[secure] ${G2_STDOUT_FILTER.name}`, () => expectWorthless(G2_STDOUT_FILTER), 120_000);

  it('N1: the code under test reaches nothing from the offline grading container (no host, no Docker API, no server, no outside)', async () => {
    const exploit = n1NetworkProbe(Number(/:(\d+)$/.exec(server!.server.address)![1]));
    const report = await grade(exploit);
    expect(report.gradingNetwork, said(report)).toMatch(/^offline/);
    expect(report.logTail, said(report)).toMatch(/PROBE refused 172\.17\.0\.1:2375/);
    expect(report.logTail, said(report)).not.toMatch(/PROBE REACHED/);
    await expectWorthless(exploit);
  }, 120_000);

  it('D1: a dependency the offline container cannot download is the model\'s 0, not INFRA_ERROR', async () => {
    const report = await grade(D1_NEEDS_DOWNLOAD);
    expect(report.logTail, said(report)).toMatch(/proxy\.golang\.org|go-cmp/);
    await expectWorthless(D1_NEEDS_DOWNLOAD);
  }, 120_000);
});

describe("cargo test: the fourth attacker's exploits", () => {
  it('R1 at work: the hidden tests really FAIL, forged ok lines ending in a space follow from the atexit handler', async () => {
    const report = await grade(R1_ATEXIT_TRAILING_SPACE);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... FAILED');
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... ok ');
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // SUCCEEDS: as G1, from the function under test with no test file at all: libc atexit() runs after
  // libtest's summary and prints `test <name> ... ok ` (trailing space) for every non-canary #[test]
  // of tests/*.rs; the stripped parser keeps it as the last word, the contradiction check's `$` misses it.
  it.fails(`[secure] ${R1_ATEXIT_TRAILING_SPACE.name}`, () => expectWorthless(R1_ATEXIT_TRAILING_SPACE), 120_000);

  it('R2 at work: the hidden tests pass for real (their bodies emptied), one canary fails as planted', async () => {
    const report = await grade(R2_BUILD_SCRIPT);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... ok');
    expect(report.logTail, said(report)).not.toMatch(/repeated_spaces_do_not_make_words \.\.\. FAILED/);
    expect(report.logTail, said(report)).toMatch(/1 failed/);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // SUCCEEDS: cargo runs the patch's root build.rs inside the test command, after the test patch and
  // the canaries are on disk and before tests/*.rs compile; it rewrites the hidden test file (empty
  // bodies for every #[test] that is not canary-shaped). Nothing checks the hidden files after the
  // run, and the log, canaries and exit status are all genuine.
  it.fails(`[secure] ${R2_BUILD_SCRIPT.name}`, () => expectWorthless(R2_BUILD_SCRIPT), 120_000);

  it('R3 at work: the listing says ok while libtest\'s own failures section names the hidden tests', async () => {
    const report = await grade(R3_CARGO_RUNNER);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... ok');
    expect(report.logTail, said(report)).toMatch(/---- repeated_spaces_do_not_make_words stdout ----/);
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 120_000);
  // SUCCEEDS: `.cargo/config.toml` in the repository is obeyed by the grading run: its
  // target.<triple>.runner wraps every test binary in a repository script that rewrites
  // `... FAILED` to `... ok` for non-canary names (read from tests/*.rs) and keeps the exit status.
  it.fails(`[secure] ${R3_CARGO_RUNNER.name}`, () => expectWorthless(R3_CARGO_RUNNER), 120_000);
});
