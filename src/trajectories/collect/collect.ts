import { join } from 'node:path';
import { pino } from 'pino';
import { SweEnvClient, type ClientSecurity } from '../../client/client.js';
import { InvalidArgumentError, messageOf } from '../../common/errors.js';
import { didYouMean } from '../../tasks/did-you-mean.js';
import type { ResetResponse__Output } from '../../generated/swe_env/v1/ResetResponse.js';
import type { StepResponse__Output } from '../../generated/swe_env/v1/StepResponse.js';
import { exportRows, loadTrajectories, selectTrajectories, writeRows } from '../export.js';
import { TRAJECTORY_FORMAT, type Trajectory } from '../trajectory-format.js';
import { TrajectoryRecorder } from '../trajectory-recorder.js';
import { ChatEndpoint, ChatEndpointError, type AssistantReply, type ChatMessageIn } from './chat-endpoint.js';
import { recordStep, reportFromProto } from './step-records.js';
import { TEXT_FORMAT_SYSTEM_PROMPT, toolCallsOf, type ToolFormat } from './tool-format.js';

export interface CollectOptions {
  readonly server: string;
  readonly security?: ClientSecurity;
  readonly endpoint: string;
  readonly apiKey: string;
  readonly model: string;
  /** Task ids to run (default: every task the server serves, or those of `dataset`). */
  readonly taskIds: readonly string[];
  readonly dataset: string;
  readonly samples: number;
  readonly temperature: number;
  readonly maxTurns: number;
  readonly maxTokens?: number;
  readonly concurrency: number;
  readonly out: string;
  /** Names this collection: episode ids and groups derive from it, so a re-run resumes it. */
  readonly run: string;
  readonly toolFormat: ToolFormat;
  /** A system message before the task (text format: its instructions by default). */
  readonly systemPrompt?: string;
  /** The first user message; `{{prompt}}` (the server's own prompt), `{{problem_statement}}`, `{{repo}}`, `{{task_id}}`, `{{workdir}}`. */
  readonly instanceTemplate?: string;
  /** Samples the environment failed are run again this many times, then marked infra_error. */
  readonly infraRetries: number;
  readonly modelTimeoutS: number;
  /** Ctrl-C: no new sample starts; running ones are closed and left for the next run; finished ones are written. */
  readonly signal?: AbortSignal;
  /** Told once the work is known: how many samples, how many an earlier run finished. */
  readonly onStart?: (tally: CollectTally) => void;
  readonly onSample?: (line: string, tally: CollectTally) => void;
}

export interface CollectTally {
  total: number;
  skipped: number;
  resolved: number;
  unresolved: number;
  /** Samples the environment failed after every retry (not counted as unresolved). */
  infra: number;
  /** Samples the model endpoint failed (left for a later run). */
  modelErrors: number;
  /** Samples cut by an interruption (closed, left for a later run). */
  interrupted: number;
}

type Outcome = 'resolved' | 'unresolved' | 'infra' | 'model_error' | 'interrupted';

/** End reasons that leave a sample to be run again by the next run. */
const RUN_AGAIN = new Set(['infra_error', 'model_error', 'interrupted']);

interface Job {
  readonly taskId: string;
  readonly sample: number;
}

/**
 * Drives a chat model over tasks x samples against a swe-env server, writing each sample's
 * trajectory under `<out>/trajectories/` and SWE-bench predictions to `<out>/predictions.jsonl`.
 * A sample with an ended, non-failed trajectory in `out` is skipped: re-running resumes.
 */
export async function collect(options: CollectOptions): Promise<CollectTally> {
  const client = new SweEnvClient(options.server, {}, options.security ?? {});
  const trajectoriesDir = join(options.out, 'trajectories');
  const recorder = await TrajectoryRecorder.start(
    { dir: trajectoriesDir, serverId: 'collect', maxTotalBytes: Number.MAX_SAFE_INTEGER, maxEpisodeBytes: Number.MAX_SAFE_INTEGER },
    pino({ level: 'warn' }),
  );
  const endpoint = new ChatEndpoint(options.endpoint, options.apiKey, options.modelTimeoutS * 1000);
  try {
    const served = await listTaskIds(client, options.taskIds.length > 0 ? '' : options.dataset);
    const taskIds = options.taskIds.length > 0 ? checkTaskIds(options.taskIds, served) : served;
    const previous = await loadTrajectories([trajectoriesDir]);
    const jobs: Job[] = taskIds.flatMap((taskId) => Array.from({ length: options.samples }, (_, sample) => ({ taskId, sample })));
    const tally: CollectTally = { total: jobs.length, skipped: 0, resolved: 0, unresolved: 0, infra: 0, modelErrors: 0, interrupted: 0 };
    const pending = jobs.filter((job) => {
      const done = previous.some((t) => sameJob(t, options.run, job) && t.end && !RUN_AGAIN.has(t.end.end_reason));
      if (done) tally.skipped += 1;
      return !done;
    });
    options.onStart?.(tally);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < pending.length && !options.signal?.aborted) {
        const job = pending[next++]!;
        let attempt = previous.filter((t) => sameJob(t, options.run, job)).length;
        let outcome: Outcome;
        for (let tries = 0; ; tries++) {
          attempt += 1;
          outcome = await runSample({ client, endpoint, recorder, options }, job, attempt);
          if (outcome !== 'infra' || tries >= options.infraRetries || options.signal?.aborted) break;
        }
        if (outcome === 'resolved') tally.resolved += 1;
        else if (outcome === 'unresolved') tally.unresolved += 1;
        else if (outcome === 'infra') tally.infra += 1;
        else if (outcome === 'interrupted') tally.interrupted += 1;
        else tally.modelErrors += 1;
        options.onSample?.(`${job.taskId} #${job.sample} ${outcome}`, tally);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, pending.length)) }, worker));
    await recorder.close();
    // A sample cut by an interruption is no prediction: the next run samples it again.
    const finished = (await loadTrajectories([trajectoriesDir])).filter((t) => t.end?.end_reason !== 'interrupted');
    const chosen = selectTrajectories(finished, { perTask: 1 });
    await writeRows(join(options.out, 'predictions.jsonl'), exportRows(chosen, 'predictions', options.model));
    return tally;
  } finally {
    await recorder.close();
    client.dispose();
  }
}

/** Task ids the server does not serve are a usage mistake, said before anything runs (not retried as the environment's failures). */
function checkTaskIds(wanted: readonly string[], served: readonly string[]): string[] {
  const known = new Set(served);
  const unknown = wanted.find((id) => !known.has(id));
  if (unknown !== undefined) throw new InvalidArgumentError(`--task ${unknown}: the server has no such task${didYouMean(unknown, served)}`);
  return [...new Set(wanted)];
}

async function listTaskIds(client: SweEnvClient, dataset: string): Promise<string[]> {
  const ids: string[] = [];
  let pageToken = '';
  do {
    const page = await client.listTasks({ pageSize: 1000, pageToken, dataset });
    ids.push(...page.tasks.map((t) => t.taskId));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return ids;
}

/** A struct value as text ('' when absent or not text). */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function signalOf(options: CollectOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}

function sameJob(t: Trajectory, run: string, job: Job): boolean {
  const c = t.header.collect;
  return c?.['run'] === run && t.header.task_id === job.taskId && c['sample'] === job.sample;
}

/** Episode ids are the server's: letters, digits and `_.:-`, at most 128. */
function episodeId(run: string, taskId: string, sample: number, attempt: number): string {
  const clean = (s: string): string => s.replace(/[^A-Za-z0-9_.:-]/g, '_');
  const tail = `-s${sample}-a${attempt}`;
  return `${clean(run)}-${clean(taskId)}`.slice(0, 128 - tail.length) + tail;
}

interface SampleContext {
  readonly client: SweEnvClient;
  readonly endpoint: ChatEndpoint;
  readonly recorder: TrajectoryRecorder;
  readonly options: CollectOptions;
}

function render(template: string, reset: ResetResponse__Output): string {
  const info = SweEnvClient.structToObject(reset.info);
  const vars: Record<string, string> = {
    prompt: reset.observation,
    problem_statement: text(info['problem_statement']),
    repo: text(info['repo']),
    task_id: text(info['task_id']),
    workdir: text(info['workdir']),
  };
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, key: string) => vars[key] ?? whole);
}

/** Asks the model, retrying what is worth retrying (429, 5xx, timeouts) a few times. */
async function ask(
  ctx: SampleContext,
  messages: readonly ChatMessageIn[],
  tools: readonly unknown[],
  seed: number,
): Promise<AssistantReply> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await ctx.endpoint.complete(
        {
          model: ctx.options.model,
          messages,
          ...(ctx.options.toolFormat === 'openai' ? { tools } : {}),
          temperature: ctx.options.temperature,
          ...(ctx.options.maxTokens ? { maxTokens: ctx.options.maxTokens } : {}),
          seed,
        },
        ctx.options.signal,
      );
    } catch (error) {
      if (!(error instanceof ChatEndpointError) || !error.transient || attempt >= 4 || ctx.options.signal?.aborted) throw error;
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
    }
  }
}

async function runSample(ctx: SampleContext, job: Job, attempt: number): Promise<Outcome> {
  const { client, options } = ctx;
  const id = episodeId(options.run, job.taskId, job.sample, attempt);
  let reset: ResetResponse__Output;
  try {
    reset = await client.reset(
      {
        taskId: job.taskId,
        episodeId: id,
        seed: job.sample,
        groupId: `${options.run}:${job.taskId}`,
        options: { maxSteps: options.maxTurns },
      },
      { timeoutS: 900, ...signalOf(options) },
    );
  } catch (error) {
    if (options.signal?.aborted) return 'interrupted';
    // No episode, nothing recorded: the environment's failure (a retry gets a new attempt).
    process.stderr.write(`swe-env collect: Reset of ${job.taskId} failed: ${messageOf(error)}\n`);
    return 'infra';
  }
  const info = SweEnvClient.structToObject(reset.info);
  const tools = reset.tools.map((t) => JSON.parse(t.openaiJson) as unknown);
  const systemPrompt = options.systemPrompt ?? (options.toolFormat === 'text' ? TEXT_FORMAT_SYSTEM_PROMPT : undefined);
  const prompt = render(options.instanceTemplate ?? '{{prompt}}', reset);
  const trajectory = ctx.recorder.begin(
    {
      type: 'episode',
      format: TRAJECTORY_FORMAT,
      episode_id: id,
      task_id: job.taskId,
      dataset: text(info['dataset']),
      repo: text(info['repo']),
      base_commit: text(info['base_commit']),
      group_id: `${options.run}:${job.taskId}`,
      seed: job.sample,
      options: { ...reset.options },
      server_id: options.server,
      started_at: new Date().toISOString(),
      prompt,
      tools,
      ...(systemPrompt ? { system_prompt: systemPrompt } : {}),
      collect: {
        run: options.run,
        model: options.model,
        sample: job.sample,
        attempt,
        temperature: options.temperature,
        tool_format: options.toolFormat,
        max_turns: options.maxTurns,
      },
    },
    Date.now(),
  );
  const messages: ChatMessageIn[] = [
    ...(systemPrompt ? [{ role: 'system' as const, content: systemPrompt }] : []),
    { role: 'user', content: prompt },
  ];
  let index = 0;
  let last: StepResponse__Output | undefined;
  let ended = false;
  let outcome: Outcome | undefined;
  const started = Date.now();
  try {
    for (let turn = 0; turn < options.maxTurns && !ended; turn++) {
      const reply = await ask(ctx, messages, tools, job.sample * 1000 + turn);
      const calls = toolCallsOf(reply, options.toolFormat, turn);
      const assistant = { content: reply.content, reasoning: reply.reasoning, model: options.model };
      if (options.toolFormat === 'openai') {
        messages.push({
          role: 'assistant',
          content: reply.content || null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: 'function' as const,
                  function: { name: c.name, arguments: c.argumentsJson },
                })),
              }
            : {}),
        });
      } else {
        messages.push({ role: 'assistant', content: reply.content });
      }
      // A reply with no tool call is a step too (the server answers it INVALID_ACTION and counts it).
      const steps = calls.length > 0 ? calls : [{ id: `call_${turn}`, name: '', argumentsJson: '{}' }];
      for (const [i, call] of steps.entries()) {
        const stepStarted = Date.now();
        last = await client.step(
          id,
          index,
          { name: call.name, argumentsJson: call.argumentsJson, callId: call.id },
          { timeoutS: 7200, ...signalOf(options) },
          i === 0 ? assistant : undefined,
        );
        recordStep(trajectory, last, call, i === 0 ? assistant : undefined, stepStarted, turn);
        const answer =
          options.toolFormat === 'openai' && calls.length > 0
            ? { role: 'tool' as const, tool_call_id: call.id, content: last.observation }
            : { role: 'user' as const, content: last.observation };
        messages.push(answer);
        index += 1;
        if (last.status === 'STEP_STATUS_INFRA_ERROR') outcome = 'infra';
        if (last.terminated || last.truncated) {
          ended = true;
          break;
        }
      }
    }
  } catch (error) {
    if (options.signal?.aborted) {
      outcome = 'interrupted';
    } else if (error instanceof ChatEndpointError || !(error as { code?: number }).code) {
      process.stderr.write(`swe-env collect: ${job.taskId} #${job.sample}: ${messageOf(error)}\n`);
      outcome = 'model_error';
    } else {
      process.stderr.write(`swe-env collect: ${job.taskId} #${job.sample}: the environment failed: ${messageOf(error)}\n`);
      outcome = 'infra';
    }
  }
  const summary = (await client.close(id).catch(() => undefined))?.summary;
  const report = summary?.report ? reportFromProto(summary.report as unknown as Record<string, unknown>) : undefined;
  const stepInfo = last ? SweEnvClient.structToObject(last.info) : {};
  const endReason =
    outcome === 'model_error' || outcome === 'interrupted'
      ? outcome
      : outcome === 'infra'
        ? 'infra_error'
        : summary?.endReason || (ended ? 'ended' : 'max_turns');
  const resolved = outcome === undefined && Boolean(report?.resolved);
  trajectory.end({
    type: 'end',
    reward: outcome === undefined ? (summary?.reward ?? 0) : 0,
    resolved,
    end_reason: endReason,
    steps: index,
    duration_s: (Date.now() - started) / 1000,
    ...(report ? { report } : {}),
    ...(typeof stepInfo['model_patch'] === 'string' ? { model_patch: stepInfo['model_patch'] } : {}),
    ended_at: new Date().toISOString(),
  });
  await trajectory.close();
  if (outcome) return outcome;
  if (summary?.endReason === 'infra_error') return 'infra';
  return resolved ? 'resolved' : 'unresolved';
}
