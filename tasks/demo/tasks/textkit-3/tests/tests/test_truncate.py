import pytest

from textkit import truncate


def test_short_text_is_unchanged():
    assert truncate("hello", 10) == "hello"


def test_exact_length_is_unchanged():
    assert truncate("hello", 5) == "hello"


def test_negative_length_rejected():
    with pytest.raises(ValueError):
        truncate("hello", -1)


def test_result_fits_in_length():
    assert truncate("hello world", 8) == "hello..."


def test_custom_ellipsis():
    assert truncate("abcdefgh", 5, ellipsis="~") == "abcd~"


def test_length_shorter_than_ellipsis():
    assert truncate("abcdefgh", 2) == ".."
