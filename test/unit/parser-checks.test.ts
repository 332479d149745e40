import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { contradictedResults, runResults, UnreadableLog } from '../../src/reward/grading/language-results.js';
import { languageParserNames, ownParser } from '../../src/languages/index.js';
import type { Task } from '../../src/tasks/task.js';

/**
 * No parser can crash a grading: every harness parser beyond Python, on every real log under
 * test/fixtures/harness-logs (and on each line of it, and on cut and garbled copies), through every
 * check the grader makes of a run's log, under the instance ids and versions the choosing parsers
 * read. A parser that cannot read a log says so with an UnreadableLog (judged by the gold patch's
 * run), never another exception (which was INFRA_ERROR for gold and empty patches alike).
 */
const LOGS = join(packageRoot(), 'test', 'fixtures', 'harness-logs');
const logFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? logFiles(join(dir, e.name)) : [join(dir, e.name)]));
const logs = logFiles(LOGS).map((path) => ({ name: relative(LOGS, path), log: readFileSync(path, 'utf8') }));

const TASKS: readonly Pick<Task, 'id' | 'version'>[] = [
  { id: 'jekyll__jekyll-9141', version: '4.3' },
  { id: 'immutable-js__immutable-js-2006', version: '4.0' },
  { id: 'vercel__next.js-1', version: '1.27' },
  { id: 'GoogleChrome__lighthouse-1', version: '10.2' },
  { id: 'unknown__row-1', version: 'x' },
];

/** Each check of the grader on a log: a typed refusal is the only way out. */
function gradeChecks(parser: string, log: string, task: Pick<Task, 'id' | 'version'>): void {
  try {
    const results = runResults(parser, ownParser(parser), log, task as Task);
    contradictedResults(parser, log, [...results.keys()].slice(0, 20), task);
  } catch (error) {
    if (!(error instanceof UnreadableLog)) throw error;
    expect(error.message).toMatch(new RegExp(`^the test log cannot be read by ${parser}: `));
  }
}

describe('every harness parser through every check the grader makes', () => {
  for (const parser of languageParserNames()) {
    it(parser, () => {
      for (const { name, log } of logs) {
        const variants = [log, log.slice(0, Math.floor(log.length / 2)), log.replaceAll('\n', '\r\n'), `${log}\n\u0000\u001b[31m<doctest`];
        for (const task of TASKS) {
          for (const variant of variants)
            expect(() => gradeChecks(parser, variant, task), `${parser} on ${name} as ${task.id}`).not.toThrow();
        }
      }
    });
  }
});
