import { InvalidArgumentError as CommanderArgError } from 'commander';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '../common/errors.js';
import { packageRoot } from '../common/paths.js';
import { readOptionFile } from '../common/option-file.js';

export { readOptionFile };
import type { ClientSecurity } from '../client/client.js';
import { loadTaskFiles } from '../tasks/loader.js';
import type { Task } from '../tasks/task.js';
import { didYouMean } from '../tasks/did-you-mean.js';

export const DEMO_DIR = join(packageRoot(), 'tasks', 'demo');
export const DEMO_TASKS = join(DEMO_DIR, 'tasks.jsonl');
/** The demo tasks beyond Python: their own dataset, on toolchain images (see src/tasks/demo/language-demo.ts). */
export const LANGUAGE_DEMO_DIR = join(packageRoot(), 'tasks', 'demo-languages');
export const LANGUAGE_DEMO_TASKS = join(LANGUAGE_DEMO_DIR, 'tasks.jsonl');
export const DEFAULT_BASE_IMAGE = 'swe-env/base:latest';

export function number(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new CommanderArgError(`not a number: ${value}`);
  return n;
}

/** A repeatable option's values. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** SWE_ENV_STATE_DIR, else the XDG state directory's swe-env folder. */
export function defaultStateDir(): string {
  const env = process.env['SWE_ENV_STATE_DIR'];
  if (env) return env;
  return join(process.env['XDG_STATE_HOME'] || join(homedir(), '.local', 'state'), 'swe-env');
}

/** SWE_ENV_TRAJECTORY_DIR, else the XDG data directory's swe-env/trajectories. */
export function defaultTrajectoryDir(): string {
  const env = process.env['SWE_ENV_TRAJECTORY_DIR'];
  if (env) return env;
  return join(process.env['XDG_DATA_HOME'] || join(homedir(), '.local', 'share'), 'swe-env', 'trajectories');
}

/** The client side of a server's token and TLS, from --token-file / SWE_ENV_AUTH_TOKEN and --ca. */
export function clientSecurity(o: { tokenFile?: string; ca?: string }): ClientSecurity {
  const token = o.tokenFile ? readOptionFile('--token-file', o.tokenFile).toString('utf8').trim() : process.env['SWE_ENV_AUTH_TOKEN'];
  return { ...(token ? { token } : {}), ...(o.ca ? { ca: readOptionFile('--ca', o.ca) } : {}) };
}

/** Task files, their skipped records said on stderr; a missing file names --tasks. */
export function loadAll(files: readonly string[], imageTemplate?: string): Promise<Task[]> {
  return loadTaskFiles(files, imageTemplate ? { imageTemplate } : {}, (p) =>
    process.stderr.write(`skipped: ${p.file} ${p.where} ${p.field}: ${p.message}\n`),
  );
}

/** --instance filters: exact ids, or prefixes written with a trailing `*`; each must match some task. */
export function selectInstances(tasks: Task[], patterns: readonly string[] | undefined): Task[] {
  if (!patterns?.length) return tasks;
  const matches = (pattern: string, id: string): boolean => (pattern.endsWith('*') ? id.startsWith(pattern.slice(0, -1)) : id === pattern);
  const unmatched = patterns.find((p) => !tasks.some((t) => matches(p, t.id)));
  if (unmatched !== undefined) {
    throw new InvalidArgumentError(
      `--instance ${unmatched} matches no task in the task files${didYouMean(
        unmatched,
        tasks.map((t) => t.id),
      )}`,
    );
  }
  return tasks.filter((t) => patterns.some((p) => matches(p, t.id)));
}
