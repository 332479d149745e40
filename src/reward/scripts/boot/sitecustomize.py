"""swe-env's grading boot: loaded by every Python interpreter of a graded test run, before any code of
the repository, from a directory outside it (first on PYTHONPATH; site imports `sitecustomize` before
the script's directory or the working directory joins sys.path, so a repository module cannot stand
in for it).

It loads the monitor (swe_env_monitor.py, beside it) by path, with a copy of the builtins as they
are now, and enters it in no sys.modules; then the sitecustomize it stands in front of, if any.
"""


def _start():
    import builtins
    import importlib.util
    import os
    import sys

    boot_dir = os.path.dirname(os.path.abspath(__file__))

    def chain(boot_dir, sys):
        """The sitecustomize this one stands in front of (Debian's, a conda env's), if there is one."""
        import importlib.machinery
        import importlib.util
        import os

        path = [p for p in sys.path if p and os.path.abspath(p) != boot_dir]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
        if spec is None or spec.origin is None:
            return
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception:
            pass

    if not hasattr(sys, "addaudithook"):
        # Before Python 3.8 no monitor can run (and the monitor's own code is newer than Python 3.5's
        # grammar): the grader reads such a run from its log.
        chain(boot_dir, sys)
        return
    spec = importlib.util.spec_from_file_location("_swe_env_monitor", os.path.join(boot_dir, "swe_env_monitor.py"))
    monitor = importlib.util.module_from_spec(spec)
    # The monitor's own builtins, copied before any code of the repository runs: one replaced
    # later (builtins.len, builtins.open) is never what the monitor calls.
    monitor.__dict__["__builtins__"] = dict(builtins.__dict__)
    spec.loader.exec_module(monitor)
    if monitor.boot():
        chain(boot_dir, sys)


_start()
# Nothing of the boot stays in this module, which sys.modules holds.
del _start
