"""Files in and out of the episode's container through its ``bash``: tar, base64, in chunks that
stay under the step's command and output limits.

What comes back is the agent's (it had root in that container): it is extracted with tarfile's
``data`` filter, so no member lands outside the target directory, and a download larger than
``MAX_DOWNLOAD_BYTES`` is refused.
"""
from __future__ import annotations

import base64
import io
import tarfile
import uuid
from pathlib import Path
from typing import Union

from .commands import append_chunk, pack_tar, read_chunk, remove, subshell, unpack_tar
from .episode import Episode

#: Base64 characters per command: far under gRPC's message limit and the shell's line handling.
UPLOAD_CHUNK = 256 * 1024
#: Base64 characters read back per step: under the episode's 4 MiB output limit, so never cut.
DOWNLOAD_CHUNK = 1024 * 1024
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024


class TransferFailed(RuntimeError):
    pass


def _scratch() -> str:
    return f"/tmp/.swe-env-harbor-{uuid.uuid4().hex}.b64"


async def _run(episode: Episode, command: str, what: str) -> str:
    result = await episode.bash(subshell(command))
    if result.exit_code != 0:
        raise TransferFailed(f"{what} failed (exit {result.exit_code}): {result.observation[-1000:]}")
    return result.observation


async def upload_tar(episode: Episode, data: bytes, target_dir: str) -> None:
    text = base64.b64encode(data).decode("ascii")
    scratch = _scratch()
    await _run(episode, remove(scratch), "upload")
    for start in range(0, len(text), UPLOAD_CHUNK):
        await _run(episode, append_chunk(scratch, text[start : start + UPLOAD_CHUNK]), "upload")
    await _run(episode, unpack_tar(scratch, target_dir), f"unpacking into {target_dir}")


def tar_of_dir(source_dir: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in sorted(source_dir.rglob("*")):
            tar.add(path, arcname=path.relative_to(source_dir).as_posix(), recursive=False)
    return buffer.getvalue()


def tar_of_file(source: Path, name: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(source, arcname=name, recursive=False)
    return buffer.getvalue()


async def download_tar(episode: Episode, source: str, *, directory: bool) -> bytes:
    scratch = _scratch()
    try:
        size_text = await _run(episode, pack_tar(source, scratch, directory=directory), f"reading {source}")
        size = int(size_text.strip().splitlines()[-1])
        if size > MAX_DOWNLOAD_BYTES * 4 // 3:
            raise TransferFailed(f"{source} is larger than {MAX_DOWNLOAD_BYTES} bytes")
        parts = []
        for offset in range(0, size, DOWNLOAD_CHUNK):
            parts.append(await _run(episode, read_chunk(scratch, offset, min(DOWNLOAD_CHUNK, size - offset)), f"reading {source}"))
        text = "".join(parts)
        if len(text) != size:
            raise TransferFailed(f"reading {source}: {len(text)} of {size} bytes came back")
        return base64.b64decode(text, validate=True)
    finally:
        try:
            await episode.bash(subshell(remove(scratch)))
        except Exception:  # the episode may have ended; the scratch file goes with its container
            pass


def extract(data: bytes, target_dir: Union[str, Path]) -> None:
    """Extracts what the container sent, refusing members outside ``target_dir`` (links, absolute
    paths, devices): the ``data`` filter."""
    Path(target_dir).mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        tar.extractall(target_dir, filter="data")
