import pytest

from minicalc import ParseError, evaluate


def test_addition():
    assert evaluate("1 + 2") == 3


def test_precedence():
    assert evaluate("2 + 3 * 4") == 14


def test_parentheses():
    assert evaluate("2 * (3 + 4)") == 14


def test_simple_power():
    assert evaluate("2 ^ 10") == 1024


def test_float_division():
    assert evaluate("7 / 2") == 3.5


def test_unbalanced_parenthesis():
    with pytest.raises(ParseError):
        evaluate("(1 + 2")
