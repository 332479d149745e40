"""Proof that a hidden test's own code ran (part of swe-env's grading boot, loaded by path beside
swe_env_monitor.py; what it keeps is reachable only through the audit hook's closure).

pytest runs whatever object stands under a test's name. When that object is not the test file's
own function (a decorator's wrapper, hypothesis's @given, or anything put in the test's place), no
check of what the object is can say what it does when called: a wrapper may hold the test and
never call it, call it and swallow its failure, or be a function of anyone's that returns None.
So for those tests, and only for their call phase, the boot installs the recorder's profile
function (public code, known by identity, holding nothing of the boot's) and hears, through the
audit hook, each frame of the test file's own code for that test as it is entered and as it
returns. The test's code ran when such a frame was entered with the arguments pytest passed to
the test (its fixtures and parameters, by identity: a wrapper may add its own, such as a mock's)
and returned normally (the instruction it stopped at is a return: an exception unwinding stops
elsewhere). A passing call report of such a test without that proof is the code under test's
doing, whatever stood in for the test.
"""


def make_proof(sys, types, builtins_dict, str_type, opcodes):
    """(register, start, on_frame, end, result)."""
    # Bound now, before any code of the repository's runs: sys's attributes are in its reach.
    getprofile = sys.getprofile
    setprofile = sys.setprofile
    frame_type = types.FrameType
    dict_type = dict
    function_type = types.FunctionType
    callable = builtins_dict["callable"]
    return_ops = frozenset(opcodes[name] for name in ("RETURN_VALUE", "RETURN_CONST") if name in opcodes)
    registered = {}
    # The phase being watched: the test, the code that may prove it, its arguments, its frames.
    active = {}
    # nodeid -> "returned", "raised", "lost", "none" (outcome below), or "profiler" (a profile
    # function of C's was in place: nothing could be heard).
    results = {}

    def register(fn):
        """The recorder's profile function, once, while the boot loads the recorder."""
        if registered or type(fn) is not function_type:
            return False
        kw = fn.__kwdefaults__
        if type(kw) is not dict_type or type(kw.get("_watch")) is not dict_type:
            return False
        if type(kw.get("_chain")) is not list:
            return False
        registered.update(fn=fn, code=fn.__code__, defaults=tuple(kw.items()), watch=kw["_watch"], chain=kw["_chain"])
        return True

    def start(nodeid, targets, funcargs, closure_of, module_globals=None):
        """The call phase of `nodeid` begins: `targets` are the code objects that may prove it."""
        if not registered:
            return
        if not targets:
            results[nodeid] = "none"  # no code of the file's could prove it
            return
        if active:
            if active["nodeid"] != nodeid:
                # A test's call inside another's (an in-process pytest run by a hidden test).
                results[nodeid] = "none"
                return
            end(None)  # left over from an earlier try of the same test
        previous = getprofile()
        if previous is registered["fn"]:
            previous = None  # left in place by a phase that never ended
        if previous is not None and not callable(previous):
            # A profiler of C's (cProfile's): it cannot be called along, nothing could be heard.
            results[nodeid] = "profiler"
            return
        chain = registered["chain"]
        del chain[:]
        if previous is not None:
            chain.append(previous)
        watch = registered["watch"]
        watch.clear()
        for code in targets:
            watch[id(code)] = code
        active.update(
            nodeid=nodeid,
            targets={id(c): c for c in targets},
            funcargs=plain_arguments(funcargs),
            closure=closure_of,
            # The test file's module dicts by id (None: not learnt): the test's code runs over one.
            globals=module_globals,
            entered={},
            entered_as_asked=False,
            proved=False,
            previous=previous,
        )
        results[nodeid] = "none"
        setprofile(registered["fn"])

    def plain_arguments(funcargs):
        # pytest's arguments for the test by exact-str name (a key of another type could run its
        # __eq__ in a lookup), copied: the item's own dict is in the code under test's reach.
        if type(funcargs) is not dict_type:
            return {}
        return {name: value for name, value in funcargs.items() if type(name) is str_type}

    def genuine(frame):
        # The recorder's profile function itself, running with the values it was defined with.
        if frame is None or frame.f_code is not registered.get("code") or frame.f_builtins is not builtins_dict:
            return False
        local = frame.f_locals
        return all(local.get(name, registered) is value for name, value in registered["defaults"])

    def on_frame(args, raiser):
        """A frame of a watched code object entered or returning, as the profile function heard it."""
        if not active or len(args) != 2 or type(args[0]) is not frame_type or not genuine(raiser):
            return
        frame, event = args
        code = frame.f_code
        if active["targets"].get(id(code)) is not code:
            return
        key = id(frame)
        if event == "call":
            if key in active["entered"]:
                return  # a coroutine resumed: its arguments were read when it was first entered
            as_asked = called_as_pytest_asked(frame, code)
            active["entered"][key] = (frame, as_asked)
            if as_asked:
                active["entered_as_asked"] = True
        elif event == "return":
            entry = active["entered"].get(key)
            if entry is None or entry[0] is not frame or not entry[1]:
                return
            at = frame.f_lasti
            raw = code.co_code
            if 0 <= at < len(raw) and raw[at] in return_ops:
                active["proved"] = True

    def called_as_pytest_asked(frame, code):
        # At its entry a frame's locals are its arguments (and, for a function with a closure, its
        # free variables): a fresh dict, so reading it drops nothing.
        own_globals = active["globals"]
        if own_globals is not None and own_globals.get(id(frame.f_globals)) is not frame.f_globals:
            return False
        local = frame.f_locals
        funcargs = active["funcargs"]
        count = code.co_argcount + code.co_kwonlyargcount
        for name in code.co_varnames[:count]:
            if type(name) is str_type and name in funcargs and local.get(name, active) is not funcargs[name]:
                return False
        # The free variables of the function found for the test, where the frame shows them already.
        closure = active["closure"]
        if closure is not None:
            for name, value in closure:
                seen = local.get(name, active)
                if seen is not active and seen is not value:
                    return False
        return True

    def end(nodeid):
        """The call phase ended (None: whichever was active)."""
        if not active:
            return
        if nodeid is not None and nodeid != active["nodeid"]:
            return
        kept = getprofile() is registered["fn"]
        if kept:
            setprofile(active["previous"])
        registered["watch"].clear()
        del registered["chain"][:]
        results[active["nodeid"]] = outcome(active["proved"], active["entered_as_asked"], kept)
        active.clear()

    def outcome(proved, entered, kept):
        # "returned": proved. "raised": entered as pytest asked and left by an exception (a
        # decorator expecting one, pytest.raises around the test; or a wrapper swallowing its
        # failure). "lost": entered, then another profile function took the place of the
        # recorder's (the test's own cProfile). "none": never entered as pytest asked.
        if proved:
            return "returned"
        if not entered:
            return "none"
        return "raised" if kept else "lost"

    def result(nodeid):
        return results.get(nodeid)

    return register, start, on_frame, end, result
