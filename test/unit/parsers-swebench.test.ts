import { describe, expect, it } from 'vitest';
import { parseTestLog, shortenPathOption } from '../../src/languages/index.js';

// Excerpts in the shape of real SWE-bench evaluation logs.
const DJANGO = `Testing against Django installed in '/testbed/django' with up to 1 processes
Importing application admin_views
Creating test database for alias 'default'...
test_add_view (admin_views.tests.AdminViewBasicTest) ... ok
test_changelist_view (admin_views.tests.AdminViewBasicTest) ... FAIL
test_delete_view (admin_views.tests.AdminViewBasicTest) ... ERROR
test_skipped (admin_views.tests.AdminViewBasicTest) ... skipped 'Database has feature(s) supports_transactions'
test_output_between (admin_views.tests.AdminViewBasicTest) ... Internal Server Error: /test_admin/admin/
Traceback (most recent call last):
  File "/testbed/django/core/handlers/exception.py", line 47, in inner
ok
test_system_check (check_framework.tests.CheckCommandTests) ... System check identified no issues (0 silenced)
ok

======================================================================
FAIL: test_changelist_view (admin_views.tests.AdminViewBasicTest)
----------------------------------------------------------------------
Ran 6 tests in 0.321s

FAILED (failures=1, errors=1, skipped=1)
`;

const SYMPY = `============================= test process starts ==============================
executable:         /opt/miniconda3/envs/testbed/bin/python  (3.9.19-final-0) [CPython]
sympy/printing/tests/test_latex.py[3]
test_latex_basic ok
test_latex_matrix F
test_latex_broken E                                                       [FAIL]

________________________________________________________________________________
_________ sympy/printing/tests/test_latex.py:test_latex_matrix _________
Traceback (most recent call last):
AssertionError
============= tests finished: 1 passed, 1 failed, 1 exceptions, in 0.50 seconds ==============
`;

const ASTROPY = `astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_sample_file PASSED
astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_image_create FAILED
=========================== short test summary info ============================
\x1b[32mPASSED\x1b[0m astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_sample_file
\x1b[31mFAILED\x1b[0m astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_image_create - AssertionError
========================= 1 failed, 1 passed in 1.20s ==========================
`;

const REQUESTS = `=========================== short test summary info ============================
PASSED tests/test_requests.py::test_path_is_not_double_encoded
PASSED tests/test_utils.py::test_get_environ_proxies[/home/user/.netrc]
FAILED tests/test_requests.py::TestRequests::test_HTTP_200_OK_GET_ALTERNATIVE - ConnectionError
============== 1 failed, 2 passed in 3.11s ==============
`;

describe('SWE-bench log parsers on real log shapes', () => {
  it('django', () => {
    const r = parseTestLog('django', DJANGO);
    expect(r.get('test_add_view (admin_views.tests.AdminViewBasicTest)')).toBe('PASSED');
    expect(r.get('test_changelist_view (admin_views.tests.AdminViewBasicTest)')).toBe('FAILED');
    expect(r.get('test_delete_view (admin_views.tests.AdminViewBasicTest)')).toBe('ERROR');
    expect(r.get('test_skipped (admin_views.tests.AdminViewBasicTest)')).toBe('SKIPPED');
    expect(r.get('test_output_between (admin_views.tests.AdminViewBasicTest)')).toBe('PASSED');
    expect(r.get('test_system_check (check_framework.tests.CheckCommandTests)')).toBe('PASSED');
  });

  it('sympy', () => {
    const r = parseTestLog('sympy', SYMPY);
    expect(r.get('test_latex_basic')).toBe('PASSED');
    expect(r.get('test_latex_matrix')).toBe('FAILED');
    expect(r.get('sympy/printing/tests/test_latex.py:test_latex_matrix')).toBe('FAILED');
  });

  it('pytest v2 (astropy, scikit-learn, sphinx): colour codes stripped', () => {
    const r = parseTestLog('pytest_v2', ASTROPY);
    expect(r.get('astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_sample_file')).toBe('PASSED');
    expect(r.get('astropy/io/fits/tests/test_checksum.py::TestChecksumFunctions::test_image_create')).toBe('FAILED');
  });

  it('pytest v2 reads the old "<test> STATUS" form when there is no summary', () => {
    const r = parseTestLog('pytest_v2', 'sphinx/tests/test_build.py::test_html PASSED\nsphinx/tests/test_build.py::test_pdf FAILED\n');
    expect(r.get('sphinx/tests/test_build.py::test_html')).toBe('PASSED');
    expect(r.get('sphinx/tests/test_build.py::test_pdf')).toBe('FAILED');
  });

  it('pytest with path options (requests, pydicom, pylint): absolute path options shortened', () => {
    const r = parseTestLog('pytest_options', REQUESTS);
    expect(r.get('tests/test_utils.py::test_get_environ_proxies[/.netrc]')).toBe('PASSED');
    expect(r.get('tests/test_requests.py::TestRequests::test_HTTP_200_OK_GET_ALTERNATIVE')).toBe('FAILED');
    expect(shortenPathOption('t[//double]')).toBe('t[//double]');
    expect(shortenPathOption('t[/a/*/b]')).toBe('t[/a/*/b]');
  });
});
