"""Small text utilities."""
from .slug import slugify
from .truncate import truncate
from .wrap import wrap

__all__ = ["slugify", "truncate", "wrap"]
__version__ = "0.3.0"
