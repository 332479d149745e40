"""The package's layers, read from its source with ``ast`` (no server, nothing imported).

swe_env is layered, each layer importing only the ones below it:

    core      the wire: channels, errors, results, parsing (only the generated stubs below it)
    fleet     placement, relocation, prefetch                      -> core
    client    the clients, fork/replay, the envs, BatchPrefetcher  -> fleet, core
    adapters  trl, verl, ray, harbor, openenv, nemo_gym, nemo_rl, mini_swe_agent -> client, fleet, core

Above them the facade: the package's ``__init__`` and the modules left at the old paths (thin
re-exports that nothing inside the package imports), and ``address_schemes``, the one place that
names an adapter for the layers below (the ``ray:NAME`` address entry). Every import counts,
including those inside functions and under ``TYPE_CHECKING``: no module imports itself back
through any chain, whether or not the import runs at start.
"""
from __future__ import annotations

import ast
import os
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

import pytest

PACKAGE = "swe_env"
ROOT = Path(os.environ.get("SWE_ENV_LAYERS_ROOT", Path(__file__).resolve().parents[1])) / PACKAGE

LAYERS = ("core", "fleet", "client")
ADAPTERS = ("trl", "verl", "ray", "harbor", "openenv", "nemo_gym", "nemo_rl", "mini_swe_agent")
#: The modules at the paths the layers moved from: re-exports only, for users' imports.
SHIMS = (
    "batch_prefetch",
    "branching",
    "channel_options",
    "env",
    "errors",
    "parsing",
    "placement",
    "prefetch",
    "relocation",
    "results",
    "sync_client",
    "text",
)
WIRING = "address_schemes"
#: What each kind of module may import of the package (besides its own kind).
ALLOWED = {
    "_proto": set(),
    "core": {"_proto"},
    "fleet": {"_proto", "core"},
    "client": {"_proto", "core", "fleet"},
    "adapter": {"_proto", "core", "fleet", "client"},
    "shim": {"core", "fleet", "client"},
    "wiring": {"fleet", "adapter"},
    "facade": {"core", "fleet", "client", "shim", "wiring"},
}
#: Third-party packages the layers below the adapters may use: the client's own dependencies.
BASE_DEPENDENCIES = {"grpc", "google"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> Dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py")) if "_proto" not in p.relative_to(ROOT).parts}


def kind(module: str) -> str:
    """Which layer a module of the package belongs to."""
    parts = module.split(".")
    if len(parts) == 1:
        return "facade"
    top = parts[1]
    if top in LAYERS:
        return top
    if top in ADAPTERS:
        return "adapter"
    if top == "_proto":
        return "_proto"
    if top in SHIMS and len(parts) == 2:
        return "shim"
    if top == WIRING and len(parts) == 2:
        return "wiring"
    return "unplaced"


def unit(module: str) -> str:
    """The unit an import stays inside without crossing layers: an adapter, or a layer."""
    parts = module.split(".")
    return ".".join(parts[:2]) if kind(module) in ("adapter", "_proto") else kind(module)


def imports(module: str, path: Path, known: Set[str]) -> Iterator[Tuple[int, str]]:
    """(line, imported name) of every import in the file, relative ones made absolute; a name
    imported from a package is the submodule when there is one."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base


def owner(name: str, known: Set[str]) -> Optional[str]:
    """The package's module an imported name is in (None outside the package)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def graph() -> Tuple[Dict[str, Set[str]], Dict[str, List[Tuple[int, str]]]]:
    """Edges between the package's modules, and every import outside it (line, name), per module."""
    files = modules()
    known = set(files) | {f"{PACKAGE}._proto"}
    edges: Dict[str, Set[str]] = {m: set() for m in files}
    outside: Dict[str, List[Tuple[int, str]]] = {m: [] for m in files}
    for module, path in files.items():
        for line, name in imports(module, path, known):
            if name == PACKAGE or name.startswith(PACKAGE + "."):
                target = owner(name, known)
                if target and target != module:
                    edges[module].add(target)
            else:
                outside[module].append((line, name))
    return edges, outside


def cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_package_is_where_the_check_looks() -> None:
    assert (ROOT / "__init__.py").is_file(), ROOT
    assert len(modules()) > 20


def test_no_import_circle() -> None:
    edges, _ = graph()
    found = cycles(edges)
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_every_module_is_in_a_layer() -> None:
    unplaced = [m for m in modules() if kind(m) == "unplaced"]
    assert not unplaced, f"modules in no layer: {unplaced}"


def test_each_layer_imports_only_the_layers_below_it() -> None:
    edges, _ = graph()
    wrong = [
        f"{m} ({kind(m)}) imports {t} ({kind(t)})"
        for m in sorted(edges)
        for t in sorted(edges[m])
        if unit(t) != unit(m) and kind(t) not in ALLOWED.get(kind(m), set())
    ]
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_the_layers_below_the_adapters_import_no_framework() -> None:
    _, outside = graph()
    allowed = set(sys.stdlib_module_names) | BASE_DEPENDENCIES
    wrong = [f"{m}:{line} imports {name}" for m in sorted(outside) if kind(m) in LAYERS for line, name in outside[m] if name.split(".")[0] not in allowed]
    assert not wrong, "frameworks imported below the adapters:\n" + "\n".join(wrong)


@pytest.mark.parametrize("shim", SHIMS)
def test_the_old_paths_only_re_export(shim: str) -> None:
    path = ROOT / f"{shim}.py"
    assert path.is_file(), f"{path}: users import this path (keep it as a re-export)"
    body = ast.parse(path.read_text()).body
    code = [n for n in body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr)) and not (isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "__all__")]
    assert not code, f"{shim}.py defines more than re-exports (line {code[0].lineno if code else 0})"
