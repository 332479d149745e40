"""Closed intervals and operations on collections of them."""
from .interval import Interval
from .ops import merge, total_length

__all__ = ["Interval", "merge", "total_length"]
