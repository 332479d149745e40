import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '../../tasks/task.js';
import { evalPlan } from '../eval-plan/plan.js';
import { harnessEvalScript } from '../eval-plan/render.js';
import type { GradeReport } from '../report.js';
import type { Prediction } from './predictions.js';

/**
 * One instance's logs where the SWE-bench harness keeps them:
 * OUT/logs/run_evaluation/RUN_ID/MODEL/INSTANCE/{patch.diff, eval.sh, test_output.txt,
 * run_instance.log, report.json}. report.json is written last and only for a finished grading, so
 * its presence means "graded" (a re-run skips it, the run report counts it completed).
 */
export function instanceDir(out: string, runId: string, prediction: Prediction): string {
  return join(out, 'logs', 'run_evaluation', runId, modelDir(prediction.model), prediction.instanceId);
}

/** The harness's file-name form of a model name. */
export function modelDir(model: string): string {
  return model.replaceAll('/', '__');
}

/** What goes in before grading: the patch as given and the eval script the plan amounts to. */
export async function writeInputs(dir: string, task: Task, prediction: Prediction): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'patch.diff'), prediction.modelPatch ?? '');
  await writeFile(join(dir, 'eval.sh'), harnessEvalScript(evalPlan(task), task));
}

/** The test output, a readable account of the grading, and (graded only) report.json. */
export async function writeOutcome(
  dir: string,
  prediction: Prediction,
  outcome: { report?: GradeReport; error?: string; testLog?: string },
): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (outcome.testLog !== undefined) await writeFile(join(dir, 'test_output.txt'), outcome.testLog);
  await writeFile(join(dir, 'run_instance.log'), instanceLog(prediction, outcome));
  if (outcome.report && outcome.error === undefined) {
    await writeFile(join(dir, 'report.json'), `${JSON.stringify(harnessInstanceReport(prediction, outcome.report), null, 2)}\n`);
  }
}

/** A report.json this run wrote before (a resumed run): whether it was resolved, or undefined. */
export async function readGraded(dir: string, instanceId: string): Promise<{ resolved: boolean } | undefined> {
  try {
    const body = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Record<string, { resolved?: unknown }>;
    const resolved = body[instanceId]?.resolved;
    return typeof resolved === 'boolean' ? { resolved } : undefined;
  } catch {
    return undefined;
  }
}

/** One instance's report in the SWE-bench harness's shape, with swe-env's own report beside it. */
export function harnessInstanceReport(prediction: Prediction, report: GradeReport): Record<string, unknown> {
  const split = (list: GradeReport['failToPass']) => ({
    success: list.filter((t) => t.status === 'PASSED').map((t) => t.name),
    failure: list.filter((t) => t.status !== 'PASSED').map((t) => t.name),
  });
  return {
    [prediction.instanceId]: {
      patch_is_None: prediction.modelPatch === null,
      patch_exists: prediction.modelPatch !== null && prediction.modelPatch.trim() !== '',
      patch_successfully_applied: report.patchApplied,
      resolved: report.resolved,
      tests_status: {
        FAIL_TO_PASS: split(report.failToPass),
        PASS_TO_PASS: split(report.passToPass),
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      },
      swe_env: report,
    },
  };
}

function instanceLog(prediction: Prediction, outcome: { report?: GradeReport; error?: string }): string {
  const r = outcome.report;
  const lines = [`instance ${prediction.instanceId}, model ${prediction.model}`];
  if (outcome.error !== undefined) lines.push(`error: ${outcome.error}`);
  if (r) {
    lines.push(`resolved: ${r.resolved} (reward follows ${r.rewardRule})`);
    lines.push(
      `patch: ${r.patchEmpty ? 'empty' : `${r.patchBytes} bytes, ${r.patchApplied ? `applied with ${r.patchApplyMethod}` : 'not applied'}`}`,
    );
    if (r.droppedFiles.length) lines.push(`dropped from the patch: ${r.droppedFiles.join(', ')}`);
    if (r.install) lines.push(`install: ${r.install.ran ? `re-run, exit ${r.install.exitCode}` : 'not re-run'} (${r.install.reason})`);
    lines.push(`tests: ${r.testCommand} -> exit ${r.testExitCode}${r.testTimedOut ? ' (timed out)' : ''}`);
    if (r.harness)
      lines.push(
        `official harness verdict: ${r.harness.resolved ? 'resolved' : 'not resolved'}${r.harness.invalid ? ` (${r.harness.invalid})` : ''}`,
      );
    if (r.integrityFlags.length) lines.push(`integrity flags: ${r.integrityFlags.join('; ')}`);
    if (r.error && outcome.error === undefined) lines.push(`note: ${r.error}`);
    const d = r.durations;
    lines.push(
      `durations: container ${d.containerStartS}s, patch ${d.patchS}s, install ${d.installS}s, tests ${d.testRunS}s, total ${d.totalS}s`,
    );
  }
  return `${lines.join('\n')}\n`;
}
