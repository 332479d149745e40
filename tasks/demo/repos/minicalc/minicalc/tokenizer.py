from collections import namedtuple

from .errors import ParseError

Token = namedtuple("Token", ["kind", "value", "pos"])

OPERATORS = "+-*/^()"


def tokenize(text):
    """Split an expression into NUMBER and operator tokens, ending with an END token."""
    tokens = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch.isdigit() or ch == ".":
            start = i
            while i < len(text) and (text[i].isdigit() or text[i] == "."):
                i += 1
            literal = text[start:i]
            try:
                value = float(literal) if "." in literal else int(literal)
            except ValueError:
                raise ParseError(f"bad number {literal!r} at {start}") from None
            tokens.append(Token("NUMBER", value, start))
        elif ch in OPERATORS:
            tokens.append(Token(ch, ch, i))
            i += 1
        else:
            raise ParseError(f"unexpected character {ch!r} at {i}")
    tokens.append(Token("END", None, len(text)))
    return tokens
