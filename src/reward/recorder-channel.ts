import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The grading channel of a test run: the boot (scripts/boot/sitecustomize.py), loaded first by every
 * Python interpreter of the run from outside the repository, installs an audit hook holding the only
 * copy of a per-grading key; the hook signs and appends, numbered per process, what the result
 * recorder (scripts/swe_env_recorder.py, for pytest runs) hands it and what the monitor sees the
 * code under test do. The grader reads the file through the engine after the run.
 */
export const RECORDER_SOURCE = readFileSync(new URL('./scripts/swe_env_recorder.py', import.meta.url), 'utf8');
/**
 * The boot's files, by name, as they go into its folder (every Python file of scripts/boot/):
 * sitecustomize.py loads the monitor by path, and the monitor the others.
 */
const BOOT_DIR = new URL('./scripts/boot/', import.meta.url);
export const BOOT_FILES: ReadonlyMap<string, string> = new Map(
  readdirSync(BOOT_DIR)
    .filter((name) => name.endsWith('.py'))
    .sort()
    .map((name) => [name, readFileSync(new URL(name, BOOT_DIR), 'utf8')]),
);

export interface RecorderChannel {
  readonly key: string;
  /** Directory of the boot (first on PYTHONPATH). */
  readonly bootDir: string;
  readonly keyFile: string;
  readonly configFile: string;
  readonly outFile: string;
  /** The recorder's module name for this grading ('' when the run is not pytest's). */
  readonly recorderModule: string;
  readonly recorderFile: string;
  /** The environment the test command runs with. */
  readonly env: Readonly<Record<string, string>>;
}

export function newRecorderChannel(gradingDir: string, pytest: boolean): RecorderChannel {
  const tag = randomBytes(6).toString('hex');
  const bootDir = `${gradingDir}/boot-${tag}`;
  const recorderModule = pytest ? `swe_env_rec_${randomBytes(5).toString('hex')}` : '';
  return {
    key: randomBytes(32).toString('hex'),
    bootDir,
    keyFile: `${gradingDir}/key-${randomBytes(6).toString('hex')}`,
    configFile: `${bootDir}/config.json`,
    outFile: `${gradingDir}/results-${tag}.jsonl`,
    recorderModule,
    recorderFile: `${gradingDir}/rec-${tag}/${recorderModule || 'none'}.py`,
    env: {
      SWE_ENV_BOOT_CONFIG: `${bootDir}/config.json`,
      SWE_ENV_BOOT_DIR: bootDir,
      ...(recorderModule ? { SWE_ENV_RECORDER_MODULE: recorderModule } : {}),
    },
  };
}

/** The repositories that are the test runner itself: a task of theirs changes the runner the run uses. */
export const RUNNER_REPOSITORIES: ReadonlySet<string> = new Set(['pytest-dev/pytest', 'pytest-dev/pluggy']);

/** The files the run needs: the boot, its configuration, the key, the recorder. */
export function channelFiles(
  channel: RecorderChannel,
  input: {
    gradingDir: string;
    workdir: string;
    agentFiles: readonly string[];
    testFiles: readonly string[];
    plugins: readonly string[];
    /** The task's repository is the test runner's own (pytest's, pluggy's): its changes to the runner are the task. */
    runnerIsRepository?: boolean;
  },
): Array<{ path: string; content: string }> {
  const config = {
    key_file: channel.keyFile,
    out: channel.outFile,
    guarded_dir: input.gradingDir,
    workdir: input.workdir,
    agent_files: input.agentFiles,
    test_files: input.testFiles,
    runner: channel.recorderModule ? 'pytest' : '',
    recorder_module: channel.recorderModule,
    recorder_path: channel.recorderFile,
    plugins: input.plugins,
    runner_is_repository: input.runnerIsRepository === true,
  };
  return [
    ...[...BOOT_FILES].map(([name, content]) => ({ path: `${channel.bootDir}/${name}`, content })),
    { path: channel.configFile, content: JSON.stringify(config) },
    { path: channel.keyFile, content: channel.key },
    ...(channel.recorderModule ? [{ path: channel.recorderFile, content: RECORDER_SOURCE }] : []),
  ];
}

/**
 * Whether the recorder can run for a test command: the command runs pytest itself (tox, Django's
 * runtests and sympy's bin/test do not, and a plugin cannot reach into them).
 */
export function recorderApplies(parser: string, testCommand: string): boolean {
  if (!parser.startsWith('pytest')) return false;
  return /^\s*(?:(?:\S*\/)?uv\s+run\s+)?(?:(?:\S*\/)?python[\d.]*\s+-m\s+pytest|(?:\S*\/)?(?:py\.test|pytest))(?:\s|$)/.test(
    withoutActivation(testCommand),
  );
}

/** SWE-smith's commands start by activating the conda env: `source .../activate; conda activate testbed; pytest ...`. */
function withoutActivation(command: string): string {
  let rest = command;
  for (;;) {
    const next = rest.replace(/^\s*(?:source\s+\S+|\.\s+\S+|conda\s+activate\s+\S+)\s*(?:;|&&)/, '');
    if (next === rest) return rest;
    rest = next;
  }
}
