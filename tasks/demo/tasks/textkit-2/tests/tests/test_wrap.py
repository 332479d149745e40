import pytest

from textkit import wrap


def test_empty_text():
    assert wrap("", 10) == []


def test_width_must_be_positive():
    with pytest.raises(ValueError):
        wrap("abc", 0)


def test_short_text_is_one_line():
    assert wrap("hello world", 20) == ["hello world"]


def test_last_line_is_kept():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_long_word_gets_its_own_line():
    assert wrap("a supercalifragilistic b", 5) == ["a", "supercalifragilistic", "b"]
