"""Which code may walk the heap in the graded process (part of swe-env's grading boot, loaded by
path beside swe_env_monitor.py; used by swe_env_acts.py inside the audit hook): learnt as modules
are executed, known by identity."""


def make_walkers(code_type, files_before, same_tree, test_files):
    """(learn, compiled_from_file, walkers, alias_walkers, after_line): learn(module_code,
    hidden_test, verify) takes in a module the import system ran; walkers holds the ids of the code
    that may walk; alias_walkers, of code that asks for the walk under a name its module bound it
    to; after_line(path), whether a file was written since the line (or cannot be told)."""
    from os import fstat
    from os import stat as stat_of

    str_type = str

    def read_with_ctime(path):
        """A file's bytes and the ctime of the very inode they were read from (one open: a name
        switched between two files between a read and a stat cannot pair one's text with the
        other's age)."""
        try:
            with open(path, "rb") as f:
                return f.read(), fstat(f.fileno()).st_ctime_ns
        except OSError:
            return None, None

    # The hidden test files' bytes as they are now, before any code of the repository's runs: what
    # their modules are held to, whatever is written over them later.
    test_bytes = {}
    for path in test_files:
        test_bytes[path] = read_with_ctime(path)[0]

    def after_line(path):
        try:
            return stat_of(path).st_ctime_ns >= files_before
        except (OSError, TypeError, ValueError):
            return True

    # The code that may walk the heap: functions (and module code) that name the walk, of modules
    # the import system ran from a source file of the image's (older than the container:
    # `files_before`, the grader's word or the container's start) whose text compiles to what ran,
    # or that pytest's rewriting import ran from such a file with none of the patch's code on the
    # stack, or of the hidden tests (the grader's, checked against their text as they are learnt).
    # Known by identity, kept alive. Code made any other way (text a callable of C functions hands
    # to exec, code compiled and turned into a function without exec, a file the install or the
    # run wrote, a compiled cache planted beside an old file, a loader handed other text) is no
    # file's own and names what it likes.
    walkers = set()
    kept_walkers = []

    def compiled_from_file(code, older):
        """Whether module code is what its file's text compiles to, compiled here from the bytes on
        disk (a cache planted beside the source, or a loader handed other text, runs what it
        likes under the file's name); with `older`, only a file unchanged since before the line;
        without, a hidden test file, as its bytes were when the boot started."""
        path = code.co_filename
        if older:
            data, ctime = read_with_ctime(path)
            # Text changed since the line would have moved the inode's ctime.
            if data is None or type(ctime) is not int or ctime >= files_before:
                return False
        else:
            data = test_bytes.get(path)
            if data is None:
                return False
        try:
            made = compile(data, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            return False
        return same_tree(code, made)

    def learn_walkers(module_code, hidden_test=False, verify=False):
        # Code the import system compiled from source (or unmarshalled from its cache): its names
        # are exact strings, compared in C (this runs for every module a test run imports).
        found = []
        stack = [module_code]
        while stack:
            c = stack.pop()
            names = c.co_names
            if "get_objects" in names or "get_referrers" in names:
                found.append(c)
            for const in c.co_consts:
                if type(const) is code_type:
                    stack.append(const)
        if not found:
            return
        sourced = hidden_test
        if not sourced and verify:
            sourced = compiled_from_file(module_code, True)
        elif not sourced:
            try:
                sourced = stat_of(module_code.co_filename).st_ctime_ns < files_before
            except (OSError, TypeError, ValueError):
                sourced = False
        if sourced:
            for c in found:
                walkers.add(id(c))
                kept_walkers.append(c)
            learn_aliases(module_code)

    # A walk a module binds under a name of its own (`from gc import get_objects as all_objects`):
    # its functions that use that name ask for the walk by it. Read from the module's bytecode: an
    # import of the function stored at once under another name.
    import opcode as opcodes

    import_from = opcodes.opmap.get("IMPORT_FROM")
    stores = (opcodes.opmap.get("STORE_NAME"), opcodes.opmap.get("STORE_GLOBAL"))
    cache_op = opcodes.opmap.get("CACHE")
    extended_arg = opcodes.EXTENDED_ARG
    alias_walkers = {}

    def module_aliases(module_code):
        aliases = {}
        code = module_code.co_code
        names = module_code.co_names
        pending = None
        extended = 0
        for i in range(0, len(code) - 1, 2):
            op, arg = code[i], code[i + 1] | extended
            if op == extended_arg:
                extended = arg << 8
                continue
            extended = 0
            if op == cache_op:
                continue
            if pending is not None and op in stores and arg < len(names) and type(names[arg]) is str_type and names[arg] != pending:
                aliases[names[arg]] = pending
            pending = None
            if op == import_from and arg < len(names) and names[arg] in ("get_objects", "get_referrers"):
                pending = names[arg]
        return aliases

    def learn_aliases(module_code):
        try:
            aliases = module_aliases(module_code)
        except Exception:
            return
        if not aliases:
            return
        stack = [module_code]
        while stack:
            c = stack.pop()
            for name in c.co_names:
                walk = aliases.get(name) if type(name) is str_type else None
                if walk is not None:
                    walkers.add(id(c))
                    kept_walkers.append(c)
                    alias_walkers[id(c)] = walk
            for const in c.co_consts:
                if type(const) is code_type:
                    stack.append(const)

    return learn_walkers, compiled_from_file, walkers, alias_walkers, after_line
