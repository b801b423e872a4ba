"""GaussianMixtureClassifier on one-hot and mixed 0/1 + real tables, beside GaussianNB: the
mixture without the resolution floor (``var_floor=None``, the former default) and with it.

    python benchmarks/accuracy_gmm_tables.py            # every table (about 5 minutes)
    python benchmarks/accuracy_gmm_tables.py voting car # some of them

Stratified 5-fold cross-validation (shuffled, seed 0); accuracy / log-loss (probabilities
clipped at 1e-15 as scikit-learn's log_loss does). The UCI tables come from the shared data
folder (skipped with a note when it is absent); the categorical ones are one-hot encoded.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.metrics import log_loss
from sklearn.preprocessing import OneHotEncoder

import bayeskit as bk
from bayeskit.datasets.shared import data_dir, load_uci_table
from peers import stratified_folds

Table = tuple[np.ndarray, np.ndarray]


def tables() -> dict[str, Callable[[], Table]]:
    def one_hot(name: str) -> Callable[[], Table]:
        def load() -> Table:
            X, y = load_uci_table(name)
            encoder = OneHotEncoder(sparse_output=False, handle_unknown="ignore")
            return encoder.fit_transform(X).astype(np.float64), y

        return load

    def spambase_mixed() -> Table:
        root = data_dir()
        assert root is not None
        data = np.loadtxt(root / "uci-spambase" / "spambase.data", delimiter=",")
        X, y = data[:, :-1], data[:, -1]
        # the 48 word frequencies as present/absent flags beside the 9 real columns
        return np.hstack([X[:, 48:], (X[:, :48] > 0).astype(np.float64)]), y

    found: dict[str, Callable[[], Table]] = {}
    if data_dir() is not None:
        found |= {f"{n}-onehot": one_hot(n) for n in ("voting", "car", "mushroom", "nursery")}
        found["spambase-mixed01"] = spambase_mixed
    else:
        print("note: the shared data folder is absent: UCI tables skipped", file=sys.stderr)
    found["breast_cancer"] = lambda: load_breast_cancer(return_X_y=True)
    found["wine"] = lambda: load_wine(return_X_y=True)
    return found


def cross_validate(make: Callable[[], Any], X: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    correct, losses = 0, []
    for train, test in stratified_folds(X, y, 5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence notes of a few classes
            model = make().fit(X[train], y[train])
        proba = model.predict_proba(X[test])
        correct += int((model.classes_[proba.argmax(axis=1)] == y[test]).sum())
        losses.append(log_loss(y[test], np.clip(proba, 1e-15, 1), labels=model.classes_))
    return correct / len(y), float(np.mean(losses))


MODELS: dict[str, Callable[[], Any]] = {
    "GaussianNB": bk.GaussianNB,
    "GMM var_floor=None": lambda: bk.GaussianMixtureClassifier(var_floor=None),
    "GMM (default)": bk.GaussianMixtureClassifier,
}


def main(only: list[str]) -> None:
    print("| table | rows × columns | " + " | ".join(MODELS) + " |")
    print("|---|---|" + "---|" * len(MODELS))
    for name, load in tables().items():
        if only and name not in only and name.removesuffix("-onehot") not in only:
            continue
        X, y = load()
        cells = [
            f"{a:.3f} / {ll:.3f}" for a, ll in (cross_validate(m, X, y) for m in MODELS.values())
        ]
        print(f"| {name} | {X.shape[0]} × {X.shape[1]} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
