"""How GaussianMixtureClassifier chooses each class's mixture, beside GaussianNB: the default
and the alternative choices measured for the target "GMM() at least as accurate as
GaussianNB() on every table", on the numeric design ``accuracy_peers.py`` gives every
program (treatment-coded categories, missing numbers set to the training fold's median).

Usage (from the project root)::

    python benchmarks/gmm_choice.py                      # the tables below (about 5 minutes)
    python benchmarks/gmm_choice.py --only Pima,birthwt  # some of them

Rows classified right over stratified 5-fold cross-validation (seed 0, the folds of
``accuracy_peers.py``) by:

* ``GaussianNB()`` and ``GMM()`` (the default: the number of components of each class by BIC
  among the supported fits, the resolution floor on every component);
* ``GMM(n_init=5)`` and ``GMM(init_params="kmeans")``: other EM starts, same choice;
* ``one component``: ``GMM(n_components=1)`` (with the floor) and ``one component, no floor``
  (``var_floor=None``: GaussianNB's variances, reg_covar instead of var_smoothing);
* choices made here from fixed-``k`` fits of each class (``k`` = 1 … 5, each from a fresh
  start), by criteria the model could compute from a class's own fit: ``BIC`` (the default's
  criterion: which shows how much of the differences between the choices below is the starts);
  ``BIC, one component floored only where constant`` (the one-component candidate keeps the
  class's own variance of every column the class has two values in; the floor only where a
  column is constant in the class); ``BIC, pinned mixtures refused`` (a mixture with a
  component whose variance of a column sits at the floor, where the class's own variance does
  not, is no candidate — as R's mclust gives no BIC for a mixture whose covariance is
  singular without the floor); ``ICL`` (BIC plus twice the entropy of the responsibilities,
  Biernacki, Celeux & Govaert, IEEE TPAMI 22(7), 2000);
* R's mclust ``MclustDA(G = 1:5, modelNames = "VVI")`` (diagonal covariances, BIC per class;
  skipped when R or mclust is absent).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import bayeskit as bk
from accuracy_peers import design, r_tables, sklearn_tables
from bayeskit.mixture import resolution_floor
from bayeskit.mixture._components import least_support
from peers import stratified_folds

TABLES = (
    "survey,Cars93,birthwt,Pima,biopsy,crabs,iris,airquality,state.x77,wine,"
    "fgl,infert,Aids2,Titanic,cats,kyphosis"
)
MAX_K = 5
REG_COVAR = 1e-6  # GaussianMixtureClassifier's default

Folds = list[tuple[np.ndarray, np.ndarray]]


def _fitted(make: Callable[[], Any], D: np.ndarray, y: np.ndarray) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make().fit(D, y)


def right(model: Any, T: np.ndarray, y: np.ndarray) -> int:
    return int(np.sum(model.predict(T) == y))


def fixed_k(D: np.ndarray, y: np.ndarray, T: np.ndarray) -> dict[tuple[int, int], dict[str, Any]]:
    """Each class's ``k``-component fit (k = 1 … MAX_K) and what the criteria read from it:
    ``{(class index, k): {"log_test": ln p(x | class) of the test rows, "bic", "icl",
    "supported", "pinned"}}`` (a class with too few distinct rows for ``k`` has no entry)."""
    floor = resolution_floor(D) + REG_COVAR
    out: dict[tuple[int, int], dict[str, Any]] = {}
    d = D.shape[1]
    for k in range(1, MAX_K + 1):
        model = _fitted(lambda k=k: bk.GaussianMixtureClassifier(n_components=k), D, y)
        log_prior = np.log(model.class_prior_)
        train_joint = model.predict_joint_log_proba(D) - log_prior
        test_joint = model.predict_joint_log_proba(T) - log_prior
        _, params, families = model._fitted()
        mixture = params[0]
        L = families[0].component_log_prob(mixture, D)
        for c, label in enumerate(model.classes_):
            if model.n_components_[c] != k:
                continue
            rows = y == label
            n = int(rows.sum())
            Lc = L[rows][:, mixture.starts[c] : mixture.starts[c + 1]]
            R = np.exp(Lc - Lc.max(axis=1, keepdims=True))
            R /= R.sum(axis=1, keepdims=True)
            entropy = float(-np.sum(R * np.log(np.clip(R, 1e-300, 1.0))))
            bic = -2.0 * float(train_joint[rows, c].sum()) + (2 * k * d + k - 1) * np.log(n)
            weights = model.weights_[label]
            variances = np.atleast_2d(model.covariances_[label])
            own = D[rows].var(axis=0) + REG_COVAR
            out[c, k] = {
                "log_test": test_joint[:, c],
                "bic": bic,
                "icl": bic + 2.0 * entropy,
                "supported": k == 1 or float(weights.min()) * n > least_support("diag", d),
                "pinned": k > 1
                and bool(np.any((variances <= floor * 1.0001) & (own > floor * 1.0001))),
            }
    return out


def one_component_constant_floor(D: np.ndarray, y: np.ndarray, T: np.ndarray) -> dict[int, Any]:
    """Each class's one Gaussian per column with the class's own variance, the resolution
    floor only on the columns constant in the class: ``{class index: (ln p(test | class),
    BIC)}``."""
    floor = resolution_floor(D)
    out = {}
    for c, label in enumerate(np.unique(y)):
        rows = D[y == label]
        mean, var = rows.mean(axis=0), rows.var(axis=0)
        var = np.where(var > 0, var, floor) + REG_COVAR

        def log_density(Z: np.ndarray, mean: np.ndarray = mean, var: np.ndarray = var) -> Any:
            return np.sum(-0.5 * (np.log(2 * np.pi * var) + (Z - mean) ** 2 / var), axis=1)

        n, d = rows.shape
        out[c] = (log_density(T), -2.0 * float(log_density(rows).sum()) + 2 * d * np.log(n))
    return out


def chosen(
    fits: dict[tuple[int, int], dict[str, Any]],
    classes: np.ndarray,
    y_train: np.ndarray,
    criterion: str,
    refuse_pinned: bool = False,
    one: dict[int, Any] | None = None,
) -> np.ndarray:
    """The test rows' joint log-likelihoods (n, classes) under each class's chosen fit."""
    columns = []
    for c, label in enumerate(classes):
        table = {
            k: (f["log_test"], f[criterion])
            for (cc, k), f in fits.items()
            if cc == c and f["supported"] and not (refuse_pinned and f["pinned"])
        }
        if one is not None:
            table[1] = one[c]
        best = min(table, key=lambda k: table[k][1])
        columns.append(table[best][0] + np.log(np.mean(y_train == label)))
    return np.column_stack(columns)


def evaluate(frame: pd.DataFrame, y: np.ndarray, folds: Folds) -> dict[str, int]:
    classes = np.unique(y)
    found: dict[str, int] = {}

    def add(name: str, count: int) -> None:
        found[name] = found.get(name, 0) + count

    models: dict[str, Callable[[], Any]] = {
        "GaussianNB()": bk.GaussianNB,
        "GMM()": bk.GaussianMixtureClassifier,
        "GMM(n_init=5)": lambda: bk.GaussianMixtureClassifier(n_init=5),
        'GMM(init_params="kmeans")': lambda: bk.GaussianMixtureClassifier(init_params="kmeans"),
        "one component": lambda: bk.GaussianMixtureClassifier(n_components=1),
        "one component, no floor": lambda: bk.GaussianMixtureClassifier(
            n_components=1, var_floor=None
        ),
    }
    for train, test in folds:
        D, T = design(frame.iloc[train], frame.iloc[test])
        y_train, y_test = y[train], y[test]
        for name, make in models.items():
            add(name, right(_fitted(make, D, y_train), T, y_test))
        fits = fixed_k(D, y_train, T)
        one = one_component_constant_floor(D, y_train, T)
        for name, joint in (
            ("BIC (fixed-k fits)", chosen(fits, classes, y_train, "bic")),
            (
                "BIC, one component floored only where constant",
                chosen(fits, classes, y_train, "bic", one=one),
            ),
            (
                "BIC, pinned mixtures refused",
                chosen(fits, classes, y_train, "bic", refuse_pinned=True),
            ),
            ("ICL", chosen(fits, classes, y_train, "icl")),
        ):
            add(name, int(np.sum(classes[np.argmax(joint, axis=1)] == y_test)))
    return found


MCLUST = r"""
args <- commandArgs(TRUE); dir <- args[1]; k <- as.integer(args[2])
suppressMessages(library(mclust))
for (f in seq_len(k) - 1) {
  tr <- read.csv(file.path(dir, sprintf("tr%d.csv", f)))
  te <- read.csv(file.path(dir, sprintf("te%d.csv", f)))
  X <- tr[, names(tr) != "y", drop = FALSE]; Z <- te[, names(te) != "y", drop = FALSE]
  right <- tryCatch({
    m <- MclustDA(X, factor(tr$y), G = 1:5, modelNames = "VVI", verbose = FALSE)
    sum(as.character(predict(m, Z)$classification) == as.character(te$y))
  }, error = function(e) NA)
  cat(right, "\n")
}
"""


def mclust(frame: pd.DataFrame, y: np.ndarray, folds: Folds) -> int | None:
    """Rows right by R's MclustDA with diagonal covariances (None: R or mclust absent, or a
    fold failed)."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for f, (train, test) in enumerate(folds):
            D, T = design(frame.iloc[train], frame.iloc[test])
            for part, M, rows in (("tr", D, train), ("te", T, test)):
                table = pd.DataFrame(M, columns=[f"d{j}" for j in range(M.shape[1])])
                table["y"] = y[rows].astype(str)
                table.to_csv(Path(tmp) / f"{part}{f}.csv", index=False)
        script = Path(tmp) / "mclust.R"
        script.write_text(MCLUST)
        run = subprocess.run(
            ["Rscript", str(script), tmp, str(len(folds))], capture_output=True, text=True
        )
    counts = run.stdout.split()
    if run.returncode or len(counts) != len(folds) or "NA" in counts:
        return None
    return sum(int(v) for v in counts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=TABLES, help="comma-separated table names")
    args = parser.parse_args()
    names = set(args.only.split(","))
    data = r_tables(names) + sklearn_tables(names)
    rows = []
    for name, frame, y in data:
        folds = stratified_folds(frame, y, 5)
        found = evaluate(frame, y, folds)
        r = mclust(frame, y, folds)
        found["R mclust MclustDA VVI"] = -1 if r is None else r
        rows.append((f"{name} ({len(y)})", found))
        print(f"{name}: done", file=sys.stderr, flush=True)
    header = list(rows[0][1])
    print("| data (rows) | " + " | ".join(header) + " |")
    print("|---" * (len(header) + 1) + "|")
    for name, found in rows:
        gnb = found["GaussianNB()"]
        cells = []
        for model in header:
            value = found[model]
            short = gnb - value if value >= 0 and model != "GaussianNB()" else 0
            mark = " ✗" if short > 1 else " (−1)" if short == 1 else ""
            cells.append("—" if value < 0 else f"{value}{mark}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\n✗: two or more rows fewer than GaussianNB(); (−1): one row fewer, noise by the rule")
    print("of accuracy_peers.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
