import { describe, expect, it } from 'vitest';
import { isTestModule } from '../../src/reward/grading/test-run.js';

describe('Python canaries go only into files the runner collects tests from', () => {
  it('test modules by their names; data modules, configuration and conftest never', () => {
    for (const path of [
      'tests/test_wrap.py',
      'pkg/tests/wrap_test.py',
      'tests/tests.py',
      'sympy/core/tests/test_basic.py',
      'tests/test_ext_autodoc.py',
    ])
      expect(isTestModule(path), path).toBe(true);
    // sphinx-10325: a test root's target module, documented by the tests (its canaries were in their output).
    for (const path of [
      'tests/roots/test-ext-autodoc/target/inheritance.py',
      'tests/roots/test-ext-napoleon/conf.py',
      'tests/conftest.py',
      'tests/helpers.py',
      'tests/test_data.json',
    ])
      expect(isTestModule(path), path).toBe(false);
  });
});
