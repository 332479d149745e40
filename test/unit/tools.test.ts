import { describe, expect, it } from 'vitest';
import { parseAction, TOOLS } from '../../src/server/tools.js';

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
