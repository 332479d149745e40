class ParseError(Exception):
    """The expression is not well formed."""


class EvalError(Exception):
    """The expression is well formed but cannot be evaluated (e.g. division by zero)."""
