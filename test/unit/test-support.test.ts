import { describe, expect, it } from 'vitest';
import { importedModules, isSupportPath, supportStems } from '../../src/reward/test-support.js';
import { sweepDecision } from '../../src/reward/tree-changes.js';

describe('test-support modules', () => {
  it('finds the modules a test file imports, multi-line and relative ones included', () => {
    const source = [
      'import numpy as np',
      'import pandas._testing as tm',
      'from sklearn.utils._testing import (',
      '    assert_array_equal,',
      '    ignore_warnings,',
      ')',
      'from ..testutils import check',
      'from pylint import testutils',
    ].join('\n');
    const modules = importedModules('pkg/tests/unit/test_x.py', source);
    expect(modules).toEqual(
      expect.arrayContaining([
        'numpy',
        'pandas._testing',
        'sklearn.utils._testing',
        'sklearn.utils._testing.assert_array_equal',
        'pkg.tests.testutils',
        'pylint.testutils',
      ]),
    );
    expect(supportStems(modules)).toEqual(['pandas/_testing', 'pkg/tests', 'pylint/testutils', 'sklearn/utils/_testing']);
  });

  it('matches module files, packages and src/ layouts, not look-alikes', () => {
    const stems = ['pandas/_testing', 'sklearn/utils/_testing'];
    expect(isSupportPath('pandas/_testing/asserters.py', stems)).toBe(true);
    expect(isSupportPath('sklearn/utils/_testing.py', stems)).toBe(true);
    expect(isSupportPath('src/pandas/_testing/__init__.py', stems)).toBe(true);
    expect(isSupportPath('sklearn/utils/_testing_extra.py', stems)).toBe(false);
    expect(isSupportPath('pandas/core/frame.py', stems)).toBe(false);
  });

  it("the sweep puts them back unless the task's own fix changes them", () => {
    const decision = sweepDecision(['sklearn/utils/_testing.py', 'sklearn/base.py', 'pandas/_testing/__init__.py'], {
      protectedPaths: [],
      allowedPaths: ['pandas/_testing/__init__.py'],
      supportStems: ['sklearn/utils/_testing', 'pandas/_testing'],
      pytestConfigChanged: new Set(),
    });
    expect(decision.revert).toEqual([{ path: 'sklearn/utils/_testing.py', why: 'test-support module the tests import' }]);
  });
});
