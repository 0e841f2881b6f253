"""The package's metadata: one version (``tienlen.__version__``, read by the build and
printed by ``tienlen --version``) and the MIT licence as the file pyproject.toml names."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from setuptools.config.pyprojecttoml import read_configuration

import tienlen
from tienlen.apps.cli import main

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"


def test_the_version_is_written_once_and_the_build_reads_it() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]
    # what setuptools writes into the package metadata
    built = read_configuration(PYPROJECT, expand=True)["project"]["version"]
    assert built == tienlen.__version__ == "0.2.0"


def test_tienlen_version_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"tienlen {tienlen.__version__} (engine ")


def test_the_licence_is_the_mit_file_pyproject_names() -> None:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 The tienlen project\n")
