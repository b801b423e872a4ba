"""Measuring a model: out-of-fold predictions by stratified cross-validation or on a test set,
and the metrics ``evaluate`` prints."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._folds import StratifiedKFold
from .._params import clone
from ..io.readers import ReadError
from .data import Labelled
from .errors import rows_of
from .output import note, progress


@dataclass
class Predictions:
    """Predictions for rows whose labels are known."""

    y_true: np.ndarray
    classes: np.ndarray  # columns of ``proba``: every class of the data, sorted
    log_proba: np.ndarray  # (n, n_classes), log P(class | x); -inf for a class not learned
    predicted: np.ndarray  # the model's decisions
    seconds: float
    method: str  # "10-fold stratified cross-validation (seed 0)", …

    @property
    def proba(self) -> np.ndarray:
        return np.exp(self.log_proba)


def log_proba_over(model: Any, X: Any, classes: np.ndarray) -> np.ndarray:
    """``model.predict_log_proba(X)`` with one column per entry of ``classes`` (a class the
    model never saw, absent from a training fold, gets log-probability −inf)."""
    log_proba = model.predict_log_proba(X)
    out = np.full((log_proba.shape[0], len(classes)), -np.inf)
    out[:, np.searchsorted(classes, model.classes_)] = log_proba
    return out


def check_folds(folds: int, y: np.ndarray) -> None:
    """Refuse a fold count that cannot work; note when a class is smaller than a fold."""
    _, counts = np.unique(y, return_counts=True)
    if folds < 2:
        raise ReadError(f"--folds {folds}: cross-validation needs at least 2 folds")
    if counts.max() < 2:
        raise ReadError(
            "cross-validation needs a class of at least 2 rows; every class here has one "
            "(evaluate on a test file with --test instead)"
        )
    if folds > counts.max():
        raise ReadError(
            f"--folds {folds}: the largest class has {counts.max()} rows, too few for {folds} "
            f"folds; use --folds {int(counts.max())} or fewer"
        )
    if folds > counts.min():
        note(
            f"the smallest class has {counts.min()} rows, fewer than the {folds} folds: some "
            "folds test without it"
        )


def cross_validate(
    make: Callable[[], Any],
    data: Labelled,
    folds: int,
    seed: int = 0,
    *,
    run_folds: Callable[..., Iterator[tuple[np.ndarray, np.ndarray]]] | None = None,
) -> Predictions:
    """Stratified ``folds``-fold cross-validation: every row predicted by a model that did
    not see it. ``run_folds(make, data, splits, classes)`` yields each fold's
    (log-probabilities, predictions) in order (default: one fold after the other, here)."""
    check_folds(folds, data.y)
    classes = np.unique(data.y)
    log_proba = np.zeros((data.n_rows, len(classes)))
    predicted = np.empty(data.n_rows, dtype=data.y.dtype)
    splitter = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        splits = list(splitter.split(np.zeros(data.n_rows), data.y))
    results = (run_folds or folds_here)(make, data, splits, classes)
    with progress("cross-validating", folds, "folds") as update:
        for k, ((_, test), (fold_log_proba, fold_predicted)) in enumerate(
            zip(splits, results, strict=True), start=1
        ):
            log_proba[test] = fold_log_proba
            predicted[test] = fold_predicted
            update(k)
    return Predictions(
        data.y,
        classes,
        log_proba,
        predicted,
        time.perf_counter() - start,
        f"{folds}-fold stratified cross-validation (seed {seed})",
    )


def fold(
    make: Callable[[], Any], data: Labelled, train: np.ndarray, test: np.ndarray, classes: Any
) -> tuple[np.ndarray, np.ndarray]:
    """(log-probabilities, predictions) of the ``test`` rows by a model fitted on ``train``."""
    with rows_of(data.source, train):
        model = make().fit(data.subset(train), data.y[train])
    test_X = data.subset(test)
    with rows_of(data.source, test):
        return log_proba_over(model, test_X, classes), model.predict(test_X)


def folds_here(
    make: Callable[[], Any], data: Labelled, splits: list[Any], classes: Any
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Each fold's :func:`fold`, one after the other."""
    for train, test in splits:
        yield fold(make, data, train, test, classes)


def holdout(model: Any, train: Labelled, test: Labelled, test_X: Any) -> Predictions:
    """Fit on ``train``, predict ``test`` (``test_X``: its inputs made ready for the model)."""
    start = time.perf_counter()
    with rows_of(train.source):
        fitted = clone(model).fit(train.X, train.y)
    classes = np.unique(np.concatenate([np.unique(train.y), np.unique(test.y)]))
    with rows_of(test.source):
        log_proba = log_proba_over(fitted, test_X, classes)
        predicted = fitted.predict(test_X)
    return Predictions(
        test.y,
        classes,
        log_proba,
        predicted,
        time.perf_counter() - start,
        f"trained on {train.source}, tested on {test.source}",
    )


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def metrics(result: Predictions) -> dict[str, Any]:
    """Accuracy, macro-F1, log-loss, per-class precision/recall/F1, the confusion matrix and,
    for two classes, ROC-AUC (positive class: the second in sorted order) — computed by
    :func:`bayeskit.report.evaluation.evaluate`, so ``evaluate`` and ``report`` agree."""
    from ..report.evaluation import evaluate

    labels = [_plain(c) for c in result.classes]
    ev = evaluate(
        labels,
        result.y_true,
        result.proba,
        predicted=result.predicted,
        log_proba=result.log_proba,
    )
    binary = len(labels) == 2 and ev.roc_auc is not None
    return {
        "n": ev.n,
        "method": result.method,
        "classes": labels,
        "accuracy": ev.accuracy,
        "macro_f1": ev.macro_f1,
        "log_loss": ev.log_loss,
        "log_loss_clipped_rows": ev.clipped,
        "roc_auc": ev.roc_auc if binary else None,
        "positive_class": labels[1] if binary else None,
        "per_class": {
            str(labels[r.k]): {
                "precision": r.precision,
                "recall": r.recall,
                "f1": r.f1,
                "support": r.support,
                "predicted": r.predicted,
            }
            for r in ev.per_class
        },
        "confusion_matrix": ev.confusion.tolist(),
        "seconds": round(result.seconds, 3),
    }
