"""What the grading boot reads of its process, and what it leaves to the process's children
(loaded by path beside swe_env_monitor.py, at boot only)."""


def command_line(sys):
    """The interpreter's command line as it was given (`python -m pytest ...`, or the `pytest`
    script): sys.orig_argv from Python 3.10 on; before, sys.argv has lost the module's name by now
    (`['-m', ...]`), and the kernel's copy of the command line has it."""
    given = getattr(sys, "orig_argv", None)
    if given:
        return list(given)
    try:
        with open("/proc/self/cmdline", "rb") as f:
            return [a.decode("utf-8", "surrogateescape") for a in f.read().split(b"\0") if a]
    except OSError:
        return list(sys.argv)


def runner_places(realpath):
    """Where pytest and pluggy will be imported from (their packages' folders, or a module's file),
    found as the import will find them, before any of them is imported."""
    import importlib.util

    places = []
    for name in ("_pytest", "pytest", "pluggy"):
        try:
            spec = importlib.util.find_spec(name)
        except Exception:
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            places.extend(realpath(d).rstrip("/") + "/" for d in spec.submodule_search_locations)
        elif spec.origin:
            places.append(realpath(spec.origin))
    return tuple(places)


def leave_environment(os, boot_dir):
    """The environment the test process hands its children, as under the harness: without this boot
    on PYTHONPATH (a child has no key, so its events would not count, and the boot's imports would
    be in its sys.modules) and without the grader's variables."""
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    rest = [p for p in paths if os.path.abspath(p) != boot_dir] if paths != [""] else []
    if rest:
        os.environ["PYTHONPATH"] = os.pathsep.join(rest)
    else:
        os.environ.pop("PYTHONPATH", None)
    for name in ("SWE_ENV_BOOT_CONFIG", "SWE_ENV_BOOT_DIR", "SWE_ENV_RECORDER_MODULE"):
        os.environ.pop(name, None)


def container_started_ns(os, time):
    """When the container began, as a wall-clock time in ns: its PID 1's start (in clock ticks since
    the machine booted, so up to a tick early). The image's files are older; whatever the grading
    wrote into it (the patch, the install's outputs, the hidden tests) is newer. None when /proc
    does not say (then the caller keeps to its own start)."""
    try:
        with open("/proc/1/stat", "rb") as f:
            stat = f.read()
        # The fields after the command's name, which may hold spaces and parentheses: the state is
        # the third field, the start time the twenty-second.
        ticks = int(stat[stat.rindex(b")") + 2 :].split()[19])
        booted = time.time_ns() - time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        return booted + ticks * 1_000_000_000 // os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
