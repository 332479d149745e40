import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskFile } from '../../src/tasks/loader.js';
import { buildFromFiles, removeImages } from '../helpers/registry-images.js';
import { testProvider } from '../helpers/docker.js';
import { patchOf, withEpisode } from '../helpers/capture-episodes.js';
import { applyPatchCommand, DEMO_TASKS, expectNoContainers, startTestServer, type TestServer } from '../helpers/server.js';
import { demoImage, writeTaskFile } from '../helpers/task-images.js';

/**
 * What an agent's own `git diff` leaves out, the capture leaves out: untracked files the pristine
 * checkout's ignore rules ignore. Taken into the change, they scored correct fixes 0: an ignored
 * file the image already holds (an egg-info that `pip install -e .` rewrites, an extension built in
 * place) became a "new file" that does not apply, and a big cache made the change too large. A file
 * the base commit tracks is kept whatever the rules say, and the change's own ignore files are the
 * rules (pytest writes one into its cache; a developer adds a line for a build folder).
 */
const TASK_ID = 'swe-env-demo__textkit-3';
let t: TestServer;
let dir: string;
let image: string;
const { tasks } = await loadTaskFile(DEMO_TASKS);
const task = tasks.find((x) => x.id === TASK_ID)!;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'swe-env-ignored-'));
  // The task's image with an ignored egg-info in its checkout, as an image whose build ran `pip install -e .` has.
  image = await buildFromFiles(testProvider().docker, `swe-env-test/ignored:${randomUUID().slice(0, 8)}`, {
    Dockerfile: [
      `FROM ${demoImage(TASK_ID)}`,
      `RUN mkdir -p ${task.workdir}/textkit.egg-info && printf 'Metadata-Version: 2.1\\nName: textkit\\n' > ${task.workdir}/textkit.egg-info/PKG-INFO`,
      'LABEL swe-env.test=capture-ignored',
    ].join('\n'),
  });
  t = await startTestServer({ taskFiles: [writeTaskFile(dir, { [TASK_ID]: image })] });
});

afterAll(async () => {
  await t?.stop();
  if (t) await expectNoContainers(t.server.provider);
  if (image) await removeImages(testProvider().docker, [image]);
  rmSync(dir, { recursive: true, force: true });
});

const episode = (body: (id: string) => Promise<void>): Promise<void> => withEpisode(t, task, 120, body);

async function submitWith(change: string): Promise<{ reward: number; error: string; status: string; patch: string }> {
  let result = { reward: -1, error: 'not submitted', status: '', patch: '' };
  await episode(async (id) => {
    expect((await t.client.bash(id, 0, applyPatchCommand(task.goldPatch))).exitCode).toBe(0);
    const made = await t.client.bash(id, 1, `${change} && echo made`);
    expect(made.observation).toContain('made');
    const submitted = await t.client.submit(id, 2);
    result = { reward: submitted.reward, error: submitted.report?.error ?? '', status: submitted.status, patch: patchOf(submitted) };
  });
  return result;
}

describe('ignored files in the capture', () => {
  it("the fix with an ignored file the image holds rewritten (an egg-info's PKG-INFO): 1, the patch holds the fix alone", async () => {
    const graded = await submitWith("printf 'Metadata-Version: 2.2\\nName: textkit\\n' > textkit.egg-info/PKG-INFO");
    expect(graded.error).toBe('');
    expect(graded.status).toBe('STEP_STATUS_OK');
    expect(graded.reward).toBe(1);
    expect(graded.patch).toContain('+    if length <= len(ellipsis):');
    expect(graded.patch).not.toContain('egg-info');
  });

  it('the fix with 40 MB of ignored cache and a new ignored egg-info beside it: 1, neither in the patch', async () => {
    const graded = await submitWith(
      'mkdir -p .pytest_cache/v newpkg.egg-info && head -c 40000000 /dev/urandom > .pytest_cache/v/big && echo x > newpkg.egg-info/SOURCES.txt',
    );
    expect(graded.error).toBe('');
    expect(graded.reward).toBe(1);
    expect(graded.patch).not.toMatch(/pytest_cache|newpkg/);
  });

  it('a new file under a new directory beside an ignored one in it is kept, the ignored one is not', async () => {
    const graded = await submitWith(
      'mkdir -p tools/.pytest_cache tools/lib && echo 1 > tools/.pytest_cache/x && echo "v = 1" > tools/lib/m.py',
    );
    expect(graded.reward).toBe(1);
    expect(graded.patch).toContain('+++ b/tools/lib/m.py');
    expect(graded.patch).not.toContain('tools/.pytest_cache');
  });

  it('a real pytest run beside the fix (pytest writes its own .pytest_cache/.gitignore) and 40 MB in its cache: 1, nothing of it in the patch', async () => {
    const graded = await submitWith(
      'python3 -m pytest -q -p no:cacheprovider --co > /dev/null 2>&1; python3 -m pytest -q > /dev/null 2>&1; test -f .pytest_cache/.gitignore && head -c 40000000 /dev/urandom > .pytest_cache/v/big',
    );
    expect(graded.error).toBe('');
    expect(graded.reward).toBe(1);
    expect(graded.patch).not.toContain('pytest_cache');
  });

  it('a .gitignore line the change adds for its own build folder, 40 MB in it: 1, the line in the patch and the folder not', async () => {
    const graded = await submitWith(
      "printf 'mybuild/\\n' >> .gitignore && mkdir -p mybuild && head -c 40000000 /dev/urandom > mybuild/out.bin",
    );
    expect(graded.error).toBe('');
    expect(graded.reward).toBe(1);
    expect(graded.patch).toContain('+mybuild/');
    expect(graded.patch).not.toContain('out.bin');
  });

  it('a change that edits .gitignore to keep what it adds: its own rules decide, and keep it', async () => {
    const graded = await submitWith(
      "printf '__pycache__/\\n*.pyc\\n.pytest_cache/\\n' > .gitignore && mkdir -p kept.egg-info && echo k > kept.egg-info/NOTES",
    );
    expect(graded.reward).toBe(1);
    expect(graded.patch).toContain('+++ b/kept.egg-info/NOTES');
    expect(graded.patch).toContain('-*.egg-info/');
  });
});
