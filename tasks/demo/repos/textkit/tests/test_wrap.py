import pytest

from textkit import wrap


def test_empty_text():
    assert wrap("", 10) == []


def test_width_must_be_positive():
    with pytest.raises(ValueError):
        wrap("abc", 0)
