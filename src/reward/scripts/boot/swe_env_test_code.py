"""Which code runs for a hidden test (part of swe-env's grading boot: sitecustomize.py, beside this
file, loads it by path before any code of the repository runs and keeps what it makes in its
closure): the test files' own definitions, learnt from their module code when the test runner's
import runs it, and the check of the function the recorder finds for each hidden test.
"""


def make_test_code(workdir, test_files, agent_files, agent_codes, remember, compare):
    """(learn, check, trusted, as_made, expect): learn(module_code) takes in a test file's module
    code as the runner's import runs it; check(nodeid, obj) says what runs for a test ("ok",
    "agent", "wrapped", "swapped", "unverified"); as_made(module_code) whether pytest's rewriting
    import runs what its rewriting made of the file at start (expect(made) hands that in)."""
    import os
    import time
    import types

    str_type = str
    dict_type = dict
    code_type = types.CodeType
    function_type = types.FunctionType
    method_type = types.MethodType
    trusted_test_codes = set()
    # The test files' own definitions (module-level functions and methods of module-level
    # classes): id of each code object -> its file, and each file's defined names.
    test_def_codes = {}
    test_def_names = {}
    # Each test file's definitions themselves, by file, to know a code object rebuilt from one.
    test_defs = {}
    # id of each definition's code -> (its file, its scope).
    test_def_scopes = {}
    # Each test file's module dicts, by id.
    test_globals = {}
    function_globals = function_type.__dict__["__globals__"].__get__
    kept = []

    def remember_defs(module_code):
        # A function's code is optimized (CO_OPTIMIZED); a class body's is not, and holds its
        # methods. Names by scope: the module's ("") and each module-level class's.
        path = module_code.co_filename
        bodies = [("", module_code)]
        for const in module_code.co_consts:
            if type(const) is code_type and not const.co_flags & 1:
                bodies.append((const.co_name, const))
        for scope, body in bodies:
            names = test_def_names.setdefault((path, scope), set())
            for const in body.co_consts:
                if type(const) is code_type and const.co_flags & 1:
                    test_def_codes[id(const)] = path
                    test_def_scopes[id(const)] = (path, scope)
                    names.add(const.co_name)
                    test_defs.setdefault(path, []).append(const)
                    kept.append(const)

    function_dict = function_type.__dict__["__dict__"].__get__

    def own_attribute(fn, name):
        # A function's own attribute by exact-str key: a key of another type could run its __eq__.
        own = function_dict(fn)
        if type(own) is not dict_type:
            return None
        for key, item in own.items():
            if type(key) is str_type and key == name:
                return item
        return None

    def function_code(value):
        """The code object of a plain function or method, read without running any of its code."""
        if type(value) is method_type:
            value = value.__func__
        if type(value) is function_type:
            return value
        return None

    def held_test(fn):
        """A function of the test file's held in `fn`'s closure, or in the closure of a function
        held there (decorators stacked, written without functools.wraps), up to four deep: the test
        such a wrapper runs (exact types only; nothing of any of them is called)."""
        layer = [fn]
        for _ in range(4):
            deeper = []
            for holder in layer:
                cells = holder.__closure__
                if type(cells) is not tuple:
                    continue
                for cell in cells:
                    try:
                        held = cell.cell_contents
                    except ValueError:
                        continue
                    if type(held) is not function_type:
                        continue
                    if id(held.__code__) in trusted_test_codes:
                        return held
                    deeper.append(held)
            if not deeper:
                return None
            layer = deeper
        return None

    stat = os.stat
    is_file_mode = __import__("stat").S_ISREG
    started = time.time_ns()

    def made_by_the_run(path):
        """Whether a file that code names was written while the tests ran (its inode changed since
        the boot started: a time set back by `os.utime` changes it too), or is gone, or is no file
        at all where a folder should be: code the run itself made, not the repository's or an
        installed package's. A name that is no path (`<string>`) is not judged here."""
        if type(path) is not str_type or not path.startswith("/"):
            return False
        try:
            return stat(path).st_ctime_ns >= started
        except OSError:
            pass
        # Gone, unless it is a member of an archive (a module imported from a zip).
        parent = path
        while "/" in parent.rstrip("/"):
            parent = parent.rstrip("/").rsplit("/", 1)[0]
            try:
                return not is_file_mode(stat(parent or "/").st_mode)
            except OSError:
                continue
        return True

    same_constants, same_code, same_tree = compare

    def rebuilt_from_file(code, full, name):
        """Whether code no compilation made, under the test file's name, is another definition of
        that file, a passing test's code renamed to the test's name (`code.replace(co_name=...)`).
        A wrapper that only borrows the file's name (hypothesis's @given), code recompiled from the
        test's own source (instrumenting decorators) or a copy of the test's own code is not."""
        if code.co_filename != full:
            return False
        defs = test_defs.get(full, ())
        for d in defs:
            if d.co_name == name and same_code(d, code):
                return False
        for d in defs:
            if d.co_name != name and same_code(d, code):
                return True
        return False

    def check_test_code(nodeid, obj):
        """What runs for a hidden test: "ok" (code its file defines, through any wrappers), "agent"
        (the function that runs in the end is the patch's code: the test replaced), "wrapped" (the
        file's test, wrapped by a decorator of a file the patch changed: moto's mock decorators,
        freezegun's), or "unverified" (no way back to the file's code: hypothesis's @given
        impersonates the test under its file's name, a test inherited from a helper module)."""
        path = nodeid.split("::", 1)[0]
        full = path if path.startswith("/") else workdir + path
        if full not in test_files:
            return "ok"
        parts = nodeid.split("::")
        name = parts[-1].split("[", 1)[0]
        scope = parts[1] if len(parts) == 3 else "" if len(parts) == 2 else None
        fn = function_code(obj)
        wrapped_by_agent = False
        for _ in range(16):
            if fn is None:
                return "unverified"
            code = fn.__code__
            if id(code) in trusted_test_codes:
                if wrapped_by_agent:
                    return "wrapped"
                # Another definition of the file run under a test its scope (the module, or the
                # test's class) defines by that name: the test's code swapped for a passing one (an
                # alias, `test_b = test_a`, defines no test_b and stays "ok").
                if test_def_codes.get(id(code)) == full and code.co_name != name and name in test_def_names.get((full, scope), ()):
                    return "swapped"
                return "ok"
            agent = id(code) in agent_codes or code.co_filename in agent_files
            inner = own_attribute(fn, "__wrapped__")
            if inner is None and agent:
                inner = held_test(fn)
            if inner is None:
                if not agent and rebuilt_from_file(code, full, name):
                    return "swapped"
                # A test function from a file written while the tests ran (or removed since) is
                # nothing of the repository or of what is installed: the run's own making.
                return "agent" if agent or made_by_the_run(code.co_filename) else "unverified"
            wrapped_by_agent = wrapped_by_agent or agent
            fn = function_code(inner)
        return "unverified"

    def proof_targets(nodeid, obj):
        """When what pytest runs for a hidden test is not the function its file's `def` made for
        it: the code objects whose run proves the test ran (the file's code for the test found
        inside what runs, or copies of it, else the file's definition of it), with the free
        variables the found function holds; ((), None) when nothing could prove it. None when no
        proof is asked: the file's own function for the test (pytest calls it itself), a test of
        no hidden file, a test its file does not define (one inherited from a helper module)."""
        stem = nodeid.split("[", 1)[0]
        parts = stem.split("::")
        full = parts[0] if parts[0].startswith("/") else workdir + parts[0]
        if full not in test_files:
            return None
        name = parts[-1]
        scope = parts[1] if len(parts) == 3 else "" if len(parts) == 2 else None
        own = (full, scope)

        def is_the_def(code):
            # The file's own definition of this test: its name, in its scope (a nested class's
            # methods have no scope here: any of the file's code by the test's name).
            if code.co_name != name or id(code) not in trusted_test_codes:
                return False
            where = test_def_scopes.get(id(code))
            return where == own if scope is not None else where is None or where[0] == full

        known_globals = test_globals.get(full)

        def over_own_globals(value):
            # A function over one of the file's module dicts (any, where none was learnt).
            return known_globals is None or known_globals.get(id(function_globals(value))) is function_globals(value)

        fn = function_code(obj)
        if fn is not None and scope is not None and test_def_scopes.get(id(fn.__code__)) == own and fn.__code__.co_name == name and over_own_globals(fn):
            return None
        defs = tuple(d for d in test_defs.get(full, ()) if d.co_name == name and (scope is None or test_def_scopes.get(id(d)) == own))
        # Copies of the file's code for the test (a decorator handing pytest a function made from
        # the test's code object, unchanged) found on the way prove it as well as the code itself.
        copies = []
        for _ in range(16):
            if fn is None:
                break
            code = fn.__code__
            if is_the_def(code) and over_own_globals(fn):
                return (code, *copies), free_variables(fn), known_globals
            if code.co_filename == full and any(same_code(d, code) for d in defs):
                copies.append(code)
            inner = own_attribute(fn, "__wrapped__")
            if inner is None:
                inner = held_test(fn)
            fn = function_code(inner)
        if scope is not None and name not in test_def_names.get(own, ()):
            return None
        return defs + tuple(copies), None, known_globals

    def free_variables(fn):
        cells = fn.__closure__
        if type(cells) is not tuple:
            return None
        pairs = []
        for name, cell in zip(fn.__code__.co_freevars, cells):
            try:
                pairs.append((name, cell.cell_contents))
            except ValueError:
                continue
        return tuple(pairs)

    # What pytest's rewriting made of each hidden test file at start (swe_env_pytest.py).
    pristine = {}

    def as_made(module_code):
        """Whether a test file's module code, run by pytest's rewriting import, is what pytest's own
        rewriting made of the file at start; None where nothing was made to compare with."""
        made = pristine.get(module_code.co_filename)
        if made is None:
            return None
        return any(same_tree(module_code, one) for one in made)

    def learn(module_code, module_globals=None):
        remember(module_code, trusted_test_codes)
        remember_defs(module_code)
        if type(module_globals) is dict_type:
            # Every dict the file's module code ran in as the import system ran it (a module
            # imported twice has two): the test's own function runs over one of them.
            kept.append(module_globals)
            test_globals.setdefault(module_code.co_filename, {})[id(module_globals)] = module_globals

    def trusted(code):
        return id(code) in trusted_test_codes

    return learn, check_test_code, trusted, as_made, pristine.update, proof_targets
