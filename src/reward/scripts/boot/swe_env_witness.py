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


def make_witness(str_type, builtins_dict, emit, foreign_on_stack, reading, own_runtests):
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

    read_own = reading.instance_reader((_pytest.runner.CallInfo, _pytest.reports.TestReport, exception_info, _pytest.nodes.Node), str_type)
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

    function_type = types.FunctionType
    method_type = types.MethodType

    def code_file(value):
        # The file of a function's code, or of a bound method's; "<no code>" for anything else
        # (nothing of the value is called: exact types, attributes of the C types).
        if type(value) is method_type:
            value = value.__func__
        if type(value) is function_type and type(value.__code__.co_filename) is str_type:
            return value.__code__.co_filename
        return "<no code>"

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
                # An item's own runtest, as each of its phases runs (the recorder reads the items
                # only when the session ends, by when one set for a single test is gone again).
                runtest = attribute(item, "runtest")
                if runtest is not None:
                    own_runtests[nodeid_of(item)] = code_file(runtest)
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
            "subtest": is_subtest(report),
        }

    class_name = type.__dict__["__name__"].__get__

    def is_subtest(report):
        # A subtest's report (pytest 9's SubtestReport, the pytest-subtests plugin's SubTestReport):
        # one of several a test's call logs, never its status. Read from the classes themselves;
        # a report made to look like one only loses its say in the test's status.
        for klass in mro_of(type(report)):
            if class_name(klass) in ("SubtestReport", "SubTestReport"):
                return True
        return False

    def phase_of(args, frame):
        """(nodeid, when) of the phase a `swe_env.call` event says just ran, if the recorder's own
        from_call wrapper raised it, called by pytest; (None, None) otherwise."""
        if len(args) != 1 or frame is None or not genuine(frame, call_makers):
            return None, None
        return nodeid_of(frame.f_back.f_locals.get("item")), text(attribute(args[0], "when"))

    return register, on_event, read_report, trust_plugins, phase_of
