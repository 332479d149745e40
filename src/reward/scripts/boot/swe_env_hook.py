"""The grading monitor's audit hook itself (loaded by path beside swe_env_monitor.py, in no
sys.modules, with the monitor's copy of the builtins): it hands each audit event to the monitor's
handler once per thread at a time, and keeps other code from running inside it or walking the heap
while it runs.
"""


def make_hook(handle, emit, boot_dir, os):
    """The hook to install, for the monitor's `handle(event, args)`. Registers what a forked child
    must undo."""
    from _thread import get_ident
    from gc import disable as gc_disable, enable as gc_enable, isenabled as gc_isenabled

    str_type = str
    # Per thread, so that one thread's event being handled never hides another thread's.
    busy = set()

    # Code other than the boot's that still runs while a thread is inside the hook (a signal
    # handler, between any two of its bytecodes) gets the frame it interrupted, which nothing can
    # take back (docs/grading.md, what remains possible). A heap walk there is refused and said:
    # the boot never walks the heap, so any there is another's. What else such code does (a
    # heartbeat that logs, and so reads frames) is the interpreter's ordinary business.
    refused_inside = frozenset(("gc.get_objects", "gc.get_referrers"))
    inside = []

    # No garbage collection while the hook runs: a collection starting at one of its allocations
    # runs the collection callbacks and the finalizers of whatever garbage it finds, code of the
    # patch's among them, with the hook's frames on the stack.
    gc_paused = []

    def hook(event, args):
        me = get_ident()
        if me in busy:
            if event in refused_inside:
                inside.append(event)
                raise RuntimeError(f"swe-env grading: {event} inside the grading monitor is refused")
            return
        # Everything from the mark on is inside the try: an exception a signal handler raises at
        # any point (a time budget) leaves the thread unmarked and the collector as it was.
        try:
            busy.add(me)
            if gc_isenabled():
                gc_disable()
                gc_paused.append(me)
            handle(event, args)
        except (RuntimeError, PermissionError):
            raise
        except Exception as error:
            # A fault of the monitor's own is no concern of the code under test; an exception a
            # signal handler raised while the monitor ran (a SIGALRM time budget) is, as it would
            # have been raised without the monitor.
            if not raised_by_monitor(error):
                raise
        finally:
            try:
                if inside:
                    said = sorted(set(inside))
                    del inside[:]
                    emit({"kind": "monitor", "event": "inside-the-monitor", "detail": ", ".join(said)})
            finally:
                busy.discard(me)
                # Back on once no thread is inside the hook (only if the hook turned it off).
                if gc_paused and not busy:
                    del gc_paused[:]
                    gc_enable()

    def raised_by_monitor(error):
        tb = error.__traceback__
        while tb is not None:
            name = tb.tb_frame.f_code.co_filename
            if type(name) is str_type and not name.startswith(boot_dir):
                # A frame of other code: a signal handler that ran while the monitor did.
                return False
            tb = tb.tb_next
        return True

    def after_fork_in_child():
        # Only the forking thread goes on in a forked child: another thread inside the hook at the
        # fork is not, and the collector it paused is on again.
        busy.clear()
        if gc_paused:
            del gc_paused[:]
            gc_enable()

    os.register_at_fork(after_in_child=after_fork_in_child)
    return hook
