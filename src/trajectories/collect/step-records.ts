import { SweEnvClient } from '../../client/client.js';
import type { StepResponse__Output } from '../../generated/swe_env/v1/StepResponse.js';
import type { GradeReport } from '../../reward/report.js';
import type { TrajectoryStep } from '../trajectory-format.js';
import type { EpisodeTrajectory } from '../trajectory-recorder.js';

// What a collected run writes of each step and of the final report into its trajectory.

/** One tool call and the server's answer to it, as a trajectory step. */
export function recordStep(
  trajectory: EpisodeTrajectory,
  out: StepResponse__Output,
  call: { id: string; name: string; argumentsJson: string },
  assistant: { content: string; reasoning: string; model: string } | undefined,
  startedAt: number,
  turn: number,
): void {
  let args: unknown = call.argumentsJson;
  try {
    args = JSON.parse(call.argumentsJson);
  } catch {
    // the raw text the model wrote
  }
  const step: TrajectoryStep = {
    type: 'step',
    index: out.stepIndex,
    call_id: call.id,
    tool: call.name,
    arguments: args,
    ...(assistant && (assistant.content || assistant.reasoning) ? { assistant } : {}),
    turn,
    observation: out.observation,
    status: out.status.replace(/^STEP_STATUS_/, ''),
    exit_code: out.exitCode,
    duration_s: (Date.now() - startedAt) / 1000,
    reward: out.reward,
    terminated: out.terminated,
    truncated: out.truncated,
    info: SweEnvClient.structToObject(out.info),
    at: new Date().toISOString(),
  };
  trajectory.step(step);
}

/** The report as the server records it (test statuses without the proto enum's prefix). */
export function reportFromProto(report: Record<string, unknown>): GradeReport {
  const tests = (list: unknown): unknown =>
    Array.isArray(list)
      ? list.map((t: { name?: string; status?: string }) => ({
          name: t.name ?? '',
          status: String(t.status ?? '').replace(/^TEST_STATUS_/, ''),
        }))
      : [];
  return { ...report, failToPass: tests(report['failToPass']), passToPass: tests(report['passToPass']) } as unknown as GradeReport;
}
