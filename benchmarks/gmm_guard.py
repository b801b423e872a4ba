"""GaussianMixtureClassifier's cross-validated check of its mixtures against GaussianNB, for the
target "GMM() at least as accurate as GaussianNB() on every table", on the numeric design
``accuracy_peers.py`` gives every program: the default (``GMM()``, with the check), BIC's
choice alone (``GMM(check_folds=None)``) and the thresholds the check's rule was chosen from.

Usage (from the project root)::

    python benchmarks/gmm_guard.py                  # 5 and 10 folds, every table (~4 minutes)
    python benchmarks/gmm_guard.py --folds 5 --only infert,cats

Rows classified right over the outer stratified cross-validation (seed 0, the folds of
``accuracy_peers.py``) by ``GaussianNB()``, ``GMM(check_folds=None)`` and ``GMM()``; then the
rule as it was measured before it was built into the model (``z = …`` columns): for each outer
training fold, an inner stratified 5-fold cross-validation (scikit-learn's folds) on the
training rows alone: ``GMM()`` (BIC's mixtures) and ``GaussianNB()`` are fitted on four inner
folds and score the fifth's rows by the Brier score, ``Σ_c (p_c − [y = c])²``. With ``d_i`` the
Brier score of GaussianNB minus that of the mixtures on inner held-out row ``i`` (positive where
the mixtures are better), the mixtures are kept when ``Σ d_i > z · √n · sd(d)`` — better by
``z`` standard errors of the paired difference — and GaussianNB is used otherwise; the choice's
rows right on the outer test fold are counted. ``z = 0``: the better inner score; ``z = 1``:
Breiman's one-standard-error rule; ``z = 2``: about a one-sided test at the 2.5 % level, which
puts the burden of proof on the model with more parameters — the rule the model took, with
folds of its own (stratified by a hash of each row, so a fit on a cluster makes the same ones)
and, in place of GaussianNB, one Gaussian per class whose variance is GaussianNB's or
``σ² + reg_covar``, whichever is larger (see ``bayeskit.mixture._check``).

The Brier score rather than the log-loss: it is bounded, so one held-out row that a mixture
gives a probability of 1e-30 does not decide the comparison (with the log-loss and ``z = 1``
fgl fell from 145 rows to 120 at 10 folds, crabs from 160 to 139, mixtures that classify far
better than GaussianNB but put a few rows far out in the tails).

Tables: R's (exported by ``Rscript``; skipped without it), scikit-learn's wine and breast
cancer, and the shared UCI tables (``BAYESKIT_DATA``; skipped without them).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

import bayeskit as bk
from accuracy_peers import design, r_tables, shared_tables, sklearn_tables
from bayeskit.datasets.shared import data_dir
from peers import stratified_folds

TABLES = (
    "survey,Cars93,birthwt,Pima,biopsy,crabs,iris,airquality,state.x77,wine,"
    "fgl,infert,Aids2,Titanic,cats,kyphosis,breast_cancer,spambase,voting,car,mushroom"
)
#: The thresholds measured, in standard errors of the paired Brier difference.
Z = (0.0, 1.0, 2.0, 3.0)
INNER_FOLDS = 5


def probabilities(model: Any, X: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``predict_proba`` in the columns of ``classes`` (a class missing from a fit: 0)."""
    out = np.zeros((X.shape[0], len(classes)))
    out[:, np.searchsorted(classes, model.classes_)] = model.predict_proba(X)
    return out


def fit_both(X: np.ndarray, y: np.ndarray) -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", bk.mixture.FewRowsWarning)
        mixture = bk.GaussianMixtureClassifier(check_folds=None).fit(X, y)
        return mixture, bk.GaussianNB().fit(X, y)


def brier_gain(X: np.ndarray, y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """``d_i`` of every training row: GaussianNB's Brier score minus the mixtures', each row
    scored by the models fitted on the other inner folds."""
    counts = np.unique(y, return_counts=True)[1]
    k = int(min(INNER_FOLDS, max(2, counts.min())))
    truth = (y[:, None] == classes[None, :]).astype(float)
    gain = np.zeros(len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a class with fewer rows than folds
        splits = StratifiedKFold(k, shuffle=True, random_state=0).split(X, y)
        for train, test in splits:
            mixture, naive = fit_both(X[train], y[train])
            for model, sign in ((naive, 1.0), (mixture, -1.0)):
                p = probabilities(model, X[test], classes)
                gain[test] += sign * ((p - truth[test]) ** 2).sum(axis=1)
    return gain


def rows_right(frame: pd.DataFrame, y: np.ndarray, k: int) -> dict[str, int]:
    classes = np.unique(y)
    right = {"GaussianNB()": 0, "GMM(check_folds=None)": 0, "GMM()": 0}
    right |= {f"z = {z:g}": 0 for z in Z}
    for train, test in stratified_folds(frame, y, k):
        D_train, D_test = design(frame.iloc[train], frame.iloc[test])
        mixture, naive = fit_both(D_train, y[train])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", bk.mixture.FewRowsWarning)
            checked = bk.GaussianMixtureClassifier().fit(D_train, y[train])
        right["GMM()"] += int(np.sum(checked.predict(D_test) == y[test]))
        hit_mixture = int(np.sum(mixture.predict(D_test) == y[test]))
        hit_naive = int(np.sum(naive.predict(D_test) == y[test]))
        right["GMM(check_folds=None)"] += hit_mixture
        right["GaussianNB()"] += hit_naive
        gain = brier_gain(D_train, y[train], classes)
        error = np.sqrt(len(gain)) * gain.std(ddof=1)
        for z in Z:
            right[f"z = {z:g}"] += hit_mixture if gain.sum() > z * error else hit_naive
    return right


def mark(value: int, reference: int) -> str:
    short = reference - value
    return f"{value}" if short <= 0 else f"{value} (−1)" if short == 1 else f"{value} ✗"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", default="5,10", help="outer folds, comma-separated")
    parser.add_argument("--only", default=TABLES, help="comma-separated table names")
    args = parser.parse_args()
    only = set(args.only.split(","))
    data = [t for t in shared_tables(data_dir()) if t[0] in only]
    data += r_tables(only) + sklearn_tables(only)
    data.sort(key=lambda t: args.only.split(",").index(t[0]))
    missing = only - {t[0] for t in data}
    for k in (int(v) for v in args.folds.split(",")):
        start = time.perf_counter()
        header = ["data (rows)", "GaussianNB()", "GMM(check_folds=None)", "GMM()"]
        header += [f"z = {z:g}" for z in Z]
        print(f"## Rows classified right, stratified {k}-fold (seed 0)\n")
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for name, frame, y in data:
            right = rows_right(frame, y, k)
            naive = right["GaussianNB()"]
            cells = [str(naive), *(mark(right[h], naive) for h in header[2:])]
            print(f"| {name} ({len(y)}) | " + " | ".join(cells) + " |", flush=True)
        print(f"\n{time.perf_counter() - start:.0f} s\n")
    if missing:
        print(f"Skipped (R or the shared data absent): {', '.join(sorted(missing))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
