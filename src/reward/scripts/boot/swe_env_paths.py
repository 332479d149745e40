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


def make_source_decoder():
    """decode(raw) -> a Python file's text as the interpreter reads it (its PEP 263 coding line,
    UTF-8 otherwise), by C codecs alone; None for an encoding other than UTF-8, Latin-1 or ASCII
    (looking another up may run a codec search function the code under test registered)."""
    import _codecs

    utf_8, latin_1, ascii_ = _codecs.utf_8_decode, _codecs.latin_1_decode, _codecs.ascii_decode
    known = {
        "utf-8": utf_8, "utf8": utf_8, "latin-1": latin_1, "latin1": latin_1, "iso-8859-1": latin_1,
        "iso8859-1": latin_1, "l1": latin_1, "iso-latin-1": latin_1, "ascii": ascii_, "us-ascii": ascii_,
    }
    name_chars = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")

    def declared(line):
        # "# -*- coding: latin-1 -*-", "# vim: set fileencoding=latin-1 :"
        stripped = line.lstrip(b" \t\f")
        if not stripped.startswith(b"#"):
            return None
        at = stripped.find(b"coding")
        if at < 0 or at + 6 >= len(stripped) or stripped[at + 6] not in b":=":
            return None
        rest = stripped[at + 7 :].lstrip(b" \t")
        end = 0
        while end < len(rest) and rest[end] in name_chars:
            end += 1
        return rest[:end].decode("ascii").lower().replace("_", "-") or None

    def decode(raw):
        lines = raw.split(b"\n", 2)
        encoding = "utf-8"
        for line in lines[:2]:
            found = declared(line)
            if found is not None:
                encoding = found
                break
        codec = known.get(encoding)
        if codec is None:
            return None
        return codec(raw, "replace")[0]

    return decode
