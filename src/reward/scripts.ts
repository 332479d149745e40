import { readFileSync } from 'node:fs';

/** The bash programs grading runs, kept as .sh files beside this one (copied into dist/). */
function script(name: string): string {
  return readFileSync(new URL(`./scripts/${name}`, import.meta.url), 'utf8');
}

export const CAPTURE_PATCH_SCRIPT = script('capture-patch.sh');
export const CAPTURE_IGNORED_SCRIPT = script('capture-ignored.sh');
export const APPLY_PATCH_SCRIPT = script('apply-patch.sh');
export const PREPARE_TESTS_SCRIPT = script('prepare-tests.sh');
export const RUN_TESTS_SCRIPT = script('run-tests.sh');
export const SNAPSHOT_TREE_SCRIPT = script('snapshot-tree.sh');
export const REVERT_PATHS_SCRIPT = script('revert-paths.sh');
export const READ_FILES_SCRIPT = script('read-files.sh');
export const PRE_TEST_SCRIPT = script('pre-test.sh');
export const INVENTORY_SCRIPT = script('inventory.sh');

/**
 * By absolute path, as the harness runs its eval script (`/bin/bash /eval.sh`): a bare `bash` is
 * looked up by the engine on the container's PATH from the repository, where an image whose PATH
 * has an empty or relative entry (or one inside the repository) would find the change's own `bash`.
 */
export const GRADING_BASH = '/bin/bash';

export function bashArgv(script: string, name: string, args: readonly string[]): string[] {
  return [GRADING_BASH, '--noprofile', '--norc', '-c', script, name, ...args];
}
export const GIT_HYGIENE_SCRIPT = script('git-hygiene.sh');
export const LOCK_TESTS_SCRIPT = script('lock-tests.sh');
export const GO_EXEC_SCRIPT = script('go-exec.sh');
export const GO_TOOLEXEC_SCRIPT = script('go-toolexec.sh');
export const GO_CC_SCRIPT = script('go-cc.sh');
export const LOCK_CARGO_SCRIPT = script('lock-cargo.sh');
export const CARGO_EXEC_SCRIPT = script('cargo-exec.sh');
export const CARGO_RUSTDOC_SCRIPT = script('cargo-rustdoc.sh');
export const COMPILED_IN_SCRIPT = script('compiled-in.sh');
