"""Re-export: this module moved to swe_env.fleet.relocation (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .fleet.relocation import (
    Resolver,
    ServerDirectory,
    fleet_resolver,
    names_fleet,
    register_scheme,
)

__all__ = [
    "Resolver",
    "ServerDirectory",
    "fleet_resolver",
    "names_fleet",
    "register_scheme",
]
