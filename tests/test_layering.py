"""The core stays pure: its modules import only the standard library and each other, never
``tienlen.players``, ``tienlen.analysis``, ``tienlen.apps`` or ``tienlen.env``;
``tienlen.players`` never imports ``tienlen.analysis``, ``tienlen.env`` or ``tienlen.apps``, and
``tienlen.analysis`` (built on the core and the players) never imports ``tienlen.env`` or
``tienlen.apps`` (checked on the source, without importing it)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "tienlen"
CORE = sorted(p for p in PACKAGE.glob("*.py"))
UPPER = ("players", "analysis", "apps", "env")
PLAYERS = sorted((PACKAGE / "players").rglob("*.py"))
ANALYSIS = sorted((PACKAGE / "analysis").rglob("*.py"))


def imports_of(path: Path, package: str = "tienlen") -> list[tuple[str, int]]:
    """(absolute module name, line) of every import in a module of ``package``; relative
    imports are resolved against it (one reaching above ``tienlen`` is marked)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the module's package
                parts = package.split(".")
                if node.level > len(parts):
                    base = "<outside tienlen>"
                else:
                    base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
                if node.module is None:
                    out.extend((f"{base}.{alias.name}", node.lineno) for alias in node.names)
                    continue
                out.append((module, node.lineno))
            else:
                out.append((node.module or "", node.lineno))
    return out


def test_the_core_modules_are_found() -> None:
    names = {p.stem for p in CORE}
    assert {
        "cards",
        "patterns",
        "rules",
        "combos",
        "movegen",
        "game",
        "observation",
        "solver",
    } <= names
    assert (PACKAGE / "players").is_dir() and (PACKAGE / "apps").is_dir()
    assert (PACKAGE / "env").is_dir() and len(PLAYERS) > 5
    assert (PACKAGE / "analysis" / "decisions.py") in ANALYSIS


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_core_imports_only_the_standard_library_and_the_core(path: Path) -> None:
    for module, line in imports_of(path):
        top = module.split(".")[0]
        where = f"{path.name}:{line} imports {module}"
        if top == "tienlen":
            parts = module.split(".")
            assert len(parts) == 1 or parts[1] not in UPPER, f"{where} (a layer above the core)"
            continue
        assert top != "<outside tienlen>", where
        assert top in sys.stdlib_module_names or top == "__future__", f"{where} (not stdlib)"


@pytest.mark.parametrize("path", PLAYERS, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_players_never_import_the_layers_above(path: Path) -> None:
    package = ".".join(path.relative_to(PACKAGE.parent).parent.parts)
    for module, line in imports_of(path, package=package):
        parts = module.split(".")
        if parts[0] == "tienlen" and len(parts) > 1:
            assert parts[1] not in ("analysis", "apps", "env"), f"{path.name}:{line} {module}"


@pytest.mark.parametrize("path", ANALYSIS, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_analysis_never_imports_the_apps_or_the_environments(path: Path) -> None:
    package = ".".join(path.relative_to(PACKAGE.parent).parent.parts)
    for module, line in imports_of(path, package=package):
        parts = module.split(".")
        if parts[0] == "tienlen" and len(parts) > 1:
            assert parts[1] not in ("apps", "env"), f"{path.name}:{line} imports {module}"
        else:
            top = parts[0]
            assert top in sys.stdlib_module_names or top == "__future__", f"{path.name}:{line}"


def test_the_checker_sees_forbidden_imports(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import rich\nfrom .players import base\nfrom tienlen.apps import cli\n")
    found = [m for m, _ in imports_of(bad)]
    assert found == ["rich", "tienlen.players", "tienlen.apps"]
    with pytest.raises(AssertionError):
        test_core_imports_only_the_standard_library_and_the_core(bad)
    env = tmp_path / "env.py"
    env.write_text("from ..env import train\n")
    bots = "tienlen.players.bots"
    assert [m for m, _ in imports_of(env, package=bots)] == ["tienlen.players.env"]
    env.write_text("from ...env import train\n")
    assert [m for m, _ in imports_of(env, package=bots)] == ["tienlen.env"]
    env.write_text("from .env import train\n")
    with pytest.raises(AssertionError, match=r"imports tienlen\.env"):
        test_core_imports_only_the_standard_library_and_the_core(env)


def test_the_package_ships_type_information() -> None:
    assert (PACKAGE / "py.typed").is_file()


def test_the_command_line_loads_no_server_until_serve_runs() -> None:
    """Every subcommand's parser is built at start; the server's stack (FastAPI, SQLAlchemy,
    Redis) must not come with them, or ``tienlen play`` pays for it and needs the extra."""
    code = (
        "import sys\n"
        "from tienlen.apps.cli import main\n"
        "try:\n    main(['play', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('fastapi', 'sqlalchemy', 'redis', 'tienlen.apps.server.app')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "[]"


# --- no import cycle ---------------------------------------------------------------------------
def module_graph(root: Path) -> dict[str, set[str]]:
    """Every module of the package at ``root`` (dotted names from the package's own name) and
    the modules of the package it imports, function-local imports included. ``from X import
    n`` imports the submodule ``X.n`` where there is one, else ``X`` (a name that ``X``, a
    module or a package's ``__init__``, holds)."""
    paths: dict[str, tuple[Path, bool]] = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if "migrations" in parts:  # Alembic's scripts, loaded by file, not imported
            continue
        paths[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in paths.items():
        package = name if is_package else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                module = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1])
                    module = f"{base}.{node.module}" if node.module else base
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    found.add(sub if sub in paths else module)
        graph[name] = {m for m in found if m in paths and m != name}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a loop (the strongly
    connected components of more than one module)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return cycles


def test_no_module_of_the_package_imports_itself_round_a_loop() -> None:
    graph = module_graph(PACKAGE)
    assert {"tienlen.rules", "tienlen.codes", "tienlen.apps.server.node"} <= set(graph)
    assert "tienlen.knobs" in graph["tienlen.codes"]
    assert import_cycles(graph) == []


def test_the_cycle_check_sees_a_loop_through_a_function_local_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("from .b import thing\n")
    (package / "a.py").write_text("def later():\n    from .sub import b\n")
    (package / "sub" / "b.py").write_text("from .. import a\nthing = 1\n")
    (package / "c.py").write_text("from .sub import thing\n")
    graph = module_graph(package)
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.c"] == {"pkg.sub"}
    assert import_cycles(graph) == [["pkg.a", "pkg.sub.b"]]
