"""TAN and AODE against Weka's on the same folds: accuracy and whole-process time.

```sh
BAYESKIT_DATA=/work/shared/data python benchmarks/bayesnet_peers.py            # all tables
python benchmarks/bayesnet_peers.py --only car --folds 5
python benchmarks/bayesnet_peers.py --scale       # 10^6 rows x 20 categorical features
```

For each table, the same stratified 10 folds (seeded) are written as ARFF files to a
temporary folder and Weka runs once per fold as its own Java process (``java -cp
/usr/share/java/weka.jar``):

- TAN: ``weka.classifiers.bayes.BayesNet -Q weka.classifiers.bayes.net.search.local.TAN``
  with its default ``SimpleEstimator -A 0.5``. Weka's TAN adds the tree's edges by the gain
  of a local score: its default Bayesian Dirichlet score with 0.5 per cell ("TAN" rows,
  against bayeskit's ``TANClassifier(alpha=0.5)``, whose default ``edge_weight="bayes"`` is that
  gain), or with ``-- -S ENTROPY`` the log-likelihood gain, ``N`` times the conditional
  mutual information Friedman et al. weigh the edges by ("TAN-ENTROPY" rows, against
  ``TANClassifier(alpha=0.5, edge_weight="cmi")``).
- AODE: ``weka.classifiers.bayes.AODE`` (in Weka 3.6's core jar; frequency limit 1,
  Laplace estimates); bayeskit runs ``AODEClassifier()`` (``m=1``, ``alpha=1``).

Times, summed over the folds: "Weka s" is the wall time of its processes, one per fold as its
command line runs (Java start, reading the ARFF, fitting, and the evaluation it always prints
on the training fold as well as on the test fold); "bayeskit s" the wall time of one ``python
-c`` process that runs every fold (Python start, importing numpy, bayeskit and whatever the
model loads — on the categorical tables neither scikit-learn, SciPy nor numba; spambase's
cut points load numba's compiled kernels and SciPy —, reading each fold's rows from ``.npy``
files, fit, predict), so both include starting a runtime. The Python side runs from
compiled bytecode, as an installed package does (``pip install`` compiles it, as Weka's jar
holds compiled classes): the script runs once untimed with ``PYTHONPYCACHEPREFIX`` set to a
temporary folder (and ``PYTHONDONTWRITEBYTECODE`` unset), which writes the bytecode there,
then once timed; without bytecode each run would first compile bayeskit's modules from
source (about 0.25 s of CPU). The "CPU s" columns are the user + system time of those
processes (``getrusage`` of the children), which a loaded machine inflates much less than
wall time. "Weka build s" is Weka's own "time taken to build model", "bayeskit fit+predict
s" the time inside the process spent in ``fit`` and ``predict``. Missing values (``?`` in
mushroom and voting) are missing for both (Weka's BayesNet fills them with the column's mode,
AODE skips them; bayeskit drops them from the factors).
spambase's 57 numeric columns are discretized by Fayyad & Irani's MDL rule on each training
fold by both (Weka: BayesNet's own supervised ``Discretize``, and a ``FilteredClassifier``
with it around AODE; bayeskit: ``discretize="numbers"``). On spambase BayesNet runs with
``-D`` (counting without its AD-tree, which exhausts a 2 GB heap there).

Skips cleanly (and exits 0) when Java or Weka is absent, or the shared data folder is.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

WEKA_JAR = Path("/usr/share/java/weka.jar")
TABLES = ("car", "nursery", "mushroom", "voting", "spambase")
WEKA = {
    # BayesNet's default estimator is SimpleEstimator -A 0.5; its TAN search scores a
    # parent by the gain in a local score, the Bayesian (Dirichlet) score by default, and with
    # -S ENTROPY by the log-likelihood gain N I(X_i; X_j | Y), Friedman et al.'s weight.
    "tan": ["weka.classifiers.bayes.BayesNet", "-Q", "weka.classifiers.bayes.net.search.local.TAN"],
    "tan-entropy": [
        "weka.classifiers.bayes.BayesNet", "-Q", "weka.classifiers.bayes.net.search.local.TAN",
        "--", "-S", "ENTROPY",
    ],
    "aode": ["weka.classifiers.bayes.AODE"],
}  # fmt: skip
WEKA_NUMERIC_AODE = [
    "weka.classifiers.meta.FilteredClassifier",
    "-F", "weka.filters.supervised.attribute.Discretize -R first-last",
    "-W", "weka.classifiers.bayes.AODE",
]  # fmt: skip
BAYESKIT = {
    # the default edge_weight="bayes" (Bayesian Dirichlet gain, prior alpha) against Weka's
    # default BAYES score; edge_weight="cmi" against its ENTROPY score
    "tan": "TANClassifier(alpha=0.5{extra})",
    "tan-entropy": 'TANClassifier(alpha=0.5, edge_weight="cmi"{extra})',
    "aode": "AODEClassifier({extra0})",
}
KINDS = ("tan", "tan-entropy", "aode")


def load(name: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """(X, y, numeric): '?' becomes a missing value (None)."""
    from bayeskit.datasets.shared import load_spambase, load_uci_table

    if name == "spambase":
        X, y, _ = load_spambase()
        return np.asarray(X, dtype=np.float64), np.asarray(y).astype(str), True
    X, y = load_uci_table(name)
    if (X == "?").any():  # missing values: an object array holding None
        X = X.astype(object)
        X[X == "?"] = None
    return X, y, False


def write_arff(path: Path, X: np.ndarray, y: np.ndarray, values: list, classes: list) -> None:
    lines = ["@relation data"]
    for j, v in enumerate(values):
        kind = "numeric" if v is None else "{" + ",".join(f"'{x}'" for x in v) + "}"
        lines.append(f"@attribute x{j} {kind}")
    lines.append("@attribute class {" + ",".join(f"'{c}'" for c in classes) + "}")
    lines.append("@data")
    for row, label in zip(X.tolist(), y.tolist(), strict=True):
        cells = [
            "?" if v is None else (repr(float(v)) if values[j] is None else f"'{v}'")
            for j, v in enumerate(row)
        ]
        lines.append(",".join([*cells, f"'{label}'"]))
    path.write_text("\n".join(lines) + "\n")


def children_cpu() -> float:
    """User + system CPU seconds of this process's finished children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def python_env() -> dict[str, str]:
    """The environment of the timed Python processes: bytecode read from (and, on the
    untimed first run, written to) the folder ``main`` sets in ``BENCH_PYCACHE``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.environ["BENCH_PYCACHE"]
    return env


def weka_fold(command: list[str], train: Path, test: Path) -> tuple[int, float, float, float]:
    """(correct on the test fold, wall seconds of the Java process, Weka's own "time taken
    to build model", CPU seconds of the Java process)."""
    cpu = children_cpu()
    start = time.perf_counter()
    out = subprocess.run(
        ["java", "-Xmx2g", "-cp", str(WEKA_JAR), command[0], "-t", str(train), "-T", str(test),
         "-o", *command[1:]],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    elapsed = time.perf_counter() - start
    cpu = children_cpu() - cpu
    build = float(re.search(r"Time taken to build model: ([\d.]+)", out).group(1))
    section = out.split("=== Error on test data ===")[1]
    correct = int(re.search(r"Correctly Classified Instances\s+(\d+)", section).group(1))
    return correct, elapsed, build, cpu


BAYESKIT_SCRIPT = """
import sys, time, numpy as np
from pathlib import Path
from bayeskit import {cls}
right, inside = 0, 0.0
for fold in sorted(Path(sys.argv[1]).iterdir()):
    X, y, T, t = (np.load(fold / f"{{k}}.npy", allow_pickle=True) for k in "XyTt")
    start = time.perf_counter()
    predicted = {make}.fit(X, y).predict(T)
    inside += time.perf_counter() - start
    right += int(np.sum(predicted == t))
print(right, inside)
"""


def bayeskit_folds(kind: str, numeric: bool, folder: Path) -> tuple[int, float, float, float]:
    """(correct over every fold, wall seconds of the one Python process that runs them all,
    seconds inside it spent fitting and predicting, CPU seconds of the process); an untimed
    run first writes the bytecode (see the module docstring)."""
    extra = ', discretize="numbers"' if numeric else ""
    make = BAYESKIT[kind].format(extra=extra, extra0=extra.lstrip(", "))
    script = BAYESKIT_SCRIPT.format(cls=make.split("(")[0], make=make)
    command = [sys.executable, "-c", script, str(folder)]
    subprocess.run(command, capture_output=True, check=True, env=python_env())  # bytecode
    cpu = children_cpu()
    start = time.perf_counter()
    out = subprocess.run(
        command, capture_output=True, text=True, check=True, env=python_env()
    ).stdout
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    right, inside = out.split()
    return int(right), wall, float(inside), cpu


def run_table(name: str, folds: int, weka: bool) -> list[str]:
    from sklearn.model_selection import StratifiedKFold

    X, y, numeric = load(name)
    classes = sorted(set(y.tolist()))
    values = [None] * X.shape[1] if numeric else [
        sorted({v for v in X[:, j].tolist() if v is not None}) for j in range(X.shape[1])
    ]  # fmt: skip
    split = StratifiedKFold(folds, shuffle=True, random_state=0)
    weka_totals = {kind: np.zeros(4) for kind in KINDS}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        arrays = folder / "folds"
        for k, (train, test) in enumerate(split.split(np.zeros(len(y)), y)):
            here = arrays / f"{k:03d}"
            here.mkdir(parents=True)
            for key, array in (("X", X[train]), ("y", y[train]), ("T", X[test]), ("t", y[test])):
                np.save(here / f"{key}.npy", array, allow_pickle=array.dtype.kind == "O")
            if not weka:
                continue
            arff = (folder / "train.arff", folder / "test.arff")
            write_arff(arff[0], X[train], y[train], values, classes)
            write_arff(arff[1], X[test], y[test], values, classes)
            for kind in KINDS:
                command = WEKA_NUMERIC_AODE if numeric and kind == "aode" else WEKA[kind]
                if numeric and kind != "aode":
                    # BayesNet's AD-tree of 57 discretized columns exhausts a 2 GB heap;
                    # -D counts without it (the same counts, so the same model)
                    command = [command[0], "-D", *command[1:]]
                weka_totals[kind] += weka_fold(command, *arff)
        rows = []
        ours: dict[str, tuple[int, float, float, float]] = {}
        for kind in KINDS:
            key = BAYESKIT[kind]
            if key not in ours:
                ours[key] = bayeskit_folds(kind, numeric, arrays)
            right, wall, inside, cpu = ours[key]
            acc = right / len(y)
            if weka:
                w_right, w_wall, w_build, w_cpu = weka_totals[kind]
                w_acc = w_right / len(y)
                rows.append(
                    f"| {name} | {kind.upper()} | {w_acc:.4f} | {acc:.4f} | "
                    f"{100 * (acc - w_acc):+.2f} | {w_wall:.2f} | {wall:.2f} | "
                    f"{w_wall / wall:.1f}x | {w_cpu:.2f} | {cpu:.2f} | {w_cpu / cpu:.1f}x | "
                    f"{w_build:.2f} | {inside:.2f} |"
                )
            else:
                rows.append(
                    f"| {name} | {kind.upper()} | – | {acc:.4f} | – | – | {wall:.2f} | – | – | "
                    f"{cpu:.2f} | – | – | {inside:.2f} |"
                )
    return rows


def scale(n: int = 10**6, d: int = 20) -> None:
    """TAN and AODE fit on n rows of d categorical features (int codes 0..4, 3 classes)."""
    import bayeskit as bk

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, n)
    X = ((rng.integers(0, 5, (n, d)) + y[:, None] * (rng.random((n, d)) < 0.3)) % 5).astype(
        np.int64
    )
    print("| model | rows x features | fit (s) | predict 10^5 rows (s) |\n|---|---|---|---|")
    for cls in (bk.TANClassifier, bk.AODEClassifier):
        cls().fit(X[:200_000], y[:200_000]).predict(X[:200_000])  # compile, untimed
        start = time.perf_counter()
        model = cls().fit(X, y)
        fit = time.perf_counter() - start
        start = time.perf_counter()
        model.predict(X[:100_000])
        predict = time.perf_counter() - start
        print(f"| {cls.__name__} | {n:,} x {d} | {fit:.2f} | {predict:.2f} |")


def startup_seconds(command: list[str], repeat: int = 3) -> float:
    """The least wall time of ``command`` over ``repeat`` runs: what starting a runtime and
    its imports cost before any work (Python from bytecode, the first run writing it)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, env=python_env())
        best = min(best, time.perf_counter() - start)
    return best


def startup_line(weka: bool) -> str:
    python = [sys.executable, "-c"]
    parts = [
        f"python -c pass {startup_seconds([*python, 'pass']):.2f} s",
        "python -c 'import sklearn.base' "
        f"{startup_seconds([*python, 'import sklearn.base']):.2f} s",
        "python -c 'from bayeskit import TANClassifier' "
        f"{startup_seconds([*python, 'from bayeskit import TANClassifier']):.2f} s",
    ]
    if weka:  # Java start and loading Weka's class, no data read
        command = ["java", "-cp", str(WEKA_JAR), "weka.core.Version"]
        parts.append(f"java weka.core.Version {startup_seconds(command):.2f} s")
    return "start-up (least of 3): " + "; ".join(parts) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=TABLES, action="append")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--scale", action="store_true", help="only the 10^6-row fit")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    if args.scale:
        scale()
        return 0
    from bayeskit.datasets.shared import data_dir

    if data_dir() is None:
        print("skipped: the shared data folder was not found (set BAYESKIT_DATA)")
        return 0
    weka = WEKA_JAR.exists() and shutil.which("java") is not None
    if not weka:
        print(f"Weka is absent ({WEKA_JAR} or java not found): bayeskit's numbers only\n")
    with tempfile.TemporaryDirectory() as pycache:
        os.environ["BENCH_PYCACHE"] = pycache
        return tables(args.only or TABLES, args.folds, weka)


def tables(names: list[str], folds: int, weka: bool) -> int:
    print(startup_line(weka), flush=True)
    print(
        "| table | model | Weka accuracy | bayeskit accuracy | diff (points) | Weka s | "
        "bayeskit s | speed-up | Weka CPU s | bayeskit CPU s | CPU speed-up | Weka build s | "
        "bayeskit fit+predict s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    for name in names:
        for row in run_table(name, folds, weka):
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
