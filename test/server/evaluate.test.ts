import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvaluateResponse__Output } from '../../src/generated/swe_env/v1/EvaluateResponse.js';
import { LABEL_ROLE, LABEL_SERVER } from '../../src/sandbox/labels.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { DEMO_TASKS, startTestServer, type TestServer, expectNoContainers } from '../helpers/server.js';
import { callWithServerDeadline } from '../helpers/server-deadline-call.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

const { tasks } = await loadTaskFile(DEMO_TASKS);

describe('Evaluate on every demo task (the dataset is sound)', () => {
  it('has at least 8 tasks over at least 3 repositories', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    expect(new Set(tasks.map((x) => x.repo)).size).toBeGreaterThanOrEqual(3);
  });

  for (const task of tasks) {
    it(`${task.id}: gold patch scores 1, empty patch scores 0`, async () => {
      const gold = (await t.client.evaluate(task.id, task.goldPatch)).report!;
      expect(gold.error).toBe('');
      expect(gold.patchApplyMethod).toBe('git apply');
      expect(gold.reward).toBe(1);
      expect(gold.resolution).toBe('RESOLUTION_FULL');
      const empty = (await t.client.evaluate(task.id, '')).report!;
      expect(empty.reward).toBe(0);
      expect(empty.infraError).toBe(false);
      expect(empty.failToPass.some((r) => r.status !== 'TEST_STATUS_PASSED')).toBe(true);
    });
  }

  it('reports a patch that does not apply, with reward 0 and no infra error', async () => {
    const task = tasks[0]!;
    const bogus = 'diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n';
    const report = (await t.client.evaluate(task.id, bogus)).report!;
    expect(report.patchApplied).toBe(false);
    expect(report.reward).toBe(0);
    expect(report.infraError).toBe(false);
    expect(report.error).toMatch(/does not apply/);
  });

  it('reports a missing image as an infrastructure error, not as reward 0 alone', async () => {
    const task = tasks[0]!;
    const broken = await (async () => {
      const { Grader } = await import('../../src/reward/grader.js');
      const { Semaphore } = await import('../../src/common/semaphore.js');
      const { pino } = await import('pino');
      const grader = new Grader(
        t.server.provider,
        new Semaphore(1),
        { limits: t.server.config.limits, testTimeoutS: 60, logLimitBytes: 1 << 20, maxGradings: 1 },
        pino({ level: 'silent' }),
      );
      return grader.grade({ ...task, image: 'swe-env-test/no-such-image:none' }, Buffer.from(task.goldPatch));
    })();
    expect(broken.infraError).toBe(true);
    expect(broken.reward).toBe(0);
    expect(broken.error).toMatch(/no-such-image/);
  });
});

describe('Evaluate and the caller', () => {
  it('stops grading and frees the container when the caller gives up', async () => {
    const task = tasks[0]!;
    // A patch whose tests hang: the grading would otherwise run until the test timeout (300 s here).
    const hang =
      'diff --git a/intervals/__init__.py b/intervals/__init__.py\n--- a/intervals/__init__.py\n+++ b/intervals/__init__.py\n@@ -1,3 +1,5 @@\n """Closed intervals and operations on collections of them."""\n+import time\n+time.sleep(600)\n from .interval import Interval\n from .ops import merge, total_length\n';
    // The server gives up just before the caller's deadline and says so: an infrastructure error,
    // not a reward of 0.
    const answer = await callWithServerDeadline<EvaluateResponse__Output>(
      t.server.address,
      'Evaluate',
      { taskId: task.id, patch: hang },
      10_000,
    );
    expect(answer.code, answer.details).toBe(0);
    const report = answer.response!.report!;
    expect(report.infraError).toBe(true);
    expect(report.error).toMatch(/cancelled|deadline/);
    expect(report.reward).toBe(0);
    // Gone now, not at the end of the 300 s test timeout.
    await expectNoContainers(t.server.provider);
  });
});

describe('the grading pool', () => {
  it('runs at most --max-gradings gradings at once; the rest wait, then get RESOURCE_EXHAUSTED', async () => {
    const small = await startTestServer({ maxGradings: 1 });
    try {
      const task = tasks[0]!;
      const hang =
        'diff --git a/intervals/__init__.py b/intervals/__init__.py\n--- a/intervals/__init__.py\n+++ b/intervals/__init__.py\n@@ -1,3 +1,5 @@\n """Closed intervals and operations on collections of them."""\n+import time\n+time.sleep(600)\n from .interval import Interval\n from .ops import merge, total_length\n';
      let most = 0;
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          // Grading containers only: a grader's short-lived helpers (the one that sets its offline
          // route, a killer) are not gradings.
          const graders = await small.server.provider.docker.listContainers({
            all: true,
            filters: { label: [`${LABEL_SERVER}=${small.server.provider.serverId}`, `${LABEL_ROLE}=grader`] },
          });
          most = Math.max(most, graders.length);
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, () =>
          callWithServerDeadline<EvaluateResponse__Output>(small.server.address, 'Evaluate', { taskId: task.id, patch: hang }, 8_000).then(
            (answer) => ({ report: answer.response?.report, code: answer.code }),
          ),
        ),
      );
      watching = false;
      await watcher;
      expect(most).toBe(1);
      const exhausted = outcomes.filter((o) => o.code === 8); // RESOURCE_EXHAUSTED
      const graded = outcomes.filter((o) => o.code === 0);
      expect(exhausted.length).toBeGreaterThanOrEqual(1);
      expect(outcomes.map((o) => (o.code === 0 || o.code === 8 ? 'ok' : `code ${o.code}`))).toEqual(Array(6).fill('ok'));
      for (const o of graded) expect(o.report!.infraError).toBe(true); // cancelled at the deadline, never a plain 0
      await expectNoContainers(small.server.provider);
    } finally {
      await small.stop();
    }
  });
});

/**
 * The grading container once its test run is under way (the run's `timeout` wrapping a pytest
 * command in its process table: earlier stages run python with "pytest" in their arguments too),
 * or undefined.
 */
async function graderRunningPytest(): Promise<string | undefined> {
  // The grading container by its labels: a helper beside it (the offline route's, the exec
  // channel's) shares its processes and lists the same test run, but ends by itself.
  const filters = { label: [`${LABEL_SERVER}=${t.server.provider.serverId}`, `${LABEL_ROLE}=grader`] };
  for (let i = 0; i < 600; i++) {
    const listed = await t.server.provider.docker.listContainers({ filters });
    for (const { Id: id } of listed) {
      const top = (await t.server.provider.docker
        .getContainer(id)
        .top({ ps_args: '-eo pid,args' })
        .catch(() => ({ Processes: [] }))) as { Processes?: string[][] };
      const testRun = (p: string[]): boolean => {
        const args = p.join(' ');
        return args.includes('timeout -s TERM') && args.includes('pytest');
      };
      if ((top.Processes ?? []).some(testRun)) return id;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** A patch whose package sleeps ten minutes at import: its tests run until something stops them. */
const HANG =
  'diff --git a/intervals/__init__.py b/intervals/__init__.py\n--- a/intervals/__init__.py\n+++ b/intervals/__init__.py\n@@ -1,3 +1,5 @@\n """Closed intervals and operations on collections of them."""\n+import time\n+time.sleep(600)\n from .interval import Interval\n from .ops import merge, total_length\n';

describe('a grading container that dies', () => {
  it('is an infrastructure error, never a timeout scored 0', async () => {
    const task = tasks[0]!;
    const pending = t.client.evaluate(task.id, HANG, { timeoutS: 300 });
    // Kill the grader from outside once its tests are running (the engine's view: docker kill).
    const id = await graderRunningPytest();
    expect(id).toBeDefined();
    await t.server.provider.docker.getContainer(id!).kill();
    const report = (await pending).report!;
    expect(report.infraError).toBe(true);
    expect(report.testTimedOut).toBe(false);
    // Either reading names the stop: the run ends and the container is found stopped, or (Podman,
    // which removes it at once) the run's own result cannot be fetched and the stop explains why.
    expect(report.error).toMatch(/grading container stopped (during the test run|\(killed from outside)/);
    // The engine removes a killed AutoRemove container a moment after it dies.
    await expect.poll(() => t.server.provider.listContainers(), { timeout: 30_000 }).toEqual([]);
  });
});

describe('a grading container paused from outside', () => {
  it('is an infrastructure error as soon as it is seen, not a test timeout held for the whole run', async () => {
    const task = tasks[0]!;
    const pending = t.client.evaluate(task.id, HANG, { timeoutS: 300 });
    const id = await graderRunningPytest();
    expect(id).toBeDefined();
    await t.server.provider.docker.getContainer(id!).pause();
    // The test timeout is 300 s: an answer at all before the client's own 300 s deadline is the point.
    const report = (await pending).report!;
    expect(report.infraError).toBe(true);
    expect(report.testTimedOut).toBe(false);
    expect(report.error).toMatch(/paused/);
    await expect.poll(() => t.server.provider.listContainers(), { timeout: 30_000 }).toEqual([]);
  });
});
