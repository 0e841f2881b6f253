"""The core stays pure: its modules import only the standard library and each other, never
``tienlen.players`` or ``tienlen.apps`` (checked on the source, without importing it)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "tienlen"
CORE = sorted(p for p in PACKAGE.glob("*.py"))
UPPER = ("players", "apps")


def imports_of(path: Path) -> list[tuple[str, int]]:
    """(absolute module name, line) of every import in a core module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the tienlen package
                base = "tienlen" if node.level == 1 else "<outside tienlen>"
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
    assert {"cards", "patterns", "rules", "combos", "movegen", "game", "observation"} <= names
    assert (PACKAGE / "players").is_dir() and (PACKAGE / "apps").is_dir()


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


def test_the_checker_sees_forbidden_imports(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import rich\nfrom .players import base\nfrom tienlen.apps import cli\n")
    found = [m for m, _ in imports_of(bad)]
    assert found == ["rich", "tienlen.players", "tienlen.apps"]
    with pytest.raises(AssertionError):
        test_core_imports_only_the_standard_library_and_the_core(bad)


def test_the_package_ships_type_information() -> None:
    assert (PACKAGE / "py.typed").is_file()
