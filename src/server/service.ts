import { InvalidArgumentError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { CloseRequest__Output } from '../generated/swe_env/v1/CloseRequest.js';
import type { CloseResponse } from '../generated/swe_env/v1/CloseResponse.js';
import type { EvaluateRequest__Output } from '../generated/swe_env/v1/EvaluateRequest.js';
import type { EvaluateResponse } from '../generated/swe_env/v1/EvaluateResponse.js';
import type { GetTaskRequest__Output } from '../generated/swe_env/v1/GetTaskRequest.js';
import type { ListTasksRequest__Output } from '../generated/swe_env/v1/ListTasksRequest.js';
import type { ListTasksResponse } from '../generated/swe_env/v1/ListTasksResponse.js';
import type { ResetRequest__Output } from '../generated/swe_env/v1/ResetRequest.js';
import type { ResetResponse } from '../generated/swe_env/v1/ResetResponse.js';
import type { StepRequest__Output } from '../generated/swe_env/v1/StepRequest.js';
import type { StepResponse } from '../generated/swe_env/v1/StepResponse.js';
import type { SweEnvHandlers } from '../generated/swe_env/v1/SweEnv.js';
import type { Task as TaskProto } from '../generated/swe_env/v1/Task.js';
import type { Grader } from '../reward/grader.js';
import { promptLanguage, renderPrompt } from '../tasks/prompt.js';
import type { TaskStore } from '../tasks/task-store.js';
import { REWARD_RULES, type RewardRule } from '../reward/report.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import type { PrewarmRequest__Output } from '../generated/swe_env/v1/PrewarmRequest.js';
import type { PrewarmResponse } from '../generated/swe_env/v1/PrewarmResponse.js';
import type { InterruptRequest__Output } from '../generated/swe_env/v1/InterruptRequest.js';
import type { InterruptResponse } from '../generated/swe_env/v1/InterruptResponse.js';
import type { ServerInfoSource } from './server-info.js';
import type { PrefetchRequest__Output } from '../generated/swe_env/v1/PrefetchRequest.js';
import type { PrefetchResponse } from '../generated/swe_env/v1/PrefetchResponse.js';
import type { ImageSupply } from '../sandbox/images/image-supply.js';
import { prefetchTasks } from './prefetch.js';
import type { ForkRequest__Output } from '../generated/swe_env/v1/ForkRequest.js';
import type { ForkResponse } from '../generated/swe_env/v1/ForkResponse.js';
import type { ReplayRequest__Output } from '../generated/swe_env/v1/ReplayRequest.js';
import type { ReplayResponse } from '../generated/swe_env/v1/ReplayResponse.js';
import { forkEpisode } from './fork/fork-episodes.js';
import { replayEpisode } from './replay/replay-episode.js';
import {
  optionsFromProto,
  optionsToProto,
  reportToProto,
  stepToProto,
  summaryToProto,
  taskSummaryToProto,
  taskToProto,
} from './convert.js';
import type { EpisodeRegistry } from './episode-registry.js';
import { unary, type CallContext } from './handler.js';
import { toStruct as struct } from './struct.js';
import { toolSchemas } from './tools.js';

export interface ServiceDeps {
  readonly tasks: TaskStore;
  readonly registry: EpisodeRegistry;
  readonly grader: Grader;
  readonly logger: Logger;
  readonly shutdown: AbortSignal;
  readonly info: ServerInfoSource;
  readonly metrics?: ServerMetrics;
  readonly images: ImageSupply;
}

const MAX_PAGE = 1000;

export class SweEnvService {
  constructor(private readonly deps: ServiceDeps) {}

  async listTasks(request: ListTasksRequest__Output): Promise<ListTasksResponse> {
    const pageSize = request.pageSize === 0 ? 100 : request.pageSize;
    if (pageSize < 0 || pageSize > MAX_PAGE) throw new InvalidArgumentError(`page_size must be 1..${MAX_PAGE}`);
    const offset = request.pageToken === '' ? 0 : Number(request.pageToken);
    if (!Number.isInteger(offset) || offset < 0)
      throw new InvalidArgumentError(`page_token '${request.pageToken}' is not one this server gave out`);
    const all = this.deps.tasks.list(request.dataset ? { dataset: request.dataset } : {});
    const page = all.slice(offset, offset + pageSize);
    const next = offset + page.length;
    return { tasks: page.map(taskSummaryToProto), nextPageToken: next < all.length ? String(next) : '', totalSize: all.length };
  }

  async getTask(request: GetTaskRequest__Output): Promise<TaskProto> {
    return taskToProto(this.deps.tasks.get(request.taskId));
  }

  async reset(request: ResetRequest__Output, context: CallContext): Promise<ResetResponse> {
    if (!request.taskId) throw new InvalidArgumentError('task_id is required');
    const task = this.deps.tasks.get(request.taskId);
    const { episode } = await this.deps.registry.reset(
      { task, episodeId: request.episodeId, seed: request.seed, groupId: request.groupId, options: optionsFromProto(request.options) },
      context.signal,
    );
    return {
      episodeId: episode.id,
      observation: renderPrompt(task),
      tools: toolSchemas(promptLanguage(task)),
      info: struct({
        task_id: task.id,
        instance_id: task.id,
        dataset: task.dataset,
        repo: task.repo,
        base_commit: task.baseCommit,
        version: task.version,
        problem_statement: task.problemStatement,
        hints_text: task.hintsText,
        created_at: task.createdAt,
        workdir: task.workdir,
        image: task.image,
        seed: episode.seed,
        group_id: episode.groupId,
      }),
      options: optionsToProto(episode.options),
    };
  }

  async step(request: StepRequest__Output): Promise<StepResponse> {
    if (!request.episodeId) throw new InvalidArgumentError('episode_id is required');
    if (request.stepIndex < 0) throw new InvalidArgumentError('step_index must not be negative');
    if (!request.action) throw new InvalidArgumentError('action is required');
    const episode = await this.deps.registry.get(request.episodeId);
    const started = Date.now();
    // The step is not tied to this call's signal: once started it runs to its own timeout and is
    // recorded, so a client retrying after a lost response gets the result instead of a re-run.
    const outcome = await episode.step(
      request.stepIndex,
      { name: request.action.name, argumentsJson: request.action.argumentsJson, callId: request.action.callId },
      request.assistant
        ? { content: request.assistant.content, reasoning: request.assistant.reasoning, model: request.assistant.model }
        : undefined,
    );
    this.deps.metrics?.step(request.action.name, outcome.status, (Date.now() - started) / 1000);
    return stepToProto(outcome);
  }

  async close(request: CloseRequest__Output): Promise<CloseResponse> {
    if (!request.episodeId) throw new InvalidArgumentError('episode_id is required');
    return { summary: summaryToProto(await this.deps.registry.close(request.episodeId)) };
  }

  async evaluate(request: EvaluateRequest__Output, context: CallContext): Promise<EvaluateResponse> {
    if (!request.taskId) throw new InvalidArgumentError('task_id is required');
    const task = this.deps.tasks.get(request.taskId);
    const rewardRule = rewardRuleOf(request.rewardRule);
    const report = await this.deps.grader.grade(task, Buffer.from(request.patch, 'utf8'), {
      signal: context.signal,
      ...(rewardRule ? { rewardRule } : {}),
    });
    return { report: reportToProto(report) };
  }

  async interrupt(request: InterruptRequest__Output): Promise<InterruptResponse> {
    if (!request.episodeId) throw new InvalidArgumentError('episode_id is required');
    const episode = await this.deps.registry.get(request.episodeId);
    return { interrupted: episode.interrupt() };
  }

  async prewarm(request: PrewarmRequest__Output): Promise<PrewarmResponse> {
    if (!request.taskId) throw new InvalidArgumentError('task_id is required');
    return Promise.resolve(this.deps.registry.prewarm(this.deps.tasks.get(request.taskId), request.count));
  }

  async prefetch(request: PrefetchRequest__Output): Promise<PrefetchResponse> {
    if (request.taskIds.length === 0) throw new InvalidArgumentError('task_ids is required: the tasks whose images the next batches need');
    return prefetchTasks(this.deps.tasks, this.deps.images, request.taskIds);
  }

  async fork(request: ForkRequest__Output, context: CallContext): Promise<ForkResponse> {
    if (!request.episodeId) throw new InvalidArgumentError('episode_id is required');
    const fork = { count: request.count, freshBudgets: request.freshBudgets, childIds: request.childEpisodeIds };
    const { childIds, ...rest } = await forkEpisode(this.deps.registry, request.episodeId, fork, context.signal);
    return { episodeIds: [...childIds], ...rest };
  }

  async replay(request: ReplayRequest__Output, context: CallContext): Promise<ReplayResponse> {
    const { registry, tasks } = this.deps;
    const input = { ...request, options: optionsFromProto(request.options) };
    const result = await replayEpisode({ registry, tasks, trajectories: registry.trajectories }, input, context.signal);
    return { ...result, divergences: [...result.divergences] };
  }

  handlers(): SweEnvHandlers {
    const { logger, shutdown, metrics } = this.deps;
    const observe = metrics ? (method: string, code: string, seconds: number) => metrics.rpc(method, code, seconds) : undefined;
    return {
      ListTasks: unary('ListTasks', logger, shutdown, (r: ListTasksRequest__Output) => this.listTasks(r), observe),
      GetTask: unary('GetTask', logger, shutdown, (r: GetTaskRequest__Output) => this.getTask(r), observe),
      Reset: unary('Reset', logger, shutdown, (r: ResetRequest__Output, c) => this.reset(r, c), observe),
      Step: unary('Step', logger, shutdown, (r: StepRequest__Output) => this.step(r), observe),
      Close: unary('Close', logger, shutdown, (r: CloseRequest__Output) => this.close(r), observe),
      Evaluate: unary('Evaluate', logger, shutdown, (r: EvaluateRequest__Output, c) => this.evaluate(r, c), observe),
      Prewarm: unary('Prewarm', logger, shutdown, (r: PrewarmRequest__Output) => this.prewarm(r), observe),
      Interrupt: unary('Interrupt', logger, shutdown, (r: InterruptRequest__Output) => this.interrupt(r), observe),
      Prefetch: unary('Prefetch', logger, shutdown, (r: PrefetchRequest__Output) => this.prefetch(r), observe),
      Fork: unary('Fork', logger, shutdown, (r: ForkRequest__Output, c) => this.fork(r, c), observe),
      Replay: unary('Replay', logger, shutdown, (r: ReplayRequest__Output, c) => this.replay(r, c), observe),
      GetServerInfo: unary('GetServerInfo', logger, shutdown, () => this.deps.info.info(), observe),
    };
  }
}

/** EvaluateRequest.reward_rule: empty for the server's own rule. */
function rewardRuleOf(value: string): RewardRule | undefined {
  if (value === '') return undefined;
  if (!(REWARD_RULES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`reward_rule must be one of ${REWARD_RULES.join(', ')} (or empty), got '${value}'`);
  return value as RewardRule;
}
