import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/common/paths.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { loadTrajectories } from '../../src/trajectories/export.js';
import { startScriptedModel } from '../../src/trajectories/collect/scripted-model.js';
import { DEMO_TASKS, startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const CLI = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
const SOLVED = 'swe-env-demo__minicalc-1';
const GIVEN_UP = 'swe-env-demo__textkit-2';
const { tasks } = await loadTaskFile(DEMO_TASKS);

let server: TestServer;
let model: Awaited<ReturnType<typeof startScriptedModel>>;
const work = mkdtempSync(join(tmpdir(), 'swe-env-collect-'));
const serverRecords = join(work, 'server-trajectories');
const out = join(work, 'out');

beforeAll(async () => {
  server = await startTestServer({ trajectoryDir: serverRecords, maxGradings: 2 });
  model = await startScriptedModel(tasks, new Set([SOLVED]));
});

afterAll(async () => {
  await server?.stop();
  await model?.close();
  rmSync(work, { recursive: true, force: true });
});

function cli(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run('node', [CLI, ...args], { maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
}

describe('collect -> export -> eval, with a scripted OpenAI-compatible model', () => {
  it('collects tasks x 2 samples, records every step with the assistant turns, exports the resolved ones as chat data and predictions that eval grades the same', async () => {
    const collected = await cli(
      'collect',
      '--server',
      server.server.address,
      '--endpoint',
      model.url,
      '--model',
      'scripted-policy',
      '--task',
      SOLVED,
      '--task',
      GIVEN_UP,
      '-k',
      '2',
      '--concurrency',
      '2',
      '--out',
      out,
      '--run',
      'ci',
    );
    // The collector's own words on anything it retried, shown when an assertion below fails.
    const said = `collect stderr:\n${collected.stderr}`;
    expect(collected.stdout, said).toMatch(/4 samples: 2 resolved, 2 unresolved, 0 infra_error/);
    // The model was sent the server's tools in OpenAI format, and the server's own prompt.
    const first = model.requests[0] as {
      tools: Array<{ type: string; function: { name: string } }>;
      messages: Array<{ role: string; content: string }>;
    };
    expect(first.tools.map((t) => t.function.name).sort()).toEqual(['bash', 'submit_solution']);
    expect(first.messages[0]?.role).toBe('user');

    // Every step is in the collector's trajectories, and in the server's own records (the assistant
    // turn went over gRPC with each Step).
    for (const dir of [join(out, 'trajectories'), serverRecords]) {
      const trajectories = await loadTrajectories([dir]);
      const ends = trajectories.map((t) => {
        const last = t.steps.at(-1);
        return `${t.header.episode_id}: ${t.end?.end_reason ?? 'no end'} ${t.end?.reward ?? ''}; last step ${last?.tool} ${last?.status}: ${last?.observation.slice(0, 2000)}`;
      });
      expect(trajectories, `${dir}:\n${ends.join('\n')}\n${said}`).toHaveLength(4);
      for (const t of trajectories) {
        expect(t.steps.map((s) => s.tool)).toEqual(['bash', 'submit_solution']);
        expect(t.steps[0]?.assistant?.content).toMatch(/applying the fix|look around/);
        expect(t.end?.resolved).toBe(t.header.task_id === SOLVED);
        expect(t.end?.reward).toBe(t.header.task_id === SOLVED ? 1 : 0);
      }
      const solved = trajectories.find((t) => t.header.task_id === SOLVED)!;
      expect(solved.steps[0]?.assistant?.reasoning).toMatch(/needs a code change/);
      expect(solved.end?.model_patch).toContain('diff --git');
      expect(solved.end?.report?.failToPass.every((r) => r.status === 'PASSED')).toBe(true);
    }

    // SFT data: exactly the resolved trajectories, as OpenAI chat messages with matching tool calls.
    const sft = join(work, 'sft.jsonl');
    expect(
      (await cli('trajectories', 'export', join(out, 'trajectories'), '--format', 'sft', '--resolved-only', '--out', sft)).stdout,
    ).toMatch(/^2 of 4 trajectories/);
    const rows = readFileSync(sft, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { messages: Array<Record<string, unknown>>; tools: unknown[]; metadata: Record<string, unknown> });
    expect(rows.map((r) => r.metadata['task_id'])).toEqual([SOLVED, SOLVED]);
    for (const row of rows) {
      expect(row.messages.map((m) => m['role'])).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
      const calls = row.messages
        .filter((m) => m['role'] === 'assistant')
        .map((m) => (m['tool_calls'] as Array<{ id: string; function: { name: string; arguments: string } }>)[0]!);
      const answers = row.messages.filter((m) => m['role'] === 'tool').map((m) => m['tool_call_id']);
      expect(answers).toEqual(calls.map((c) => c.id));
      expect(JSON.parse(calls[0]!.function.arguments)).toHaveProperty('command');
      expect(row.messages[1]?.['reasoning_content']).toMatch(/needs a code change/);
      expect(row.tools).toHaveLength(2);
    }

    // Verifier data: every trajectory with its outcome label, as parquet.
    const verifier = join(work, 'verifier.parquet');
    await cli('trajectories', 'export', join(out, 'trajectories'), '--format', 'verifier', '--out', verifier);
    const labelled = (await parquetReadObjects({ file: await asyncBufferFromFile(verifier) })) as Array<{
      task_id: string;
      label: number;
      messages: string;
    }>;
    expect(labelled.map((r) => [r.task_id, r.label]).sort()).toEqual([
      [SOLVED, 1],
      [SOLVED, 1],
      [GIVEN_UP, 0],
      [GIVEN_UP, 0],
    ]);
    expect(JSON.parse(labelled[0]!.messages)).toHaveLength(5);

    // The collector's predictions (one per task), graded by `swe-env eval`: the same resolved ids.
    const report = join(work, 'eval');
    const graded = await cli(
      'eval',
      '--tasks',
      DEMO_TASKS,
      '--predictions',
      join(out, 'predictions.jsonl'),
      '--out',
      report,
      '--run-id',
      'ci',
    );
    expect(graded.stdout).toMatch(/resolved 1, unresolved 0, empty patches 1, errors 0 of 2 predictions/);
    const summary = JSON.parse(readFileSync(join(report, 'scripted-policy.ci.json'), 'utf8')) as { resolved_ids: string[] };
    expect(summary.resolved_ids).toEqual([SOLVED]);

    // A second run resumes: everything is done already, nothing is sampled again.
    const asked = model.requests.length;
    expect(
      (
        await cli(
          'collect',
          '--server',
          server.server.address,
          '--endpoint',
          model.url,
          '--model',
          'scripted-policy',
          '--task',
          SOLVED,
          '--task',
          GIVEN_UP,
          '-k',
          '2',
          '--out',
          out,
          '--run',
          'ci',
        )
      ).stdout,
    ).toMatch(/4 done before/);
    expect(model.requests.length).toBe(asked);
  });
});
