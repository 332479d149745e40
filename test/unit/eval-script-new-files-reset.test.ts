import { describe, expect, it } from 'vitest';
import { evalPlan } from '../../src/reward/eval-plan/plan.js';
import type { Task } from '../../src/tasks/task.js';

/**
 * A 5.x Multilingual row whose test patch only adds files resets them with `rm -f <files>` instead of
 * `git checkout <base> <files>` (valkey-io__valkey-790, babel__babel-13928, jekyll__jekyll-8771 and
 * 20 more). Read as "no reset", the row fell back to the (repository, version) facts: `pytest -rA
 * tests/unit/cluster/cluster-shards.tcl` for a tcl suite, so its gold patch could only score 0.
 * Shape below: valkey-790's eval_script with the patch shortened.
 */
const BASE = '35a188833335332980a16239ac2efebf241c8a6a';
const NEW_FILE = 'tests/unit/cluster/cluster-shards.tcl';
const TEST_PATCH = [
  `diff --git a/${NEW_FILE} b/${NEW_FILE}`,
  'new file mode 100644',
  'index 0000000000..19acd186f5',
  '--- /dev/null',
  `+++ b/${NEW_FILE}`,
  '@@ -0,0 +1 @@',
  '+start_cluster 3 3 {tags {external:skip cluster}} {}',
  '',
].join('\n');
const TEST_CMD = '(TERM=dumb ./runtest --durable --single unit/cluster/cluster-shards) | cat';

function valkeyScript(beforeReset: readonly string[] = []): string {
  return [
    '#!/bin/bash',
    'set -uxo pipefail',
    'cd /testbed',
    'git config --global --add safe.directory /testbed',
    'git status',
    'git show',
    `git -c core.fileMode=false diff ${BASE}`,
    ...beforeReset,
    `rm -f ${NEW_FILE}`,
    `git apply -v - <<'EOF_114329324912'\n${TEST_PATCH}\nEOF_114329324912`,
    'make distclean',
    'make',
    ": '>>>>> Start Test Output'",
    TEST_CMD,
    ": '>>>>> End Test Output'",
    `rm -f ${NEW_FILE}`,
    '',
  ].join('\n');
}

const task = (evalScript: string): Task => ({
  id: 'valkey-io__valkey-790',
  dataset: 'd',
  repo: 'valkey-io/valkey',
  baseCommit: BASE,
  version: '790',
  problemStatement: '',
  hintsText: '',
  createdAt: '',
  environmentSetupCommit: BASE,
  goldPatch: '',
  testPatch: TEST_PATCH,
  failToPass: ['CLUSTER SHARDS slot response is non-empty when primary node fails'],
  passToPass: [],
  image: 'i',
  workdir: '/testbed',
  evalScript,
  logParser: 'parse_log_redis',
});

describe("a 5.x eval_script whose reset is `rm -f` of the test patch's new files", () => {
  it("is read as the row's own script: its build steps and test command, nothing to check out", () => {
    const plan = evalPlan(task(valkeyScript()));
    expect(plan.source).toBe('record-eval-script');
    expect(plan.testCommand).toBe(TEST_CMD);
    expect(plan.afterTestPatch).toEqual(['make distclean', 'make']);
    expect(plan.resetFiles).toEqual([]);
    expect(plan.install).toBe('');
    expect(plan.notes).toEqual([]);
  });

  it('takes an `rm -f` for the reset only right before the test patch', () => {
    // An earlier `rm -f` (a build step of the install part) stays a step, not the reset.
    const plan = evalPlan(task(valkeyScript(['rm -f build/cache.o', 'make deps'])));
    expect(plan.source).toBe('record-eval-script');
    expect(plan.install).toBe('rm -f build/cache.o\nmake deps');
    expect(plan.beforeTestPatch).toEqual([]);
  });
});
