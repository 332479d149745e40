import { describe, expect, it } from 'vitest';
import { jsonNestingDepth, parseAction, toolSchemas, TOOLS } from '../../src/server/tools.js';
import { taskLanguage } from '../../src/tasks/language-families.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { taskToProto } from '../../src/server/convert.js';
import { LANGUAGE_DEMO_TASKS } from '../../src/cli/options.js';

describe('parseAction', () => {
  it('accepts bash with a command and submit_solution with no arguments', () => {
    expect(parseAction('bash', '{"command":"ls -la"}')).toEqual({ kind: 'bash', command: 'ls -la' });
    expect(parseAction('submit_solution', '{}')).toEqual({ kind: 'submit' });
    expect(parseAction('submit_solution', '')).toEqual({ kind: 'submit' });
  });

  it.each([
    ['python', '{}', /no tool named 'python'/],
    ['', '{}', /no tool name/],
    ['bash', '{"command": ', /not valid JSON/],
    ['bash', '[]', /must be a JSON object/],
    ['bash', '{}', /needs the argument "command"/],
    ['bash', '{"command": 3}', /must be a string/],
    ['bash', '{"command": "  "}', /is empty/],
    ['bash', '{"command": "a\\u0000b"}', /NUL/],
    ['bash', '{"command": "ls", "timeout": "5"}', /takes only "command"/],
  ])('rejects %s %s with a message the model can act on', (name, args, message) => {
    const parsed = parseAction(name, args);
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind === 'invalid') {
      expect(parsed.message).toMatch(message);
      expect(parsed.message).toMatch(/Accepted tool calls: bash .*submit_solution/);
    }
  });

  it('describes flat string arguments only (what verl schemas accept)', () => {
    for (const tool of TOOLS) {
      for (const prop of Object.values(tool.parameters.properties)) expect(prop.type).toBe('string');
    }
  });
});

describe('deeply nested tool-call arguments', () => {
  const deepArray = `${'['.repeat(5000)}${']'.repeat(5000)}`;
  const deepObject = `{"command": ${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;

  it.each([
    ['an array', deepArray],
    ['an object', deepObject],
  ])('refuses %s nested 5,000 deep as an invalid action, without parsing it', (_kind, args) => {
    const parsed = parseAction('bash', args);
    expect(parsed.kind).toBe('invalid');
    if (parsed.kind === 'invalid') expect(parsed.message).toMatch(/more than 32 deep/);
  });

  it('counts depth outside strings only', () => {
    expect(jsonNestingDepth('{"command": "[[[[{{{{"}')).toBe(1);
    expect(jsonNestingDepth('{"command": "a\\\\"}')).toBe(1);
    expect(jsonNestingDepth('[[1],[[2]]]')).toBe(3);
    expect(parseAction('bash', `{"command": "${'['.repeat(100)}"}`)).toEqual({ kind: 'bash', command: '['.repeat(100) });
  });
});

describe('the tools of a task in another language', () => {
  it("say the task's language in the bash tool, as the prompt does; Python tasks too", () => {
    const go = toolSchemas(taskLanguage('parse_log_gotest'));
    expect(JSON.parse(go[0]!.parametersJson ?? '{}')).toEqual(TOOLS[0]!.parameters);
    expect(go[0]!.description).toContain('in the repository (a Go project).');
    expect((JSON.parse(go[0]!.openaiJson ?? '{}') as { function: { description: string } }).function.description).toContain(
      '(a Go project)',
    );
    expect(toolSchemas(taskLanguage(undefined))[0]!.description).toContain('(a Python project)');
    expect(toolSchemas(taskLanguage('parse_log_cargo'))[1]!.description).toBe(TOOLS[1]!.description);
  });
});

describe('GetTask of the language demo tasks', () => {
  it('tells the model the language in both the prompt and the bash tool', async () => {
    const { tasks, problems } = await loadTaskFile(LANGUAGE_DEMO_TASKS);
    expect(problems).toEqual([]);
    const byId = new Map(tasks.map((t) => [t.id, taskToProto(t)]));
    for (const [id, language] of [
      ['swe-env-demo__semver-1', 'Go'],
      ['swe-env-demo__wordcount-1', 'Rust'],
      ['swe-env-demo__rangejs-1', 'JavaScript'],
    ] as const) {
      const proto = byId.get(id);
      expect(proto?.prompt, id).toContain(`You are working in the ${language}`);
      expect(proto?.tools?.[0]?.description, id).toContain(`(a ${language}`);
    }
  });
});
