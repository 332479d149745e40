"""The shell text Harbor's calls become in the episode's one persistent bash.

Harbor's ``exec`` means one fresh process per call (its own directory, variables, user and
timeout); the episode has one shell whose ``cd`` and ``export`` persist. Each call therefore runs
in a child ``bash -c`` so nothing it does (``cd``, ``export``, ``exit``) reaches the shell the
next call uses.
"""
from __future__ import annotations

import shlex
from typing import Mapping, Optional, Union

#: Exit code of coreutils' ``timeout`` when it stopped the command (what Harbor's docker env reports too).
TIMEOUT_EXIT_CODE = 124


def exec_command(
    command: str,
    *,
    cwd: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    timeout_sec: Optional[float] = None,
    user: Union[str, int, None] = None,
) -> str:
    """``command`` as one child process with Harbor's ``exec`` arguments applied."""
    inner = shlex.join(["bash", "-c", command])
    if user is not None and str(user) not in ("root", "0"):
        # runuser keeps the environment given below; -u takes a name or, with '#', a uid.
        name = f"#{user}" if isinstance(user, int) or str(user).isdigit() else str(user)
        inner = f"runuser -u {shlex.quote(name)} -- {inner}"
    if timeout_sec:
        inner = f"timeout -k 5 {int(timeout_sec)} {inner}"
    if env:
        inner = "env " + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items()) + " " + inner
    if cwd:
        inner = f"cd {shlex.quote(cwd)} && {inner}"
    # Stdin is /dev/null in the episode's shell; the subshell keeps `cd` out of it.
    return f"( {inner} )"


def subshell(command: str) -> str:
    """``command`` in a subshell of the episode's shell: its ``cd``, ``set`` and ``exit`` stay in
    it, and no ``execve`` carries its text (one argument is capped at 128 KiB), so the transfer
    chunks below go through the builtin ``printf``."""
    return f"( {command}\n)"


def append_chunk(path: str, chunk: str) -> str:
    """Appends base64 text (no quotes in its alphabet) to ``path``."""
    return f"printf %s {shlex.quote(chunk)} >> {shlex.quote(path)}"


def unpack_tar(b64_path: str, target_dir: str) -> str:
    """Decodes a base64 tar and extracts it into ``target_dir``, then removes the upload."""
    q, t = shlex.quote(b64_path), shlex.quote(target_dir)
    return f"mkdir -p {t} && base64 -d {q} | tar -xf - -C {t} --no-same-owner; s=$?; rm -f {q}; exit $s"


def pack_tar(source: str, b64_path: str, *, directory: bool) -> str:
    """Tars ``source`` (a directory's contents, or one file under its own name) as base64 into
    ``b64_path`` and prints the base64 length."""
    s, q = shlex.quote(source), shlex.quote(b64_path)
    if directory:
        tar = f"test -d {s} && tar -cf - -C {s} ."
    else:
        tar = f"test -f {s} && tar -cf - -C \"$(dirname {s})\" \"$(basename {s})\""
    return f"set -o pipefail; {tar} | base64 -w0 > {q} && wc -c < {q}"


def read_chunk(b64_path: str, offset: int, length: int) -> str:
    """Prints ``length`` bytes of ``b64_path`` from ``offset`` (0-based)."""
    return f"tail -c +{offset + 1} {shlex.quote(b64_path)} | head -c {length}"


def remove(path: str) -> str:
    return f"rm -f {shlex.quote(path)}"
