import type { Task } from '../../tasks/task.js';
import { diffFiles } from '../diff-files.js';
import { evalPlan, type EvalPlan } from '../eval-plan/plan.js';
import { filterAgentPatch, planSteps, testCommandPaths } from '../patch-filter.js';
import { scanPatch } from '../patch-scan.js';
import { baseReport, type GradeReport, type RewardRule } from '../report.js';

/**
 * A grading's report before anything runs: the task's plan and test command, the reward rule, and
 * the patch as it will be applied: files outside the gold patch's and the test command's reach
 * dropped (and listed), warnings of what it holds.
 */
export function prepareReport(
  task: Task,
  rawPatch: Buffer,
  options: { captureS: number | undefined; rewardRule: RewardRule | undefined },
): { report: GradeReport; plan: EvalPlan; patch: Buffer } {
  const report = baseReport(task.id);
  report.durations.captureS = options.captureS ?? 0;
  const plan = evalPlan(task);
  report.plan = plan;
  report.testCommand = plan.testCommand;
  report.rewardRule = options.rewardRule ?? 'swe-env';
  const filtered = filterAgentPatch(rawPatch, {
    protectedPaths: testCommandPaths(report.testCommand),
    testCommand: report.testCommand,
    steps: planSteps(plan),
    allowedPaths: diffFiles(task.goldPatch).map((f) => f.path),
  });
  report.droppedFiles = filtered.dropped;
  report.patchWarnings = scanPatch(filtered.patch.toString('utf8'));
  report.patchBytes = filtered.patch.length;
  report.patchEmpty = filtered.patch.toString('utf8').trim() === '';
  return { report, plan, patch: filtered.patch };
}
