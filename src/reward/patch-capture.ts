import type { Sandbox } from '../sandbox/sandbox.js';
import { CAPTURE_PATCH_SCRIPT, bashArgv } from './scripts.js';

export type CaptureResult =
  | { readonly ok: true; readonly patch: Buffer; readonly durationS: number }
  | { readonly ok: false; readonly error: string; readonly infra: boolean; readonly durationS: number };

/**
 * Reads the agent's change out of its container. A repository the agent broke (no .git, a patch
 * over the size limit) is the agent's doing: reward 0 with the reason, not an infrastructure error.
 */
export async function capturePatch(
  sandbox: Sandbox,
  input: { workdir: string; baseCommit: string; maxPatchBytes: number; timeoutMs: number },
): Promise<CaptureResult> {
  const started = Date.now();
  const elapsed = (): number => (Date.now() - started) / 1000;
  let result;
  try {
    result = await sandbox.exec(bashArgv(CAPTURE_PATCH_SCRIPT, 'swe-env-capture', [input.workdir, input.baseCommit]), {
      workdir: '/',
      separateStderr: true,
      outputLimitBytes: input.maxPatchBytes + 1,
      timeoutMs: input.timeoutMs,
    });
  } catch (error) {
    return { ok: false, error: `could not read the changes from the sandbox: ${String(error)}`, infra: true, durationS: elapsed() };
  }
  if (result.timedOut) {
    return { ok: false, error: `reading the changes took over ${input.timeoutMs / 1000}s`, infra: true, durationS: elapsed() };
  }
  if (result.exitCode !== 0) {
    return {
      ok: false,
      error: `could not compute the diff against ${input.baseCommit.slice(0, 12)} (exit ${result.exitCode}): ${result.stderr.trim().slice(-2000)}`,
      infra: false,
      durationS: elapsed(),
    };
  }
  if (result.outputBytes > input.maxPatchBytes) {
    return { ok: false, error: `the change is ${result.outputBytes} bytes, over the ${input.maxPatchBytes}-byte limit`, infra: false, durationS: elapsed() };
  }
  return { ok: true, patch: result.output, durationS: elapsed() };
}
