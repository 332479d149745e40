"""Token helpers shared by the swe_env agent loop and the tool agent."""

from __future__ import annotations

from typing import Any


def filler_token(tokenizer: Any) -> int:
    """One token to stand for a sample that has none (a masked sample still needs a response)."""
    for candidate in (tokenizer.eos_token_id, tokenizer.pad_token_id):
        if isinstance(candidate, int):
            return candidate
    return 0
