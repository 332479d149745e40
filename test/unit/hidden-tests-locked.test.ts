/** Which files a go test or cargo test run locks, and the overlay the tests' own `go` commands get (hidden-tests-locked.ts). */
import { describe, expect, it } from 'vitest';
import type { CanaryPlan } from '../../src/reward/grading/canaries.js';
import { goOverlay, lockedPaths } from '../../src/reward/grading/hidden-tests-locked.js';

const patch = (...paths: string[]): string =>
  paths
    .map((p) => [`diff --git a/${p} b/${p}`, 'new file mode 100644', '--- /dev/null', `+++ b/${p}`, '@@ -0,0 +1 @@', '+x', ''].join('\n'))
    .join('');

describe('lockedPaths', () => {
  it('locks the Go sources the go tool compiles, not the data the tests read at run time', () => {
    const paths = lockedPaths(patch('a_test.go', 'pkg/helper.go', 'pkg/testdata/in.go', 'testdata/golden.txt', 'README.md'), undefined);
    expect(paths).toEqual(['a_test.go', 'pkg/helper.go']);
  });

  it("locks cargo's Rust sources (tests, their modules, src/ files with unit tests), not the fixtures the tests read", () => {
    const paths = lockedPaths(
      patch('tests/cli.rs', 'tests/common/mod.rs', 'src/lib.rs', 'tests/data/in.txt', 'a_test.go'),
      undefined,
      'cargo',
    );
    expect(paths).toEqual(['tests/cli.rs', 'tests/common/mod.rs', 'src/lib.rs']);
  });

  it('adds the canary files once', () => {
    const plan = {
      files: new Map([
        ['a_test.go', 'x'],
        ['b/c_test.go', 'y'],
      ]),
    } as unknown as CanaryPlan;
    expect(lockedPaths(patch('a_test.go'), plan)).toEqual(['a_test.go', 'b/c_test.go']);
  });
});

describe('goOverlay', () => {
  it('deletes each locked file by its absolute path', () => {
    expect(JSON.parse(goOverlay('/testbed/', ['a_test.go', 'p/b_test.go']))).toEqual({
      Replace: { '/testbed/a_test.go': '', '/testbed/p/b_test.go': '' },
    });
  });
});
