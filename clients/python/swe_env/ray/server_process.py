"""One node's swe-env server process as its Ray actor runs it, in a way that outlives the actor.

Ray kills an actor's child processes when the actor exits (``ray.kill``), and an actor killed
outright (an OOM kill of its worker) leaves them running. Either way the actor that Ray restarts
must find that server again: one still running (it holds the server id's state directory, its
episodes and its port) is taken over as it is; a gone one is started again with the same server
id and state directory, so it re-adopts the node's live episodes, on the same port when it is free.

So the server is a grandchild of the actor: a small ``bash`` between them waits for it (nothing is
left a zombie while the actor lives) and is all that Ray kills with the actor. Each start is
recorded on the node (``<tmp>/swe-env-ray/<server id>.json``: pid, the kernel's start time of that
pid, address), which is how a restarted actor finds it.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

RECORDS = Path(tempfile.gettempdir()) / "swe-env-ray"

# The server runs under this shell, which prints the server's pid beside the server's own
# "listening on" line and waits for (reaps) it; Ray kills the shell with the actor, not the server.
# Beside it a watchdog: once no actor has owned the server (the pid in the owner file, alive and
# not a zombie) for SWE_ENV_RAY_ORPHAN_GRACE_S, the job is gone (Ray restarts an actor within
# seconds), and the server is stopped with SIGTERM: it drains and removes its containers.
_WRAPPER = r"""
"$@" & server=$!
echo "swe-env-pid $server"
(
  last=$SECONDS
  while kill -0 "$server" 2>/dev/null; do
    owner=$(cat "$SWE_ENV_RAY_OWNER_FILE" 2>/dev/null)
    if [ -n "$owner" ] && read -r stat < "/proc/$owner/stat" 2>/dev/null; then
      state=${stat##*) }
      [ "${state%% *}" != Z ] && last=$SECONDS
    fi
    if (( SECONDS - last >= ${SWE_ENV_RAY_ORPHAN_GRACE_S:-60} )); then kill -TERM "$server"; exit 0; fi
    sleep 1
  done
) </dev/null >/dev/null 2>&1 &
wait "$server"
"""


def _stat(pid: int) -> Optional[List[str]]:
    """Fields 3.. of /proc/PID/stat (state first, start time at index 19), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def process_running(pid: int, start: str) -> bool:
    """Whether the process with this pid and kernel start time still runs (a zombie does not)."""
    fields = _stat(pid)
    return fields is not None and fields[19] == start and fields[0] not in ("Z", "X")


class ServerProcess:
    """Starts, finds again and stops the server process of one server id on this node."""

    def __init__(self, server_id: str) -> None:
        self.server_id = server_id
        self.record_file = RECORDS / f"{server_id}.json"
        #: The pid of the actor that owns the server now (the watchdog's clue that the job lives).
        self.owner_file = RECORDS / f"{server_id}.owner"
        self.pid = 0
        self.start_time = ""
        self.address = ""
        #: The shell between the actor and the server, when this actor started it.
        self.shell: Optional[subprocess.Popen] = None

    # --- the record on the node ----------------------------------------------------------------

    def previous(self) -> Dict[str, object]:
        try:
            return dict(json.loads(self.record_file.read_text()))
        except (OSError, ValueError):
            return {}

    def _write_record(self) -> None:
        RECORDS.mkdir(parents=True, exist_ok=True)
        tmp = self.record_file.with_suffix(".tmp")
        tmp.write_text(json.dumps({"pid": self.pid, "start": self.start_time, "address": self.address}))
        os.replace(tmp, self.record_file)

    def own(self) -> None:
        """This process (the actor) owns the server from now on."""
        RECORDS.mkdir(parents=True, exist_ok=True)
        tmp = self.owner_file.with_suffix(".owner-tmp")
        tmp.write_text(str(os.getpid()))
        os.replace(tmp, self.owner_file)

    def forget(self) -> None:
        self.record_file.unlink(missing_ok=True)
        self.owner_file.unlink(missing_ok=True)

    # --- lifecycle ----------------------------------------------------------------------------

    def adopt_previous(self) -> bool:
        """Takes over the server an earlier actor of this server id started, if it still runs."""
        prev = self.previous()
        pid, start, address = int(str(prev.get("pid", 0) or 0)), str(prev.get("start", "")), str(prev.get("address", ""))
        if not pid or not address or not process_running(pid, start):
            return False
        self.pid, self.start_time, self.address, self.shell = pid, start, address, None
        return True

    def previous_port(self) -> int:
        address = str(self.previous().get("address", ""))
        return int(address.rsplit(":", 1)[1]) if ":" in address else 0

    def start(self, command: Sequence[str], env: Dict[str, str], log: Path) -> str:
        """Starts the server; returns its address (raises RuntimeError when it does not listen)."""
        with open(log, "ab") as sink:
            # Its own session: a signal to the actor's process group does not reach the server.
            shell = subprocess.Popen(
                ["bash", "-c", _WRAPPER, "swe-env-server", *command],
                stdout=subprocess.PIPE,
                stderr=sink,
                text=True,
                env={**env, "SWE_ENV_RAY_OWNER_FILE": str(self.owner_file)},
                start_new_session=True,
            )
        pid_match = match = None
        seen: List[str] = []
        while shell.stdout is not None and not (pid_match and match):
            line = shell.stdout.readline()
            if not line:
                break
            seen.append(line)
            pid_match = pid_match or re.match(r"swe-env-pid (\d+)", line)
            match = match or re.search(r"listening on (\S+)", line)
        if not pid_match or not match:
            if pid_match:
                self._kill(int(pid_match.group(1)))
            shell.kill()
            shell.wait()
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"the swe-env server did not start: {''.join(seen)!r} {tail}")
        self.pid = int(pid_match.group(1))
        fields = _stat(self.pid)
        self.start_time = fields[19] if fields else ""
        self.address = match.group(1)
        self.shell = shell
        self._write_record()
        return self.address

    @staticmethod
    def _kill(pid: int) -> None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def running(self) -> bool:
        if self.shell is not None:
            return self.shell.poll() is None
        return bool(self.pid) and process_running(self.pid, self.start_time)

    def wait(self, poll_s: float = 0.5) -> None:
        """Returns once the server has ended."""
        if self.shell is not None:
            self.shell.wait()
            return
        while self.running():
            time.sleep(poll_s)

    def signal(self, sig: int) -> None:
        if self.running():
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, timeout_s: float = 120.0) -> None:
        """SIGTERM (the server drains and removes its containers), SIGKILL after ``timeout_s``."""
        self.signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.2)
        if self.running():
            self.signal(signal.SIGKILL)
        if self.shell is not None:
            self.shell.wait()
        self.forget()
