import pytest

from intervals import Interval


def test_contains_inner_point():
    assert Interval(1, 5).contains(3)


def test_contains_start():
    assert Interval(1, 5).contains(1)


def test_reversed_bounds_rejected():
    with pytest.raises(ValueError):
        Interval(5, 1)


def test_overlaps():
    assert Interval(1, 3).overlaps(Interval(2, 4))
    assert not Interval(1, 2).overlaps(Interval(3, 4))
