"""Start-up time of the command line and of ``import bayeskit``, warm and cold.

Usage (from the project root)::

    python benchmarks/startup.py                      # warm rounds, then the cold runs
    python benchmarks/startup.py --rounds 3 --no-cold # a quick look
    python benchmarks/startup.py > benchmarks/startup.md

Every measurement is a fresh process, as a user starts it. **Warm**: the files are in the OS
cache, the compiled kernels in numba's cache; the rows are interleaved round by round and the
median wall time is reported with the median CPU time (user + system) of the process, which a
busy machine inflates much less. ``import sklearn.base`` is the reference: every estimator
subclasses scikit-learn's. **Cold**: a fresh copy of the package (compiled to ``.pyc`` as
``pip install`` does) with empty kernel caches; each command is run twice, the first run
compiling what it uses. Progress goes to stderr, the Markdown report to stdout.
"""

from __future__ import annotations

import argparse
import compileall
import datetime
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import median

from bayeskit.cli.app import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
SCRIPT = str(Path(PYTHON).with_name("bayeskit"))
COMPILING = "first run: compiling kernels"


@dataclass
class Run:
    wall: float
    cpu: float
    out: str
    err: str
    code: int


def run(args: list[str], *, cwd: Path, env: dict[str, str], stdin: str | None = None) -> Run:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        args, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=900
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, done.stdout, done.stderr, done.returncode)


@dataclass
class Row:
    name: str
    args: list[str]
    target: float | None  # seconds (wall, warm)
    check: Callable[[Run], str]
    stdin: str | None = None
    #: at most this many times the reference's wall time (``import sklearn.base``)
    ratio: float | None = None
    #: at most the reference's wall time plus this many seconds
    over: float | None = None

    def target_text(self) -> str:
        parts = [] if self.target is None else [f"≤ {self.target:g}"]
        if self.ratio is not None:
            parts.append(f"≤ {self.ratio:g} × reference")
        if self.over is not None:
            parts.append(f"≤ reference + {self.over:g}")
        return ", ".join(parts) or "—"

    def judge(self, wall: float, reference: float) -> str:
        """Say "met", or what was missed: the column reads the target, not only the output."""
        missed = []
        if self.target is not None and wall > self.target:
            missed.append(f"{wall:.2f} > {self.target:g} s")
        if self.ratio is not None and wall > self.ratio * reference:
            missed.append(f"{wall / reference:.2f} × reference > {self.ratio:g} ×")
        if self.over is not None and wall > reference + self.over:
            missed.append(f"reference + {wall - reference:.2f} > + {self.over:g} s")
        if self.target is None and self.ratio is None and self.over is None:
            return ""
        return "MISSED: " + "; ".join(missed) if missed else "met"


def _prints(pattern: str) -> Callable[[Run], str]:
    def check(result: Run) -> str:
        if result.code != 0:
            return f"FAILED (exit {result.code}: {result.err.strip()[-120:]})"
        return "ok" if re.search(pattern, result.out, re.M) else f"UNEXPECTED: {result.out[:80]!r}"

    return check


def _help_on_stderr(result: Run) -> str:
    """``bayeskit filter --help`` with standard input not a terminal (a filter recipe's)."""
    if result.code != 3 or not re.search(r"^Usage: bayeskit filter ", result.err, re.M):
        return f"UNEXPECTED (exit {result.code}): {result.err[:80]!r}"
    return "ok"


def _imports_nothing_heavy(result: Run) -> str:
    if result.code != 0:
        return f"FAILED: {result.err.strip()[-120:]}"
    heavy = result.out.strip().splitlines()[-1]
    return "ok, imports none of numba/polars/sklearn/numpy" if heavy == "[]" else f"imports {heavy}"


HEAVY_PROBE = (
    "import sys; {code}; "
    "print(sorted({{m.split('.')[0] for m in sys.modules}} & "
    "{{'numba', 'polars', 'sklearn', 'numpy', 'scipy'}}))"
)


def warm_rows(work: Path) -> list[Row]:
    line = "WINNER!! Claim your free prize now, call 09061701461\n"
    return [
        Row("import sklearn.base (reference)", [PYTHON, "-c", "import sklearn.base"], None,
            _prints("")),
        Row("import bayeskit", [PYTHON, "-c", HEAVY_PROBE.format(code="import bayeskit")],
            None, _imports_nothing_heavy, over=0.2),
        Row("import bayeskit; bayeskit.MultinomialNB",
            [PYTHON, "-c", "import bayeskit; bayeskit.MultinomialNB"], None, _prints(""),
            over=0.2),
        Row("bayeskit --version", [SCRIPT, "--version"], 0.3, _prints(r"^bayeskit \d")),
        Row("bayeskit --help", [SCRIPT, "--help"], 0.3, _prints("quickstart")),
        *(Row(f"bayeskit {name} --help", [SCRIPT, name, "--help"], 0.3,
              _prints(rf"^Usage: bayeskit {name} "))
          for name in COMMANDS if name != "filter"),
        # standard input not a terminal: the help on standard error, the (empty) message
        # passed through, status 3, as in a filter recipe
        Row("bayeskit filter --help", [SCRIPT, "filter", "--help"], 0.3,
            _help_on_stderr, stdin=""),
        Row("one-line bayeskit predict model.bk -", [SCRIPT, "predict", "sms.bk", "-"], 1.5,
            _prints(r"^1,spam,spam,"), stdin=line),
        Row("bayeskit train a 569-row numeric CSV (-m gaussian)",
            [SCRIPT, "train", "breast-cancer.csv", "-t", "diagnosis", "-m", "gaussian", "-o",
             "bc.bk", "--force"], None, _prints(""), ratio=1.0),
        Row("bayeskit predict that CSV", [SCRIPT, "predict", "bc.bk", "breast-cancer.csv"],
            None, _prints(r"^1,malignant,"), ratio=1.0),
        Row("python -m bayeskit (the main job)", [PYTHON, "-m", "bayeskit"], 2.0,
            _prints(r"^accuracy: 0\.9"), ratio=1.5),
        Row("python -m bayeskit --words", [PYTHON, "-m", "bayeskit", "--words"], None,
            _prints(r"^accuracy: 0\.9")),
    ]  # fmt: skip


def prepare(work: Path, env: dict[str, str]) -> None:
    """The files the commands read: the SMS and breast-cancer tables and a trained model."""
    for name in ("sms", "breast-cancer"):
        done = run([SCRIPT, "example", name, "--force"], cwd=work, env=env)
        assert done.code == 0, done.err
    done = run([SCRIPT, "train", "sms.csv", "-t", "label", "-o", "sms.bk"], cwd=work, env=env)
    assert done.code == 0, done.err
    done = run(
        [SCRIPT, "train", "breast-cancer.csv", "-t", "diagnosis", "-m", "gaussian", "-o", "bc.bk"],
        cwd=work,
        env=env,
    )
    assert done.code == 0, done.err


def measure_warm(
    work: Path, env: dict[str, str], rounds: int, only: Callable[[str], bool] | None = None
) -> list[str]:
    """The warm table (``only``: the rows whose name it accepts, and the reference)."""
    rows = [r for i, r in enumerate(warm_rows(work)) if i == 0 or only is None or only(r.name)]
    for row in rows:  # one untimed run each: files into the OS cache, kernels compiled
        run(row.args, cwd=work, env=env, stdin=row.stdin)
    times: dict[str, list[Run]] = {row.name: [] for row in rows}
    for k in range(rounds):
        print(f"warm round {k + 1}/{rounds}", file=sys.stderr)
        for row in rows:
            times[row.name].append(run(row.args, cwd=work, env=env, stdin=row.stdin))
    reference = median(r.wall for r in times[rows[0].name])
    reference_cpu = median(r.cpu for r in times[rows[0].name])
    lines = [
        "| command | target (wall) | median wall (s) | median CPU (s) | wall − reference | "
        "CPU − reference | output | target |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in rows:
        wall = median(r.wall for r in times[row.name])
        cpu = median(r.cpu for r in times[row.name])
        lines.append(
            f"| `{row.name}` | {row.target_text()} | {wall:.3f} | {cpu:.3f} | "
            f"{wall - reference:+.3f} | {cpu - reference_cpu:+.3f} | "
            f"{row.check(times[row.name][-1])} | {row.judge(wall, reference)} |"
        )
    return lines


def fresh_copy(base: Path) -> Path:
    """The package as a fresh install has it: sources compiled to .pyc, no kernel cache."""
    site = base / "site"
    shutil.copytree(
        ROOT / "src" / "bayeskit",
        site / "bayeskit",
        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"),
    )
    compileall.compile_dir(site, quiet=1)
    return site


def measure_cold(work: Path, env: dict[str, str]) -> list[str]:
    base = Path(tempfile.mkdtemp(prefix="bayeskit-cold-"))
    try:
        site = fresh_copy(base)
        cold_env = {**env, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(base / "cache")}
        cold_env.pop("NUMBA_CACHE_DIR", None)
        cold_env.pop("BAYESKIT_CACHE_DIR", None)
        cli = [PYTHON, "-m", "bayeskit.cli"]
        jobs = [
            ("train a spam filter (text)", [*cli, "train", "sms.csv", "-t", "label", "-o",
                                            "cold-sms.bk", "--force"], None),
            ("train on a numeric table", [*cli, "train", "breast-cancer.csv", "-t", "diagnosis",
                                          "-o", "cold-cancer.bk", "--force"], None),
            ("train KernelNB on a numeric table", [*cli, "train", "breast-cancer.csv", "-t",
                                                   "diagnosis", "--model", "kernel", "-o",
                                                   "cold-kde.bk", "--force"], None),
            ("one-line predict", [*cli, "predict", "cold-sms.bk", "-"], "free prize now\n"),
            ("the main job (python -m bayeskit)", [PYTHON, "-m", "bayeskit"], None),
        ]  # fmt: skip
        lines = [
            "| first command after installing | first run wall (s) | CPU (s) | second run wall "
            "(s) | CPU (s) | said it compiles (first / second) |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for name, args, stdin in jobs:
            print(f"cold: {name}", file=sys.stderr)
            first = run(args, cwd=work, env=cold_env, stdin=stdin)
            second = run(args, cwd=work, env=cold_env, stdin=stdin)
            assert first.code == 0, first.err
            assert second.code == 0, second.err
            said = f"{'yes' if COMPILING in first.err else 'no'} / "
            said += "yes" if COMPILING in second.err else "no"
            lines.append(
                f"| {name} | {first.wall:.2f} | {first.cpu:.2f} | {second.wall:.2f} | "
                f"{second.cpu:.2f} | {said} |"
            )
        cached = sorted((base / "cache").rglob("*.nbi")) + sorted(site.rglob("*.nbi"))
        lines.append("")
        lines.append(f"Kernels compiled and cached by these five commands: {len(cached)}.")
        return lines
    finally:
        shutil.rmtree(base, ignore_errors=True)


def process_rows(names: list[str], rounds: int = 5) -> list[str]:
    """The rows of benchmarks/run.py that time fresh processes: ``quickstart`` (the main job,
    ``python -m bayeskit``) and ``startup`` (``bayeskit --version`` / ``--help``, ``import
    bayeskit``, a one-line predict), warm, interleaved with ``import sklearn.base``. The cold
    first runs take minutes of compiling: ``python benchmarks/startup.py`` measures them."""
    wanted = {
        "quickstart": lambda name: name.startswith("python -m bayeskit"),
        "startup": lambda name: not name.startswith("python -m bayeskit"),
    }
    env = {k: v for k, v in os.environ.items() if not k.startswith("BAYESKIT_")}
    env["COLUMNS"] = "100"
    work = Path(tempfile.mkdtemp(prefix="bayeskit-startup-"))
    try:
        prepare(work, env)
        return measure_warm(work, env, rounds, lambda n: any(wanted[k](n) for k in names))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="warm rounds (default 7)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold runs")
    options = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BAYESKIT_")}
    env["COLUMNS"] = "100"
    work = Path(tempfile.mkdtemp(prefix="bayeskit-startup-"))
    try:
        prepare(work, env)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        print("# Start-up: the command line and `import bayeskit`\n")
        print(
            f"{datetime.date.today()}, Python {platform.python_version()}, {os.cpu_count()} "
            f"cores, load average {load:.2f} at the start; `python benchmarks/startup.py "
            f"--rounds {options.rounds}`.\n"
        )
        print(f"## Warm (median of {options.rounds} interleaved rounds)\n")
        print("\n".join(measure_warm(work, env, options.rounds)))
        if not options.no_cold:
            print("\n## Cold: a fresh copy of the package, empty kernel caches\n")
            print("\n".join(measure_cold(work, env)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
