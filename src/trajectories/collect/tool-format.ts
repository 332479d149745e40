import type { AssistantReply } from './chat-endpoint.js';

/**
 * How the model calls the tools: `openai` sends the tools and reads the reply's tool calls (vLLM and
 * SGLang with a tool parser); `text` sends none and reads the last ```bash block of the reply, a
 * block holding just `submit` meaning submit_solution (for models served without a tool parser).
 */
export const TOOL_FORMATS = ['openai', 'text'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly argumentsJson: string;
}

export const TEXT_FORMAT_SYSTEM_PROMPT = [
  'You solve software issues in a repository through a bash shell.',
  'Each reply must end with exactly one command in a fenced block:',
  '```bash',
  '<command>',
  '```',
  'The command runs in the repository and you get its output. When the issue is fixed, reply with a block holding only `submit`.',
].join('\n');

export function toolCallsOf(reply: AssistantReply, format: ToolFormat, turn: number): ToolCall[] {
  if (format === 'openai') return reply.toolCalls.map((c) => ({ id: c.id, name: c.function.name, argumentsJson: c.function.arguments }));
  const blocks = [...reply.content.matchAll(/```(?:bash|sh)?\n([\s\S]*?)```/g)];
  const command = blocks.at(-1)?.[1]?.trim();
  if (command === undefined) return [];
  if (command === 'submit') return [{ id: `call_${turn}`, name: 'submit_solution', argumentsJson: '{}' }];
  return [{ id: `call_${turn}`, name: 'bash', argumentsJson: JSON.stringify({ command }) }];
}
