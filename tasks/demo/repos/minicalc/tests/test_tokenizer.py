import pytest

from minicalc import ParseError, tokenize


def kinds(text):
    return [t.kind for t in tokenize(text)]


def test_numbers_and_operators():
    assert kinds("1 + 2.5") == ["NUMBER", "+", "NUMBER", "END"]


def test_values():
    assert [t.value for t in tokenize("12*3.5")][:3] == [12, "*", 3.5]


def test_bad_character():
    with pytest.raises(ParseError):
        tokenize("2 $ 3")
