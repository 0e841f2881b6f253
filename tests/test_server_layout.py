"""The server package is laid out by job: nothing imports ``app.py`` (it builds the
application only), the package's modules import each other without a cycle, every such
import sits at a module's top (none hidden in a function or behind ``TYPE_CHECKING`` to
dodge a cycle), and no module grows past about 400 lines. Checked on the source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from test_layering import import_cycles

SERVER = Path(__file__).resolve().parent.parent / "src" / "tienlen" / "apps" / "server"
PACKAGE = "tienlen.apps.server"
#: The package's face re-exports ``Server`` and ``create_app`` lazily (``tienlen play``
#: must not load the server): the one module allowed to import ``app`` and to do it late.
FACE = PACKAGE
MAX_LINES = 420


def module_name(path: Path) -> str:
    parts = path.relative_to(SERVER).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


MODULES = {module_name(p): p for p in sorted(SERVER.rglob("*.py")) if "migrations" not in p.parts}


def imported(path: Path) -> list[tuple[str, ast.stmt, bool]]:
    """(module, statement, at top level) for each import of a server module by ``path``;
    ``from .x import y`` counts ``.x.y`` where ``y`` is a module, else ``.x``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top = {id(node) for node in tree.body}
    out: list[tuple[str, ast.stmt, bool]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            subs = [f"{module}.{alias.name}" for alias in node.names]
            targets = [sub if sub in MODULES else module for sub in subs]
        for target in targets:
            if target in MODULES and target != name:
                out.append((target, node, id(node) in top))
    return out


GRAPH = {name: sorted({m for m, _n, _t in imported(path)}) for name, path in MODULES.items()}


def test_the_package_is_found() -> None:
    assert {f"{PACKAGE}.{m}" for m in ("app", "deps", "hub", "planner", "commits")} <= set(GRAPH)
    assert f"{PACKAGE}.routes.sockets" in GRAPH and len(GRAPH) > 25
    # The resolver sees relative imports from the routes subpackage too.
    assert f"{PACKAGE}.deps" in GRAPH[f"{PACKAGE}.routes.tables"]
    assert f"{PACKAGE}.routes.sockets" in GRAPH[f"{PACKAGE}.app"]


@pytest.mark.parametrize("name", sorted(MODULES), ids=lambda n: n.removeprefix(PACKAGE))
def test_nothing_imports_the_app(name: str) -> None:
    if name in (FACE, f"{PACKAGE}.app"):
        return
    assert f"{PACKAGE}.app" not in GRAPH[name], f"{name} imports app.py"


@pytest.mark.parametrize("name", sorted(MODULES), ids=lambda n: n.removeprefix(PACKAGE))
def test_server_modules_are_imported_at_the_top(name: str) -> None:
    if name == FACE:
        return
    late = [
        f"{MODULES[name].name}:{node.lineno} imports {m}"
        for m, node, top in imported(MODULES[name])
        if not top
    ]
    assert not late, late


def test_the_package_has_no_import_cycle() -> None:
    # import_cycles is test_layering's, shown there to find a planted loop.
    assert import_cycles({name: set(ms) for name, ms in GRAPH.items()}) == []


def test_a_cycle_would_be_seen() -> None:
    # The check above is not vacuous: the package's face imports the app and the server.
    assert {f"{PACKAGE}.app", f"{PACKAGE}.node"} <= set(GRAPH[FACE])
    assert f"{PACKAGE}.node" in GRAPH[f"{PACKAGE}.deps"]


@pytest.mark.parametrize("name", sorted(MODULES), ids=lambda n: n.removeprefix(PACKAGE))
def test_no_module_is_long(name: str) -> None:
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{MODULES[name].name} has {lines} lines"
