"""Re-export: this module moved to swe_env.client.batch_prefetch (the package's layers: see swe_env/__init__.py).
Kept at its old path for the imports users and docs have; nothing inside swe_env imports it."""
from .client.batch_prefetch import BatchPrefetcher, Client, task_ids_of

__all__ = ["BatchPrefetcher", "Client", "task_ids_of"]
