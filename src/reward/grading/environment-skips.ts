import { messageOf } from '../../common/errors.js';
import type { GradeReport } from '../report.js';
import type { RecorderResult } from '../result-recorder.js';
import { runReference, type ReferenceRunInput } from './reference-run.js';

/**
 * PASS_TO_PASS tests the task's image cannot run: skipped for a module the image lacks (an optional
 * dependency the dataset's own environment had). Such a skip is the environment's, so a run that
 * fails only because of it is INFRA_ERROR (masked), not the model's 0.
 *
 * The skip seen in the submission's run proves nothing: the code under test can skip any test with
 * any reason (`pytest.importorskip('nonexistent')` in the package). What decides is a reference
 * run the submission cannot reach: the same test command, in a fresh container from the pristine
 * image, at base_commit with the test patch and without the submission. Only tests skipped there
 * for a missing module count, and only when they are all that stands between the run and reward 1.
 */

export const ENVIRONMENT_SKIP_PREFIX = "the task's environment cannot run its PASS_TO_PASS tests";

/** Skip reasons that say a module is missing (importorskip, skipif(not HAS_X), "x not installed"). */
const MISSING_MODULE: readonly RegExp[] = [
  /could not import\b/i,
  /\bno module named\b/i,
  /\b(ModuleNotFoundError|ImportError)\b/,
  /\b(cannot|can't|failed to|unable to) import\b/i,
  /\bnot (installed|importable)\b/i,
  /\b(module|package|library|dependency)\b.*\b(missing|unavailable|not (found|available))\b/i,
  /\b(missing|unavailable)\b.*\b(module|package|library|dependency)\b/i,
  /\bis not available\b/i,
  /^(skipped: )?(requires?|needs?) (the )?(optional )?((module|package|library|dependency) )?(?!python|py\d|network\b|internet\b|linux\b|windows\b|mac(os)?\b|root\b|gpu\b|cuda\b|display\b)[a-z_][\w.-]*( (module|package|library))?( to be installed)?$/i,
];

export function isMissingModuleReason(reason: string): boolean {
  const text = reason.trim();
  return text !== '' && MISSING_MODULE.some((pattern) => pattern.test(text));
}

/**
 * The PASS_TO_PASS tests to look at: the run is unresolved, trusted and in time, every FAIL_TO_PASS
 * test passed, and every PASS_TO_PASS test that did not pass was skipped or is missing (what a
 * missing module does). Anything else is the model's 0 whatever the image lacks.
 */
export function skipCandidates(report: GradeReport): string[] {
  if (report.resolved || report.infraError || report.testTimedOut || report.integrityFlags.length > 0) return [];
  if (report.failToPass.some((t) => t.status !== 'PASSED')) return [];
  const notPassing = report.passToPass.filter((t) => t.status !== 'PASSED' && t.status !== 'XFAIL');
  if (notPassing.length === 0 || notPassing.some((t) => t.status !== 'SKIPPED' && t.status !== 'MISSING')) return [];
  return notPassing.map((t) => t.name);
}

/** Why the reference run skipped a listed test for a missing module (its own skip or its module's), or undefined. */
export function environmentSkip(reference: RecorderResult, name: string): string | undefined {
  // A name cut at a space stands for every id it is a cut of: each must be the image's skip, or a
  // submission could hide one that runs normally behind another the image skips.
  const ids = [...reference.statuses.keys()].filter((id) => id === name || (/\s/.test(id) && id.split(/\s/)[0] === name));
  if (ids.length > 0) {
    const reasons = ids.map((id) => (reference.statuses.get(id) === 'SKIPPED' ? reference.skipReasons?.get(id) : undefined));
    return reasons.every((r): r is string => r !== undefined && isMissingModuleReason(r)) ? reasons[0] : undefined;
  }
  const collected = [...(reference.collectSkips ?? [])].find(([id]) => id !== '' && name.startsWith(`${id}::`));
  return collected && isMissingModuleReason(collected[1]) ? collected[1] : undefined;
}

/**
 * The reference decides: every candidate skipped there too for a missing module makes the grading
 * INFRA_ERROR, naming the tests and reasons. Otherwise the model's 0 stands, and so it does when no
 * reference can be made (a runner without the recorder, a reference run that fails): the skips are
 * then not shown to be the image's.
 */
export async function judgeEnvironmentSkips(report: GradeReport, input: ReferenceRunInput, signal?: AbortSignal): Promise<void> {
  const candidates = skipCandidates(report);
  if (candidates.length === 0) return;
  let reference: RecorderResult;
  try {
    reference = await referenceRun(input, signal);
  } catch (error) {
    if (signal?.aborted) throw error;
    note(
      report,
      `the skipped PASS_TO_PASS tests could not be checked against a run without the patch (${messageOf(error)}): they count as not passed`,
    );
    return;
  }
  const reasons = candidates.map((name) => ({ name, reason: environmentSkip(reference, name) }));
  const own = reasons.filter((r) => r.reason === undefined).map((r) => r.name);
  if (own.length > 0) {
    note(
      report,
      `PASS_TO_PASS tests skipped or missing in this run but not skipped for a missing module without the patch: ${own.slice(0, 5).join(', ')}`,
    );
    return;
  }
  report.infraError = true;
  report.resolved = false;
  report.reward = 0;
  const listed = reasons.map((r) => `${r.name} (${r.reason!.replace(/^Skipped: /, '')})`);
  report.error = `${ENVIRONMENT_SKIP_PREFIX}: skipped for a missing module in this image without the patch too: ${listed.slice(0, 5).join(', ')}${listed.length > 5 ? ` and ${listed.length - 5} more` : ''}`;
}

function note(report: GradeReport, text: string): void {
  report.error = report.error ? `${report.error}\n(${text})` : text;
}

/** The test command on the pristine repository with the test patch, in a fresh container: what the image itself skips. */
async function referenceRun(input: ReferenceRunInput, signal?: AbortSignal): Promise<RecorderResult> {
  const reference = await runReference(input, {}, signal);
  if (!reference.applied) throw new Error(reference.why);
  if (!reference.run.pytest) throw new Error('the test command is not a pytest run, whose skip reasons the recorder reads');
  if (reference.scratch.testTimedOut) throw new Error('the reference run timed out');
  return reference.run.channel;
}
