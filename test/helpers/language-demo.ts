import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/common/paths.js';

const run = promisify(execFile);

/** The demo tasks beyond Python (tasks/demo-languages/). */
export const LANGUAGE_TASKS = join(packageRoot(), 'tasks', 'demo-languages', 'tasks.jsonl');

/**
 * Builds the language demo's images (their toolchain bases first; kept afterwards, like the demo's
 * own) once for every test file that needs them: files running at the same time take turns, so the
 * second finds them built instead of building the same tags beside the first.
 */
export async function buildLanguageDemoImages(): Promise<void> {
  const cli = join(packageRoot(), 'dist', 'src', 'cli', 'main.js');
  await run('flock', [join('/tmp', 'swe-env-language-demo-images.lock'), 'node', cli, 'images', 'build-demo', '--languages'], { maxBuffer: 16 * 1024 * 1024 });
}
