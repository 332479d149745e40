import { randomBytes } from 'node:crypto';
import type { Sandbox } from '../../sandbox/sandbox.js';
import type { Task } from '../../tasks/task.js';
import { resultReporterFor, type ResultReporter, type StatusMap, type TestStatus } from '../../languages/index.js';
import { GRADING_DIR } from './apply-stage.js';

/** A reporter attached to one test run, with the token its lines carry. */
export interface ReporterRun {
  readonly reporter: ResultReporter;
  readonly token: string;
}

/**
 * A fail-only row's reporter (Language.resultReporters) put outside the repository with its token
 * file, and the test command that loads it; the command as it is for any other row. The loader
 * takes a fail-only row only when a reporter attaches to its command, so one that does not here is
 * swe-env's fault, not the submission's.
 */
export async function attachReporter(
  sandbox: Sandbox,
  task: Task,
  harnessParser: string,
  testCommand: string,
): Promise<{ testCommand: string; reported?: ReporterRun }> {
  if (!task.failOnly) return { testCommand };
  const reporter = resultReporterFor(harnessParser, testCommand);
  if (!reporter)
    throw new Error(`no reporter of swe-env's attaches to this fail-only row's test command (${harnessParser}): ${testCommand}`);
  const dir = `${GRADING_DIR}/reporter-${randomBytes(6).toString('hex')}`;
  const token = randomBytes(16).toString('hex');
  const modulePath = `${dir}/${reporter.moduleFile}`;
  const tokenFile = `${dir}/token-${randomBytes(6).toString('hex')}`;
  await sandbox.putFiles([
    { path: modulePath, content: reporter.moduleText(tokenFile) },
    { path: tokenFile, content: token },
  ]);
  return { testCommand: reporter.attach(testCommand, modulePath), reported: { reporter, token } };
}

/**
 * What the reporter's lines say, overruled by the runner's own failure lines (the row's parser):
 * a test the runner names as failing does not pass whatever else was printed.
 */
export function reportedResults(reported: ReporterRun, log: string, ownFailures: StatusMap): Map<string, TestStatus> {
  const results = reported.reporter.parse(log, reported.token);
  for (const [name, status] of ownFailures) {
    if (status !== 'PASSED' && status !== 'XFAIL') results.set(name, 'FAILED');
  }
  return results;
}
