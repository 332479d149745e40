"""A tiny arithmetic expression evaluator."""
from .errors import EvalError, ParseError
from .evaluator import evaluate
from .tokenizer import tokenize

__all__ = ["EvalError", "ParseError", "evaluate", "tokenize"]
