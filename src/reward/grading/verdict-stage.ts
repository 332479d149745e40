import type { Task } from '../../tasks/task.js';
import { harnessParse, type HarnessGeneration } from '../../languages/index.js';
import { harnessVerdict } from '../harness/verdict.js';
import type { GradeReport } from '../report.js';
import { disagreements } from '../result-recorder.js';
import { runFailure } from '../run-failure.js';
import { decideVerdict, type Verdict } from '../verdict.js';
import type { Evidence } from './evidence.js';
import { auditLines, flag, integrityLines, reportFindings, type Flag } from '../findings.js';
import { contradictedResults } from './language-results.js';

/**
 * The verdict stage: the reward from the evidence. swe-env's verdict reads the recorder's results
 * when there are any (the log's otherwise), cross-checked with the log; the harness's verdict reads
 * the log as the official harness does. Canaries are in neither. Any integrity flag is reward 0.
 */
export function decideReport(
  report: GradeReport,
  input: {
    task: Task;
    evidence: Evidence;
    log: string;
    exitCode: number;
    harnessParser: string;
    generation: HarnessGeneration;
    /** The listed tests' files that are files of the repository (see repositoryTestFiles). */
    repositoryFiles?: ReadonlySet<string>;
    /** The grading channel's own problems (the recorder never started...), for the run's explanation. */
    channelProblems?: readonly string[];
  },
): void {
  const { task, evidence } = input;
  const harnessMap = harnessParse(input.harnessParser, input.log, input.generation, { instanceId: task.id, version: task.version });
  const lists = {
    failToPass: task.failToPass,
    passToPass: task.passToPass,
    exitCode: input.exitCode,
    harnessMap,
    failureElsewhere: evidence.canaryFailed,
  };
  const repositoryFiles = input.repositoryFiles ?? new Set<string>();
  const logVerdict = decideVerdict({ results: evidence.logResults, ...lists, repositoryFiles });
  let verdict: Verdict = logVerdict;
  const found: Flag[] = [...evidence.flags];
  for (const name of contradictedResults(input.harnessParser, input.log, [...task.failToPass, ...task.passToPass], task)) {
    found.push(
      flag(
        'result-contradicted',
        `${name} is reported both passing and failing in the log: something printed a result the runner did not make`,
      ),
    );
  }
  if (evidence.recorded) {
    verdict = decideVerdict({ results: evidence.recorded, ...lists, repositoryFiles });
    const disagree = [
      ...disagreements(verdict.failToPass, logVerdict.failToPass),
      ...disagreements(verdict.passToPass, logVerdict.passToPass),
    ];
    found.push(...disagree.map((line) => flag('records-disagree', line)));
  }
  const flags = integrityLines(found);
  report.integrityFlags = flags;
  report.auditFlags = auditLines(found);
  report.findings = reportFindings(found);
  report.harnessRead = [...verdict.harnessRead];
  report.harness = harnessVerdict({
    map: harnessMap,
    log: input.log,
    ...lists,
    timedOut: report.testTimedOut,
    generation: input.generation,
  });
  report.failToPass = [...verdict.failToPass];
  report.passToPass = [...verdict.passToPass];
  report.resolution = verdict.resolution;
  if (verdict.rejection) report.error = verdict.rejection;
  const trusted = flags.length === 0 && !logVerdict.rejection;
  if (!trusted && !report.error) report.error = `the test results are not trusted: ${flags.join('; ') || logVerdict.rejection}`;
  const ours = verdict.resolved && logVerdict.resolved && trusted && !report.testTimedOut;
  if (report.rewardRule === 'harness') {
    // The official harness's reading of the same run, for comparison with official results; the
    // run itself stays swe-env's (patch checks, test files put back, canaries and flags reported).
    report.resolved = report.harness.resolved && !report.testTimedOut;
    report.resolution = report.harness.resolution;
  } else {
    report.resolved = ours;
    if (!report.resolved && report.resolution === 'FULL' && !trusted) report.resolution = 'NO';
  }
  report.reward = report.resolved ? 1 : 0;
  explainRunFailure(report, input.log, input.channelProblems ?? []);
}

/**
 * A run that never got to the listed tests is explained by its own output first (the traceback,
 * "command not found", the collection error); what the verdict said before stays as detail.
 */
function explainRunFailure(report: GradeReport, log: string, channelProblems: readonly string[]): void {
  if (report.resolved) return;
  const why = runFailure({
    log,
    exitCode: report.testExitCode,
    timedOut: report.testTimedOut,
    listed: [...report.failToPass, ...report.passToPass],
    channelProblems,
  });
  if (why) report.error = report.error ? `${why}\n(${report.error})` : why;
}
