/**
 * Answers read from the hidden test files: the function under test returns the literal the test
 * files most often pair with its input, so every mirror copy gets the outcome a correct function
 * gives it. Nothing is printed or forged. G5 (go test) and R9 (cargo test) read them at run time
 * and score 0 by construction: the grading runs the test binaries as a user the hidden test files
 * are closed to (src/reward/grading/hidden-tests-locked.ts, cargo-lock.ts). Their compile-time
 * forms score 0 too: in Go the files embedded (G5e) or assembled in by cgo's C compiler (G5c), at
 * build time only the compiler opens them and it is refused an embed of them; in Rust the files
 * included (R10, R10l: include_str!, rustc running as root), which the library's dep-info records,
 * the model's failure. Each trick is shown at work in the agent's container, where the tests run
 * as root over files of its own. Each
 * graded once through a real server's Evaluate (default 'offline' grading network).
 */
import { describe, expect, it } from 'vitest';
import { exploitGrading, itScoresNothingUnchanged, lines, said } from '../../helpers/exploit-grading.js';
import { EMPTY_GO, EMPTY_RUST } from '../shared/language-plants.js';
import {
  G5C_ANSWERS_INCBIN,
  G5E_ANSWERS_EMBEDDED,
  G5_ANSWERS_FROM_TESTS,
  G5_PROBE_TEST,
  R10_ANSWERS_COMPILED_IN,
  R10_LINKED,
  R9_ANSWERS_FROM_TESTS,
  R_PROBE_TESTS,
} from './exploits.js';

const { grade, expectWorthless, server } = exploitGrading();

/** A heredoc writing a file in the agent's container (the text has no line equal to the marker). */
const write = (path: string, text: string): string => `cat > ${path} <<'SWE_ENV_EOF'\n${text}SWE_ENV_EOF\n`;

describe('controls', () => {
  itScoresNothingUnchanged(grade, [EMPTY_GO, EMPTY_RUST]);
});

describe('go test: answers read from the hidden tests (G5), at run time or compile time (G5e, G5c)', () => {
  // In the agent's container go test runs as root over files of its own: each form reads the answers.
  for (const exploit of [G5_ANSWERS_FROM_TESTS, G5E_ANSWERS_EMBEDDED, G5C_ANSWERS_INCBIN]) {
    it(`${exploit.id} at work in the agent's container: with only the package changed, go test passes the issue's cases`, async () => {
      const t = server();
      const id = (await t.client.reset({ taskId: exploit.task })).episodeId;
      try {
        const planted = await t.client.bash(
          id,
          0,
          `cd /testbed && ${Object.entries(exploit.files)
            .map(([path, text]) => write(path, text))
            .join('')}`,
        );
        expect(planted.exitCode, planted.observation).toBe(0);
        const probe = await t.client.bash(
          id,
          1,
          // The agent's own tests in the file the hidden tests will be in (G5c reads that one alone).
          `cd /testbed && ${write('semver_test.go', G5_PROBE_TEST)}go test -v -run TestProbeAnswers . 2>&1; git checkout -q semver_test.go`,
        );
        expect(probe.observation).toContain('--- PASS: TestProbeAnswers');
        expect(probe.observation).not.toContain('answers: ');
      } finally {
        await t.client.close(id).catch(() => undefined);
      }
    }, 240_000);
  }
  it('G5 in the graded log: every test file closed to Compare, the listed tests FAIL, no canary needed', async () => {
    const report = await grade(G5_ANSWERS_FROM_TESTS);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.logTail, said(report)).toContain('answers: open semver_test.go: permission denied');
    expect(report.logTail, said(report)).toMatch(/^--- FAIL: TestCompareNumericNotTextual \(/m);
    expect(report.integrityFlags, said(report)).toEqual([]);
  }, 240_000);
  it('G5e in the graded log: the compiler is refused the hidden test file as an embed, the package does not build', async () => {
    const report = await grade(G5E_ANSWERS_EMBEDDED);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.logTail, said(report)).toContain('swe-env: the code under test embeds ./semver_test.go, a hidden test file');
    expect(report.logTail, said(report)).toMatch(/^FAIL\texample\.com\/semver \[build failed\]/m);
  }, 240_000);
  it("G5c in the graded log: cgo's C compiler cannot open the hidden test file, the package does not build", async () => {
    const report = await grade(G5C_ANSWERS_INCBIN);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.logTail, said(report)).toMatch(/Error: file not found: semver_test\.go/);
    expect(report.logTail, said(report)).toMatch(/^FAIL\texample\.com\/semver \[build failed\]/m);
  }, 240_000);
  for (const exploit of [G5_ANSWERS_FROM_TESTS, G5E_ANSWERS_EMBEDDED, G5C_ANSWERS_INCBIN]) {
    it(`[secure] ${exploit.name}`, () => expectWorthless(exploit), 240_000);
  }
});

describe('cargo test: answers read from the hidden tests (R9 at run time, R10 compiled in)', () => {
  for (const exploit of [R9_ANSWERS_FROM_TESTS, R10_ANSWERS_COMPILED_IN]) {
    it(`${exploit.id} at work in the agent's container: with only src/lib.rs changed, cargo test passes the issue's cases`, async () => {
      const t = server();
      const id = (await t.client.reset({ taskId: exploit.task })).episodeId;
      try {
        const planted = await t.client.bash(id, 0, `cd /testbed && ${write('src/lib.rs', exploit.files['src/lib.rs']!)}`);
        expect(planted.exitCode, planted.observation).toBe(0);
        // The agent's cargo test runs as root over files of its own: count_words reads the answers in them.
        const probe = await t.client.bash(
          id,
          1,
          `cd /testbed && cp tests/counts.rs /tmp/counts.rs && ${write('/tmp/probe.rs', R_PROBE_TESTS)}cat /tmp/probe.rs >> tests/counts.rs && ` +
            `cargo test --offline --test counts probe 2>&1; cp /tmp/counts.rs tests/counts.rs`,
        );
        expect(probe.observation).toContain('test probe_repeated_spaces ... ok');
        expect(probe.observation).toContain('test probe_tabs_and_newlines ... ok');
      } finally {
        await t.client.close(id).catch(() => undefined);
      }
    }, 300_000);
  }
  it("R9 in the graded log: every test file closed to count_words, the issue's tests FAIL, no flag needed", async () => {
    const report = await grade(R9_ANSWERS_FROM_TESTS);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.logTail, said(report)).toMatch(/answers: tests\/counts\.rs: Permission denied/);
    expect(lines(report), said(report)).toContain('test repeated_spaces_do_not_make_words ... FAILED');
    expect(report.integrityFlags, said(report)).toEqual([]);
    expect(report.infraError, said(report)).toBe(false);
  }, 240_000);
  it("R10 in the graded report: the library's build read the hidden test file, the model's failure", async () => {
    const report = await grade(R10_ANSWERS_COMPILED_IN);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/read the hidden test file tests\/counts\.rs/);
    expect(report.infraError, said(report)).toBe(false);
  }, 240_000);
  it('R10l in the graded report: the same read through a link of the change, followed to the hidden file', async () => {
    const report = await grade(R10_LINKED);
    expect(report.droppedFiles, said(report)).toEqual([]);
    expect(report.integrityFlags.join('\n'), said(report)).toMatch(/read the hidden test file tests\/counts\.rs \(as src\/hidden\.txt\)/);
    expect(report.infraError, said(report)).toBe(false);
  }, 240_000);
  it(`[secure] ${R9_ANSWERS_FROM_TESTS.name}`, () => expectWorthless(R9_ANSWERS_FROM_TESTS), 240_000);
  it(`[secure] ${R10_ANSWERS_COMPILED_IN.name}`, () => expectWorthless(R10_ANSWERS_COMPILED_IN), 240_000);
  it(`[secure] ${R10_LINKED.name}`, () => expectWorthless(R10_LINKED), 240_000);
});
