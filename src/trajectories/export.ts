import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { readTrajectory, type Trajectory } from './trajectory-format.js';

export const EXPORT_FORMATS = ['sft', 'verifier', 'predictions'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportFilter {
  /** Only episodes whose grading resolved the task. */
  readonly resolvedOnly?: boolean;
  readonly dataset?: string;
  /** Only episodes of at most this many steps. */
  readonly maxTurns?: number;
  /** At most this many episodes per task (the first ones, in start order). */
  readonly perTask?: number;
  /** Leave out episodes whose grading raised any integrity or audit flag. */
  readonly unflaggedOnly?: boolean;
  /** Only episodes with a flag of this kind: integrity, or an audit kind (network, git, subprocess, runner-internals). */
  readonly flag?: string;
}

/**
 * The kinds of flag an episode's report carries: 'integrity', and each audit finding's label
 * (network, git, subprocess, runner-internals, ...), read from the report's findings. A report
 * recorded before reports carried findings gives its audit lines' labels, the text before ':'.
 */
export function flagKinds(t: Trajectory): Set<string> {
  const report = t.end?.report;
  const kinds = new Set<string>();
  if ((report?.integrityFlags ?? []).length > 0) kinds.add('integrity');
  if (report?.findings !== undefined) {
    for (const finding of report.findings) kinds.add(finding.label);
    return kinds;
  }
  for (const flag of report?.auditFlags ?? []) kinds.add(flag.split(':')[0]!.trim());
  return kinds;
}

/** Every trajectory file under the given directories (recursively), in start order. */
export async function loadTrajectories(paths: readonly string[]): Promise<Trajectory[]> {
  const files: string[] = [];
  const walk = async (path: string): Promise<void> => {
    if (path.endsWith('.jsonl')) {
      files.push(path);
      return;
    }
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile() && entry.name.endsWith('.jsonl')) files.push(child);
    }
  };
  for (const path of paths) await walk(path);
  const loaded = await Promise.all(files.map((file) => readTrajectory(file).catch(() => undefined)));
  return loaded
    .filter((t): t is Trajectory => t !== undefined)
    .sort((a, b) => a.header.started_at.localeCompare(b.header.started_at) || a.header.episode_id.localeCompare(b.header.episode_id));
}

/**
 * The trajectories worth exporting: ended ones, never one the environment failed (an INFRA_ERROR
 * says nothing about the model), then the caller's filters.
 */
export function selectTrajectories(all: readonly Trajectory[], filter: ExportFilter): Trajectory[] {
  const perTask = new Map<string, number>();
  return all.filter((t) => {
    // Neither the environment's failure nor the model endpoint's says anything about the model.
    if (!t.end || t.end.end_reason === 'infra_error' || t.end.end_reason === 'model_error') return false;
    if (filter.resolvedOnly && !t.end.resolved) return false;
    if (filter.dataset && t.header.dataset !== filter.dataset) return false;
    if (filter.maxTurns !== undefined && t.steps.length > filter.maxTurns) return false;
    if (filter.unflaggedOnly && flagKinds(t).size > 0) return false;
    if (filter.flag !== undefined && !flagKinds(t).has(filter.flag)) return false;
    if (filter.perTask !== undefined) {
      const n = perTask.get(t.header.task_id) ?? 0;
      if (n >= filter.perTask) return false;
      perTask.set(t.header.task_id, n + 1);
    }
    return true;
  });
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      reasoning_content?: string;
      tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
    }
  | { role: 'tool'; tool_call_id: string; name: string; content: string };

/**
 * The episode as an OpenAI-format conversation: the system prompt (when the driver had one), the
 * task prompt, then per step the assistant's message with its tool call and the tool's answer.
 */
export function chatMessages(t: Trajectory): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (t.header.system_prompt) messages.push({ role: 'system', content: t.header.system_prompt });
  messages.push({ role: 'user', content: t.header.prompt });
  const steps = t.steps;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (step.tool === '') {
      // The model answered without a tool call: its text, then the environment's reminder.
      messages.push({
        role: 'assistant',
        content: step.assistant?.content ?? '',
        ...(step.assistant?.reasoning ? { reasoning_content: step.assistant.reasoning } : {}),
      });
      messages.push({ role: 'user', content: step.observation });
      continue;
    }
    // The calls of one assistant message (same recorded turn) go back into that one message.
    const group = [step];
    while (step.turn !== undefined && steps[i + 1]?.turn === step.turn && steps[i + 1]?.tool !== '') group.push(steps[++i]!);
    const calls = group.map((s) => ({
      id: s.call_id || `call_${s.index}`,
      type: 'function' as const,
      function: { name: s.tool, arguments: typeof s.arguments === 'string' ? s.arguments : JSON.stringify(s.arguments ?? {}) },
    }));
    messages.push({
      role: 'assistant',
      content: step.assistant?.content ? step.assistant.content : null,
      ...(step.assistant?.reasoning ? { reasoning_content: step.assistant.reasoning } : {}),
      tool_calls: calls,
    });
    group.forEach((s, k) => messages.push({ role: 'tool', tool_call_id: calls[k]!.id, name: s.tool, content: s.observation }));
  }
  return messages;
}

function model(t: Trajectory, fallback: string): string {
  const fromCollect = t.header.collect?.['model'];
  const fromSteps = t.steps.find((s) => s.assistant?.model)?.assistant?.model;
  return fallback || (typeof fromCollect === 'string' ? fromCollect : '') || fromSteps || 'swe-env';
}

/** One exported row per trajectory, in the chosen format. */
export function exportRows(trajectories: readonly Trajectory[], format: ExportFormat, modelName = ''): Array<Record<string, unknown>> {
  return trajectories.map((t) => {
    const end = t.end!;
    const metadata = {
      episode_id: t.header.episode_id,
      task_id: t.header.task_id,
      dataset: t.header.dataset,
      group_id: t.header.group_id,
      reward: end.reward,
      resolved: end.resolved,
      end_reason: end.end_reason,
      turns: t.steps.length,
      model: model(t, modelName),
      ...(t.header.parent_episode_id ? { parent_episode_id: t.header.parent_episode_id, branch_step: t.header.branch_step ?? 0 } : {}),
    };
    switch (format) {
      case 'sft':
        return { messages: chatMessages(t), tools: t.header.tools, metadata };
      case 'verifier':
        return {
          ...metadata,
          messages: chatMessages(t),
          tools: t.header.tools,
          model_patch: end.model_patch ?? '',
          label: end.resolved ? 1 : 0,
        };
      case 'predictions':
        return {
          instance_id: t.header.task_id,
          model_patch: end.model_patch ?? '',
          model_name_or_path: model(t, modelName),
          episode_id: t.header.episode_id,
        };
    }
  });
}

/**
 * Writes rows as JSON lines, or as parquet when the file name ends in .parquet (nested values as
 * JSON text in string columns, as Hugging Face datasets commonly carry chat data).
 */
export async function writeRows(file: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  if (!file.endsWith('.parquet')) {
    await writeFile(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    return;
  }
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const columnData = names.map((name) => {
    const values = rows.map((row) => row[name]);
    const kind = values.every((v) => typeof v === 'number') ? 'DOUBLE' : values.every((v) => typeof v === 'boolean') ? 'BOOLEAN' : 'STRING';
    return {
      name,
      data: kind === 'STRING' ? values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v ?? null))) : values,
      type: kind,
    } as const;
  });
  parquetWriteFile({ filename: file, columnData: columnData });
}
