"""The address entries that name an integration's fleet, wired into the fleet layer from above.

``ray:NAME`` in a client's addresses stands for the servers of the Ray fleet NAME
(swe_env.ray.SweEnvRayFleet), wherever they are now. The fleet layer resolves such entries through
``register_scheme`` and names no integration; this module, which the package imports first
(swe_env/__init__.py), registers the ones the integrations provide. Every process that imports
any of swe_env (a verl or NeMo-RL worker that builds its client from a config) runs it, and the
integration itself (and ray) is imported only when a client is given such an entry.
"""
from __future__ import annotations

import functools

from .fleet.relocation import Resolver, register_scheme


def ray_fleet(name: str) -> Resolver:
    """Where the servers of the Ray fleet ``name`` are now (``ray:NAME``)."""
    from .ray import fleet_servers  # needs ray: only for such entries

    return functools.partial(fleet_servers, name, 10.0)


register_scheme("ray", ray_fleet)

__all__ = ["ray_fleet"]
