import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { patchOf, withEpisode } from '../helpers/capture-episodes.js';
import { applyPatchCommand, DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Masks on demand against the capture: each trick below made the capture fail, so a policy could turn
 * any deserved 0 into a masked INFRA_ERROR. Each is first shown working where it runs (in the agent's
 * container), then submitted with the gold fix: the change must be captured faithfully and graded
 * (reward 1), or be the model's failure with a reason; never INFRA_ERROR.
 */
let t: TestServer;
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === 'swe-env-demo__textkit-3')!;

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.stop();
  await expectNoContainers(t.server.provider);
});

const episode = (body: (id: string) => Promise<void>): Promise<void> => withEpisode(t, task, 60, body);

describe('masks on demand against the capture', () => {
  it('a background writer racing the capture: the change is taken from a frozen sandbox and graded', async () => {
    await episode(async (id) => {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      // Files appear and vanish all the time: a listing is stale before it is read.
      const writer = [
        'mkdir -p churn',
        `setsid nohup bash -c 'while :; do touch churn/f{1..300}; head -c $((RANDOM * 64)) /dev/zero > churn/grows; sleep 0.3; rm -f churn/*; sleep 0.05; done' >/dev/null 2>&1 < /dev/null & until [ -e churn/grows ]; do sleep 0.05; done`,
      ].join(' && ');
      expect((await t.client.bash(id, 1, writer)).exitCode).toBe(0);
      // The listing changes under the reader: two different counts, however long each phase takes.
      const seen = await t.client.bash(
        id,
        2,
        'a=$(ls churn | wc -l); for i in $(seq 600); do b=$(ls churn | wc -l); [ "$b" != "$a" ] && break; sleep 0.05; done; echo "$a"; echo "$b"',
      );
      expect(new Set(seen.observation.trim().split('\n')).size).toBeGreaterThan(1);
      const submitted = await t.client.submit(id, 3);
      expect(submitted.report!.error).toBe('');
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.report!.infraError).toBe(false);
      expect(submitted.reward).toBe(1);
    });
  });

  it('a working-tree-encoding attribute git cannot honour: the bytes are captured as they are, unfiltered', async () => {
    await episode(async (id) => {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      const trick = "printf '* working-tree-encoding=UTF-16\\n' > .gitattributes && printf 'abc' > textkit/odd.txt";
      expect((await t.client.bash(id, 1, trick)).exitCode).toBe(0);
      // The trick works where it runs: git cannot add the tree.
      const add = await t.client.bash(id, 2, 'git add -A; echo "exit=$?"; git reset -q');
      expect(add.observation).toMatch(/UTF-16[\s\S]*exit=(?!0)/);
      const submitted = await t.client.submit(id, 3);
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.report!.infraError).toBe(false);
      const patch = patchOf(submitted);
      expect(patch).toContain('+* working-tree-encoding=UTF-16');
      expect(patch).toMatch(
        /diff --git a\/textkit\/odd.txt b\/textkit\/odd.txt\nnew file mode 100644\n[^\n]*\n--- \/dev\/null\n\+\+\+ b\/textkit\/odd.txt\n@@ -0,0 \+1 @@\n\+abc\n\\ No newline at end of file/,
      );
      expect(patch).toContain('+    if length <= len(ellipsis):');
    });
  });

  it('symlinks climbing out of the repository (to a parent, to /): captured as links, the fix graded', async () => {
    await episode(async (id) => {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      const links =
        'ln -s ../.. loop && mkdir -p deep/er && ln -s ../../.. deep/er/up && ln -s / root_link && ls -la loop deep/er/up root_link';
      expect((await t.client.bash(id, 1, links)).exitCode).toBe(0);
      const submitted = await t.client.submit(id, 2);
      expect(submitted.report!.error).toBe('');
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.report!.infraError).toBe(false);
      const patch = patchOf(submitted);
      expect(patch).toMatch(
        /diff --git a\/loop b\/loop\nnew file mode 120000\n[^\n]*\n--- \/dev\/null\n\+\+\+ b\/loop\n@@ -0,0 \+1 @@\n\+\.\.\/\.\.\n\\ No newline at end of file/,
      );
      expect(patch).toMatch(/diff --git a\/deep\/er\/up b\/deep\/er\/up\nnew file mode 120000/);
      expect(patch).toMatch(/diff --git a\/root_link b\/root_link\nnew file mode 120000/);
      expect(submitted.reward).toBe(1);
    });
  });

  it('a path git refuses to track (GIT~1, which NTFS reads as .git): left out as git leaves it, the fix graded, not INFRA_ERROR', async () => {
    await episode(async (id) => {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      expect((await t.client.bash(id, 1, 'mkdir -p textkit/GIT~1 && echo x > textkit/GIT~1/hooks')).exitCode).toBe(0);
      // The trick works where it runs: git will not add it.
      const add = await t.client.bash(id, 2, 'git add -A; echo "exit=$?"; git reset -q');
      expect(add.observation).toMatch(/invalid path[\s\S]*exit=(?!0)/);
      const submitted = await t.client.submit(id, 3);
      expect(submitted.report!.error).toBe('');
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.report!.infraError).toBe(false);
      expect(submitted.reward).toBe(1);
      expect(patchOf(submitted)).not.toContain('GIT~1');
    });
  });
});
