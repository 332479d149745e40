/**
 * The grading's own inputs attacked from the change: the grading directory read from the code under
 * test, and the install re-run (setup.py runs as root in the grading container) used to plant a
 * report flipper in the interpreter, overwrite pytest, shadow _pytest, or leave a daemon emptying
 * the hidden tests. Each through a real episode, worth 0 and never INFRA_ERROR.
 */
import { describe, expect, it } from 'vitest';
import { said } from '../../helpers/exploit-grading.js';
import { CHEAT_TASK, describeControls, useCheatServers } from '../shared/episode-attack.js';
import { FLIP_AT_START } from '../shared/pytest-plants.js';
import { describeWorthless } from '../shared/episode-suite.js';
import { GRADING_INPUTS_EPISODES } from './exploits.js';

const servers = useCheatServers({ install: true });

describeControls(servers, { install: true });
describeWorthless(servers, "the grading's inputs attacked from the change: none earns 1, none masks its 0", GRADING_INPUTS_EPISODES);

// The closed world's baseline is taken only when the paths the patch's text names re-run the
// install; `git apply` and `patch` may change the file a hunk's `---`/`+++` lines name under a
// header naming another, so those names count too.
describe('a setup.py under a header that names another file', () => {
  it("still re-runs the install inside the closed world: S15's write outside the repository is refused, the model's 0", async () => {
    const setup = [
      'import os',
      'import sitecustomize as _sc',
      `open(os.path.realpath(_sc.__file__), "a").write("\\n" + ${JSON.stringify(FLIP_AT_START)})`,
      'from setuptools import setup',
      'setup(name="intervals", version="0.1", packages=["intervals"])',
    ];
    const patch = [
      'diff --git a/notes.txt b/notes.txt',
      'new file mode 100644',
      '--- /dev/null',
      '+++ b/setup.py',
      `@@ -0,0 +1,${setup.length} @@`,
      ...setup.map((line) => `+${line}`),
      '',
    ].join('\n');
    const report = (await servers.install().client.evaluate(CHEAT_TASK, patch)).report!;
    expect(report.infraError, said(report)).toBe(false);
    expect(report.patchApplied, said(report)).toBe(true);
    expect(report.install?.ran, said(report)).toBe(true);
    expect(report.reward, said(report)).toBe(0);
    expect(report.error, said(report)).toMatch(/outside the repository|a file of/);
  }, 240_000);
});
