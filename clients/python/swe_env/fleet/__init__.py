"""The fleet layer: which server an episode goes to and where it is (placement), servers found
again at a new address (relocation), task images pulled ahead of their episodes (prefetch). Built
on core/ only; the clients in client/ hold a Placement (tests/test_layers.py keeps it so)."""
from .placement import Placement, resolve_all
from .prefetch import ImageState, PrefetchResult, prefetch_tasks
from .relocation import Resolver, ServerDirectory, fleet_resolver, names_fleet, register_scheme

__all__ = [
    "ImageState",
    "Placement",
    "PrefetchResult",
    "Resolver",
    "ServerDirectory",
    "fleet_resolver",
    "names_fleet",
    "prefetch_tasks",
    "register_scheme",
    "resolve_all",
]
