"""swe-env's result recorder: a pytest plugin the grader loads from outside the repository
(``PYTEST_ADDOPTS=-p swe_env_recorder``) so that test outcomes reach the grader through a channel
the code under test's printed output cannot forge.

Every report pytest makes is written, as it is made, as one signed JSON line (HMAC-SHA256, with a
key read from a file this plugin deletes at import, before any code of the repository runs) to a
file outside the repository, numbered so that a removed line shows. At the end of the session it
writes the exit status pytest decided and whether the pytest machinery the outcomes depend on is
still the one it found at import, and which plugins outside pytest and site-packages hook into
making or reporting outcomes.

What it cannot stop: code running in this interpreter can find the key in memory, or change
pytest in a way these identity checks do not cover; the grader says so in its report.
"""
import hashlib
import hmac
import json
import os


def _open_channel():
    key_file = os.environ.pop("SWE_ENV_RECORDER_KEY_FILE", "")
    out_path = os.environ.pop("SWE_ENV_RECORDER_OUT", "")
    if not key_file or not out_path or not os.path.exists(key_file):
        # Not the grader's run, or a second pytest process of it (xdist workers: the controller
        # records their reports): nothing to record here.
        return None, None
    with open(key_file, "rb") as f:
        key = f.read().strip()
    os.unlink(key_file)
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    return key, fd


_KEY, _FD = _open_channel()
_SEQ = [0]

import _pytest.python  # noqa: E402
import _pytest.reports  # noqa: E402
import _pytest.runner  # noqa: E402
import _pytest.skipping  # noqa: E402

# What an outcome goes through between the test function and this plugin.
_WATCHED = {
    "_pytest.reports.TestReport.__init__": (_pytest.reports.TestReport, "__init__"),
    "_pytest.reports.TestReport.from_item_and_call": (_pytest.reports.TestReport, "from_item_and_call"),
    "_pytest.reports.BaseReport.passed": (_pytest.reports.BaseReport, "passed"),
    "_pytest.reports.BaseReport.failed": (_pytest.reports.BaseReport, "failed"),
    "_pytest.runner.call_and_report": (_pytest.runner, "call_and_report"),
    "_pytest.runner.runtestprotocol": (_pytest.runner, "runtestprotocol"),
    "_pytest.runner.pytest_runtest_makereport": (_pytest.runner, "pytest_runtest_makereport"),
    "_pytest.runner.CallInfo.from_call": (_pytest.runner.CallInfo, "from_call"),
    "_pytest.python.pytest_pyfunc_call": (_pytest.python, "pytest_pyfunc_call"),
    "_pytest.python.Function.runtest": (_pytest.python.Function, "runtest"),
    "_pytest.skipping.pytest_runtest_makereport": (_pytest.skipping, "pytest_runtest_makereport"),
    "os.write": (os, "write"),
}


def _lookup(owner, attribute):
    # The raw attribute (class __dict__ along the MRO), so descriptors compare by identity.
    if isinstance(owner, type):
        for klass in owner.__mro__:
            if attribute in klass.__dict__:
                return klass.__dict__[attribute]
        return None
    return getattr(owner, attribute, None)


_ORIGINALS = {name: _lookup(owner, attribute) for name, (owner, attribute) in _WATCHED.items()}
_WRITE = os.write
_HOOKS = ("pytest_runtest_logreport", "pytest_runtest_makereport", "pytest_report_teststatus", "pytest_runtest_protocol", "pytest_pyfunc_call", "pytest_runtest_call")


def _emit(record):
    if _FD is None:
        return
    _SEQ[0] += 1
    record["seq"] = _SEQ[0]
    body = json.dumps(record, sort_keys=True, separators=(",", ":"))
    mac = hmac.new(_KEY, body.encode("utf-8"), hashlib.sha256).hexdigest()
    _WRITE(_FD, (mac + " " + body + "\n").encode("utf-8"))


_emit({"kind": "start", "pid": os.getpid()})


def pytest_runtest_logreport(report):
    _emit(
        {
            "kind": "report",
            "nodeid": report.nodeid,
            "when": report.when,
            "outcome": report.outcome,
            "wasxfail": hasattr(report, "wasxfail"),
        }
    )


def _foreign_hook_plugins(session):
    """Plugins hooking outcomes whose code is not pytest's, a site-package's or this plugin."""
    foreign = set()
    for name in _HOOKS:
        caller = getattr(session.config.hook, name, None)
        for impl in caller.get_hookimpls() if caller is not None else []:
            path = getattr(impl.plugin, "__file__", "") or ""
            if not path or "site-packages" in path or "dist-packages" in path or "/_pytest/" in path or path == __file__:
                continue
            foreign.add(os.path.abspath(path))
    return sorted(foreign)


def pytest_sessionfinish(session, exitstatus):
    tampered = [name for name, (owner, attribute) in _WATCHED.items() if _lookup(owner, attribute) is not _ORIGINALS[name]]
    _emit(
        {
            "kind": "end",
            "exitstatus": int(exitstatus),
            "tampered": tampered,
            "hook_plugins": _foreign_hook_plugins(session),
        }
    )
