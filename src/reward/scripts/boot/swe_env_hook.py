"""The grading monitor's audit hook itself (loaded by path beside swe_env_monitor.py, in no
sys.modules, with the monitor's copy of the builtins): it hands each audit event to the monitor's
handler once per thread at a time, and keeps other code from running inside it or reaching its
frames while it runs.
"""


def make_hook(handle, emit, boot_codes, boot_dir, os):
    """The hook to install, for the monitor's `handle(event, args)`; `boot_codes` holds the ids of
    the boot's own code objects. Registers what a forked child must undo."""
    from _thread import get_ident
    from gc import disable as gc_disable, enable as gc_enable, isenabled as gc_isenabled
    from sys import _getframe as getframe

    str_type = str
    # Per thread, so that one thread's event being handled never hides another thread's.
    busy = set()

    # Code other than the boot's can run while a thread is inside the hook: a finalizer or a garbage
    # collection callback the interpreter runs at one of the hook's own allocations, a weakref's
    # callback. Whatever it asks for there that would hand it the hook's frames (and through them
    # its closure) is refused, and said once the hook is done.
    refused_inside = frozenset(("sys._getframe", "sys._current_frames", "gc.get_objects", "gc.get_referrers", "object.__getattr__"))
    frame_attributes = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "f_locals", "f_globals"))
    inner = set()
    inside = []

    def foreign_inside(event, args):
        if event == "object.__getattr__" and not (len(args) > 1 and type(args[1]) is str_type and args[1] in frame_attributes):
            return False
        me = get_ident()
        if me in inner:
            return False
        inner.add(me)
        try:
            return id(getframe(2).f_code) not in boot_codes
        finally:
            inner.discard(me)

    # No garbage collection while the hook runs: a collection starting at one of its allocations
    # runs the collection callbacks and the finalizers of whatever garbage it finds, code of the
    # patch's among them, with the hook's frames on the stack. Nothing between the hook's start and
    # the pause allocates what the collector counts (an int, a set entry).
    gc_paused = []

    def hook(event, args):
        me = get_ident()
        if me in busy:
            if event in refused_inside and foreign_inside(event, args):
                inside.append(event)
                raise RuntimeError(f"swe-env grading: {event} inside the grading monitor is refused")
            return
        busy.add(me)
        if gc_isenabled():
            gc_disable()
            gc_paused.append(me)
        try:
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
            if inside:
                said = sorted(set(inside))
                del inside[:]
                emit({"kind": "monitor", "event": "inside-the-monitor", "detail": ", ".join(said)})
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
        inner.clear()
        if gc_paused:
            del gc_paused[:]
            gc_enable()

    os.register_at_fork(after_in_child=after_fork_in_child)
    return hook
