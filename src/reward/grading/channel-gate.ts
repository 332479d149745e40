import type { ChannelGate } from '../../sandbox/channelled-sandbox.js';
import {
  APPLY_PATCH_SCRIPT,
  GRADING_BASH,
  INVENTORY_SCRIPT,
  PREPARE_TESTS_SCRIPT,
  PRE_TEST_SCRIPT,
  READ_FILES_SCRIPT,
  REVERT_PATHS_SCRIPT,
  SNAPSHOT_TREE_SCRIPT,
} from '../scripts.js';

/**
 * The grading's commands that run nothing of the change: they go through the grading container's
 * exec channel (a fork each instead of an engine exec). Each runs the pristine image's own programs
 * (git with hooks and fsmonitor off, the image's Python from /) or the task's steps before the patch
 * is on disk. Every other command (the install re-run, the steps after the test patch, the locks,
 * the test run) closes the channel for good before it starts, so nothing the change's code does can
 * reach the channel's process or its folder. A command is known by its script's text and name, not
 * by where it is called from.
 */
const BEFORE_THE_CHANGE_RUNS: ReadonlyMap<string, string> = new Map([
  ['swe-env-inventory', INVENTORY_SCRIPT],
  ['swe-env-task-steps', PRE_TEST_SCRIPT],
  ['swe-env-apply', APPLY_PATCH_SCRIPT],
  ['swe-env-snapshot', SNAPSHOT_TREE_SCRIPT],
  ['swe-env-revert', REVERT_PATHS_SCRIPT],
  ['swe-env-read', READ_FILES_SCRIPT],
  ['swe-env-prepare', PREPARE_TESTS_SCRIPT],
]);

/** Where the channel keeps each command's input and output while it is open (removed when it closes). */
export const CHANNEL_DIR = '/swe_env/grading/channel';

export const runsNothingOfTheChange: ChannelGate = (argv) => {
  const [bash, noProfile, noRc, dashC, script, name] = argv;
  if (bash !== GRADING_BASH || noProfile !== '--noprofile' || noRc !== '--norc' || dashC !== '-c' || name === undefined) return false;
  if (BEFORE_THE_CHANGE_RUNS.get(name) !== script) return false;
  // The test patch's preparation runs the row's steps before it when it has any: on the change's code.
  if (name === 'swe-env-prepare') return argv.length === 12 && argv[11] === '';
  return true;
};
