"""Build hook for the optional compiled engine.

``TIENLEN_COMPILE=1 pip install --no-build-isolation .`` (with mypy installed) compiles the
hot core modules listed in ``COMPILED_MODULES`` with mypyc; any other build installs the
same package as plain Python. Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import os

from setuptools import setup

# The modules on the engine's hot path (move generation and play, the record a game keeps
# its state in (packed), with the card debts and the exchanges (mutual trading, San Jose)
# that the record carries), and the open-hands solver, which the analysis and the learned
# bot's endgame run for thousands of positions a decision. The rest of the core
# (rules validation, records, descriptions) stays interpreted: it is not hot, and parts of it
# inspect dataclass annotations or subclass ``str``, which compiled classes do not support.
COMPILED_MODULES = [
    "src/tienlen/combos.py",
    "src/tienlen/deal.py",
    "src/tienlen/debts.py",
    "src/tienlen/exchanges.py",
    "src/tienlen/game.py",
    "src/tienlen/movegen.py",
    "src/tienlen/packed.py",
    "src/tienlen/patterns.py",
    "src/tienlen/play.py",
    "src/tienlen/solver.py",
]

ext_modules = []
if os.environ.get("TIENLEN_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify(COMPILED_MODULES, opt_level="3")

setup(ext_modules=ext_modules)
