import { createServer, type Server } from 'node:http';
import { InvalidArgumentError } from '../../common/errors.js';
import type { Task } from '../../tasks/task.js';

/** A bash command that writes the patch to a file and applies it with git (the tests use it too). */
export function applyPatchCommand(patch: string): string {
  return `cat > /tmp/fix.patch <<'SWE_ENV_EOF'\n${patch}SWE_ENV_EOF\ngit apply /tmp/fix.patch && rm /tmp/fix.patch && git status --short`;
}

/**
 * A stand-in for a GPU model server (`swe-env demo-model`, and the tests): an OpenAI-compatible /v1/chat/completions on loopback whose
 * "model" follows a script. For a task in `solve` it applies the task's gold patch through bash,
 * then calls submit_solution; for any other task it looks around and submits without a fix (gives
 * up). It knows the task from the problem statement in the conversation. Every request is kept.
 */
export async function startScriptedModel(
  tasks: readonly Task[],
  solve: ReadonlySet<string>,
  host = '127.0.0.1',
  port = 0,
): Promise<{ url: string; requests: unknown[]; close(): Promise<void> }> {
  const requests: unknown[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as { messages: Array<{ role: string; content: string | null }>; tools?: unknown[] };
      requests.push(request);
      const text = request.messages.map((m) => m.content ?? '').join('\n');
      const task = tasks.find((t) => text.includes(t.problemStatement.trim().slice(0, 200)));
      const turn = request.messages.filter((m) => m.role === 'assistant').length;
      const call = (name: string, args: Record<string, unknown>) => ({
        id: `call_${turn}_${name}`,
        type: 'function',
        function: { name, arguments: JSON.stringify(args) },
      });
      let message: Record<string, unknown>;
      if (!task) {
        message = { role: 'assistant', content: 'I cannot tell which task this is.', tool_calls: [call('submit_solution', {})] };
      } else if (turn === 0 && solve.has(task.id)) {
        message = {
          role: 'assistant',
          content: 'The bug is clear; applying the fix.',
          reasoning_content: `The issue in ${task.repo} needs a code change.`,
          tool_calls: [call('bash', { command: applyPatchCommand(task.goldPatch) })],
        };
      } else if (turn === 0) {
        message = { role: 'assistant', content: 'Let me look around.', tool_calls: [call('bash', { command: 'ls' })] };
      } else {
        message = {
          role: 'assistant',
          content: solve.has(task.id) ? 'Done, submitting.' : 'I give up.',
          tool_calls: [call('submit_solution', {})],
        };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${requests.length}`,
          object: 'chat.completion',
          model: 'scripted',
          choices: [{ index: 0, message, finish_reason: 'tool_calls' }],
        }),
      );
    });
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new InvalidArgumentError(`${host}:${port} is in use: choose another port with --port (0 for any free one)`)
          : error,
      ),
    );
    server.listen(port, host, () => resolve((server.address() as { port: number }).port));
  });
  return { url: `http://${host}:${bound}/v1`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
