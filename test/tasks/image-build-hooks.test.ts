/**
 * The builder's own commits run none of the repository's hooks: an install step that sets them up
 * (husky, simple-git-hooks: vue's pre-commit runs tsc) must not fail or change the image build.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { testProvider } from '../helpers/docker.js';
import { buildTaskFixture, cleanUpFixture } from '../helpers/task-fixture.js';

const scratch: string[] = [];
const provider = testProvider();

afterAll(() => cleanUpFixture(provider, scratch), 120_000);

describe("images build and the repository's git hooks", () => {
  it('an install step that installs a failing pre-commit and commit-msg hook builds, with the install in the image', async () => {
    const hooks =
      'for h in pre-commit commit-msg; do printf "#!/bin/sh\\necho hook ran >&2\\nexit 1\\n" > .git/hooks/$h; chmod +x .git/hooks/$h; done; touch installed.txt';
    const fixture = await buildTaskFixture(
      'hooks',
      {
        base: { 'calc.py': 'def add(a, b):\n    return a - b\n', 'tests/test_calc.py': 'def test_x():\n    assert True\n' },
        fix: {
          'calc.py': 'def add(a, b):\n    return a + b\n',
          'tests/test_calc.py': 'from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n',
        },
      },
      (common) => [
        {
          ...common,
          instance_id: 'example__hooks-1',
          FAIL_TO_PASS: ['tests/test_calc.py::test_add'],
          PASS_TO_PASS: [],
          install: hooks,
          image_name: 'swe-env-test/sweb.eval.x86_64.example__hooks-1:latest',
        },
      ],
      scratch,
    );
    expect(fixture.tasks.map((t) => t.id)).toEqual(['example__hooks-1']);
  }, 600_000);
});
