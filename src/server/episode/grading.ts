import { messageOf } from '../../common/errors.js';
import { captureChange, type CaptureResult } from '../../reward/patch-capture.js';
import { baseReport, type GradeReport } from '../../reward/report.js';
import type { EpisodeCore } from './episode-core.js';
import type { CapturedChange } from './episode-state.js';
import { ownFault } from './sandbox-fault.js';
import type { EndReason, StepBase, StepOutcome, StepStatus } from './types.js';

/** The captured change goes back with the submit's answer up to this size (the trajectory has it whole). */
const PATCH_INFO_LIMIT = 1024 * 1024;
/** How long capturing the agent's change may take before it counts as the environment's failure. */
const CAPTURE_TIMEOUT_MS = 120_000;

export const SUBMITTED_OBSERVATION = 'Your solution was submitted and graded.';

/**
 * Grades the repository as it is now (or the change a restart found captured) and ends the episode.
 * `last` is the step that reached a limit, whose output and info the answer keeps.
 */
export async function finish(
  core: EpisodeCore,
  base: StepBase,
  reason: EndReason,
  status: StepStatus,
  observation: string,
  last?: StepOutcome,
  captured?: CapturedChange,
): Promise<StepOutcome> {
  core.grading = true;
  let report: GradeReport;
  try {
    report = await grade(core, captured);
  } finally {
    core.grading = false;
  }
  if (report.infraError) {
    core.end('infra_error', 0, report);
    await core.dispose();
    return {
      ...base,
      observation: `${observation}\n[swe-env] Grading failed in the environment: ${report.error}`,
      reward: 0,
      terminated: false,
      truncated: true,
      status: 'INFRA_ERROR',
      exitCode: -1,
      info: { infra_error: report.error },
      report,
    };
  }
  core.end(reason, report.reward, report);
  await core.dispose();
  const submitted = reason === 'submitted';
  return {
    ...base,
    observation,
    reward: report.reward,
    terminated: submitted,
    truncated: !submitted,
    status,
    exitCode: last?.exitCode ?? -1,
    info: { ...(last?.info ?? {}), resolved: report.resolved, ...patchInfo(core.modelPatch) },
    report,
  };
}

/** Captures the change (or takes the one a restart found) and grades it; the sandbox is let go first. */
async function grade(core: EpisodeCore, recaptured?: CapturedChange): Promise<GradeReport> {
  const { grader } = core.deps;
  if (recaptured) {
    const patch = Buffer.from(recaptured.patchBase64, 'base64');
    core.modelPatch = patch.toString('utf8');
    await core.dispose();
    return grader.grade(core.task, patch, { episodeId: core.id, captureS: recaptured.captureS });
  }
  const captured = await captureChange(core.box.sandbox, () => grader.openScratch(core.task, core.id), {
    workdir: core.task.workdir,
    baseCommit: core.spec.pristineHead,
    maxPatchBytes: core.deps.maxPatchBytes,
    timeoutMs: CAPTURE_TIMEOUT_MS,
  }).catch((error: unknown) => ({ ok: false as const, error: messageOf(error), infra: true, durationS: 0 }));
  if (!captured.ok) return captureFailure(core, captured);
  // Kept in the record while the grading runs: a restart grades this change again.
  core.state.captured = { patchBase64: captured.patch.toString('base64'), captureS: captured.durationS };
  core.modelPatch = captured.patch.toString('utf8');
  await core.persist();
  // The agent's container is no longer needed: free its memory before the grader starts.
  await core.dispose();
  return grader.grade(core.task, captured.patch, { episodeId: core.id, captureS: captured.durationS });
}

/** The report of a capture that failed: the environment's failure, unless the sandbox brought itself down. */
async function captureFailure(core: EpisodeCore, captured: Extract<CaptureResult, { ok: false }>): Promise<GradeReport> {
  const report = baseReport(core.task.id);
  // A sandbox its own commands brought down has nothing to capture: the model's failure.
  const own = captured.infra ? await ownFault(core.box.sandbox) : undefined;
  report.error = own ? `${own.message} Nothing could be captured.` : captured.error;
  report.infraError = captured.infra && !own;
  report.durations.captureS = captured.durationS;
  report.durations.totalS = captured.durationS;
  return report;
}

/** The captured change for the client (SWE-bench predictions), when it is small enough to send. */
function patchInfo(modelPatch: string | undefined): Record<string, unknown> {
  if (modelPatch === undefined) return {};
  const bytes = Buffer.byteLength(modelPatch);
  if (bytes > PATCH_INFO_LIMIT) return { model_patch_omitted: `${bytes} bytes, over ${PATCH_INFO_LIMIT}` };
  return { model_patch: modelPatch };
}
