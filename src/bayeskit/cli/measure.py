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
    fold_of: np.ndarray | None = None  # each row's test fold (cross-validation only)
    fitted: Any = None  # the model fitted on all the training rows (a test file only)

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
            "(measure on a test file instead: bayeskit evaluate DATA --test TEST)"
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
    fold_of = np.empty(data.n_rows, dtype=np.int64)
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
            fold_of[test] = k - 1
            update(k)
    return Predictions(
        data.y,
        classes,
        log_proba,
        predicted,
        time.perf_counter() - start,
        f"{folds}-fold stratified cross-validation (seed {seed})",
        fold_of,
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
    _note_unseen_classes(train, test)
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
        fitted=fitted,
    )


def _note_unseen_classes(train: Labelled, test: Labelled) -> None:
    """A note when test rows are of classes the training rows do not hold (no model can
    classify them right); when no test class is a training class at all, the two files'
    labels are likely written differently (0/1 against ham/spam), and the note says so."""
    learned = np.unique(train.y).tolist()
    known = set(learned)
    values, counts = np.unique(test.y, return_counts=True)
    pairs = zip(values.tolist(), counts.tolist(), strict=True)
    unseen = [(v, int(c)) for v, c in pairs if v not in known]
    if not unseen:
        return
    if len(unseen) == len(values):
        note(
            f"{test.source}: none of its classes ({_listed(values.tolist())}) is one of "
            f"{train.source}'s ({_listed(learned)}): no model can classify its rows right; "
            "are the labels written alike in both files?"
        )
        return
    rows = sum(c for _, c in unseen)
    note(
        f"{test.source}: {rows} of {len(test.y)} rows are of classes the training data do "
        f"not hold ({_listed([v for v, _ in unseen])}): no model can classify them right"
    )


def _listed(values: list[Any], most: int = 5) -> str:
    shown = ", ".join(repr(v) for v in values[:most])
    return shown + (f", … {len(values) - most} more" if len(values) > most else "")


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
        "balanced_accuracy": ev.balanced_accuracy,
        "brier": ev.brier,
        "roc_auc": ev.roc_auc if binary else None,
        "positive_class": labels[1] if binary else None,
        "per_class": {
            str(labels[r.k]): {
                "precision": r.precision,
                "recall": r.recall,
                "f1": r.f1,
                "support": r.support,
                "predicted": r.predicted,
                # 0/0 scores, given as 0 above as scikit-learn's zero_division=0 counts them
                "undefined": sorted(r.undefined),
            }
            for r in ev.per_class
        },
        "confusion_matrix": ev.confusion.tolist(),
        "by_fold": by_fold(result),
        "seconds": round(result.seconds, 3),
    }


def by_fold(result: Predictions) -> dict[str, list[float]] | None:
    """Each cross-validation fold's accuracy and log-loss, in fold order (None for a test
    set): how much the pooled figures move with the rows a model is trained on."""
    if result.fold_of is None:
        return None
    from sklearn.metrics import accuracy_score, log_loss

    every = np.arange(len(result.classes))
    truth = np.searchsorted(result.classes, result.y_true)
    proba = result.proba  # (exp of every row's log-probabilities: once, not once a fold)
    accuracy, loss = [], []
    for k in range(int(result.fold_of.max()) + 1):
        rows = result.fold_of == k
        accuracy.append(float(accuracy_score(result.y_true[rows], result.predicted[rows])))
        loss.append(float(log_loss(truth[rows], proba[rows], labels=every)))
    return {"accuracy": accuracy, "log_loss": loss}


def spread_line(folds: dict[str, list[float]]) -> str:
    """The folds' accuracy and log-loss as mean ± standard deviation (min–max)."""

    def spread(values: list[float]) -> str:
        a = np.asarray(values)
        sd = float(a.std(ddof=1)) if len(a) > 1 else 0.0
        return f"{a.mean():.4f} ± {sd:.4f} ({a.min():.4f}–{a.max():.4f})"

    n = len(folds["accuracy"])
    return (
        f"by fold ({n}): accuracy {spread(folds['accuracy'])}   "
        f"log-loss {spread(folds['log_loss'])}"
    )
