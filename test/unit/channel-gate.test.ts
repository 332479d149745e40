import { describe, expect, it } from 'vitest';
import { runsNothingOfTheChange } from '../../src/reward/grading/channel-gate.js';
import {
  APPLY_PATCH_SCRIPT,
  INVENTORY_SCRIPT,
  LOCK_TESTS_SCRIPT,
  PREPARE_TESTS_SCRIPT,
  PRE_TEST_SCRIPT,
  READ_FILES_SCRIPT,
  RUN_TESTS_SCRIPT,
  bashArgv,
} from '../../src/reward/scripts.js';

const gate = (argv: string[]): boolean => runsNothingOfTheChange(argv, {});

describe('what may go through the grading container’s exec channel', () => {
  it('the steps that run nothing of the change: inventory, the task’s own steps, apply, reads, the test patch alone', () => {
    expect(gate(bashArgv(INVENTORY_SCRIPT, 'swe-env-inventory', ['/testbed']))).toBe(true);
    expect(gate(bashArgv(PRE_TEST_SCRIPT, 'swe-env-task-steps', ['/testbed', 'export A=1', '']))).toBe(true);
    expect(gate(bashArgv(APPLY_PATCH_SCRIPT, 'swe-env-apply', ['/testbed', '/swe_env/grading/model.patch']))).toBe(true);
    expect(gate(bashArgv(READ_FILES_SCRIPT, 'swe-env-read', ['/testbed', 'x']))).toBe(true);
    expect(gate(bashArgv(PREPARE_TESTS_SCRIPT, 'swe-env-prepare', ['/testbed', 'abc', 'p', 'm', 'n', '']))).toBe(true);
  });

  it('refused: the install re-run and the steps after the test patch (the same script under their names), the test patch with steps before it', () => {
    expect(gate(bashArgv(PRE_TEST_SCRIPT, 'swe-env-install', ['/testbed', '', 'python setup.py develop']))).toBe(false);
    expect(gate(bashArgv(PRE_TEST_SCRIPT, 'swe-env-after-test-patch', ['/testbed', '', 'make']))).toBe(false);
    expect(gate(bashArgv(PREPARE_TESTS_SCRIPT, 'swe-env-prepare', ['/testbed', 'abc', 'p', 'm', 'n', 'npm run build']))).toBe(false);
  });

  it('refused: the locks, the test run, a known name with another script, anything not bash -c', () => {
    expect(gate(bashArgv(LOCK_TESTS_SCRIPT, 'swe-env-lock', ['/testbed']))).toBe(false);
    expect(gate(bashArgv(RUN_TESTS_SCRIPT, 'swe-env-tests', ['/testbed', '60', 'pytest']))).toBe(false);
    expect(gate(bashArgv('python setup.py develop', 'swe-env-apply', ['/testbed']))).toBe(false);
    expect(gate(['git', 'apply', 'x'])).toBe(false);
    expect(gate(['bash', '-c', APPLY_PATCH_SCRIPT, 'swe-env-apply'])).toBe(false);
    // A bare `bash` is looked up on the container's PATH, which may reach into the repository.
    expect(gate(['bash', ...bashArgv(APPLY_PATCH_SCRIPT, 'swe-env-apply', ['/testbed', 'p']).slice(1)])).toBe(false);
  });
});
