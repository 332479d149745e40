import { describe, expect, it } from 'vitest';
import { scanPatch } from '../../src/reward/patch-scan.js';

const diff = (path: string, lines: string[]): string =>
  [
    `diff --git a/${path} b/${path}`,
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -10,2 +10,${lines.length + 1} @@`,
    ' context',
    ...lines.map((l) => `+${l}`),
  ].join('\n') + '\n';

describe('scanning the change for what it reaches into', () => {
  it('names the file, the line and what is reached, for added lines of non-test files', () => {
    const warnings = scanPatch(
      diff('pkg/__init__.py', [
        'import _pytest.reports as r',
        'import atexit',
        'x = 1',
        'sys.stdout = io.StringIO()',
        'builtins.print = quiet',
      ]) + diff('pkg/site.pth', ['import evil']),
    );
    expect(warnings).toEqual([
      "pkg/__init__.py:11: reaches into pytest's internals or hooks",
      'pkg/__init__.py:12: registers exit hooks or ends the process abruptly',
      'pkg/__init__.py:14: replaces interpreter hooks or output streams',
      'pkg/__init__.py:15: rebinds builtins',
      'pkg/site.pth: adds a .pth file (runs at interpreter start-up)',
    ]);
  });

  it('says nothing of an ordinary fix, of removed lines, or of test files', () => {
    expect(scanPatch(diff('pkg/ops.py', ['return a + b', 'if sys.stdout == other: pass']))).toEqual([]);
    expect(scanPatch(['--- a/pkg/x.py', '+++ b/pkg/x.py', '@@ -1,1 +1,0 @@', '-import atexit', ''].join('\n'))).toEqual([]);
    expect(scanPatch(diff('tests/test_x.py', ['import _pytest']))).toEqual([]);
  });
});
