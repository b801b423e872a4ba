"""Where discriminant analysis spends its time: CPU time of each phase and piece, both libraries.

Usage (from the project root)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/profile_da.py
    OPENBLAS_NUM_THREADS=1 python benchmarks/profile_da.py qda-fit-predict-digits

For each workload of ``workloads_da.py``: scikit-learn's fit and predict, bayeskit's fit split
into its input checks (X, the labels, the value range), ``Scatter.of``, the scatter check and
``finalize`` (of which the factorisations), and its predict with the input checks and the
scoring alone. Times are the CPU time of this thread (``time.thread_time``), the least of
several repeats: a busy machine inflates them much less than wall-clock time. Work handed to
other threads is not counted, so the per-class scoring runs on this thread alone here (it
splits rows over the usable CPUs otherwise), and BLAS should be held to one thread.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bayeskit._labels import class_weights
from bayeskit.families import _factorize, mvnormal
from bayeskit.stats import Scatter
from workloads_da import WORKLOADS


def cpu_ms(function: Callable[[], Any], repeats: int) -> float:
    """Least CPU time of this thread over ``repeats`` calls (after one untimed call), in ms."""
    function()
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        function()
        best = min(best, time.thread_time() - start)
    return best * 1e3


def factors(family: Any, params: Any, stats: Scatter) -> Any:
    """The factorisations ``finalize`` ends with, of its covariance matrices."""
    keep = params.keep
    return _factorize.factorize(
        params.covariance[:, keep][:, :, keep],
        stats.mean[:, keep],
        stats.weight,
        np.zeros(1, dtype=bool) if params.shared else params.empty,
        diagonal=family.shape != "full",
        tol=params.tol,
        shared=params.shared,
    )


def profile(name: str) -> dict[str, float]:
    work = next(w for w in WORKLOADS if w.name == name)
    sk, bk = work.build(False)
    repeats = 30 if "digits" in name else 5
    X, y, X_pred = bk.X_fit, bk.y, bk.X_pred
    theirs = sk.make().fit(X, y)
    ours = bk.make().fit(X, y)
    family = ours._families()[0]
    checked = ours._input(X, reset=False)
    _, R = class_weights(y, None, len(y), None)
    stats = ours.stats_.blocks[0]
    names = ours._feature_names()
    fresh = Scatter(stats.weight, stats.mean, stats.scatter)  # its check is not cached yet
    return {
        "sklearn fit": cpu_ms(lambda: sk.make().fit(X, y), repeats),
        "sklearn predict": cpu_ms(lambda: theirs.predict(X_pred), repeats),
        "bayeskit fit": cpu_ms(lambda: bk.make().fit(X, y), repeats),
        "X checks": cpu_ms(lambda: ours._input(X, reset=False), repeats)
        + cpu_ms(lambda: family.validate(checked, names), repeats),
        "labels": cpu_ms(lambda: class_weights(y, None, len(y), None), repeats),
        "Scatter.of": cpu_ms(lambda: family.summarize(checked, R), repeats),
        "scatter check": cpu_ms(
            lambda: Scatter(fresh.weight, fresh.mean, fresh.scatter).invalid(), repeats
        ),
        "finalize": cpu_ms(lambda: family.finalize(stats), repeats),
        "of which factors": cpu_ms(lambda: factors(family, ours._params(), stats), repeats),
        "bayeskit predict": cpu_ms(lambda: ours.predict(X_pred), repeats),
        "X checks ": cpu_ms(
            lambda: family.validate(ours._input(X_pred, reset=False), names), repeats
        ),
        "scoring": cpu_ms(lambda: family.log_prob_relative(ours._params(), X_pred), repeats),
    }


def main(argv: list[str]) -> int:
    mvnormal.usable_cpus = lambda: 1  # this thread's CPU time is the whole scoring
    names = argv or [w.name for w in WORKLOADS if w.phase == "total"]
    rows = [(name, profile(name)) for name in names]
    columns = list(rows[0][1])
    print("| workload | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for name, row in rows:
        print(f"| {name} | " + " | ".join(f"{row[c]:.2f}" for c in columns) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
