import { describe, expect, it } from 'vitest';
import { installDecision, isEditableInstall } from '../../src/reward/eval-plan/install-policy.js';

describe('install re-run policy', () => {
  it('tells editable installs from those holding a copy of the code', () => {
    const editable = [
      'python -m pip install -e .[test] --verbose',
      "python -m pip install -e '.[dev]'",
      'python -m pip install -v --no-use-pep517 --no-build-isolation -e .',
      'python -m pip install --no-build-isolation -e ".[dev]"',
      "python -m pip install 'numpy<2'; python -m pip install -ve . --no-build-isolation -Ceditable-verbose=true; pip uninstall pytest-qt -y;",
      'python -m pip install -r test-requirements.txt; python -m pip install -e .; hash -r',
      'pip install "setuptools<66" "jinja2<3.1"; printf "1\\n" | python setup.py develop; bokeh sampledata;',
    ];
    // Copies, and installs we cannot read (taken as copies: re-run rather than grade old code).
    const copies = [
      'python setup.py install',
      'python -m pip install .',
      'python setup.py build; python setup.py install',
      'make init',
      'cp -r pkg /usr/lib/python3/dist-packages/',
    ];
    for (const install of editable) expect(isEditableInstall(install), install).toBe(true);
    for (const install of copies) expect(isEditableInstall(install), install).toBe(false);
  });

  it('runs a non-editable install for any change, an editable one only for build inputs', () => {
    expect(installDecision('python setup.py install', ['django/forms/fields.py'], 'when-needed').run).toBe(true);
    expect(installDecision('python -m pip install -e .', ['src/pkg/mod.py'], 'when-needed').run).toBe(false);
    expect(installDecision('python -m pip install -e .', ['setup.cfg'], 'when-needed').run).toBe(true);
    expect(installDecision('python -m pip install -e .', ['sklearn/tree/_tree.pyx'], 'when-needed').run).toBe(true);
    expect(installDecision('python -m pip install -e .', ['src/pkg/mod.py'], 'always').run).toBe(true);
    expect(installDecision('python setup.py install', ['a.py'], 'never').run).toBe(false);
    expect(installDecision('', ['setup.py'], 'always').run).toBe(false);
    expect(installDecision('python setup.py install', [], 'when-needed').run).toBe(false);
  });
});
