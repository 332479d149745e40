"""Where a fleet's servers are now, for clients whose servers can come back at another address.

A server restarted with the same server id and state directory goes on with its episodes (see the
server's restart survival), but not always at the same address: on Ray, the actor Ray restarts
starts it on another port when the old one is taken. An address entry that names a fleet
(``ray:NAME``: a scheme registered with ``register_scheme``), or a ``resolver`` given to the
client, says which server id is at which address now; a client whose server stopped answering
asks it, and moves that server's episodes to the server id's new address.
"""
from __future__ import annotations

import asyncio
import time
from typing import Callable, Dict, List, Mapping, Optional, Tuple

#: ``{server_id: address}`` of a fleet's servers now.
Resolver = Callable[[], Mapping[str, str]]

#: Address entry schemes (``ray`` for ``ray:NAME``) -> the resolver of the fleet an entry names.
#: Registered from above (swe_env/address_schemes.py): this layer names no integration.
_SCHEMES: Dict[str, Callable[[str], Resolver]] = {}


def register_scheme(scheme: str, resolver_of: Callable[[str], Resolver]) -> None:
    """Makes ``SCHEME:NAME`` address entries stand for a fleet: ``resolver_of(NAME)`` says where
    its servers are (called when a client is built with such an entry)."""
    _SCHEMES[scheme] = resolver_of


def names_fleet(entry: str) -> bool:
    """Whether an address entry names a fleet (a registered scheme) rather than one server."""
    scheme, sep, _ = entry.partition(":")
    return bool(sep) and scheme in _SCHEMES


def fleet_resolver(entry: str) -> Optional[Resolver]:
    """The resolver an address entry stands for (``ray:NAME``), or None for a plain address."""
    if not names_fleet(entry):
        return None
    scheme, _, name = entry.partition(":")
    return _SCHEMES[scheme](name)


class ServerDirectory:
    """Which server id each address is, and where that server id is now."""

    def __init__(self, resolvers: List[Resolver], ttl_s: float = 1.0) -> None:
        self.resolvers = list(resolvers)
        self.ttl_s = ttl_s
        self._server_of: Dict[str, str] = {}
        self._resolved: Tuple[float, Dict[str, str]] = (0.0, {})

    def __bool__(self) -> bool:
        return bool(self.resolvers)

    def resolve(self) -> Dict[str, str]:
        """Asks every resolver (blocking); learns which address is which server id."""
        current: Dict[str, str] = {}
        for resolver in self.resolvers:
            current.update(resolver())
        self._resolved = (time.monotonic(), current)
        for server_id, address in current.items():
            self._server_of[address] = server_id
        return current

    def addresses(self) -> List[str]:
        return list(self.resolve().values())

    async def where_now(self, address: str, timeout_s: float) -> Optional[str]:
        """The address the server last seen at ``address`` answers at now, when it moved."""
        server_id = self._server_of.get(address)
        if not self.resolvers or server_id is None:
            return None
        at, current = self._resolved
        if time.monotonic() - at > self.ttl_s:
            try:
                current = await asyncio.wait_for(asyncio.to_thread(self.resolve), timeout=max(0.5, timeout_s))
            except Exception:  # the resolver cannot tell now (the actor is still restarting): ask again later
                return None
        moved = current.get(server_id)
        return moved if moved and moved != address else None


__all__ = ["Resolver", "ServerDirectory", "fleet_resolver", "names_fleet", "register_scheme"]
