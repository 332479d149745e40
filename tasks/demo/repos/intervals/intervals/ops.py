from .interval import Interval


def merge(intervals):
    """Merge intervals that overlap or touch; the result is sorted by start."""
    result = []
    for interval in sorted(intervals, key=lambda i: (i.start, i.end)):
        if result and interval.start < result[-1].end:
            last = result[-1]
            result[-1] = Interval(last.start, max(last.end, interval.end))
        else:
            result.append(interval)
    return result


def total_length(intervals):
    """The length of the union of the intervals."""
    return sum(interval.length() for interval in intervals)
