import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweEnvClient } from '../../src/client/client.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { patchOf, withEpisode } from '../helpers/capture-episodes.js';
import { applyPatchCommand, DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The capture keeps everything git can represent: symlinks anywhere (in a new directory too), the
 * executable bit, binary bytes, a file turned into a directory, deletions of whole directories, and
 * a change of 20,000 files (a vendored library) is captured and graded, not refused or stalled.
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

const episode = (body: (id: string) => Promise<void>): Promise<void> => withEpisode(t, task, 120, body);

describe('a faithful capture', () => {
  it('a correct fix with a relative symlink, an executable, binary bytes and a deleted directory keeps them all', async () => {
    await episode(async (id) => {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      const change = [
        'ln -s truncate.py textkit/shorten.py',
        'mkdir -p tools/bin && ln -s ../../textkit tools/bin/pkg',
        "printf '#!/bin/sh\\necho hi\\n' > tools/run.sh && chmod 755 tools/run.sh",
        'chmod +x textkit/slug.py',
        "printf '\\000\\001\\002\\377binary' > tools/blob.bin",
        'rm -rf tests && mkdir tests && cp /dev/null tests/__init__.py',
      ].join(' && ');
      expect((await t.client.bash(id, 1, change)).exitCode).toBe(0);
      const submitted = await t.client.submit(id, 2);
      expect(submitted.report!.error).toBe('');
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.reward).toBe(1);
      const patch = patchOf(submitted);
      expect(patch).toMatch(
        /diff --git a\/textkit\/shorten.py b\/textkit\/shorten.py\nnew file mode 120000\n[^\n]*\n--- \/dev\/null\n\+\+\+ b\/textkit\/shorten.py\n@@ -0,0 \+1 @@\n\+truncate.py\n/,
      );
      expect(patch).toMatch(/diff --git a\/tools\/bin\/pkg b\/tools\/bin\/pkg\nnew file mode 120000[\s\S]*?\n\+\.\.\/\.\.\/textkit\n/);
      expect(patch).toMatch(/diff --git a\/tools\/run.sh b\/tools\/run.sh\nnew file mode 100755/);
      expect(patch).toMatch(/diff --git a\/textkit\/slug.py b\/textkit\/slug.py\nold mode 100644\nnew mode 100755/);
      expect(patch).toMatch(/diff --git a\/tools\/blob.bin b\/tools\/blob.bin\nnew file mode 100644\n[^\n]*\nGIT binary patch/);
      expect(patch).toMatch(/diff --git a\/tests\/test_truncate.py b\/tests\/test_truncate.py\ndeleted file mode 100644/);
      expect(patch).toMatch(/diff --git a\/tests\/__init__.py b\/tests\/__init__.py\nnew file mode 100644/);
      expect(patch).toContain('+    if length <= len(ellipsis):');
    });
  });

  it('a change of 20,000 new files (a vendored library) is captured whole and graded', { timeout: 240_000 }, async () => {
    await episode(async (id) => {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      const vendor =
        'for d in $(seq 100); do mkdir -p vendor/lib$d; for f in $(seq 200); do echo "v = $d * $f" > vendor/lib$d/m$f.py; done; done; find vendor -type f | wc -l';
      const made = await t.client.bash(id, 1, vendor);
      expect(made.observation.trim()).toBe('20000');
      const submitted = await t.client.submit(id, 2);
      expect(submitted.report!.error).toBe('');
      expect(submitted.status).toBe('STEP_STATUS_OK');
      expect(submitted.reward).toBe(1);
      // Over the 1 MiB the answer carries: its size says all 20,000 files are in it (~130 bytes each).
      const omitted = SweEnvClient.structToObject(submitted.info)['model_patch_omitted'];
      expect(Number(/^(\d+) bytes/.exec(typeof omitted === 'string' ? omitted : '')?.[1])).toBeGreaterThan(20_000 * 120);
    });
  });

  it('a change of thousands of files spread over existing directories is the diff git itself gives', { timeout: 240_000 }, async () => {
    await episode(async (id) => {
      expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
      // New files beside tracked ones, a new directory deep in an existing one, modified tracked
      // files, a hard link to a file the change left alone, and a big unchanged neighbour: the
      // directory reads must keep exactly the change and skip the rest.
      const change = [
        'for f in $(seq 2000); do echo "v = $f" > textkit/m$f.py; done',
        'mkdir -p tests/deep/er && for f in $(seq 300); do echo "w = $f" > tests/deep/er/t$f.py; done',
        'for f in textkit/*.py; do case $f in */m[0-9]*) ;; *) echo "# touched" >> $f ;; esac; done',
        'ln tests/test_wrap.py tests/hard_link.py',
        'for f in $(seq 40); do echo "u = $f" > tests/h$f.py; done',
        'mkdir -p textkit/__pycache__ && head -c 50000000 /dev/zero > textkit/__pycache__/big.cpython-311.pyc',
      ].join(' && ');
      expect((await t.client.bash(id, 1, change)).exitCode).toBe(0);
      // What git in the (honest) container says the change is, by hash: the capture must match it.
      const own = await t.client.bash(
        id,
        2,
        'git add -A . ":!*.pyc" ":!**/__pycache__/**" && git -c core.quotepath=off diff --cached --binary --no-renames --no-color HEAD | sha256sum | cut -c1-64; git diff --cached --name-only HEAD | wc -l; git reset -q',
      );
      const [ownHash, ownFiles] = own.observation.trim().split('\n');
      expect(Number(ownFiles)).toBeGreaterThan(2340);
      const submitted = await t.client.submit(id, 3);
      expect(submitted.report!.error).toBe('');
      expect(submitted.status).toBe('STEP_STATUS_OK');
      const patch = patchOf(submitted);
      expect(patch.match(/^diff --git /gm)?.length).toBe(Number(ownFiles));
      expect(createHash('sha256').update(patch).digest('hex')).toBe(ownHash);
    });
  });
});
