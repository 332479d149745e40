from .errors import EvalError, ParseError
from .tokenizer import tokenize


class _Parser:
    """Recursive descent over the grammar:

        expr  := term (("+" | "-") term)*
        term  := power (("*" | "/") power)*
        power := atom ("^" power)?        -- right associative
        atom  := NUMBER | "-" atom | "(" expr ")"
    """

    def __init__(self, tokens):
        self.tokens = tokens
        self.index = 0

    def peek(self):
        return self.tokens[self.index]

    def take(self, kind):
        token = self.peek()
        if token.kind != kind:
            raise ParseError(f"expected {kind} at {token.pos}, found {token.kind}")
        self.index += 1
        return token

    def parse(self):
        value = self.expr()
        self.take("END")
        return value

    def expr(self):
        value = self.term()
        while self.peek().kind in ("+", "-"):
            op = self.take(self.peek().kind).kind
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self):
        value = self.power()
        while self.peek().kind in ("*", "/"):
            op = self.take(self.peek().kind).kind
            right = self.power()
            if op == "*":
                value = value * right
            elif right == 0:
                raise EvalError(f"division by zero at {self.tokens[self.index - 1].pos}")
            else:
                value = value / right
        return value

    def power(self):
        value = self.atom()
        while self.peek().kind == "^":
            self.take("^")
            value = value ** self.atom()
        return value

    def atom(self):
        token = self.peek()
        if token.kind == "NUMBER":
            self.index += 1
            return token.value
        if token.kind == "(":
            self.take("(")
            value = self.expr()
            self.take(")")
            return value
        raise ParseError(f"unexpected {token.kind} at {token.pos}")


def evaluate(text):
    """Evaluate an arithmetic expression and return an int or a float."""
    return _Parser(tokenize(text)).parse()
