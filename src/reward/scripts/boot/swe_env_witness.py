"""The witness of the reports pytest itself makes, held by the grading boot's audit hook.

The recorder wraps `CallInfo.from_call` (where a test's setup, call or teardown runs) and
`TestReport.from_item_and_call` (where pytest makes a report of such a call) before any repository
code runs, and each wrapper hands what it saw to the boot (`swe_env.call`, `swe_env.made`). What
they saw is kept here, in closures only the audit hook holds (no Python object leads to it):
- each call's failure as it was raised (any exception but a skip), for the calls pytest's own
  `call_runtest_hook` made;
- each report's outcome as pytest made it from such a call, or "failed" where the call's failure
  was taken away before the report was made.
When the recorder logs a report, the boot reads the report's outcome itself and adds the one it
was made with. A report logged as passing that pytest made failing or skipped, or did not make
from a call of its own, was changed or made by something else, whatever that was: a hook of any
file registered for the whole session or for a moment, a replaced hook call path, code that
reached the report object. Reports pytest rebuilds from serialized data (pytest-xdist's workers,
subtests) are "rebuilt": their outcomes were made where nothing witnessed them.

Only the wrappers the recorder registered while the boot loaded it are heard, called by pytest's
own functions (by code identity, captured before any repository code ran) and with the values
they were defined with (a copy of a wrapper's code given other defaults is not the wrapper).
"""


def make_witness(str_type, builtins_dict, emit, foreign_on_stack):
    import _pytest._code.code
    import _pytest.outcomes
    import _pytest.reports
    import _pytest.runner
    import unittest

    exception_info = _pytest._code.code.ExceptionInfo

    def code_of(module, name):
        function = module.__dict__.get(name)
        return getattr(function, "__code__", None)

    # pytest's own callers of the two wrappers (pytest 8.1 moved the call into call_and_report).
    call_makers = tuple(c for c in (code_of(_pytest.runner, "call_runtest_hook"), code_of(_pytest.runner, "call_and_report")) if c is not None)
    report_maker = code_of(_pytest.runner, "pytest_runtest_makereport")
    # pytest's own from_call (the recorder wraps it later): what calls the phase the wrapper traces.
    raw_from_call = getattr(_pytest.runner.CallInfo.__dict__.get("from_call"), "__func__", None)
    raw_from_call = getattr(raw_from_call, "__code__", None)
    protocol = code_of(_pytest.runner, "runtestprotocol")
    if not call_makers or report_maker is None:
        return None
    # Code of the pristine plugins the boot loaded (flaky runs tests through its own
    # call_and_report): a call or report they make is pytest's as much as its own runner's.
    plugin_codes = {}
    mro_of = type.__dict__["__mro__"].__get__
    import _pytest.nodes

    read_own = _instance_reader((_pytest.runner.CallInfo, _pytest.reports.TestReport, exception_info, _pytest.nodes.Node), str_type)
    # pytest's skip, and unittest's, which pytest's unittest support turns into one.
    skip_types = (_pytest.outcomes.Skipped, unittest.SkipTest)
    wrappers = {}
    pending_calls = {}
    made = {}
    # The wrapper frames whose phase raised a failure, told as it was raised.
    raised = {}
    # The tests and phases this process ran a call of its own for.
    called = set()

    def attribute(value, name):
        # An instance's own attribute, read without running anything of its class.
        return read_own(value, name)

    def text(value):
        return value if type(value) is str_type else ""

    # A node's id: a slot of pytest's Node (8.x), taken now, read through the slot itself.
    import types

    nodeid_slot = _pytest.nodes.Node.__dict__.get("_nodeid")
    if type(nodeid_slot) is not types.MemberDescriptorType:
        nodeid_slot = None

    def nodeid_of(item):
        if nodeid_slot is not None:
            try:
                return text(nodeid_slot.__get__(item))
            except Exception:
                return ""
        return text(attribute(item, "_nodeid"))

    def failed(call):
        # A failure unless pytest holds no exception, or holds a skip in its own ExceptionInfo.
        excinfo = attribute(call, "excinfo")
        if excinfo is None:
            return False
        if type(excinfo) is not exception_info:
            return True
        info = attribute(excinfo, "_excinfo")
        if type(info) is not tuple or len(info) != 3:
            return True
        return not is_skip(info[1])

    def register(functions):
        for function in functions:
            code = function.__code__
            wrappers[id(code)] = (code, tuple((function.__kwdefaults__ or {}).items()))

    def is_skip(error):
        # By identity: `in` would call an __eq__ of the exception's metaclass inside the hook.
        for klass in mro_of(type(error)):
            for skip in skip_types:
                if klass is skip:
                    return True
        return False

    def trust_plugins(codes):
        plugin_codes.update(codes)

    def genuine(frame, callers):
        # The wrapper's own code, running with the values it was defined with, called by pytest.
        entry = wrappers.get(id(frame.f_code))
        if entry is None or entry[0] is not frame.f_code or frame.f_builtins is not builtins_dict:
            return False
        if callers:
            caller = frame.f_back
            if caller is None:
                return False
            if not any(caller.f_code is c for c in callers) and plugin_codes.get(id(caller.f_code)) is not caller.f_code:
                return False
            if not for_the_running_item(caller):
                return False
        local = frame.f_locals
        return all(local.get(name, entry) is value for name, value in entry[1])

    def for_the_running_item(caller):
        # Inside pytest's protocol for an item, a call or report for another item (a copy of it
        # whose runtest does nothing) is not that test's.
        item = caller.f_locals.get("item", wrappers)
        frame = caller.f_back
        while frame is not None:
            if frame.f_code is protocol:
                return frame.f_locals.get("item") is item
            frame = frame.f_back
        return True

    def on_event(event, args, frame):
        """An event of the wrappers; `frame` is the one that raised it."""
        if event == "swe_env.raised":
            # The phase's function raised, inside pytest's own from_call, inside the wrapper.
            caller = frame.f_back
            wrapper = caller.f_back if caller is not None else None
            if len(args) == 1 and genuine(frame, ()) and caller.f_code is raw_from_call and wrapper is not None and genuine(wrapper, call_makers):
                raised[id(wrapper)] = (wrapper, not is_skip(args[0]))
        elif event == "swe_env.call":
            if len(args) == 1 and genuine(frame, call_makers) and text(attribute(args[0], "when")) in ("setup", "call", "teardown"):
                entry = raised.pop(id(frame), None)
                raised_failure = entry is not None and entry[0] is frame and entry[1]
                pending_calls[id(args[0])] = (args[0], failed(args[0]) or raised_failure)
                item = frame.f_back.f_locals.get("item")
                called.add((nodeid_of(item), text(attribute(args[0], "when"))))
        elif event == "swe_env.made":
            if len(args) != 2 or not genuine(frame, (report_maker,)):
                return
            report, call = args
            entry = pending_calls.pop(id(call), None)
            outcome = text(attribute(report, "outcome"))
            if entry is None or entry[0] is not call:
                outcome = ""  # a call pytest did not make
            elif entry[1] and (outcome == "passed" or not failed(call)):
                outcome = "failed"  # the failure it raised, taken away before the report was made
            nodeid, when = text(attribute(report, "nodeid")), text(attribute(report, "when"))
            made[id(report)] = (report, outcome, nodeid, when)
            if outcome:
                # In every process with the key (a test run in a forked child, whose report its
                # parent rebuilds): what pytest made, for reports rebuilt from data to be held to.
                emit({"kind": "made", "nodeid": nodeid, "when": when, "outcome": outcome})
        elif event == "swe_env.rebuilt":
            if len(args) == 1 and genuine(frame, ()) and id(args[0]) not in made:
                # Rebuilt with the code under test on the stack (a loop of its own logging reports
                # it made from data, where pytest-xdist's would): not a worker's report.
                how = "rebuilt-foreign" if foreign_on_stack(frame) else "rebuilt"
                made[id(args[0])] = (args[0], how, None, None)

    def read_report(report):
        """What a logged report says, read from the object itself, and the outcome it was made with."""
        entry = made.get(id(report))
        nodeid = text(attribute(report, "nodeid"))
        when = text(attribute(report, "when"))
        how = ""
        if entry is not None and entry[0] is report and (entry[2] is None or (entry[2] == nodeid and entry[3] == when)):
            # Made by pytest, and still about the test and phase it was made for.
            how = entry[1]
        if how == "rebuilt" and (nodeid, when) in called:
            # Rebuilt from data in the process that ran the test's phase itself: not a report a
            # child or a worker made for it (pytest-forked's, xdist's), whatever made records say.
            how = "rebuilt-here"
        return {
            "nodeid": nodeid,
            "when": when,
            "outcome": text(attribute(report, "outcome")),
            "wasxfail": attribute(report, "wasxfail") is not None,
            "made": how,
        }

    return register, on_event, read_report, trust_plugins


# The hooks that decide whether or how a test runs, and the one that changes the collected items:
# their implementations are taken from the hook calls themselves, as they run. (The recorder's
# _HOOKS names them too, with the report hooks the witness covers; this copy is the boot's own, out
# of reach of the code under test, as the recorder's module globals are not.)
DECISIVE_HOOKS = {
    "pytest_runtest_protocol": "runner",
    "pytest_runtest_call": "runner",
    "pytest_pyfunc_call": "runner",
    "pytest_collection_modifyitems": "collection",
}


def make_hook_watch(str_type, function_type, method_type, sys_modules, workdir, paths):
    """Which functions implement the decisive hooks, read from each of pluggy's hook calls in progress
    when the recorder's own implementation of one runs (`swe_env.hooks`, and the test-code check):
    the list a call runs is the one its `_multicall` holds, whatever was registered or unregistered
    around it (a hook there for one test only, gone by the session's end, is on it). pluggy before
    1.0 names no hook in its calls: there the recorder's list at the session's end stands alone."""
    try:
        import pluggy._callers as callers
        import pluggy._hooks as hooks
    except ImportError:
        return None
    multicall = getattr(callers.__dict__.get("_multicall"), "__code__", None)
    impl_type = hooks.__dict__.get("HookImpl")
    if multicall is None or "hook_name" not in multicall.co_varnames or not isinstance(impl_type, type):
        return None
    slot = impl_type.__dict__.get("function")
    read_impl = _instance_reader((impl_type,), str_type)

    def function_of(impl):
        # pluggy 1.1 keeps it in a slot, 1.0 in the instance's dict: read without its class's code.
        if slot is not None and type(slot).__name__ == "member_descriptor":
            return slot.__get__(impl)
        return read_impl(impl, "function")

    code_of = function_type.__dict__["__code__"].__get__
    func_of = method_type.__dict__["__func__"].__get__
    seen = {"runner": set(), "collection": set()}
    pluggy_codes = _codes_of(("pluggy._callers", "pluggy._hooks", "pluggy._manager", "pluggy._tracing", "pluggy._result"), function_type)

    def code_file(function):
        # Read through the base types' descriptors: nothing of the object's own class runs.
        if type(function) is method_type:
            function = func_of(function)
        if type(function) is not function_type:
            return None
        return code_of(function)

    import os

    # The boot's own path functions (swe_env_paths.py): the standard library's look names up in
    # their modules at each call, and these run inside the audit hook.
    realpath, is_file = paths[1], paths[2]
    machinery_dirs = tuple(realpath(os.path.dirname(m.__file__)) + os.sep for m in (callers, __import__("_pytest.runner").runner))
    installed_dirs = _installed_dirs(realpath)
    # Code pytest, pluggy and the pristine plugins really hold (see trust): a code object that
    # names one of their files but is none of theirs (code.replace(co_filename=...)) is no file.
    known = {}
    placed = {}
    real_workdir = realpath(workdir).rstrip(os.sep) + os.sep

    def trust(plugin_codes):
        import _pytest.config
        import importlib

        # Every plugin module pytest may load later (pytester, when a conftest asks for it), but one
        # it would rewrite then (pytester_assertions, whose asserts are rewritten when `-p pytester`
        # asks for it: imported now, pytest warns it cannot, an error under `-W error`). Its
        # functions answer no hook.
        defaults = set(getattr(_pytest.config, "default_plugins", ()))
        for name in sorted(getattr(_pytest.config, "builtin_plugins", ())):
            if name not in defaults and not _says_dont_rewrite("_pytest." + name):
                continue
            try:
                importlib.import_module("_pytest." + name)
            except Exception:
                pass
        # Everything imported so far that is not the repository's: pytest, pluggy, the pristine
        # plugins and what they import (a plugin's entry module may be a shim over another package).
        outside = []
        for name, module in list(sys_modules.items()):
            path = getattr(module, "__file__", None) if type(module).__name__ == "module" else None
            # (pytest and pluggy themselves wherever they are: a task of their own repositories
            # runs the repository's.)
            if type(path) is str_type and (not realpath(path).startswith(real_workdir) or name.partition(".")[0] in ("_pytest", "pytest", "pluggy")):
                outside.append(name)
        known.update(_codes_of(tuple(outside), function_type))
        known.update(plugin_codes)

    def place(code):
        # The file a code object names, or "<no file> ..." where it names one it does not come from.
        entry = placed.get(id(code))
        if entry is not None and entry[0] is code:
            return entry[1]
        name = code.co_filename
        if type(name) is not str_type:
            name = "<no file>"
        elif known and known.get(id(code)) is not code and realpath(name).startswith(machinery_dirs):
            # Named after pytest's or pluggy's files without being their code. (A name of another
            # installed file is not judged: a plugin the repository loads after the boot, from
            # its ini or a conftest's pytest_plugins, is no code the boot has seen either.)
            name = "<no file> " + name
        placed[id(code)] = (code, name)
        return name

    def observe(frame):
        while frame is not None:
            if frame.f_code is multicall:
                local = frame.f_locals
                group = DECISIVE_HOOKS.get(local.get("hook_name")) if type(local.get("hook_name")) is str_type else None
                impls = local.get("hook_impls")
                if group is not None:
                    # Who called the hook: the first frame above pluggy's own. pytest's, or a
                    # plugin's that calls the hook itself; a replaced hook call path
                    # (`_inner_hookexec`, `_hookexec`) is the code that replaced it.
                    caller = frame.f_back
                    while caller is not None and id(caller.f_code) in pluggy_codes:
                        caller = caller.f_back
                    if caller is not None:
                        seen[group].add(place(caller.f_code))
                if group is not None and (type(impls) is list or type(impls) is tuple):
                    for impl in impls:
                        if type(impl) is not impl_type:
                            seen[group].add("<not a hook implementation>")
                            continue
                        code = code_file(function_of(impl))
                        if code is None:
                            # A builtin or other callable deciding whether a test runs: no code
                            # of pytest's or a plugin's file (os.getpid answering pyfunc_call).
                            seen[group].add("<no code> " + local.get("hook_name"))
                        else:
                            seen[group].add(place(code))
            frame = frame.f_back

    def place_file(path):
        """Where a hook function's file is, as the grader compares it with the patch's files (the
        recorder's `_hook_file`, by the boot's own means): None for pytest's and pluggy's own; a
        repository file by its path in the repository, whatever link it was imported through; an
        installed package's by its real path; `<no file> ...` for a name no Python file has;
        `<outside> ...` for a file neither in the repository nor installed."""
        if not is_file(path):
            return "<no file> " + path
        real = realpath(path)
        if real.startswith(machinery_dirs):
            return None
        if real.startswith(installed_dirs) and not real.startswith(real_workdir):
            return real
        if not path.endswith(".py"):
            return "<no file> " + path
        if real.startswith(real_workdir):
            return workdir + real[len(real_workdir) :]
        return "<outside> " + real

    def files(own):
        """The files seen, placed (pytest's and pluggy's own left out)."""
        out = {}
        for group, found in seen.items():
            placed = set()
            for path in found:
                if path == own:
                    continue
                # Each path is a code object's file name (from_code: one that names no Python file is no file).
                where = path if path.startswith("<") else place_file(path)
                if type(where) is str_type:
                    placed.add(where)
            out[group] = sorted(placed)
        return out

    def impostor_on_stack(frame):
        """Whether a frame on the stack runs code named after pytest's or pluggy's files that is none
        of theirs (code.replace(co_filename=...) of the code under test's)."""
        while frame is not None:
            code = frame.f_code
            name = code.co_filename
            if known and known.get(id(code)) is not code and type(name) is str_type and realpath(name).startswith(machinery_dirs):
                return True
            frame = frame.f_back
        return False

    return observe, files, trust, impostor_on_stack


def _instance_reader(classes, str_type):
    """read(value, name): an attribute of an instance's own dict, for instances of these classes
    (subclasses too), run nothing of the code under test: the dict is taken through the classes'
    own `__dict__` slot (taken now, before any repository code: a subclass's `__dict__` property is
    never called) and searched by exact-str key (a key of another type could run its `__eq__`)."""
    import types

    getters = []
    for cls in classes:
        for klass in cls.__mro__:
            found = klass.__dict__.get("__dict__")
            if type(found) is types.GetSetDescriptorType:
                getters.append(found)
                break
    dict_type = dict

    def read(value, name):
        for getter in getters:
            try:
                own = getter.__get__(value)
            except TypeError:
                continue
            if type(own) is not dict_type:
                return None
            for key, item in own.items():
                if type(key) is str_type and key == name:
                    return item
            return None
        return None

    return read


def _says_dont_rewrite(module_name):
    """Whether a module's source asks pytest not to rewrite its asserts, read without importing it."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module_name)
        with open(spec.origin, "rb") as f:
            return b"PYTEST_DONT_REWRITE" in f.read()
    except Exception:
        return False


def _installed_dirs(realpath):
    """The folders an installation's files live in (its prefixes, site-packages, user site)."""
    import site
    import sys

    found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    try:
        found.update(site.getsitepackages())
        found.add(site.getusersitepackages())
    except Exception:  # a virtualenv's old site module lacks them
        pass
    return tuple(realpath(d).rstrip("/") + "/" for d in found if d)


def _codes_of(module_names, function_type):
    """Every code object of these modules' functions and classes' methods, nested ones included
    (pluggy's own: its hook call path), by id, kept alive in the returned dict."""
    import sys

    found = {}
    stack = []
    for name in module_names:
        module = sys.modules.get(name)
        if module is None:
            continue
        for value in list(vars(module).values()):
            members = list(vars(value).values()) if isinstance(value, type) else [value]
            for member in members:
                member = getattr(member, "__func__", member)
                if isinstance(member, property):
                    members.extend(f for f in (member.fget, member.fset, member.fdel) if f is not None)
                    continue
                if type(member) is function_type:
                    stack.append(member.__code__)
    while stack:
        code = stack.pop()
        if id(code) in found:
            continue
        found[id(code)] = code
        stack.extend(c for c in code.co_consts if type(c) is type(code))
    return found


def plugin_codes(names, function_type):
    """The code of the pristine plugins the boot loaded, every module of their packages."""
    import sys

    tops = {name.split(".")[0] for name in names if type(name) is str}
    modules = tuple(m for m in list(sys.modules) if m.split(".")[0] in tops)
    return _codes_of(modules, function_type)
