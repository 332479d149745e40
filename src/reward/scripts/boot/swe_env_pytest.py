"""The pytest part of swe-env's grading boot (sitecustomize.py, beside this file, loads it by path
before any code of the repository runs; it is in no sys.modules, so its functions are reachable only
through the boot's closure): pytest, the recorder and the pristine plugins imported from where they
are installed, and the check of the machinery pytest's outcomes pass through.
"""


def watch_pytest(sys):
    """A check of the pytest machinery outcomes pass through, against the objects found now (before
    any code of the repository has run), read without calling anything of theirs: class
    dictionaries along the MRO and module dictionaries, taken through the base types' own
    descriptors, compared by identity."""
    import types

    import _pytest._code.code
    import _pytest.python
    import _pytest.reports
    import _pytest.runner
    import _pytest.skipping

    mro_of = type.__dict__["__mro__"].__get__
    class_dict = type.__dict__["__dict__"].__get__
    module_dict = types.ModuleType.__dict__["__dict__"].__get__
    module_type = types.ModuleType
    missing = object()

    def lookup(owner, attribute):
        if type(owner) is module_type:
            return module_dict(owner).get(attribute, missing)
        for klass in mro_of(owner):
            found = class_dict(klass).get(attribute, missing)
            if found is not missing:
                return found
        return missing

    watched = (
        ("_pytest.reports.TestReport.__init__", _pytest.reports.TestReport, "__init__"),
        ("_pytest.reports.TestReport.from_item_and_call", _pytest.reports.TestReport, "from_item_and_call"),
        ("_pytest.reports.TestReport._from_json", _pytest.reports.TestReport, "_from_json"),
        ("_pytest.reports.BaseReport.passed", _pytest.reports.BaseReport, "passed"),
        ("_pytest.reports.BaseReport.failed", _pytest.reports.BaseReport, "failed"),
        ("_pytest.reports.BaseReport.skipped", _pytest.reports.BaseReport, "skipped"),
        ("_pytest.runner.call_and_report", _pytest.runner, "call_and_report"),
        ("_pytest.runner.runtestprotocol", _pytest.runner, "runtestprotocol"),
        ("_pytest.runner.pytest_runtest_makereport", _pytest.runner, "pytest_runtest_makereport"),
        ("_pytest.runner.CallInfo.from_call", _pytest.runner.CallInfo, "from_call"),
        ("_pytest.python.pytest_pyfunc_call", _pytest.python, "pytest_pyfunc_call"),
        ("_pytest.python.Function.runtest", _pytest.python.Function, "runtest"),
        # What pytest's pyfunc_call calls: the item's `obj` (a property of PyobjMixin's).
        ("_pytest.python.Function.obj", _pytest.python.Function, "obj"),
        ("_pytest.skipping.pytest_runtest_makereport", _pytest.skipping, "pytest_runtest_makereport"),
    )
    # pluggy's hook call path (a descriptor on HookCaller.__call__ answers a hook before any of its
    # implementations runs).
    try:
        import pluggy._callers
        import pluggy._hooks
        import pluggy._manager

        caller_type = getattr(pluggy._hooks, "HookCaller", None) or getattr(pluggy._hooks, "_HookCaller", None)
        watched += (
            ("pluggy._callers._multicall", pluggy._callers, "_multicall"),
            ("pluggy.PluginManager._hookexec", pluggy._manager.PluginManager, "_hookexec"),
        )
        if isinstance(caller_type, type):
            watched += (("pluggy.HookCaller.__call__", caller_type, "__call__"), ("pluggy.HookCaller.get_hookimpls", caller_type, "get_hookimpls"))
    except ImportError:
        pass
    # What a call's exception is held in (a falsy or forged one reads as no failure to pytest).
    exception_info = _pytest._code.code.ExceptionInfo
    for attribute in ("from_current", "from_exc_info", "value", "type", "__bool__", "__len__"):
        watched += ((f"_pytest._code.code.ExceptionInfo.{attribute}", exception_info, attribute),)
    # What `pytest.raises` decides with: a context whose __exit__ swallows every exception makes each
    # `with pytest.raises(...)` pass. Its class moved between pytest versions.
    import importlib

    for module_name, class_name in (("_pytest.python_api", "RaisesContext"), ("_pytest.raises", "RaisesExc"), ("_pytest.raises", "RaisesGroup")):
        try:
            klass = getattr(importlib.import_module(module_name), class_name)
        except Exception:
            continue
        watched += ((f"{module_name}.{class_name}.__exit__", klass, "__exit__"),)
    originals = tuple(lookup(owner, attribute) for _, owner, attribute in watched)

    def where_found(owner, attribute):
        # The namespaces a lookup reads, as they are now: the class's MRO (a new tuple once
        # `__bases__` is assigned) and, along it, each class's namespace up to the one that holds
        # the attribute. A module's or class's namespace stays the same object for its lifetime.
        if type(owner) is module_type:
            return None, ((module_dict(owner), attribute, module_dict(owner).get(attribute, missing)),)
        steps = []
        for klass in mro_of(owner):
            namespace = class_dict(klass)
            found = namespace.get(attribute, missing)
            steps.append((namespace, attribute, found))
            if found is not missing:
                break
        return mro_of(owner), tuple(steps)

    # Read at each call and report (a few times a test): the same namespaces holding the same
    # objects is the common answer, told without the full lookup.
    places = tuple(where_found(owner, attribute) for _, owner, attribute in watched)

    def unchanged(owner, mro, steps):
        if mro is not None and mro_of(owner) is not mro:
            return False
        for namespace, attribute, found in steps:
            if namespace.get(attribute, missing) is not found:
                return False
        return True

    def tampered(allowed):
        found = []
        for (name, owner, attribute), original, (mro, steps) in zip(watched, originals, places):
            if unchanged(owner, mro, steps):
                continue
            current = lookup(owner, attribute)
            if current is original:
                continue
            kind = type(current)
            function = current.__func__ if kind is classmethod or kind is staticmethod or kind is types.MethodType else current
            if type(function) is types.FunctionType and allowed.get(id(function.__code__)) is function.__code__:
                continue
            found.append(name)
        return found

    return tampered


def load_pytest(config, sys):
    """pytest, the recorder and the pristine plugins, imported from where they are installed."""
    import importlib
    import importlib.util

    import pytest  # noqa: F401  (the installed pytest, before the working directory is on sys.path)
    import _pytest.config  # noqa: F401

    for name in config.get("plugins", []):
        try:
            module = importlib.import_module(name)
        except Exception:
            continue
        # Imported before pytest could rewrite its asserts: say so, or pytest warns (an error
        # under `filterwarnings = error`).
        try:
            module.__doc__ = (module.__doc__ or "") + "\nPYTEST_DONT_REWRITE"
        except Exception:
            pass
    module_name = config.get("recorder_module", "")
    recorder_path = config.get("recorder_path", "")
    if module_name and recorder_path:
        spec = importlib.util.spec_from_file_location(module_name, recorder_path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        # The command line as the test command gave it, which the recorder puts back once pytest
        # has read its own (before any conftest or test module runs: code that reads sys.argv
        # sees what it would see under the harness).
        module.__dict__["_SWE_ENV_ARGV"] = tuple(sys.argv)
        # Where the repository is: the recorder tells the files of hook functions there from
        # files outside it (the installed ones, or one written at run time).
        module.__dict__["_SWE_ENV_WORKDIR"] = config.get("workdir", "/testbed")
        spec.loader.exec_module(module)
        # Loaded by name on pytest's own command line rather than through PYTEST_ADDOPTS: the tests
        # and what they start inherit the environment (a nested `python -m pytest` would fail to
        # import a recorder only this process has), and honest code copies it.
        extra = ["-p", module_name]
        for name in config.get("plugins", []):
            extra += ["-p", name]
        sys.argv[1:1] = extra


def pristine_test_modules(test_files):
    """What pytest's own assertion rewriting makes of each hidden test file, made now (before any
    code of the repository runs, with pytest's functions as installed): path -> the module's code,
    once as the ini's `enable_assertion_pass_hook` off (the default) and once on, the only setting
    that changes it. The code pytest's rewriting import later runs for the file must be one of
    them: a tree or a rewriter changed in between (`rewrite_asserts` replaced to drop the listed
    test's asserts, `ast.parse` or `compile` wrapped) makes other code, whatever changed it."""
    import inspect
    from pathlib import Path

    try:
        from _pytest.assertion.rewrite import _rewrite_test
    except ImportError:
        return {}
    try:
        if list(inspect.signature(_rewrite_test).parameters)[:2] != ["fn", "config"]:
            return {}  # pytest before 5.0: another rewriting, not compared
    except (TypeError, ValueError):
        return {}

    class PassHookOn:
        """The configuration's one value the rewriting reads."""

        @staticmethod
        def getini(name):
            return name == "enable_assertion_pass_hook"

    # Each variant is a rewriting of every hidden test file (a second of CPU for a file of some
    # thousand tests): the hook's is made only where the run may turn it on.
    configs = (None, PassHookOn()) if _may_turn_on_pass_hook(test_files) else (None,)
    made = {}
    for path in sorted(test_files):
        if not path.endswith(".py"):
            continue
        try:
            made[path] = tuple(_rewrite_test(Path(path), config)[1] for config in configs)
        except Exception:
            # Not rewritable as it stands (a syntax error pytest reports itself), or not there.
            continue
    return made


def _may_turn_on_pass_hook(test_files):
    """Whether anything this run's pytest may read names the assertion-pass hook's setting: its
    command line, PYTEST_ADDOPTS, every configuration file (`.ini`, `.toml`, `.cfg`) in each folder
    from the test files up, and one the command line names (`-c`, `--config-file`). Read as bytes,
    nothing parsed."""
    import os
    import sys

    name = "enable_assertion_pass_hook"
    argv = [a for a in sys.argv if type(a) is str]
    if any(name in a for a in argv) or name in os.environ.get("PYTEST_ADDOPTS", ""):
        return True
    folders = set()
    for path in test_files:
        folder = os.path.dirname(path)
        while folder not in folders:
            folders.add(folder)
            folder = os.path.dirname(folder)
    # Every configuration file there (pytest 9 reads pytest.toml as well; a later pytest may read others).
    candidates = []
    for folder in sorted(folders):
        try:
            names = os.listdir(folder or "/")
        except OSError:
            continue
        candidates += [os.path.join(folder, n) for n in sorted(names) if n.endswith((".ini", ".toml", ".cfg"))]
    for i, arg in enumerate(argv):
        if arg in ("-c", "--config-file") and i + 1 < len(argv):
            candidates.append(argv[i + 1])
        elif arg.startswith("--config-file="):
            candidates.append(arg.split("=", 1)[1])
        elif arg.startswith("-c") and len(arg) > 2:
            candidates.append(arg[2:])
    for candidate in candidates:
        try:
            with open(candidate, "rb") as f:
                if name.encode() in f.read():
                    return True
        except OSError:
            continue
    return False
