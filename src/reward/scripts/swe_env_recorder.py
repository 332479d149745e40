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
import functools
import os
import sys
import types
import zipfile

import pytest
import _pytest.python
import _pytest.reports
import _pytest.runner
import _pytest.skipping

try:
    import pluggy
except ImportError:  # pytest before 3.7 carries its own copy
    from _pytest.vendored_packages import pluggy


def _emit(record):
    sys.audit("swe_env.record", record)


# What the hooks below call, bound as a default argument when this module ran: replacing the
# module global `_emit` (or `_replaced_runtests`...) changes nothing they do.
_EMIT = _emit


sys.audit("swe_env.register_recorder", _emit.__code__)

# The hooks that decide outcomes, by what each can do: run a test or not ("runner"), change a
# report once made ("report": the boot's witness sees any such change), or change the items
# before they run ("collection": their markers, their order, which run).
_HOOKS = (
    ("pytest_runtest_logreport", "report"),
    ("pytest_runtest_makereport", "report"),
    ("pytest_report_teststatus", "report"),
    ("pytest_runtest_protocol", "runner"),
    ("pytest_pyfunc_call", "runner"),
    ("pytest_runtest_call", "runner"),
    ("pytest_collection_modifyitems", "collection"),
    ("pytest_itemcollected", "collection"),
    ("pytest_collection_finish", "collection"),
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


def _install_witness(_lookup=_lookup, _audit=sys.audit):
    """Wraps `CallInfo.from_call` (where a test's setup, call or teardown runs) and
    `TestReport.from_item_and_call` (where pytest makes a report of one) so that each hands the boot
    what it made: the boot's witness (boot/swe_env_witness.py) keeps, out of the tested code's
    reach, each call's failure and each report's outcome as pytest made it. The wrappers hold what
    they call as keyword-only defaults (no closure, no module global: setting a grader function's
    defaults is refused) and the boot checks each event comes from them, called by pytest. On a
    pytest without these classmethods nothing is wrapped and reports carry no made outcome."""
    call_type = _pytest.runner.CallInfo
    report_type = _pytest.reports.TestReport
    from_call = _lookup(call_type, "from_call")
    from_item_and_call = _lookup(report_type, "from_item_and_call")
    from_json = _lookup(report_type, "_from_json")
    if type(from_call) is not classmethod or type(from_item_and_call) is not classmethod:
        return ()

    def traced(func, *, _audit=_audit, _base=BaseException):
        # What the phase raises, told to the boot as it is raised: the CallInfo pytest then builds
        # (its class, its __init__) cannot take the failure back.
        __tracebackhide__ = True
        try:
            return func()
        except _base as error:
            _audit("swe_env.raised", error)
            raise

    def witnessed_from_call(cls, func, *args, _raw=from_call.__func__, _audit=_audit, _partial=functools.partial, _traced=traced, **kwargs):
        call = _raw(cls, _partial(_traced, func), *args, **kwargs)
        _audit("swe_env.call", call)
        return call

    def witnessed_make(cls, item, call, *args, _raw=from_item_and_call.__func__, _audit=_audit, **kwargs):
        report = _raw(cls, item, call, *args, **kwargs)
        _audit("swe_env.made", report, call)
        return report

    wrappers = (witnessed_from_call, witnessed_make, traced)
    call_type.from_call = classmethod(witnessed_from_call)
    report_type.from_item_and_call = classmethod(witnessed_make)
    if type(from_json) is classmethod:

        def witnessed_from_json(cls, *args, _raw=from_json.__func__, _audit=_audit, **kwargs):
            report = _raw(cls, *args, **kwargs)
            _audit("swe_env.rebuilt", report)
            return report

        wrappers += (witnessed_from_json,)
        report_type._from_json = classmethod(witnessed_from_json)
    return wrappers


_WITNESS_WRAPPERS = _install_witness()
del _install_witness


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


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report, _emit=_EMIT):
    # The boot reads the report object itself (its nodeid, phase and outcome, and the outcome
    # pytest made it with) where its witness is on; these values stand where it is not. Last of
    # the hook's implementations: the outcome as the run's summary states it (pytest 9 fails a
    # test whose subtests failed while its terminal reporter logs the test's report).
    outcome = _text(report.outcome)
    _emit(
        {
            "kind": "report",
            "nodeid": _text(report.nodeid),
            "when": _text(report.when),
            "outcome": outcome,
            "wasxfail": hasattr(report, "wasxfail"),
            "reason": _skip_reason(report) if outcome == "skipped" else "",
            "subtest": any(k.__name__ in ("SubtestReport", "SubTestReport") for k in type(report).__mro__),
            "report": report,
        }
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args, _argv=globals().get("_SWE_ENV_ARGV"), _own=__name__):
    # pytest has its arguments: the command line goes back to what the test command gave, before
    # the first conftest is imported (the boot added this plugin's -p to it).
    if type(_argv) is tuple:
        sys.argv[:] = list(_argv)
    _forget_own_plugin_argument(early_config, _own)


def _forget_own_plugin_argument(config, own):
    """The invocation's arguments without this plugin's `-p`: pytest-xdist starts its workers with
    them, and a worker (no boot, no grading key) cannot import this module: it would die at start."""
    params = getattr(config, "invocation_params", None)
    given = getattr(params, "args", None)
    if type(given) not in (tuple, list):
        return
    given = list(given)
    kept = []
    index = 0
    while index < len(given):
        if given[index] == "-p" and index + 1 < len(given) and given[index + 1] == own:
            index += 2
            continue
        if given[index] == "-p" + own:
            index += 1
            continue
        kept.append(given[index])
        index += 1
    if len(kept) == len(given):
        return
    try:
        config.invocation_params = type(params)(args=tuple(kept), plugins=params.plugins, dir=params.dir)
    except Exception:
        pass


def pytest_collectreport(report, _emit=_EMIT):
    # A module or class skipped while collecting (a module-level importorskip): its tests never
    # become items, so only this says why they are missing.
    if _text(report.outcome) == "skipped":
        _emit({"kind": "collect_skip", "nodeid": _text(report.nodeid), "reason": _skip_reason(report)})


def pytest_runtest_call(item, _emit=_EMIT):
    # Before the test runs: the boot's monitor checks that the function is code its file defines,
    # and where it is not the file's function itself, listens for the file's code to run with the
    # arguments pytest passes (item.funcargs).
    _emit({"kind": "test_code", "nodeid": _text(item.nodeid), "obj": getattr(item, "obj", None), "funcargs": getattr(item, "funcargs", None)})


_PROOF_WATCH = {}
_PROOF_CHAIN = []


def _proof_profile(frame, event, arg, *, _watch=_PROOF_WATCH, _chain=_PROOF_CHAIN, _audit=sys.audit):
    # The profile function the boot installs for the call phase of a hidden test whose function
    # is not its file's own (boot/swe_env_proof.py): a frame of the code the boot watches is
    # told to it as it is entered and as it returns. It holds nothing of the boot's; what it tells
    # the boot checks itself. A profile function of Python's already in place goes on being called.
    for chained in _chain:
        chained(frame, event, arg)
    if (event == "call" or event == "return") and id(frame.f_code) in _watch:
        _audit("swe_env.test_frame", frame, event)


sys.audit("swe_env.register_proof", _proof_profile)


def _machinery_dirs():
    """Where pytest's and pluggy's own modules really are (their packages' folders, links resolved)."""
    return tuple(os.path.realpath(os.path.dirname(m.__file__)) + os.sep for m in (_pytest.runner, pluggy))


_MACHINERY_DIRS = _machinery_dirs()


def _hook_caller_type():
    """pluggy's hook caller class and its get_hookimpls, as they are before any repository code
    runs (their names moved between pluggy's versions)."""
    for owner, name in ((pluggy, "HookCaller"), (getattr(pluggy, "_hooks", None), "_HookCaller"), (getattr(pluggy, "hooks", None), "_HookCaller"), (pluggy, "_HookCaller")):
        found = getattr(owner, name, None) if owner is not None else None
        if isinstance(found, type) and "get_hookimpls" in dir(found):
            return found, found.get_hookimpls
    return None, lambda caller: caller.get_hookimpls()


_CALLER_TYPE, _IMPLS = _hook_caller_type()


def _is_file(path, _isfile=os.path.isfile, _exists=os.path.exists, _dirname=os.path.dirname, _is_zip=zipfile.is_zipfile):
    """A file on disk, or a module of a zip archive an installed package is imported from."""
    if _isfile(path):
        return True
    parent = _dirname(path)
    while parent and parent != _dirname(parent):
        if _exists(parent):
            return _isfile(parent) and _is_zip(parent)
        parent = _dirname(parent)
    return False


def _installed_dirs():
    """The folders an installation's files live in (its prefixes, site-packages, user site)."""
    import site

    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    try:
        found.update(site.getsitepackages())
        found.add(site.getusersitepackages())
    except Exception:  # a virtualenv's old site module lacks them
        pass
    return tuple(os.path.realpath(d).rstrip(os.sep) + os.sep for d in found if d)


_INSTALLED_DIRS = _installed_dirs()
_WORKDIR = str(globals().get("_SWE_ENV_WORKDIR") or os.getcwd()).rstrip(os.sep) + os.sep
_REAL_WORKDIR = os.path.realpath(_WORKDIR).rstrip(os.sep) + os.sep


def _hook_file(
    path,
    from_code,
    _machinery=_MACHINERY_DIRS,
    _installed=_INSTALLED_DIRS,
    _workdir=_WORKDIR,
    _real_workdir=_REAL_WORKDIR,
    _is_file=_is_file,
    _realpath=os.path.realpath,
):
    """Where a hook function's file is, as the grader compares it with the patch's files: None for
    pytest's and pluggy's own; a repository file by its path in the repository, whatever link or
    other name it was imported through; `<no file> ...` for code compiled under a name no Python
    file has (a README's, a name in pytest's folder that does not exist); `<outside> ...` for a
    file neither in the repository nor in the installation (one written at run time)."""
    if path.startswith("<"):
        return path
    if not _is_file(path):
        return "<no file> " + path
    real = _realpath(path)
    if real.startswith(_machinery):
        return None
    if real.startswith(_installed) and not real.startswith(_real_workdir):
        # An installed package's (a compiled one's code may name its .pyx).
        return real
    if from_code and not path.endswith(".py"):
        return "<no file> " + path
    if real.startswith(_real_workdir):
        return _workdir + real[len(_real_workdir) :]
    return "<outside> " + real


def _foreign_hook_files(
    session,
    _hooks=_HOOKS,
    _caller_type=_CALLER_TYPE,
    _impls=_IMPLS,
    _hook_file=_hook_file,
    _own=__file__,
):
    """Files of hook functions (of plugins, objects or modules) other than this module's and
    pytest's and pluggy's own, by where each file really is, not by what its path says (a folder of
    the repository's named `_pytest` or `site-packages` is the repository's). Everything called
    here is bound when this module ran, before any repository code: the code under test replacing
    os.path's functions, pluggy's or this module's globals hides nothing. The grader counts the
    patch's files, and any `<...>` name."""
    found = {"runner": set(), "report": set(), "collection": set()}
    for name, group in _hooks:
        foreign = found[group]
        caller = getattr(session.config.hook, name, None)
        if caller is None:
            continue
        if _caller_type is not None and not isinstance(caller, _caller_type):
            # pytest's own hook callers replaced: what they call is unknown.
            found["runner"].add("<hook caller replaced> " + name)
            continue
        for impl in _impls(caller):
            code = getattr(impl.function, "__code__", None)
            path = getattr(code, "co_filename", "") or getattr(impl.plugin, "__file__", "") or ""
            if type(path) is not str:
                # A plugin object's `__file__` set to something else: a name no file has.
                path = "<no file>"
            if path == _own:
                continue
            where = _hook_file(path, code is not None)
            if where is not None:
                foreign.add(where)
    return {group: sorted(files) for group, files in found.items()}


# The boot places the files of the decisive hooks' implementations it sees running with this
# module's `_hook_file` (bound, like everything it calls, before any repository code ran).
sys.audit("swe_env.register_witness", _WITNESS_WRAPPERS, _hook_file)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem, _audit=sys.audit):
    # The boot reads which implementations this hook call (and any other in progress) runs.
    _audit("swe_env.hooks")
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem, _audit=sys.audit):
    _audit("swe_env.hooks")
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(session, config, items, _audit=sys.audit):
    _audit("swe_env.hooks")
    yield


# Items are changed (a mark added, a runtest set) from these as well as from modifyitems.
@pytest.hookimpl(hookwrapper=True)
def pytest_itemcollected(item, _audit=sys.audit):
    _audit("swe_env.hooks")
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_finish(session, _audit=sys.audit):
    _audit("swe_env.hooks")
    yield


def pytest_sessionfinish(session, exitstatus, _emit=_EMIT, _replaced_runtests=_replaced_runtests, _foreign=_foreign_hook_files):
    foreign = _foreign(session)
    _emit(
        {
            "kind": "end",
            "exitstatus": int(exitstatus),
            "runtest_replaced": _replaced_runtests(getattr(session, "items", []) or [])[:20],
            "hook_plugins": foreign["runner"],
            "report_hook_plugins": foreign["report"],
            "collection_hook_plugins": foreign["collection"],
        }
    )
