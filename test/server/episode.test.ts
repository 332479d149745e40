import { status as GrpcStatus } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { retainedBytes } from '../helpers/gc.js';
import { applyPatchCommand, DEMO_TASKS, startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';

let t: TestServer;
let tasks: Map<string, Task>;

beforeAll(async () => {
  t = await startTestServer();
  tasks = new Map((await loadTaskFile(DEMO_TASKS)).tasks.map((task) => [task.id, task]));
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

function task(id: string): Task {
  const found = tasks.get(id);
  if (!found) throw new Error(`no demo task ${id}`);
  return found;
}

async function expectGrpcError(promise: Promise<unknown>, code: GrpcStatus, message: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as { code: number; details: string },
  );
  expect(error, 'the call should have failed').toBeDefined();
  expect(error!.code).toBe(code);
  expect(error!.details).toMatch(message);
}

describe('a scripted episode over gRPC', () => {
  it('scores 1 when the gold fix is applied through bash, with every listed test PASSED', async () => {
    const id = 'swe-env-demo__textkit-2';
    const reset = await t.client.reset({ taskId: id });
    expect(reset.observation).toContain('wrap() loses the end of the text');
    expect(reset.observation).not.toContain('test_last_line_is_kept');
    expect(reset.tools.map((tool) => tool.name)).toEqual(['bash', 'submit_solution']);
    expect(JSON.parse(reset.tools[0]!.openaiJson)).toMatchObject({ type: 'function', function: { name: 'bash' } });
    const info = SweEnvClient.structToObject(reset.info);
    expect(info['base_commit']).toBe(task(id).baseCommit);

    const applied = await t.client.bash(reset.episodeId, 0, applyPatchCommand(task(id).goldPatch));
    expect(applied.status).toBe('STEP_STATUS_OK');
    expect(applied.exitCode).toBe(0);
    expect(applied.observation).toContain('M textkit/wrap.py');

    const submitted = await t.client.submit(reset.episodeId, 1);
    expect(submitted.terminated).toBe(true);
    expect(submitted.truncated).toBe(false);
    expect(submitted.status).toBe('STEP_STATUS_OK');
    expect(submitted.reward).toBe(1);
    const report = submitted.report!;
    expect(report.resolved).toBe(true);
    expect(report.patchApplied).toBe(true);
    expect(report.failToPass.map((r) => r.name).sort()).toEqual([...task(id).failToPass].sort());
    for (const r of [...report.failToPass, ...report.passToPass]) expect(r.status).toBe('TEST_STATUS_PASSED');
    expect(report.passToPass).toHaveLength(task(id).passToPass.length);

    // The agent's container is gone once the episode is graded; Close reports the same reward.
    expect(await t.server.provider.listContainers({ episodeId: reset.episodeId })).toEqual([]);
    const closed = await t.client.close(reset.episodeId);
    expect(closed.summary!.reward).toBe(1);
    expect(closed.summary!.endReason).toBe('submitted');
    expect(closed.summary!.steps).toBe(2);
  });

  it('scores 0 without a fix, with the failing tests listed', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__intervals-1' });
    const submitted = await t.client.submit(reset.episodeId, 0);
    expect(submitted.reward).toBe(0);
    expect(submitted.terminated).toBe(true);
    expect(submitted.report!.resolved).toBe(false);
    expect(submitted.report!.infraError).toBe(false);
    expect(submitted.report!.patchEmpty).toBe(true);
    expect(submitted.report!.failToPass.map((r) => r.status)).toEqual(['TEST_STATUS_FAILED', 'TEST_STATUS_FAILED']);
    expect(submitted.report!.passToPass.every((r) => r.status === 'TEST_STATUS_PASSED')).toBe(true);
    await t.client.close(reset.episodeId);
  });

  it('scores 0 for a wrong fix that breaks a passing test', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__textkit-2' });
    // Always appends the last line, even for empty text: fixes the issue's examples, breaks wrap("") == [].
    const wrong = await t.client.bash(
      reset.episodeId,
      0,
      `sed -i 's/^    return lines$/    lines.append(current)\\n    return lines/' textkit/wrap.py && git diff --stat`,
    );
    expect(wrong.observation).toContain('textkit/wrap.py');
    const submitted = await t.client.submit(reset.episodeId, 1);
    expect(submitted.reward).toBe(0);
    expect(submitted.report!.resolution).not.toBe('RESOLUTION_FULL');
    const empty = submitted.report!.passToPass.find((r) => r.name.endsWith('test_empty_text'));
    expect(empty?.status).toBe('TEST_STATUS_FAILED');
    await t.client.close(reset.episodeId);
  });

  it('grades new files the agent creates', async () => {
    const id = 'swe-env-demo__minicalc-3';
    const reset = await t.client.reset({ taskId: id });
    // The fix lives in a new module the agent writes and imports.
    const cmd = [
      `cat > minicalc/safe_div.py <<'EOF'`,
      'from .errors import EvalError',
      '',
      'def divide(a, b):',
      '    if b == 0:',
      '        raise EvalError("division by zero")',
      '    return a / b',
      'EOF',
      `sed -i 's/value = value \\* right if op == "\\*" else value \\/ right/value = value * right if op == "*" else divide(value, right)/' minicalc/evaluator.py`,
      `sed -i '1i from .safe_div import divide' minicalc/evaluator.py`,
      'python3 -c "import minicalc; print(minicalc.evaluate(\'6 / 3\'))"',
    ].join('\n');
    const r = await t.client.bash(reset.episodeId, 0, cmd);
    expect(r.observation.trim()).toBe('2.0');
    const submitted = await t.client.submit(reset.episodeId, 1);
    expect(submitted.report!.error).toBe('');
    expect(submitted.reward).toBe(1);
    await t.client.close(reset.episodeId);
  });
});

describe('bash semantics through gRPC', () => {
  let episodeId: string;
  let step = 0;
  const bash = (command: string) => t.client.bash(episodeId, step++, command);

  beforeAll(async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__minicalc-1', options: { commandTimeoutS: 2, maxSteps: 1000 } });
    episodeId = reset.episodeId;
  });

  afterAll(async () => {
    await t.client.close(episodeId);
  });

  it('keeps the working directory and exported variables', async () => {
    expect((await bash('pwd')).observation).toBe('/testbed\n');
    await bash('cd minicalc && export SWE_TEST_VAR=42');
    const r = await bash('pwd; echo $SWE_TEST_VAR');
    expect(r.observation).toBe('/testbed/minicalc\n42\n');
    await bash('cd /testbed');
  });

  it('gives commands an empty stdin: cat returns at once (a cat waiting on input would time out)', async () => {
    const r = await bash('cat; echo done');
    expect(r.status).toBe('STEP_STATUS_OK');
    expect(r.observation).toBe('done\n');
  });

  it('times out `sleep 600` after 2 s, keeps earlier output, leaves no sleep, and goes on', async () => {
    const r = await bash('echo started; sleep 600');
    expect(r.status).toBe('STEP_STATUS_COMMAND_TIMEOUT');
    expect(r.observation).toContain('started');
    expect(r.observation).toContain('timed out');
    const ps = await bash('ps -eo args');
    expect(ps.observation).not.toContain('sleep 600');
    const next = await bash('echo next');
    expect(next.status).toBe('STEP_STATUS_OK');
    expect(next.observation).toBe('next\n');
  });

  it('a command whose shell is still busy at the kill, then starts a child: the replaced shell leaves none behind', async () => {
    // The kill finds nothing to kill (the shell's own loop is not a process of the command), the
    // loop then starts `sleep`, and the shell never comes back: it is replaced, and the child it
    // started after the kill must not outlive it (a loaded machine delaying a fork did this).
    const r = await bash('echo started; SECONDS=0; while (( SECONDS < 4 )); do :; done; sleep 613');
    expect(r.status).toBe('STEP_STATUS_COMMAND_TIMEOUT');
    expect(r.observation).toContain('started');
    const ps = await bash('ps -eo args');
    expect(ps.observation).not.toContain('sleep 613');
    expect((await bash('echo next')).observation).toBe('next\n');
  });

  it('caps 50 MB of output and the server does not hold it', async () => {
    // Its own episode with a generous command timeout: on a loaded machine printing 60 MB can take
    // longer than the 2 s the other tests of this block use, and a cut run proves nothing.
    const own = await t.client.reset({ taskId: 'swe-env-demo__minicalc-1', options: { commandTimeoutS: 300 } });
    // Retained memory, not RSS: RSS also counts garbage not yet collected and pages the allocator
    // keeps, so it says nothing about whether the server holds the output.
    const before = retainedBytes();
    const r = await t.client.bash(own.episodeId, 0, "head -c 60000000 /dev/zero | tr '\\0' a; echo; echo THE-END");
    const after = retainedBytes();
    await t.client.close(own.episodeId);
    const info = SweEnvClient.structToObject(r.info);
    expect(info['output_bytes']).toBeGreaterThan(60_000_000);
    expect(Buffer.byteLength(r.observation)).toBeLessThan(40_000);
    expect(r.observation).toMatch(/\[\.\.\. \d+ bytes of output omitted \.\.\.\]/);
    expect(r.observation.trimEnd().endsWith('THE-END')).toBe(true);
    // 60 MB went through; what stays is bounded by the head and tail kept (well under 1 MB).
    expect(after - before).toBeLessThan(8 * 1024 * 1024);
  });

  it('contains a memory hog: the process is killed, the episode goes on', async () => {
    // The test server's sandboxes have 1 GiB; this asks for 2.
    const r = await bash(`python3 -c "a = bytearray(2 * 1024 ** 3); print('survived')"`);
    expect(r.exitCode).toBe(137);
    expect(r.observation).toMatch(/Killed/);
    expect(r.observation).not.toMatch(/^survived$/m);
    const next = await bash('echo still-here');
    expect(next.observation).toBe('still-here\n');
  });

  it('reports the exit code and decodes invalid UTF-8 with replacement characters', async () => {
    const r = await bash("printf 'ok \\377\\376 end\\n'; exit 3");
    expect(r.exitCode).toBe(3);
    expect(r.observation).toContain('ok \uFFFD\uFFFD end');
  });
});

describe('invalid actions and protocol errors', () => {
  let episodeId: string;

  beforeAll(async () => {
    episodeId = (await t.client.reset({ taskId: 'swe-env-demo__intervals-2' })).episodeId;
  });

  afterAll(async () => {
    await t.client.close(episodeId);
  });

  it('answers a bad tool call with an observation saying what is accepted', async () => {
    const unknown = await t.client.step(episodeId, 0, { name: 'python', arguments: { code: '1' } });
    expect(unknown.status).toBe('STEP_STATUS_INVALID_ACTION');
    expect(unknown.reward).toBe(0);
    expect(unknown.terminated).toBe(false);
    expect(unknown.observation).toMatch(/no tool named 'python'.*bash.*submit_solution/s);

    const badJson = await t.client.step(episodeId, 1, { name: 'bash', argumentsJson: '{"command": "ls"' });
    expect(badJson.status).toBe('STEP_STATUS_INVALID_ACTION');
    expect(badJson.observation).toMatch(/not valid JSON/);

    const missing = await t.client.step(episodeId, 2, { name: 'bash', arguments: {} });
    expect(missing.status).toBe('STEP_STATUS_INVALID_ACTION');
    expect(missing.observation).toMatch(/needs the argument "command"/);

    // The episode goes on.
    const ok = await t.client.bash(episodeId, 3, 'echo fine');
    expect(ok.observation).toBe('fine\n');
  });

  it('runs a retried step_index once and returns the recorded result', async () => {
    const first = await t.client.bash(episodeId, 4, 'echo x >> /tmp/once; wc -l < /tmp/once');
    const retry = await t.client.bash(episodeId, 4, 'echo x >> /tmp/once; wc -l < /tmp/once');
    expect(retry).toEqual(first);
    const check = await t.client.bash(episodeId, 5, 'wc -l < /tmp/once');
    expect(check.observation.trim()).toBe('1');
  });

  it('keeps only the latest results: an old index is FAILED_PRECONDITION, not a re-run', async () => {
    await expectGrpcError(
      t.client.bash(episodeId, 0, 'true'),
      GrpcStatus.FAILED_PRECONDITION,
      /already ran; only the results of the last 2 steps/,
    );
  });

  it('rejects a step_index ahead of the next one', async () => {
    await expectGrpcError(t.client.bash(episodeId, 9, 'true'), GrpcStatus.FAILED_PRECONDITION, /expects step_index 6/);
  });

  it('answers NOT_FOUND for an unknown episode or task', async () => {
    await expectGrpcError(t.client.bash('no-such-episode', 0, 'true'), GrpcStatus.NOT_FOUND, /unknown episode no-such-episode/);
    await expectGrpcError(t.client.reset({ taskId: 'no/such-task' }), GrpcStatus.NOT_FOUND, /unknown task_id/);
    await expectGrpcError(t.client.close('no-such-episode'), GrpcStatus.NOT_FOUND, /unknown episode/);
  });

  it('answers INVALID_ARGUMENT for a malformed request', async () => {
    await expectGrpcError(t.client.reset({ taskId: '' }), GrpcStatus.INVALID_ARGUMENT, /task_id is required/);
    await expectGrpcError(t.client.step(episodeId, -1, { name: 'bash' }), GrpcStatus.INVALID_ARGUMENT, /step_index/);
    await expectGrpcError(
      t.client.reset({ taskId: 'swe-env-demo__intervals-2', options: { commandTimeoutS: 1e9 } }),
      GrpcStatus.INVALID_ARGUMENT,
      /over this server's limit/,
    );
  });
});

describe('lifecycle', () => {
  it('Reset with a client-chosen id is idempotent; Close is idempotent and leaves no container', async () => {
    const episodeId = `client-chosen-${Date.now()}`;
    const [a, b] = await Promise.all([
      t.client.reset({ taskId: 'swe-env-demo__textkit-1', episodeId }),
      t.client.reset({ taskId: 'swe-env-demo__textkit-1', episodeId }),
    ]);
    expect(a.episodeId).toBe(episodeId);
    expect(b).toEqual(a);
    const again = await t.client.reset({ taskId: 'swe-env-demo__textkit-1', episodeId });
    expect(again.episodeId).toBe(episodeId);
    expect(await t.server.provider.listContainers({ episodeId })).toHaveLength(1);
    await expectGrpcError(t.client.reset({ taskId: 'swe-env-demo__textkit-2', episodeId }), GrpcStatus.ALREADY_EXISTS, /already exists/);

    const closed = await t.client.close(episodeId);
    expect(closed.summary!.endReason).toBe('closed');
    expect(await t.server.provider.listContainers({ episodeId })).toEqual([]);
    const closedAgain = await t.client.close(episodeId);
    expect(closedAgain.summary).toEqual(closed.summary);
    await expectGrpcError(t.client.bash(episodeId, 0, 'true'), GrpcStatus.NOT_FOUND, /was closed/);
  });

  it('truncates at max_steps and grades the state reached', async () => {
    const id = 'swe-env-demo__textkit-3';
    const { tasks: all } = await loadTaskFile(DEMO_TASKS);
    const gold = all.find((x) => x.id === id)!.goldPatch;
    const reset = await t.client.reset({ taskId: id, options: { maxSteps: 2 } });
    const first = await t.client.bash(reset.episodeId, 0, applyPatchCommand(gold));
    expect(first.truncated).toBe(false);
    const second = await t.client.bash(reset.episodeId, 1, 'echo last');
    expect(second.truncated).toBe(true);
    expect(second.terminated).toBe(false);
    expect(second.status).toBe('STEP_STATUS_TRUNCATED_STEPS');
    expect(second.observation).toContain('last');
    expect(second.reward).toBe(1);
    await expectGrpcError(t.client.bash(reset.episodeId, 2, 'true'), GrpcStatus.FAILED_PRECONDITION, /has ended/);
    await t.client.close(reset.episodeId);
  });

  it('truncates on the episode wall clock: the command gets what time is left, the next step is TRUNCATED_TIME', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__textkit-3', options: { episodeTimeoutS: 2, commandTimeoutS: 60 } });
    const slow = await t.client.bash(reset.episodeId, 0, 'sleep 30');
    expect(slow.status).toBe('STEP_STATUS_COMMAND_TIMEOUT');
    const late = await t.client.bash(reset.episodeId, 1, 'echo too-late');
    expect(late.status).toBe('STEP_STATUS_TRUNCATED_TIME');
    expect(late.truncated).toBe(true);
    expect(late.observation).not.toContain('too-late');
    expect(late.report?.resolved).toBe(false);
    const closed = await t.client.close(reset.episodeId);
    expect(closed.summary!.endReason).toBe('truncated_time');
  });

  it('with truncation ZERO, a truncated episode scores 0 without grading', async () => {
    const reset = await t.client.reset({
      taskId: 'swe-env-demo__textkit-3',
      options: { maxSteps: 1, truncation: 'TRUNCATION_POLICY_ZERO' },
    });
    const only = await t.client.bash(reset.episodeId, 0, 'true');
    expect(only.truncated).toBe(true);
    expect(only.reward).toBe(0);
    expect(only.report).toBeNull();
    await t.client.close(reset.episodeId);
  });

  it('expires an idle episode: NOT_FOUND says it expired, and its container is gone', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__intervals-3', options: { idleTimeoutS: 1 } });
    expect(await t.server.provider.listContainers({ episodeId: reset.episodeId })).toHaveLength(1);
    // Retired by the sweeper (a step would keep it alive: wait on the registry, which does not).
    await expect.poll(() => t.server.registry.liveCount, { timeout: 30_000, interval: 100 }).toBe(0);
    await expectGrpcError(t.client.bash(reset.episodeId, 0, 'true'), GrpcStatus.NOT_FOUND, /expired/);
    // Its container goes once the retired episode is disposed of.
    await expect
      .poll(() => t.server.provider.listContainers({ episodeId: reset.episodeId }), { timeout: 30_000, interval: 250 })
      .toEqual([]);
  });

  it('reports a sandbox that died under the episode as INFRA_ERROR, never as a plain 0', async () => {
    const reset = await t.client.reset({ taskId: 'swe-env-demo__minicalc-1' });
    const episode = await t.server.registry.get(reset.episodeId);
    await t.server.provider.docker.getContainer(episode.containerId).remove({ force: true });
    const r = await t.client.bash(reset.episodeId, 0, 'echo hi');
    expect(r.status).toBe('STEP_STATUS_INFRA_ERROR');
    expect(r.truncated).toBe(true);
    expect(r.observation).toMatch(/environment failed/);
    expect(SweEnvClient.structToObject(r.info)['infra_error']).toBeTruthy();
    const closed = await t.client.close(reset.episodeId);
    expect(closed.summary!.endReason).toBe('infra_error');
  });

  it('lists and describes tasks without revealing tests or patches', async () => {
    const page = await t.client.listTasks({ pageSize: 4 });
    expect(page.totalSize).toBe(9);
    expect(page.tasks).toHaveLength(4);
    const rest = await t.client.listTasks({ pageSize: 10, pageToken: page.nextPageToken });
    expect(rest.tasks).toHaveLength(5);
    expect(rest.nextPageToken).toBe('');
    const one = await t.client.getTask('swe-env-demo__minicalc-2');
    expect(one.failToPassCount).toBe(4);
    expect(JSON.stringify(one)).not.toContain('test_unary_minus');
  });
});
