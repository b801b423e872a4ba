"""``python -m bayeskit``, the README's main job, run as a user runs it."""

from __future__ import annotations

import re
import subprocess
import sys


def test_main_job_reports_cross_validated_quality():
    out = subprocess.run(
        [sys.executable, "-m", "bayeskit", "--folds", "5"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    assert "messages: 5574 (ham 4827, spam 747)" in out
    accuracy = float(re.search(r"accuracy: ([0-9.]+)", out).group(1))
    macro_f1 = float(re.search(r"macro-F1: ([0-9.]+)", out).group(1))
    assert accuracy > 0.98
    assert macro_f1 > 0.95
    assert re.search(r"time: [0-9.]+ s", out)


def test_main_job_refuses_bad_arguments():
    run = subprocess.run(
        [sys.executable, "-m", "bayeskit", "--folds", "1"], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert "--folds must be at least 2" in run.stderr


def test_main_job_loads_no_compiled_kernels():
    # The quick start counts its 0.45 MB once in Python: importing numba and loading the
    # scanner's kernels into a fresh process would cost more than that.
    code = (
        "import sys; from bayeskit.__main__ import main; main(['--folds', '3']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert float(re.search(r"accuracy: ([0-9.]+)", out).group(1)) > 0.98
    assert out.strip().splitlines()[-1] == "[]"
