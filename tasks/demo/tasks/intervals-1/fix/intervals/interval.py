from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """The closed interval [start, end]."""

    start: float
    end: float

    def __post_init__(self):
        if self.start > self.end:
            raise ValueError(f"start {self.start} is after end {self.end}")

    def contains(self, x):
        """Whether x lies in the interval, both ends included."""
        return self.start <= x <= self.end

    def overlaps(self, other):
        """Whether the two intervals share at least one point."""
        return self.start <= other.end and other.start <= self.end

    def length(self):
        return self.end - self.start
