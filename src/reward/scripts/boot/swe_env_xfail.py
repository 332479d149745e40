"""Which hidden tests their own files say may fail as expected (part of swe-env's grading boot,
loaded by path beside swe_env_monitor.py).

An expected failure counts as passing for a PASS_TO_PASS test, and a hook that changes the
collected items could add the mark that makes one. The hidden test files are the grader's: a test
whose file names `xfail` in its definition (its decorators, a parametrize case's marks, its body's
`pytest.xfail` or `applymarker`), in an enclosing class's decorators or `pytestmark`, or in the
module's `pytestmark`, is one its own file expects may fail. Read from the files' bytes as the boot
starts, before any code of the repository's runs.
"""


def declared_xfails(ast, test_files, workdir):
    """The nodeid stems ("path::Class::test") of the tests their file declares may fail as expected."""
    declared = set()
    for path in test_files:
        try:
            with open(path, "rb") as f:
                data = f.read()
            tree = ast.parse(data, path)
        except (OSError, SyntaxError, ValueError):
            continue
        lines = data.split(b"\n")
        relative = path[len(workdir) :] if path.startswith(workdir) else path
        module_declares = any(_names_xfail(ast, lines, node) for node in tree.body if _assigns_pytestmark(ast, node))
        _walk(ast, lines, tree.body, relative, module_declares, declared)
    return frozenset(declared)


def _walk(ast, lines, body, prefix, inherited, declared):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if inherited or _names_xfail(ast, lines, node):
                declared.add(prefix + "::" + node.name)
        elif isinstance(node, ast.ClassDef):
            marks = any(_span_names_xfail(ast, lines, d, d) for d in node.decorator_list)
            marks = marks or any(_names_xfail(ast, lines, n) for n in node.body if _assigns_pytestmark(ast, n))
            _walk(ast, lines, node.body, prefix + "::" + node.name, inherited or marks, declared)


def _assigns_pytestmark(ast, node):
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, getattr(ast, "AnnAssign", ast.AugAssign))):
        targets = [node.target]
    else:
        return False
    return any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets)


def _names_xfail(ast, lines, node):
    """Whether the text of the node, with its decorators, names xfail."""
    first = node.decorator_list[0] if getattr(node, "decorator_list", None) else node
    return _span_names_xfail(ast, lines, first, node)


def _span_names_xfail(ast, lines, first, node):
    start = getattr(first, "lineno", 1) - 1
    end = _last_line(ast, node)
    return any(b"xfail" in line for line in lines[start:end])


def _last_line(ast, node):
    # end_lineno from Python 3.8; before it, the deepest line of the node's parts.
    end = getattr(node, "end_lineno", None)
    if end is not None:
        return end
    return max((getattr(n, "lineno", 0) for n in ast.walk(node)), default=getattr(node, "lineno", 1))


def is_declared(declared, nodeid):
    """Whether a report's test is one of `declared` (a parametrized case by its function; pytest's
    rootdir may sit above or below the working directory the stems are relative to)."""
    stem = nodeid.split("[", 1)[0]
    if stem in declared:
        return True
    return any(d.endswith("/" + stem) or stem.endswith("/" + d) for d in declared)
