"""A bare install (``pip install tienlen``) is the terminal game; every other command either
runs without the extras or says in one line which extra it needs. Each command runs in a
fresh interpreter whose import system refuses the extras' modules, as if not installed."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tienlen.apps.cli import extra_for

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SAVED = ROOT / "tests" / "fixtures" / "saved" / "san-jose-match.json"


def import_name(requirement: str) -> str:
    """The top-level module a requirement installs (``prometheus-client>=0.20`` ->
    ``prometheus_client``; every dependency here is named as its module)."""
    name = re.match(r"[A-Za-z0-9_.-]+", requirement)
    assert name is not None, requirement
    return name.group(0).lower().replace("-", "_")


BASE = {import_name(r) for r in PROJECT["dependencies"]}
EXTRAS = {
    extra: {import_name(r) for r in requirements} - BASE
    for extra, requirements in PROJECT["optional-dependencies"].items()
    if extra != "dev"
}
EVERY_EXTRA = set().union(*EXTRAS.values())

BLOCKER = """
import sys

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
from tienlen.apps.cli import main
sys.exit(main(ARGS))
"""


def run_without(blocked: set[str], args: list[str]) -> subprocess.CompletedProcess[str]:
    """``tienlen ARGS`` in a fresh interpreter where the ``blocked`` modules cannot be
    imported (stdin empty)."""
    code = f"BLOCKED = {sorted(blocked)!r}\nARGS = {args!r}\n{BLOCKER}"
    return subprocess.run(
        [sys.executable, "-c", code],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_the_bare_install_is_the_terminal_game() -> None:
    """Every third-party module the terminal game imports is a dependency of the package
    itself, not of an extra (and the core needs none: tests/test_layering.py)."""
    used: set[str] = set()
    for path in (ROOT / "src" / "tienlen" / "apps" / "tui").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                used.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                used.add(node.module.split(".")[0])
    third_party = {m for m in used if m not in sys.stdlib_module_names and m != "tienlen"}
    assert third_party == {"rich", "textual"} == BASE


@pytest.mark.parametrize(
    "args",
    [
        ["rules", "standard"],
        ["replay", str(SAVED)],
        ["play", "--plain", "--games", "1", "--seed", "1"],
        ["arena", "--bots", "random,greedy,greedy,greedy", "--games", "4", "--seed", "1"],
        ["bot", "greedy"],
        ["solve", "8d10d/4hJh/Jc/10h 1 0 0:4s - - -"],
    ],
    ids=lambda args: args[0],
)
def test_a_command_runs_without_any_extra(args: list[str]) -> None:
    done = run_without(EVERY_EXTRA, args)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_the_arena_without_openskill_says_where_the_ratings_come_from() -> None:
    done = run_without(EXTRAS["apps"], ["arena", "--bots", "random,greedy", "--games", "2"])
    assert done.returncode == 0, done.stderr
    assert "Ratings: install openskill (the 'apps' extra) for the rating table." in done.stdout


@pytest.mark.parametrize(
    ("extra", "args"),
    [
        ("server", ["serve", "--port", "0"]),
        ("env", ["train", "--out", "run", "--steps", "1"]),
        ("env", ["train", "--out", "both.npz", "--combine", "a.npz", "b.npz"]),
        ("apps", ["bot", "learned"]),
        ("apps", ["arena", "--bots", "learned,greedy", "--games", "2", "--quiet"]),
        ("apps", ["play", "--plain", "--bots", "learned", "--games", "1"]),
    ],
    ids=lambda v: v if isinstance(v, str) else " ".join(v[:2]),
)
def test_a_command_without_its_extra_says_which_in_one_line(extra: str, args: list[str]) -> None:
    done = run_without(EXTRAS[extra], args)
    assert done.returncode == 2
    last = done.stderr.splitlines()[-1]
    assert re.fullmatch(
        rf"tienlen: error: tienlen {args[0]} needs the {extra} extra: "
        rf"pip install 'tienlen\[{extra}\]' \(No module named '\w+'\)",
        last,
    ), done.stderr
    assert "Traceback" not in done.stderr


REQUIRES = [
    "rich>=13",
    "textual<9,>=8.2",
    'openskill>=6; extra == "apps"',
    'numpy>=1.26; extra == "apps"',
    'uvicorn[standard]>=0.30; extra == "server"',
    'numpy>=1.26; extra == "server"',
    'prometheus-client>=0.20; extra == "server"',
    'numpy>=1.26; extra == "env"',
    'gymnasium<2,>=1.0; extra == "env"',
]


def test_the_extra_named_is_the_commands_own_or_the_first_that_installs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(importlib.metadata, "requires", lambda name: REQUIRES)
    assert extra_for("numpy", "train") == "env"  # train's own extra
    assert extra_for("numpy", "serve") == "server"
    assert extra_for("numpy", "arena") == "apps"  # the first that lists it
    assert extra_for("prometheus_client", "serve") == "server"
    assert extra_for("textual", "play") == ""  # the bare package's own
    assert extra_for("torch", "train") is None
