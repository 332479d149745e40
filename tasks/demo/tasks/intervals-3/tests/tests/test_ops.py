from intervals import Interval, merge, total_length


def test_merge_overlapping():
    assert merge([Interval(1, 3), Interval(2, 5)]) == [Interval(1, 5)]


def test_merge_sorts():
    assert merge([Interval(5, 6), Interval(1, 2)]) == [Interval(1, 2), Interval(5, 6)]


def test_total_length_disjoint():
    assert total_length([Interval(0, 1), Interval(2, 4)]) == 3


def test_total_length_counts_overlap_once():
    assert total_length([Interval(0, 4), Interval(2, 6)]) == 6


def test_total_length_nested():
    assert total_length([Interval(0, 10), Interval(2, 3), Interval(4, 5)]) == 10
