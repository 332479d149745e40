"""Code objects compared by what they do, without running any code of theirs (part of swe-env's
grading boot, loaded by path beside swe_env_monitor.py): a hidden test's code against its file's
definitions, a module's code against what its file's text compiles to."""


def make_compare(types):
    """(same_constants, same_code, same_tree)."""
    code_type = types.CodeType
    plain_constant_types = (str, bytes, int, float, complex, bool, type(None), type(Ellipsis))

    def same_constants(a, b):
        """Whether two co_consts tuples hold the same values, compared without running any code of
        theirs: plain values of exact built-in types, tuples and code objects of them."""
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if type(x) is not type(y):
                return False
            if type(x) is tuple:
                if not same_constants(x, y):
                    return False
            elif type(x) is code_type:
                if x.co_code != y.co_code or x.co_names != y.co_names or not same_constants(x.co_consts, y.co_consts):
                    return False
            elif any(type(x) is t for t in plain_constant_types):
                if x != y:
                    return False
            else:
                return False
        return True

    def same_code(a, b):
        return a.co_code == b.co_code and a.co_names == b.co_names and same_constants(a.co_consts, b.co_consts)

    # Every field of a code object that decides what it does (all but its name and line tables).
    code_fields = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_flags", "co_argcount",
                   "co_posonlyargcount", "co_kwonlyargcount", "co_nlocals", "co_stacksize", "co_exceptiontable")

    def same_tree(a, b):
        """Two code objects alike in every field that decides what they do, nested code the same
        way, constants compared without `==` (which would run their own __eq__)."""
        for field in code_fields:
            x, y = getattr(a, field, None), getattr(b, field, None)
            if type(x) is not type(y) or x != y:
                return False
        if len(a.co_consts) != len(b.co_consts):
            return False
        for x, y in zip(a.co_consts, b.co_consts):
            if type(x) is code_type and type(y) is code_type:
                if not same_tree(x, y):
                    return False
            elif not same_constants((x,), (y,)):
                return False
        return True

    return same_constants, same_code, same_tree
