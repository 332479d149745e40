import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/common/paths.js';
import { loadTaskFile } from '../../src/tasks/loader.js';
import type { Task } from '../../src/tasks/task.js';
import { rowsServer } from './rows-server.js';
import { expectNoContainers, startTestServer, type TestServer } from './server.js';

const run = promisify(execFile);

/** The demo tasks beyond Python (tasks/demo-languages/). */
export const LANGUAGE_TASKS = join(packageRoot(), 'tasks', 'demo-languages', 'tasks.jsonl');

/** A language demo task's record as the task file holds it (a test varies it: another test patch, parser...). */
export async function languageDemoRow(id: string): Promise<Record<string, string>> {
  const row = (await readFile(LANGUAGE_TASKS, 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, string>)
    .find((r) => r['instance_id'] === id);
  if (!row) throw new Error(`${id} is not in ${LANGUAGE_TASKS}`);
  return row;
}

/**
 * Builds the language demo's images (their toolchain bases first; kept afterwards, like the demo's
 * own) once for every test file that needs them: files running at the same time take turns, so the
 * second finds them built instead of building the same tags beside the first.
 */
export async function buildLanguageDemoImages(): Promise<void> {
  const cli = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
  await run('flock', [join('/tmp', 'swe-env-language-demo-images.lock'), 'node', cli, 'images', 'build-demo', '--languages'], {
    maxBuffer: 16 * 1024 * 1024,
  });
}

/**
 * A server over the language demo tasks (images built first), grading with no network at all: what
 * the language tests check is the runners' grading; the 'offline' route the default adds is
 * test/reward/grading-network.test.ts's. Stop it with `stopLanguageServer`.
 */
export async function startLanguageServer(): Promise<{ server: TestServer; tasks: Task[] }> {
  await buildLanguageDemoImages();
  const loaded = await loadTaskFile(LANGUAGE_TASKS);
  if (loaded.problems.length > 0) throw new Error(`the language demo tasks do not load: ${JSON.stringify(loaded.problems)}`);
  const server = await startTestServer({ taskFiles: [LANGUAGE_TASKS], gradingNetwork: 'none' });
  return { server, tasks: loaded.tasks };
}

/** Stops it and checks no container is left. */
export async function stopLanguageServer(server: TestServer | undefined): Promise<void> {
  if (!server) return;
  await server.stop();
  await expectNoContainers(server.server.provider);
}

/**
 * A server over one variant of a language demo row (another test patch, more listed tests), for a
 * test file: beforeAll builds the images, writes the row with the fields `variant` returns to a
 * scratch task file and starts a server grading with no network; afterAll stops it, checks no
 * container is left and removes the scratch folder. The variant is applied at grading time (the
 * same image). Returns the running server's getter.
 */
export function demoVariantServer(
  id: string,
  variant: (row: Record<string, string>) => Promise<Record<string, string>> | Record<string, string>,
): () => TestServer {
  return rowsServer(
    async () => {
      await buildLanguageDemoImages();
      const row = await languageDemoRow(id);
      return [{ ...row, ...(await variant(row)) }];
    },
    { gradingNetwork: 'none' },
  );
}
