"""The wheel builds offline (setuptools, no package index), carries py.typed and the metadata, and
imports on its own."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import idem_guard

PACKAGE = Path(__file__).resolve().parents[1]


def test_the_wheel(tmp_path):
    pytest.importorskip("setuptools")
    pytest.importorskip("wheel")
    # Build from a copy, so the checkout gets no build/ or *.egg-info.
    source = tmp_path / "source"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("__pycache__", "build", "dist", "*.egg-info"))
    # The build backend pyproject.toml declares, called as pip would call it (without pip's start-up).
    built = subprocess.run(
        [sys.executable, "-c", "import sys, setuptools.build_meta as b; print(b.build_wheel(sys.argv[1]))",
         str(tmp_path / "dist")],
        cwd=source, capture_output=True, text=True, check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = tmp_path / "dist" / "idem_guard-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read("idem_guard-0.1.0.dist-info/METADATA").decode()
    assert {"idem_guard/__init__.py", "idem_guard/py.typed", "idem_guard/guard.py"} <= names
    assert not any(name.startswith("tests/") for name in names)
    for line in ("Name: idem-guard", "Version: 0.1.0", "License: MIT", "Requires-Python: >=3.11"):
        assert line in metadata.splitlines()
    assert "Requires-Dist: asyncpg" in metadata.splitlines()
    # A pure-Python wheel imports straight from the archive.
    imported = subprocess.run(
        [sys.executable, "-I", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import idem_guard; "
         "print(idem_guard.__version__, idem_guard.__file__)", str(wheel)],
        capture_output=True, text=True, check=False,
    )
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith(f"{idem_guard.__version__} {wheel}")
