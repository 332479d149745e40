"""The watch of pytest's decisive hook calls, held by the grading boot's audit hook (loaded by path
beside swe_env_witness.py, in no sys.modules; its state reachable only through the hook's closure).

When the recorder's own implementation of a hook that decides whether or how a test runs is called,
the watch reads from pluggy's `_multicall` frames in progress which functions each such call runs
and who called the hook, by code identity: a hook registered for one test only, or code named after
pytest's files that is none of theirs, is seen as it runs, whatever is left at the session's end.
"""


# The hooks that decide whether or how a test runs, and the one that changes the collected items:
# their implementations are taken from the hook calls themselves, as they run. (The recorder's
# _HOOKS names them too, with the report hooks the witness covers; this copy is the boot's own, out
# of reach of the code under test, as the recorder's module globals are not.)
DECISIVE_HOOKS = {
    "pytest_runtest_protocol": "runner",
    "pytest_runtest_call": "runner",
    "pytest_pyfunc_call": "runner",
    "pytest_collection_modifyitems": "collection",
    "pytest_itemcollected": "collection",
    "pytest_collection_finish": "collection",
}


def make_hook_watch(str_type, function_type, method_type, sys_modules, workdir, paths, reading):
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
    read_impl = reading.instance_reader((impl_type,), str_type)

    def function_of(impl):
        # pluggy 1.1 keeps it in a slot, 1.0 in the instance's dict: read without its class's code.
        if slot is not None and type(slot).__name__ == "member_descriptor":
            return slot.__get__(impl)
        return read_impl(impl, "function")

    code_of = function_type.__dict__["__code__"].__get__
    func_of = method_type.__dict__["__func__"].__get__
    seen = {"runner": set(), "collection": set()}
    pluggy_codes = reading.codes_of(("pluggy._callers", "pluggy._hooks", "pluggy._manager", "pluggy._tracing", "pluggy._result"), function_type)

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
        # The code of every module in pytest's and pluggy's folders (wherever they are: a task of
        # their own repositories runs the repository's). Only a code object that names a file
        # there is ever looked up (place, impostor_on_stack): the rest of what is imported need
        # not be read.
        outside = []
        for name, module in list(sys_modules.items()):
            path = getattr(module, "__file__", None) if type(module).__name__ == "module" else None
            if type(path) is str_type and realpath(path).startswith(machinery_dirs):
                outside.append(name)
        known.update(reading.codes_of(tuple(outside), function_type))
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

    # The hook calls in progress at the last observation, innermost first, held (so that none of
    # them can be freed and its memory taken by another frame while here). A call's frame keeps its
    # hook, its list and its caller for as long as it runs: one seen before, and every frame outside
    # it, was read then and is the same now. The walk stops there: the session's and the test's
    # outer hook calls are read once, not at each of a test's phases.
    held = []

    def observe(frame):
        fresh = []
        # A copy: another thread's observation may replace the list meanwhile.
        last = list(held)
        known_calls = set(last)
        while frame is not None:
            if frame in known_calls:
                break
            if frame.f_code is multicall:
                fresh.append(frame)
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
        # (Membership and `index` compare frames by identity: a frame has no __eq__ or __hash__ of its own.)
        outer = last[last.index(frame) :] if frame is not None else []
        held[:] = fresh + outer

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
