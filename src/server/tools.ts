/**
 * The two tools of an episode, their OpenAI function schemas (flat string arguments, which is what
 * verl's schema type accepts), and the parsing of a model's tool call into an action or a message
 * the model can read.
 */
import type { ToolSchema } from '../generated/swe_env/v1/ToolSchema.js';
export type ParsedAction =
  | { readonly kind: 'bash'; readonly command: string }
  | { readonly kind: 'submit' }
  | { readonly kind: 'invalid'; readonly message: string };

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly parameters: {
    readonly type: 'object';
    readonly properties: Readonly<Record<string, { type: 'string'; description: string }>>;
    readonly required: readonly string[];
  };
}

export const TOOLS: readonly ToolDefinition[] = Object.freeze<ToolDefinition[]>([
  {
    name: 'bash',
    description:
      'Run a bash command in the repository. The working directory and exported variables persist between calls. ' +
      'Standard input is empty, there is no network, and output is truncated when it is very long.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The bash command to run.' } },
      required: ['command'],
    },
  },
  {
    name: 'submit_solution',
    description: 'Finish the episode: your changes to the repository are graded with hidden tests.',
    parameters: { type: 'object', properties: {}, required: [] },
  },
]);

const ACCEPTED = 'Accepted tool calls: bash with arguments {"command": "<string>"}, or submit_solution with arguments {}.';

/**
 * The tools of a task in `language` (as taskLanguage names it): the bash tool says which language
 * the repository is in, as the prompt does, so a policy trained across languages is told in both.
 */
export function toolsFor(language: string): ToolDefinition[] {
  return TOOLS.map((tool) =>
    tool.name === 'bash'
      ? { ...tool, description: tool.description.replace('in the repository.', `in the repository (a ${language} project).`) }
      : tool,
  );
}

/** The tool schemas as Reset and GetTask return them (for a task in `language`, when given). */
export function toolSchemas(language?: string): ToolSchema[] {
  return (language ? toolsFor(language) : TOOLS).map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    parametersJson: JSON.stringify(tool.parameters),
    openaiJson: openAiToolJson(tool),
  }));
}

export function openAiToolJson(tool: ToolDefinition): string {
  return JSON.stringify({ type: 'function', function: tool });
}

/** Deeper arguments are refused before they are parsed: nothing downstream has to survive them. */
export const MAX_ARGUMENT_DEPTH = 32;

/**
 * How deep arrays and objects nest in a JSON text (strings skipped), counted without parsing and
 * without recursion; stops counting past `limit`. Text that is not JSON gets some number: parsing
 * it is what says it is invalid.
 */
export function jsonNestingDepth(text: string, limit = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return deepest;
}

export function parseAction(name: string, argumentsJson: string): ParsedAction {
  const invalid = (what: string): ParsedAction => ({ kind: 'invalid', message: `Invalid tool call: ${what}. ${ACCEPTED}` });
  let args: unknown = {};
  if (jsonNestingDepth(argumentsJson, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH) {
    return invalid(`the arguments of '${name}' nest arrays or objects more than ${MAX_ARGUMENT_DEPTH} deep`);
  }
  if (argumentsJson.trim() !== '') {
    try {
      args = JSON.parse(argumentsJson);
    } catch (error) {
      return invalid(`the arguments of '${name}' are not valid JSON (${(error as Error).message})`);
    }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return invalid(`the arguments of '${name}' must be a JSON object`);
  }
  const record = args as Record<string, unknown>;
  switch (name) {
    case 'bash': {
      const command = record['command'];
      if (command === undefined) return invalid(`bash needs the argument "command"`);
      if (typeof command !== 'string') return invalid(`the "command" argument of bash must be a string, got ${typeof command}`);
      if (command.trim() === '') return invalid('the "command" argument of bash is empty');
      if (command.includes('\0')) return invalid('the "command" argument of bash contains a NUL character');
      const extra = Object.keys(record).filter((k) => k !== 'command');
      if (extra.length > 0) return invalid(`bash takes only "command", not ${extra.map((k) => `"${k}"`).join(', ')}`);
      return { kind: 'bash', command };
    }
    case 'submit_solution':
      return { kind: 'submit' };
    default:
      return invalid(name === '' ? 'no tool name was given' : `there is no tool named '${name}'`);
  }
}
