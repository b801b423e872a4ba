"""The code base stays ruff- and mypy-clean: the suite fails otherwise."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.skipif(
    shutil.which("ruff") is None and not (Path(sys.prefix) / "bin/ruff").exists(),
    reason="ruff is not installed (pip install -e '.[test]')",
)
def test_ruff_clean():
    ruff = shutil.which("ruff") or str(Path(sys.prefix) / "bin/ruff")
    check = _run(ruff, "check", "src", "tests", "benchmarks")
    assert check.returncode == 0, check.stdout + check.stderr
    fmt = _run(ruff, "format", "--check", "src", "tests", "benchmarks")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_clean():
    pytest.importorskip("mypy")
    result = _run(sys.executable, "-m", "mypy")
    assert result.returncode == 0, result.stdout + result.stderr
