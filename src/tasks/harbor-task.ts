/**
 * A swe-env task as a Harbor task directory (Harbor 0.26's task format, which TRL, SkyRL, rLLM,
 * verifiers and OpenEnv read): task.toml, instruction.md, environment/, tests/, solution/.
 *
 * The hidden tests are not in it. environment/swe-env.json names the swe-env task, and the trial
 * is graded by swe-env when Harbor runs it with swe-env's environment class
 * (clients/python/swe_env/harbor/environment.py): tests/test.sh is a stub that environment never
 * runs. On any other Harbor environment the stub writes no reward and says why, so the trial ends
 * with Harbor's missing-reward error, never a reward of its own. solution/ holds the gold patch for
 * Harbor's oracle agent.
 */
import { issueLines } from './prompt.js';
import type { Task } from './task.js';

/** The import path Harbor's `--env` takes for swe-env's environment class. */
export const HARBOR_ENVIRONMENT = 'swe_env.harbor.environment:SweEnvEnvironment';

/** A task id as one directory name: Harbor names the trial's environment after the directory. */
export function harborDirName(taskId: string): string {
  return taskId.replace(/[^A-Za-z0-9._-]/g, '_');
}

function tomlString(value: string): string {
  return JSON.stringify(value); // a JSON string is a valid TOML basic string
}

/** The issue as a Harbor agent gets it: no submit tool there, the trial's end is the submission. */
export function harborInstruction(task: Task): string {
  return [
    ...issueLines(task),
    '',
    'There is no network. Make the smallest change that fixes the issue; do not modify the existing tests.',
    'When you finish, your changes to the repository are graded with hidden tests.',
    '',
  ].join('\n');
}

function taskToml(task: Task): string {
  return [
    'schema_version = "1.4"',
    '',
    '[metadata]',
    `swe_env_task_id = ${tomlString(task.id)}`,
    `repo = ${tomlString(task.repo)}`,
    `base_commit = ${tomlString(task.baseCommit)}`,
    `graded_by = ${tomlString(`swe-env: run with --env ${HARBOR_ENVIRONMENT}`)}`,
    '',
    '[verifier]',
    // swe-env's grading: the test run in its grading container (the server's --test-timeout) and the image's start.
    'timeout_sec = 3600.0',
    '',
    '[agent]',
    'timeout_sec = 3600.0',
    '',
    '[environment]',
    'build_timeout_sec = 1800.0',
    `workdir = ${tomlString(task.workdir)}`,
    '',
  ].join('\n');
}

const STUB_TEST = `#!/bin/bash
# This task is graded by swe-env, with tests this directory does not hold. Harbor runs it with
#   --env ${HARBOR_ENVIRONMENT}
# whose verification is swe-env's grading; that environment never runs this script. Anywhere else
# it writes no reward, so Harbor reports the trial as unverified instead of scoring it.
echo "graded by swe-env only: run this task with --env ${HARBOR_ENVIRONMENT}" >&2
exit 1
`;

function solveScript(task: Task): string {
  return `#!/bin/bash
# Harbor's oracle: the task's gold patch.
set -euo pipefail
cd ${JSON.stringify(task.workdir)}
git apply --whitespace=nowarn "$(dirname "$0")/gold.patch"
`;
}

/** The files of the task's Harbor directory, by path relative to it. */
export function harborTaskFiles(task: Task): Map<string, string> {
  return new Map([
    ['task.toml', taskToml(task)],
    ['instruction.md', harborInstruction(task)],
    // What Harbor's own environments would build: the task's image, as swe-env runs it.
    ['environment/Dockerfile', `FROM ${task.image}\nWORKDIR ${task.workdir}\n`],
    ['environment/swe-env.json', `${JSON.stringify({ task_id: task.id }, null, 2)}\n`],
    ['tests/test.sh', STUB_TEST],
    ['solution/solve.sh', solveScript(task)],
    ['solution/gold.patch', task.goldPatch],
  ]);
}
