"""``python -m swe_env.openenv --swe-env 127.0.0.1:50051 --port 8000``: an OpenEnv server whose
sessions are swe-env episodes. It prints ``openenv listening on http://HOST:PORT`` once it serves."""
from __future__ import annotations

import argparse
import sys
from typing import List, Optional

import uvicorn

from .app import create_app
from .backend import Backend


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m swe_env.openenv", description=__doc__)
    parser.add_argument("--swe-env", action="append", required=True, metavar="ADDRESS", help="a swe-env server (repeat for a fleet; dns:/ray: entries as the client takes them)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0: a free port (printed)")
    parser.add_argument("--max-sessions", type=int, default=64, help="concurrent sessions (episodes) at most")
    parser.add_argument("--session-timeout", type=float, default=900.0, help="seconds a session may stay idle before it is reaped and its episode closed (0: never)")
    parser.add_argument("--step-timeout", type=float, default=None, help="deadline of one tool call in seconds (default: the client's)")
    return parser.parse_args(argv)


class _AnnouncingServer(uvicorn.Server):
    """Prints the bound address once serving (with --port 0 the port is known only then)."""

    async def startup(self, sockets: Optional[list] = None) -> None:
        await super().startup(sockets)
        for server in self.servers:
            for sock in server.sockets:
                host, port = sock.getsockname()[:2]
                print(f"openenv listening on http://{host}:{port}", flush=True)
                return


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    backend = Backend(args.swe_env, step_timeout_s=args.step_timeout)
    app = create_app(backend, max_sessions=args.max_sessions, session_timeout_s=args.session_timeout or None)
    server = _AnnouncingServer(uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", ws_ping_interval=20, ws_ping_timeout=20))
    try:
        server.run()
    finally:
        backend.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
