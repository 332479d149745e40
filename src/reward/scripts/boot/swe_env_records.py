"""The records the result recorder hands the boot (part of swe-env's grading boot, loaded by path
beside swe_env_monitor.py; what it keeps is reachable only through the audit hook's closure).

Only the recorder's own function may hand records in, and only of the kinds the recorder writes.
Each is completed with what the boot saw itself before it is signed: a report with the outcome
pytest made it with (swe_env_witness.py), whether its test's code was heard to run
(swe_env_proof.py) and whether its file declares an expected failure (swe_env_xfail.py); a test's
code with the boot's verdict on it (swe_env_test_code.py); the session's end with the machinery's
identity and the hooks the boot watched run.
"""


def make_record_handler(state, emit, where_now, own_runtests, test_code, recorder_file, runner_changed, runner_is_repository):
    """on_record(args, caller_frame), for `sys.audit("swe_env.record", record)`."""
    str_type = str
    dict_type = dict
    # What the recorder writes (swe_env_recorder.py); compared by exact type and value.
    recorder_kinds = ("report", "test_code", "end", "collect_skip")

    def on_record(args, caller_frame):
        if caller_frame.f_code is not state["recorder_code"] or len(args) != 1 or type(args[0]) is not dict_type:
            emit({"kind": "monitor", "event": "forged-record", "where": where_now()})
            return
        record = args[0]
        kind = record.get("kind")
        if type(kind) is not str_type or kind not in recorder_kinds:
            # The recorder's function hands in what the recorder writes, nothing else: a `made`
            # record (the boot's own statement of what pytest made) handed in through it is another's.
            emit({"kind": "monitor", "event": "forged-record", "detail": "a record of a kind the recorder does not write", "where": where_now()})
            return
        if kind == "report":
            complete_report(record)
        elif kind == "test_code":
            check_test_code(record, caller_frame)
        elif kind == "end" and state["tampered"] is not None:
            complete_end(record)
        emit(record)

    def complete_report(record):
        report = record.pop("report", None)
        if state["witness_registered"]:
            # The report's own values, and the outcome pytest made it with (swe_env_witness).
            record.update(state["witness"][2](report))
            if record.get("when") == "call" and state["proof"] is not None:
                proved = state["proof"][4](record.get("nodeid"))
                if proved is not None:
                    record["proof"] = proved
            # And what the boot has seen of its item and of the machinery in this process: one
            # that never ends (a forked child leaving by os._exit) sends no end record.
            runtest = own_runtests.get(record.get("nodeid"))
            if runtest is not None:
                record["boot_runtest"] = runtest
            if state["seen_tampered"]:
                record["boot_tampered"] = sorted(state["seen_tampered"])
        if record.get("wasxfail") is True:
            record["xfail_declared"] = state["xfail_declared"](record.get("nodeid"))

    def check_test_code(record, caller_frame):
        if state["hook_watch"] is not None:
            state["hook_watch"][0](caller_frame)
        obj = record.pop("obj", None)
        funcargs = record.pop("funcargs", None)
        nodeid = record.get("nodeid")
        known = type(nodeid) is str_type and test_code is not None
        record["ok"] = test_code[1](nodeid, obj) if known else "unverified"
        if known and state["proof"] is not None and state["witness_registered"]:
            # What runs is not the file's function itself: listen for the file's code to run
            # (swe_env_proof.py), until the phase's end says whether it did.
            targets = test_code[5](nodeid, obj)
            if targets is not None:
                state["proof"][1](nodeid, targets[0], funcargs, targets[1], targets[2])

    def complete_end(record):
        # The machinery's identity, checked here against what the boot saw before any repository
        # code ran: the recorder's own lists are in reach of the code under test (its module's
        # globals), this closure is not.
        record["boot_tampered"] = sorted(state["seen_tampered"].union(state["tampered"]()))
        record["boot_runtest_replaced"] = [[nodeid, file] for nodeid, file in sorted(own_runtests.items())]
        if runner_changed:
            record["boot_runner_changed" if runner_is_repository else "boot_runner_patched"] = list(runner_changed)
        if state["hook_watch"] is not None and state["hook_file"] is not None:
            record["boot_hook_plugins"] = state["hook_watch"][1](recorder_file)

    return on_record
