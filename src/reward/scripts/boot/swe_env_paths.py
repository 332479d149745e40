"""Paths as the grading boot reads them while its audit hook runs (sitecustomize.py, beside this file,
loads it by path before any code of the repository runs).

The standard library's path functions look names up in their modules at every call
(`posixpath.abspath` calls `os.fspath`, `realpath` calls `os.lstat`): code under test that replaces
one of those would run inside the hook, where the hook's own frames and closures are in reach. These
take the interpreter's C functions once, now, and call nothing else: strings are exact `str`s, and
every name below is bound in this closure.
"""


def make_paths(os_module):
    """(abspath, realpath, is_file, dirname), for exact `str` paths of a POSIX system."""
    getcwd = os_module.getcwd
    lstat = os_module.lstat
    stat = os_module.stat
    readlink = os_module.readlink
    os_error = OSError
    str_type = str
    file_bits = 0o170000
    link_mode = 0o120000
    regular_mode = 0o100000

    def normalize(path):
        # Absolute `path` with ".", ".." and repeated slashes taken out (POSIX keeps a leading "//").
        parts = []
        for part in path.split("/"):
            if part == "" or part == ".":
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
        lead = "//" if path.startswith("//") and not path.startswith("///") else "/"
        return lead + "/".join(parts)

    def abspath(path):
        if type(path) is not str_type:
            return ""
        if not path.startswith("/"):
            path = getcwd() + "/" + path
        return normalize(path)

    def dirname(path):
        head = path[: path.rfind("/") + 1]
        stripped = head.rstrip("/")
        return stripped if stripped else head

    def realpath(path):
        """The path with every symbolic link resolved (a missing part is kept as it is)."""
        path = abspath(path)
        done = "/"
        rest = [p for p in path.split("/") if p]
        links = 0
        while rest:
            part = rest.pop(0)
            if part == ".":
                continue
            if part == "..":
                done = dirname(done.rstrip("/")) or "/"
                continue
            candidate = done.rstrip("/") + "/" + part
            try:
                mode = lstat(candidate).st_mode
            except os_error:
                mode = 0
            if mode & file_bits != link_mode:
                done = candidate
                continue
            links += 1
            if links > 40:
                return normalize(candidate + "/" + "/".join(rest))
            try:
                target = readlink(candidate)
            except os_error:
                done = candidate
                continue
            if type(target) is not str_type:
                done = candidate
                continue
            if target.startswith("/"):
                done = "/"
            rest = [p for p in target.split("/") if p] + rest
        return normalize(done)

    def is_file(path):
        """A file on disk, or a module inside an archive an installed package is imported from (a
        path whose nearest existing part is a regular file: zipimport's)."""
        try:
            return stat(path).st_mode & file_bits == regular_mode
        except os_error:
            pass
        parent = dirname(path)
        while parent and parent != "/":
            try:
                return stat(parent).st_mode & file_bits == regular_mode
            except os_error:
                parent = dirname(parent)
        return False

    return abspath, realpath, is_file, dirname
