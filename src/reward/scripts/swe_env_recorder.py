"""swe-env's result recorder: a pytest plugin the grading boot (boot/sitecustomize.py) imports from
outside the repository, under a module name chosen per grading, before any code of the repository
runs; the test command loads it with `-p <that name>`.

Every report pytest makes goes, as it is made, to the boot's audit hook (`sys.audit`), which signs
it with a key only the hook holds and appends it, numbered, to a file outside the repository. The
hook accepts records only from this module's `_emit`. At the end of the session the recorder sends
the exit status pytest decided, test items whose `runtest` was replaced, and the plugins other
than pytest's and pluggy's own (by where the file of each hook function really is, objects
included) that hook into making or reporting outcomes; the boot's hook adds which pieces of the pytest machinery the
outcomes pass through are no longer the ones it found before any repository code ran.

What it cannot see: a change to pytest through a path these identity checks do not cover. The
grader's canaries (tests with known outcomes among the hidden ones) are what catches that.

PYTEST_DONT_REWRITE: imported before pytest starts, pytest must not try to rewrite it (its
warning would be an error under `filterwarnings = error`).
"""
import os
import sys
import types

import pytest
import _pytest.python
import _pytest.reports
import _pytest.runner
import _pytest.skipping


def _emit(record):
    sys.audit("swe_env.record", record)


# What the hooks below call, bound as a default argument when this module ran: replacing the
# module global `_emit` (or `_replaced_runtests`...) changes nothing they do.
_EMIT = _emit


sys.audit("swe_env.register_recorder", _emit.__code__)

_HOOKS = (
    "pytest_runtest_logreport",
    "pytest_runtest_makereport",
    "pytest_report_teststatus",
    "pytest_runtest_protocol",
    "pytest_pyfunc_call",
    "pytest_runtest_call",
    "pytest_collection_modifyitems",
)


def _lookup(owner, attribute):
    # The raw attribute (class __dict__ along the MRO), so descriptors compare by identity.
    if isinstance(owner, type):
        for klass in owner.__mro__:
            if attribute in klass.__dict__:
                return klass.__dict__[attribute]
        return None
    return getattr(owner, attribute, None)


def _make_checks():
    """The runtest check, with what it compares against held in this closure, not in globals. (The
    identity of the machinery outcomes pass through is checked by the boot, from its hook's closure.)"""
    function_runtest = _lookup(_pytest.python.Function, "runtest")

    def replaced_runtests(items):
        # Each item whose runtest is not Function's, with the file its code comes from: pytest's
        # own unittest items and a pristine plugin's item classes have theirs, and only one from
        # a file the patch changed (or from no file) is the code under test's doing.
        out = []
        for item in items:
            if "runtest" in vars(item):
                runtest = vars(item)["runtest"]
            elif isinstance(item, _pytest.python.Function) and _lookup(type(item), "runtest") is not function_runtest:
                runtest = _lookup(type(item), "runtest")
            else:
                continue
            out.append([_text(item.nodeid), _code_file(runtest)])
        return out

    return replaced_runtests


_replaced_runtests = _make_checks()
del _make_checks


def _text(value):
    return value if type(value) is str else ""


def _code_file(function):
    """The file a function's code was compiled from, read without running any of its code."""
    if type(function) in (types.MethodType, staticmethod, classmethod):
        function = function.__func__
    if type(function) is not types.FunctionType:
        return "<no code>"
    name = function.__code__.co_filename
    if type(name) is not str:
        return "<no code>"
    return name if name.startswith("<") else os.path.abspath(name)


def _skip_reason(report):
    # pytest keeps a skip's (path, line, "Skipped: reason") as its longrepr.
    longrepr = getattr(report, "longrepr", None)
    if type(longrepr) is tuple and len(longrepr) == 3:
        return _text(longrepr[2])[:500]
    return ""


def pytest_runtest_logreport(report, _emit=_EMIT):
    outcome = _text(report.outcome)
    _emit(
        {
            "kind": "report",
            "nodeid": _text(report.nodeid),
            "when": _text(report.when),
            "outcome": outcome,
            "wasxfail": hasattr(report, "wasxfail"),
            "reason": _skip_reason(report) if outcome == "skipped" else "",
        }
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args, _argv=globals().get("_SWE_ENV_ARGV")):
    # pytest has its arguments: the command line goes back to what the test command gave, before
    # the first conftest is imported (the boot added this plugin's -p to it).
    if type(_argv) is tuple:
        sys.argv[:] = list(_argv)


def pytest_collectreport(report, _emit=_EMIT):
    # A module or class skipped while collecting (a module-level importorskip): its tests never
    # become items, so only this says why they are missing.
    if _text(report.outcome) == "skipped":
        _emit({"kind": "collect_skip", "nodeid": _text(report.nodeid), "reason": _skip_reason(report)})


def pytest_runtest_call(item, _emit=_EMIT):
    # Before the test runs: the boot's monitor checks that the function is code its file defines.
    _emit({"kind": "test_code", "nodeid": _text(item.nodeid), "obj": getattr(item, "obj", None)})


def _machinery_dirs():
    """Where pytest's and pluggy's own modules really are (their packages' folders, links resolved)."""
    import pluggy

    return tuple(os.path.realpath(os.path.dirname(m.__file__)) + os.sep for m in (_pytest.runner, pluggy))


_MACHINERY_DIRS = _machinery_dirs()


def _foreign_hook_files(session, _machinery=_MACHINERY_DIRS):
    """Files of hook functions (plugins, objects or modules) other than this one and pytest's and
    pluggy's own, by where each file really is, not by what its path says (a folder of the
    repository's named `_pytest` or `site-packages` is the repository's). The grader counts those
    the patch changed."""
    foreign = set()
    for name in _HOOKS:
        caller = getattr(session.config.hook, name, None)
        for impl in caller.get_hookimpls() if caller is not None else []:
            code = getattr(impl.function, "__code__", None)
            path = getattr(code, "co_filename", "") or getattr(impl.plugin, "__file__", "") or ""
            if path == __file__ or (not path.startswith("<") and os.path.realpath(path).startswith(_machinery) and _is_file(path)):
                continue
            if not path.startswith("<") and not _is_file(path):
                # Compiled under a name no file has (in pytest's own folder, say): as good as no file.
                path = "<no file> " + path
            foreign.add(path if path.startswith("<") else os.path.abspath(path))
    return sorted(foreign)


def _is_file(path):
    """A file on disk, or a module of a zip archive an installed package is imported from."""
    if os.path.isfile(path):
        return True
    import zipfile

    parent = os.path.dirname(path)
    while parent and parent != os.path.dirname(parent):
        if os.path.exists(parent):
            return os.path.isfile(parent) and zipfile.is_zipfile(parent)
        parent = os.path.dirname(parent)
    return False


def pytest_sessionfinish(session, exitstatus, _emit=_EMIT, _replaced_runtests=_replaced_runtests, _foreign=_foreign_hook_files):
    _emit(
        {
            "kind": "end",
            "exitstatus": int(exitstatus),
            "runtest_replaced": _replaced_runtests(getattr(session, "items", []) or [])[:20],
            "hook_plugins": _foreign(session),
        }
    )
