/**
 * Changes to marked's library on markedjs__marked-2811 (a fail-only jasmine row of the corpus
 * sample) that try to pass the listed spec without the fix, graded in real containers on the
 * sample's image (test/corpus/sample.test.ts builds it once and grades the gold patch, 1): each
 * must score 0, or is listed as open. The trick is shown at work in the graded run's own facts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import type { Grader } from '../../src/reward/grader.js';
import type { GradeReport } from '../../src/reward/report.js';
import { harnessParse } from '../../src/languages/index.js';
import type { Task } from '../../src/tasks/task.js';

const ROOT = packageRoot();

/** What a report says, for an assertion's message. */
export function summary(report: GradeReport): string {
  const failing = [...report.failToPass, ...report.passToPass].filter((t) => t.status !== 'PASSED').map((t) => `${t.name} ${t.status}`);
  return JSON.stringify({
    reward: report.reward,
    infra: report.infraError,
    error: report.error.split('\n')[0],
    flags: report.integrityFlags,
    failing,
    log: report.logTail.slice(-1500),
  });
}

/** A trick at work in the container (the listed spec reported passing, no fix), caught by a must-fail canary: 0. */
function expectCaughtByCanary(report: GradeReport, canary: RegExp): void {
  expect(
    report.failToPass.map((t) => t.status),
    summary(report),
  ).toEqual(['PASSED']);
  expect(report.infraError, summary(report)).toBe(false);
  expect(report.integrityFlags.join('\n'), summary(report)).toMatch(canary);
  expect(report.reward, summary(report)).toBe(0);
}

/** The attacks, on the row and grader the caller set up (read once its beforeAll ran). */
export function describeJasmineAttacks(corpus: () => { task: Task; grader: Grader }): void {
  const grade = async (fixture: string): Promise<GradeReport> =>
    corpus().grader.grade(corpus().task, await readFile(join(ROOT, 'test', 'fixtures', 'corpus', `marked-2811-${fixture}.diff`)));

  describe("a fail-only row (jasmine): a listed spec passes on swe-env's reporter's line, never by its absence", () => {
    it("a change that prints a finished suite's summary and exits 0 before any spec runs scores 0, as the harness would score it 1", async () => {
      const { task, grader } = corpus();
      expect(task.failOnly).toBe(true);
      const patch = await readFile(join(ROOT, 'test', 'fixtures', 'corpus', 'marked-2811-summary-exit.diff'));
      let log = '';
      const report = await grader.grade(task, patch, { onTestLog: (text) => (log = text) });
      // The trick works in the container: the runner exits 0 with a summary saying the suite ran and
      // failed nothing, and the row's parser finds no failure, which the harness's fail-only rule
      // (check_fail_only with SUITE_RAN) reads as every listed spec passing.
      expect(report.testExitCode, summary(report)).toBe(0);
      expect(log).toMatch(/[1-9]\d* specs?, 0 failures?/);
      expect(harnessParse('parse_log_marked', log, '5', { instanceId: task.id, version: task.version }).size).toBe(0);
      // Graded: no reporter line says the listed spec passed.
      expect(report.infraError, summary(report)).toBe(false);
      expect(report.reward, summary(report)).toBe(0);
      expect(report.failToPass.map((t) => t.status)).toEqual(['MISSING']);
    }, 600_000);

    it("a change that makes every expectation hold scores 0: the reporter's must-fail canary passes too", async () => {
      expectCaughtByCanary(
        await grade('expect-holds'),
        /canary <swe-env reporter>::#canary:\d \(a synthetic test, must be FAILED\) was reported PASSED/,
      );
    }, 600_000);
  });

  describe('marked-2811 (fail-only, jasmine 4): changes that pass the listed spec without the fix', () => {
    it("stubbing only expectAsync (marked's specs check with it) scores 0 by the asynchronous must-fail canary", async () => {
      expectCaughtByCanary(await grade('async-holds'), /#canary:2 \(a synthetic test, must be FAILED\) was reported PASSED/);
    }, 600_000);

    it("rewriting the reporter's line through a replaced Buffer.from scores 0: the reporter took its own", async () => {
      const report = await grade('line-rewrite');
      expect(report.infraError, summary(report)).toBe(false);
      // The trick is live: the default reporter's numbered failures lost their numbers.
      expect(report.logTail, summary(report)).toMatch(/^\d+\] /m);
      expect(
        report.failToPass.map((t) => t.status),
        summary(report),
      ).toEqual(['FAILED']);
      expect(report.reward, summary(report)).toBe(0);
    }, 600_000);

    it('reopening descriptor 1 on a file the change rewrites at exit scores 0: the reporter writes only to the output it had', async () => {
      const report = await grade('fd-swap');
      expect(report.infraError, summary(report)).toBe(false);
      expect(
        report.failToPass.map((t) => t.status),
        summary(report),
      ).not.toEqual(['PASSED']);
      expect(report.reward, summary(report)).toBe(0);
    }, 600_000);

    it("a jasmine-core of the change's in front of the installed one (node_modules/jasmine/node_modules) is left out: 0", async () => {
      const report = await grade('runner-shim');
      expect(report.droppedFiles, summary(report)).toContain(
        'node_modules/jasmine/node_modules/jasmine-core/index.js (read or run by the test runner)',
      );
      expect(report.infraError, summary(report)).toBe(false);
      expect(report.reward, summary(report)).toBe(0);
    }, 600_000);

    it('a postinstall in package.json (the plan re-syncs dependencies with npm install when package.json changed) is left out: 0', async () => {
      const report = await grade('postinstall');
      expect(report.droppedFiles, summary(report)).toContain('package.json (read or run by the test runner)');
      expect(report.infraError, summary(report)).toBe(false);
      expect(report.reward, summary(report)).toBe(0);
    }, 600_000);

    // OPEN (docs/grading-languages.md, fail-only rows): each earns 1 without the fix; these tests
    // fail while it does. The canaries are the specs declared before marked's code loads and check
    // with jasmine's own matchers.
    for (const fixture of ['matchers-pass', 'failures-vanish', 'specs-emptied'])
      it.fails(
        `OPEN: ${fixture} earns 1`,
        async () => {
          const report = await grade(fixture);
          console.log(fixture, summary(report));
          expect(report.reward, summary(report)).toBe(0);
        },
        600_000,
      );
  });
}
