/** Domain objects to the wire shapes of swe_env.v1 (proto-loader object form). */
import type { EpisodeSummary as EpisodeSummaryProto } from '../generated/swe_env/v1/EpisodeSummary.js';
import type { GradeReport as GradeReportProto } from '../generated/swe_env/v1/GradeReport.js';
import type { StepResponse } from '../generated/swe_env/v1/StepResponse.js';
import type { Task as TaskProto } from '../generated/swe_env/v1/Task.js';
import type { TaskSummary } from '../generated/swe_env/v1/TaskSummary.js';
import type { EffectiveOptions } from '../generated/swe_env/v1/EffectiveOptions.js';
import type { EpisodeOptions__Output } from '../generated/swe_env/v1/EpisodeOptions.js';
import type { GradeReport } from '../reward/report.js';
import { promptLanguage, renderPrompt } from '../tasks/prompt.js';
import type { Task } from '../tasks/task.js';
import type { EpisodeDefaults } from './config.js';
import type { EpisodeSummary, StepOutcome } from './episode.js';
import { toStruct } from './struct.js';
import { toolSchemas } from './tools.js';

export function reportToProto(report: GradeReport): GradeReportProto {
  const listed = (r: { name: string; status: string }) => ({ name: r.name, status: `TEST_STATUS_${r.status}` as const });
  const harness = report.harness;
  return {
    ...report,
    resolution: `RESOLUTION_${report.resolution}`,
    failToPass: report.failToPass.map(listed),
    passToPass: report.passToPass.map(listed),
    plan: report.plan
      ? {
          ...report.plan,
          evalCommands: [...report.plan.evalCommands],
          resetFiles: [...report.plan.resetFiles],
          beforeTestPatch: [...report.plan.beforeTestPatch],
          afterTestPatch: [...report.plan.afterTestPatch],
          notes: [...report.plan.notes],
        }
      : null,
    install: report.install ?? null,
    afterTestPatch: report.afterTestPatch ?? null,
    harness: harness
      ? {
          generation: harness.generation,
          resolved: harness.resolved,
          resolution: `RESOLUTION_${harness.resolution}`,
          failToPassSuccess: [...harness.failToPass.success],
          failToPassFailure: [...harness.failToPass.failure],
          passToPassSuccess: [...harness.passToPass.success],
          passToPassFailure: [...harness.passToPass.failure],
          invalid: harness.invalid ?? '',
        }
      : null,
  } as GradeReportProto;
}

export function stepToProto(outcome: StepOutcome): StepResponse {
  return {
    observation: outcome.observation,
    reward: outcome.reward,
    terminated: outcome.terminated,
    truncated: outcome.truncated,
    status: `STEP_STATUS_${outcome.status}`,
    stepIndex: outcome.stepIndex,
    callId: outcome.callId,
    exitCode: outcome.exitCode,
    info: toStruct(outcome.info),
    report: outcome.report ? reportToProto(outcome.report) : null,
  };
}

export function summaryToProto(summary: EpisodeSummary): EpisodeSummaryProto {
  return { ...summary, report: summary.report ? reportToProto(summary.report) : null };
}

export function taskToProto(task: Task): TaskProto {
  return {
    taskId: task.id,
    dataset: task.dataset,
    repo: task.repo,
    baseCommit: task.baseCommit,
    version: task.version,
    problemStatement: task.problemStatement,
    hintsText: task.hintsText,
    createdAt: task.createdAt,
    image: task.image,
    workdir: task.workdir,
    failToPassCount: task.failToPass.length,
    passToPassCount: task.passToPass.length,
    prompt: renderPrompt(task),
    tools: toolSchemas(promptLanguage(task)),
  };
}

export function taskSummaryToProto(task: Task): TaskSummary {
  return { taskId: task.id, dataset: task.dataset, repo: task.repo, version: task.version, image: task.image };
}

/** The options a client asked for; zero fields mean "the server's default". */
export function optionsFromProto(options: EpisodeOptions__Output | null): Partial<EpisodeDefaults> {
  if (!options) return {};
  const truncation =
    options.truncation === 'TRUNCATION_POLICY_ZERO' ? 'zero' : options.truncation === 'TRUNCATION_POLICY_GRADE' ? 'grade' : undefined;
  return {
    maxSteps: options.maxSteps,
    commandTimeoutS: options.commandTimeoutS,
    episodeTimeoutS: options.episodeTimeoutS,
    outputLimitBytes: options.outputLimitBytes,
    idleTimeoutS: options.idleTimeoutS,
    ...(truncation ? { truncation } : {}),
  };
}

export function optionsToProto(options: EpisodeDefaults): EffectiveOptions {
  return {
    maxSteps: options.maxSteps,
    commandTimeoutS: options.commandTimeoutS,
    episodeTimeoutS: options.episodeTimeoutS,
    outputLimitBytes: options.outputLimitBytes,
    idleTimeoutS: options.idleTimeoutS,
    truncation: options.truncation === 'zero' ? 'TRUNCATION_POLICY_ZERO' : 'TRUNCATION_POLICY_GRADE',
  };
}
