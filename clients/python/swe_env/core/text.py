"""Text helpers shared by the trainer integrations."""
from __future__ import annotations

from typing import Tuple

_TRUNCATION_MARKER = "\n[... {} characters omitted by swe-env to fit the context ...]\n"


def cut_middle(text: str, limit: int) -> Tuple[str, bool]:
    """Head and tail of ``text`` within ``limit`` characters, with a marker saying what was cut
    (the start of a command's output and its end, where errors and summaries are, both matter)."""
    if limit <= 0 or len(text) <= limit:
        return text, False
    keep = max(0, limit - len(_TRUNCATION_MARKER.format(len(text))))
    head = keep - keep // 2
    return text[:head] + _TRUNCATION_MARKER.format(len(text) - keep) + text[len(text) - (keep - head) :], True
