"""The numbers a report shows, computed once from out-of-fold predictions.

Scores come from :mod:`sklearn.metrics`, so the report agrees with what a user would compute
by hand. Predicted labels follow the model's own decision rule (a loss matrix, class weights,
a spam filter's costs), as ``model.predict`` would, not a bare argmax.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn import metrics

from .._decision import check_loss, class_loss_weights, decision_indices
from ..contract import contract_of, declares
from ..errors import DataError, ParameterError, ShapeError

N_BINS = 10
#: scikit-learn's ``log_loss`` clips probabilities to [eps, 1 − eps], eps of float64.
LOG_LOSS_EPS = float(np.finfo(np.float64).eps)
#: Fewest rows of a calibration bin (a quarter of the rows when there are fewer than 80).
MIN_BIN_ROWS = 20


@dataclass(frozen=True)
class Curve:
    """One class's ROC or precision–recall curve; ``area`` is its AUC or average precision."""

    k: int
    x: np.ndarray
    y: np.ndarray
    area: float


@dataclass(frozen=True)
class ClassRow:
    """Per-class scores; ``auc``/``ap`` are one-vs-rest and None when a side is empty.

    Precision is 0/0 for a class never decided (``predicted == 0``), recall for a class no
    row has (``support == 0``), F1 for both: such a score is 0 here, as scikit-learn's
    ``zero_division=0`` counts it, and :attr:`undefined` names it so a display can say so."""

    k: int
    support: int
    predicted: int
    precision: float
    recall: float
    f1: float
    auc: float | None
    ap: float | None

    @property
    def undefined(self) -> frozenset[str]:
        """The scores of this class that are 0/0 (``"precision"``, ``"recall"``, ``"f1"``)."""
        out = set()
        if self.predicted == 0:
            out.add("precision")
        if self.support == 0:
            out.add("recall")
        if self.predicted == 0 and self.support == 0:
            out.add("f1")
        return frozenset(out)


@dataclass(frozen=True)
class Calibration:
    """Reliability of ``score`` (P(positive) when binary, the top probability otherwise) in
    bins of ``N_BINS`` equal-width bins, adjacent ones merged until each holds
    ``MIN_BIN_ROWS`` rows (see :func:`merged_bins`): mean predicted vs observed frequency,
    with a 95% Wilson interval and the bin counts. ``ece`` is the count-weighted mean gap."""

    what: str
    edges: np.ndarray
    count: np.ndarray
    predicted: np.ndarray
    observed: np.ndarray
    low: np.ndarray
    high: np.ndarray
    ece: float


@dataclass(frozen=True)
class Evaluation:
    """The scores of one evaluation. ``macro_f1`` averages over the classes that occur among
    the true labels or the decisions (scikit-learn's default ``labels``); a class in neither
    has no F1. ``clipped`` counts the rows whose true class got a probability below
    ``LOG_LOSS_EPS``: ``log_loss`` counts each as −ln ``LOG_LOSS_EPS`` (≈ 36.04), as
    scikit-learn's ``log_loss`` clips, where the true loss of such a row is larger or
    infinite. ``balanced_accuracy`` is the mean recall over the classes among the true
    labels (scikit-learn's ``balanced_accuracy_score``; Brodersen et al. 2010), ``brier`` the
    Brier score (Brier 1950): with two classes the mean squared error of P(positive), else the
    mean over rows of the squared errors summed over the classes (scikit-learn's
    ``brier_score_loss``)."""

    classes: list[Any]
    n: int
    rule: str
    accuracy: float
    macro_f1: float
    log_loss: float
    balanced_accuracy: float
    brier: float
    clipped: int
    roc_auc: float | None
    roc_auc_kind: str
    majority_accuracy: float
    prior_log_loss: float
    confusion: np.ndarray
    per_class: list[ClassRow]
    positive: int | None  # the class the binary curves and calibration are about
    roc: list[Curve]
    pr: list[Curve]
    calibration: Calibration


def evaluate(
    classes: Sequence[Any],
    y_true: Any,
    proba: Any,
    model: Any = None,
    *,
    predicted: Any = None,
    log_proba: Any = None,
) -> Evaluation:
    """Scores of out-of-fold probabilities ``proba`` (n, K), columns in ``classes`` order,
    against the true labels ``y_true`` (n,).

    ``predicted`` (n,), optional: the decisions already made (such as each fold's
    ``model.predict``); by default they follow ``model``'s rule on ``proba``. ``log_proba``
    (n, K), optional: the log-probabilities ``proba`` came from; with two classes the curves and
    ROC-AUC then rank rows by their log-odds, which keeps apart rows whose probability rounds
    to exactly 0 or 1.
    """
    labels = list(classes.tolist() if isinstance(classes, np.ndarray) else classes)
    P, t = _check(labels, y_true, proba)
    K, n = len(labels), len(t)
    if predicted is None:
        pred, rule = decide(model, P, labels)
    else:
        pred = _encode(labels, predicted, "predicted", n)
        rule = "the model's own predictions" + (
            f": {decision_rule(model, labels)[1]}" if declares(model) else ""
        )
    rank = P if K != 2 or log_proba is None else _log_odds(log_proba, n)
    every = np.arange(K)
    prec, rec, f1, support = metrics.precision_recall_fscore_support(
        t, pred, labels=every, zero_division=0
    )
    binary = K == 2
    positive = _positive(model, labels) if binary else None
    one_vs_rest = [positive] if positive is not None else list(range(K))
    roc, pr, auc, ap = [], [], {}, {}
    for k in range(K):
        hit = t == k
        if hit.all() or not hit.any():
            continue
        # the areas from the curves, as scikit-learn computes them (roc_auc_score is the
        # trapezoidal area of roc_curve, average_precision_score the step sum over
        # precision_recall_curve): each curve is computed once, which a report of thousands
        # of classes needs
        fpr, tpr, _ = metrics.roc_curve(hit, rank[:, k])
        auc[k] = float(metrics.auc(fpr, tpr))
        precision, recall, _ = metrics.precision_recall_curve(hit, rank[:, k])
        ap[k] = float(max(0.0, -np.sum(np.diff(recall) * precision[:-1])))
        if k in one_vs_rest:
            roc.append(Curve(k, fpr, tpr, auc[k]))
            pr.append(Curve(k, recall, precision, ap[k]))
    if binary:
        assert positive is not None  # (binary)
        roc_auc = auc.get(positive)  # the area of the curve drawn (the two differ by ties)
        kind = "ROC-AUC"
    else:
        # roc_auc_score(multi_class="ovr", average="macro") is the mean of the classes'
        # one-vs-rest areas, when every class occurs (undefined otherwise)
        present = len(auc) == K and len(np.unique(t)) == K
        roc_auc = float(np.mean([auc[k] for k in range(K)])) if present else None
        kind = "ROC-AUC (macro, one-vs-rest)"
    share = np.bincount(t, minlength=K) / n
    seen = np.union1d(t, pred)  # f1_score's default labels: a class in neither has no F1
    rows = [
        ClassRow(
            k,
            int(support[k]),
            int((pred == k).sum()),
            float(prec[k]),
            float(rec[k]),
            float(f1[k]),
            auc.get(k),
            ap.get(k),
        )
        for k in range(K)
    ]
    return Evaluation(
        classes=labels,
        n=n,
        rule=rule,
        accuracy=float(metrics.accuracy_score(t, pred)),
        macro_f1=float(metrics.f1_score(t, pred, labels=seen, average="macro", zero_division=0)),
        log_loss=float(metrics.log_loss(t, P, labels=every)),
        # scikit-learn's balanced_accuracy_score: the recall averaged over the classes that
        # occur among the true labels, from the recalls computed above
        balanced_accuracy=float(np.mean(rec[support > 0])),
        brier=_brier(t, P, positive),
        clipped=int(np.sum(P[np.arange(n), t] < LOG_LOSS_EPS)),
        roc_auc=roc_auc,
        roc_auc_kind=kind,
        majority_accuracy=float(share.max()),
        prior_log_loss=float(metrics.log_loss(t, np.tile(share, (n, 1)), labels=every)),
        confusion=metrics.confusion_matrix(t, pred, labels=every),
        per_class=rows,
        positive=positive,
        roc=roc,
        pr=pr,
        calibration=calibration(P, t, positive, labels),
    )


def _brier(t: np.ndarray, P: np.ndarray, positive: int | None) -> float:
    if positive is not None:
        return float(metrics.brier_score_loss(t == positive, P[:, positive]))
    return float(metrics.brier_score_loss(t, P, labels=np.arange(P.shape[1])))


def calibration(
    P: np.ndarray, t: np.ndarray, positive: int | None, labels: list[Any]
) -> Calibration:
    if positive is not None:
        score, hit = P[:, positive], t == positive
        what = f"P({labels[positive]})"
    else:
        # the top class's probability against whether the top class is the true one (a loss
        # matrix or class weights may decide another class: that decision's correctness is
        # no frequency of this probability)
        top = P.argmax(axis=1)
        score, hit = P[np.arange(len(t)), top], top == t
        what = "top-class probability"
    fine = np.minimum((score * N_BINS).astype(np.int64), N_BINS - 1)
    least = max(1, min(MIN_BIN_ROWS, len(score) // 4))
    cuts = merged_bins(np.bincount(fine, minlength=N_BINS), least)
    edges = cuts / N_BINS
    b = np.searchsorted(cuts[1:-1], fine, side="right")
    n_bins = len(cuts) - 1
    count = np.bincount(b, minlength=n_bins).astype(np.float64)
    filled = np.maximum(count, 1.0)
    predicted = np.bincount(b, weights=score, minlength=n_bins) / filled
    observed = np.bincount(b, weights=hit.astype(np.float64), minlength=n_bins) / filled
    low, high = wilson(observed, count)
    ece = float(np.sum(count * np.abs(observed - predicted)) / count.sum())
    return Calibration(what, edges, count.astype(np.int64), predicted, observed, low, high, ece)


def merged_bins(counts: np.ndarray, least: int) -> np.ndarray:
    """Edges (as indices of the ``N_BINS`` equal-width bins, 0 … N_BINS) of adjacent bins
    merged from the left until each holds at least ``least`` rows; a remainder too small
    joins the bin before it. An observed frequency of 1–3 rows swings from 0 to 1, so the
    curve through such bins zig-zags and says nothing; a merged bin's interval is narrower."""
    cuts, held = [0], 0
    for k, c in enumerate(counts.tolist()[:-1]):
        held += c
        if held >= least:
            cuts.append(k + 1)
            held = 0
    if held + int(counts[-1]) < least and len(cuts) > 1:
        cuts.pop()
    cuts.append(len(counts))
    return np.asarray(cuts, dtype=np.int64)


def wilson(p: np.ndarray, n: np.ndarray, z: float = 1.959964) -> tuple[np.ndarray, np.ndarray]:
    """95% Wilson score interval of a proportion ``p`` out of ``n`` (0 width where n = 0)."""
    m = np.maximum(n, 1.0)
    centre = (p + z * z / (2 * m)) / (1 + z * z / m)
    half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m)
    empty = n == 0
    return np.where(empty, p, centre - half), np.where(empty, p, centre + half)


def decide(model: Any, P: np.ndarray, labels: list[Any]) -> tuple[np.ndarray, str]:
    """Predicted class indices under the model's decision rule, and the rule in words.

    A bayeskit model decides by ``argmax`` unless it has a loss matrix, class weights or (a
    spam filter) costs; the report's confusion matrix must show those decisions.
    """
    how, words = decision_rule(model, labels)
    return how(P), words


def decision_rule(model: Any, labels: list[Any]) -> tuple[Callable[[np.ndarray], np.ndarray], str]:
    """How ``model`` decides from probabilities ``P`` (class indices of each row), and the
    rule in words; :func:`decide` applies it."""
    argmax = (lambda P: np.argmax(P, axis=1)), "the most probable class"
    if model is None:
        return argmax
    known = getattr(model, "classes_", None)
    if known is not None and list(np.asarray(known).tolist()) != labels:
        return argmax
    declared = contract_of(model)
    if declared.decision == "spam" and len(labels) == 2:
        cut = model.decision_rule()[2]  # (the filter's own, checked: its costs' threshold)
        k = _positive(model, labels)
        assert k is not None
        return (
            lambda P: np.where(P[:, k] > cut, k, 1 - k),
            f"{labels[k]} when P({labels[k]}) > {cut:.3g} (the filter's costs)",
        )
    inner = model.model if declared.input == "documents" else model
    params = inner.get_params(deep=False) if hasattr(inner, "get_params") else {}
    loss, weights = params.get("loss"), params.get("class_weight")
    counts = getattr(inner, "class_count_", None)
    if (loss is None and weights is None) or (
        weights is not None and (counts is None or len(counts) != len(labels))
    ):
        return argmax
    classes = np.asarray(labels)
    matrix = None if loss is None else check_loss(loss, len(labels), classes)
    lam = (
        None if weights is None or counts is None else class_loss_weights(weights, classes, counts)
    )

    def how(P: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return decision_indices(np.log(P), loss=matrix, weights=lam)

    if matrix is None:
        return how, "the largest λ·P(class) (the model's class weights)"
    return how, "minimum expected loss (the model's loss matrix" + (
        ", each class's probability weighed by its class weight)" if lam is not None else ")"
    )


def _positive(model: Any, labels: list[Any]) -> int | None:
    """The class binary curves are drawn for: a spam filter's spam label, else the second."""
    if len(labels) != 2:
        return None
    spam = getattr(model, "spam_label", None)
    texts = [str(label) for label in labels]  # (a filter tells its labels apart by text)
    return texts.index(str(spam)) if spam is not None and str(spam) in texts else 1


def _check(labels: list[Any], y_true: Any, proba: Any) -> tuple[np.ndarray, np.ndarray]:
    if len(labels) < 2:
        raise ParameterError(f"a report needs at least two classes; got {labels!r}")
    if len(set(map(repr, labels))) != len(labels):
        raise ParameterError(f"classes must be distinct; got {labels!r}")
    try:
        P = np.asarray(proba, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"proba must be an array of probabilities: {exc}") from None
    truth = np.asarray(y_true, dtype=object).ravel()
    if P.ndim != 2 or P.shape[1] != len(labels):
        raise ShapeError(
            f"proba has shape {P.shape}; it must be (n_samples, {len(labels)}), one column per "
            "class in `classes` order"
        )
    if P.shape[0] != len(truth):
        raise ShapeError(f"y_true has {len(truth)} labels but proba has {P.shape[0]} rows")
    if len(truth) == 0:
        raise DataError("y_true is empty: a report needs at least one prediction")
    bad = ~np.isfinite(P) | (P < 0) | (P > 1)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise DataError(
            f"proba[{i}, {j}] = {P[i, j]!r}; probabilities must be finite and in [0, 1]"
        )
    sums = P.sum(axis=1)
    off = np.flatnonzero(np.abs(sums - 1.0) > 1e-6)
    if len(off):
        raise DataError(f"proba row {off[0]} sums to {sums[off[0]]:.8g}; each row must sum to 1")
    return P, _encode(labels, truth, "y_true", len(truth))


def _encode(labels: list[Any], values: Any, what: str, n: int) -> np.ndarray:
    """The class index of each of ``values`` (n labels)."""
    values = np.asarray(values, dtype=object).ravel()
    if len(values) != n:
        raise ShapeError(f"{what} has {len(values)} labels but proba has {n} rows")
    index = {label: k for k, label in enumerate(labels)}
    # Group rows by label text (one dictionary look-up per distinct label, not per row), then
    # check every row really equals its class so 1 and "1" are not taken for each other.
    uniq, inverse = np.unique(values.astype(str), return_inverse=True)
    first = np.zeros(len(uniq), dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(values))[::-1]
    codes = np.empty(len(uniq), dtype=np.int64)
    for u, i in enumerate(first):
        codes[u] = _code(index, values[i], int(i), labels, what)
    t = codes[inverse]
    same = np.asarray(labels, dtype=object)[t] == values
    for i in np.flatnonzero(~same):  # only labels whose text collides with another's
        t[i] = _code(index, values[i], int(i), labels, what)
    return t


def _code(index: dict[Any, int], value: Any, row: int, labels: list[Any], what: str) -> int:
    value = value.item() if isinstance(value, np.generic) else value
    try:
        return index[value]
    except (KeyError, TypeError):
        raise DataError(
            f"{what} row {row} has the label {value!r}, which is not one of the classes {labels!r}"
        ) from None


def _log_odds(log_proba: Any, n: int) -> np.ndarray:
    """Two classes: column k holds log P(k|x) − log P(other|x) (0 where both are −inf)."""
    L = np.asarray(log_proba, dtype=np.float64)
    if L.shape != (n, 2):
        raise ShapeError(f"log_proba has shape {L.shape}; it must be ({n}, 2), like proba")
    with np.errstate(invalid="ignore"):
        odds = np.nan_to_num(L[:, 1] - L[:, 0], nan=0.0)
    return np.column_stack([-odds, odds])
