import pytest

from textkit import truncate


def test_short_text_is_unchanged():
    assert truncate("hello", 10) == "hello"


def test_exact_length_is_unchanged():
    assert truncate("hello", 5) == "hello"


def test_negative_length_rejected():
    with pytest.raises(ValueError):
        truncate("hello", -1)
