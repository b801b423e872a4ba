"""Semi-supervised Naive Bayes fitted from parts of the data: one reduction per EM iteration
(:mod:`bayeskit.reduction`; run by :func:`bayeskit.dask.fit` on a cluster).

Round 0 — the start: each part's labelled rows summarized by the wrapped estimator (its own
``summarize``), with their weights and how many rows there are; the client finalizes the
supervised model EM starts from, as ``fit`` does. Rounds 1, 2, … — EM: the current model goes
to the workers once per round; each part returns the wrapped estimator's statistics of its
rows under their class posteriors (labelled rows keep their class; unlabelled ones weigh
``unlabeled_weight``) and their log-likelihood; the client does the M-step and the convergence
test (:class:`~bayeskit.mixture.EMRun`, the in-memory loop's own). Last round — every training
row's class probabilities (``label_distributions_``, ``transduction_``), stacked in row order.

Wrapped estimators: bayeskit's generative classifiers (MultinomialNB, GaussianNB, MixedNB, …)
and TextClassifier, with one component per class (``n_components > 1`` — labelled rows shared
among components by random draws in row order — is refused by name). A TextClassifier's
vocabulary is counted, as in memory, over every document, labelled or not: with per-term
statistics (its additive mode, the default) round 0 also returns each part's vocabulary
statistics, which add, and each EM round scores and counts a part's documents over the terms
they hold; with tf-idf or hashed output (a fixed vectorizer) a first round fits the vectorizer
from the vocabulary statistics of every document, and EM runs on the count model over its
output. In the per-term mode a worker keeps the counts of the partitions it has counted
between rounds (:mod:`._cache`), so it reads each partition's documents again every round
(the reduction keeps no data on the workers) but counts them once; with a fixed vectorizer
they are vectorized again every round.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._labels import check_sample_weight, class_weights, label_positions
from .._params import clone
from ..contract import contract_of
from ..errors import DataError, MergeError, ParameterError
from ..mixture._em import EMRun, Part, e_step
from ..reduction import Each, Round, Rounds, Stacked
from ..reduction import Part as Total
from ..reduction._plans import _documents, _set_schema, schema_of, vocabulary_statistics
from ._cache import counted
from ._labels import labelled_classes, marked_labels
from ._views import EstimatorView, Rows, TextView


def first_pass(template: Any, X: Any, y: Any, weight: Any) -> Any:
    """Round 0 on a part: the statistics of its labelled rows (None: it has none), and the
    weight of its labelled rows and its number of rows."""
    model = copy.copy(template)
    prepared = model.prepare(X, reset=True)
    y, labelled = marked_labels(y)
    n = len(y)
    w = check_sample_weight(weight, n, part=True)
    summary = None
    if labelled.any():
        labels = labelled_classes(y, labelled)
        given = y[labelled].astype(object) if y.dtype.kind == "O" else y[labelled]
        _, R = class_weights(given, w[labelled], int(labelled.sum()), labels, part=True)
        summary = model.summarize_rows(prepared.take(labelled), labels, R)
    counts = np.array([float(w[labelled].sum()), float(n)])
    return (Each((summary,)), counts), schema_of(model)


def _marks(labels: np.ndarray, lam: float, y: Any, weight: Any, n: int) -> Any:
    """A part's labelled rows, their class positions (-1: unlabelled) and EM's row weights."""
    y, labelled = marked_labels(y)
    w = check_sample_weight(weight, n, part=True)
    codes = np.full(len(y), -1, dtype=np.int64)
    given = y[labelled].astype(object) if y.dtype.kind == "O" else y[labelled]
    codes[labelled] = label_positions(labels, given)
    return labelled, codes, np.where(labelled, w, lam * w)


def _prepared(state: Any, X: Any, y: Any, weight: Any) -> Any:
    fitted, labels, lam = state
    prepared = fitted.prepare(X)
    rows = Rows(prepared, prepared.n_rows)
    return (rows, *_marks(labels, lam, y, weight, rows.n_rows))


def _e_step(view: Any, fitted: Any, labels: np.ndarray, rows: Rows, marks: Any) -> Any:
    labelled, codes, row_weight = marks
    allowed = np.ones((rows.n_rows, len(labels)), dtype=bool)
    allowed[labelled] = np.arange(len(labels))[None, :] == codes[labelled][:, None]
    return (e_step(view, fitted, Part(rows, row_weight, allowed)),), None


def em_step(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """An EM round on a part: the estimator's statistics of its rows under their class
    posteriors, and their log-likelihood."""
    fitted, labels, _ = state
    rows, *marks = _prepared(state, X, y, weight)
    return _e_step(EstimatorView.of_fitted(fitted, labels), fitted, labels, rows, marks)


def distributions(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """The last round on a part: each row's class probabilities."""
    estimator, fitted, labels, lam = state
    rows, labelled, codes, _ = _prepared((fitted, labels, lam), X, y, weight)
    jll = fitted.joint_log_proba_rows(rows.data)
    return (Stacked(estimator.distributions(jll, codes, labelled)),), None


# ---------------------------------------------------------------------------- text
def text_first_pass(prototype: Any, X: Any, y: Any, weight: Any) -> Any:
    """Round 0 on a part of documents (per-term statistics): the statistics of its labelled
    documents (with the vocabulary statistics of all its documents), the weight of its
    labelled rows and its number of rows, and the vocabulary statistics of all its documents,
    labelled or not (a part without labelled documents has no statistics, but its vocabulary
    counts)."""
    y, labelled = marked_labels(y)
    n = len(y)
    w = check_sample_weight(weight, n, part=True)
    labels = labelled_classes(y, labelled) if labelled.any() else np.array([])
    view, rows = _text_rows(prototype, labels, X)
    summary = None
    if labelled.any():
        given = y[labelled].astype(object) if y.dtype.kind == "O" else y[labelled]
        _, R = class_weights(given, w[labelled], int(labelled.sum()), labels, part=True)
        summary = view.summarize(Rows(rows.data[labelled], int(labelled.sum())), R)
    counts = np.array([float(w[labelled].sum()), float(n)])
    return (Each((summary,)), counts, view.vocabulary), None


def _text_rows(prototype: Any, labels: np.ndarray, X: Any) -> tuple[TextView, Rows]:
    return counted(prototype, labels, _documents(X))


def text_em_step(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """An EM round on a part of documents (per-term statistics)."""
    prototype, fitted, labels, lam = state
    view, rows = _text_rows(prototype, labels, X)
    return _e_step(view, fitted, labels, rows, _marks(labels, lam, y, weight, rows.n_rows))


def text_distributions(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """The last round on a part of documents (per-term statistics)."""
    estimator, prototype, fitted, labels, lam = state
    view, rows = _text_rows(prototype, labels, X)
    labelled, codes, _ = _marks(labels, lam, y, weight, rows.n_rows)
    jll = view.log_joint(fitted, rows)
    return (Stacked(estimator.distributions(jll, codes, labelled)),), None


def vectorized(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """A round of the count model's EM on a part of documents, through a fitted vectorizer
    (tf-idf or hashed output): ``state`` is (vectorizer, the round, its state)."""
    vectorizer, summarize, inner = state
    return summarize(inner, vectorizer.transform(_documents(X)), y, weight)


def _fixed_vectorizer(prototype: Any) -> Any:
    """The rounds that fit a TextClassifier's vectorizer on every document (as in memory)."""
    vec, _ = prototype.prototypes()
    vectorizer = clone(vec)
    if vectorizer.output == "hashed":
        vectorizer.fit([])  # nothing to learn: the columns are hashes
        return vectorizer
    total: Total = yield Round(clone(vec), vocabulary_statistics)
    vectorizer.fit_stats(total.values[0])
    return vectorizer


def semi_supervised_rounds(estimator: Any, *, partial: bool) -> Rounds:
    """The rounds that fit a SemiSupervisedNB (see the module docstring)."""
    if partial:
        raise MergeError(
            "a SemiSupervisedNB cannot add rows to a fitted model (no partial_fit): EM is "
            "refitted on all the rows (bayeskit.dask.fit)"
        )
    prototype = estimator._prototype()
    lam, tol, max_iter, k = estimator._settings()
    if k > 1:
        raise ParameterError(
            f"SemiSupervisedNB(n_components={k}) does not run on a cluster: labelled rows are "
            "shared among a class's components by random draws in row order; use "
            "n_components=1 there, or fit in memory"
        )
    text = contract_of(prototype).input == "documents"
    additive = text and prototype.keeps_term_statistics()
    vectorizer = None
    if text and not additive:
        vectorizer = yield from _fixed_vectorizer(prototype)
    if additive:
        total: Total = yield Round(clone(prototype), text_first_pass)
        each, counts, vocabulary = total.values
    else:
        inner = prototype.prototypes()[1] if text else prototype
        total = yield _round(vectorizer, copy.copy(inner), first_pass)
        each, counts = total.values
    start = each.values[0]
    labelled_weight, n_rows = counts
    if start is None:
        raise DataError(
            f"all {int(n_rows)} rows are unlabelled (-1 or None); semi-supervised learning "
            "needs at least one labelled row of every class it is to predict"
        )
    if not labelled_weight > 0:
        raise DataError(
            "every labelled row has weight 0; semi-supervised learning needs some labelled "
            "rows to start from"
        )
    labels = start.classes
    counting = EstimatorView(prototype.prototypes()[1] if text else prototype, labels)
    if not additive:
        assert total.schema is not None
        _set_schema(counting.model, total.schema)
    view: EstimatorView | TextView = counting
    if text:
        view = TextView(prototype, labels)
        if additive:
            # the labelled documents' statistics, with the vocabulary of every document
            view.vocabulary = vocabulary
            start = view.with_vocabulary(start)
        else:
            view.vectorizer, view.inner = vectorizer, counting
    run = EMRun(view, view.finalize(start), tol=tol, max_iter=max_iter, stats=None)
    while not run.done:
        if additive:
            total = yield Round((clone(prototype), run.params, labels, lam), text_em_step)
        else:
            total = yield _round(vectorizer, (run.params, labels, lam), em_step)
        run.advance(total.values[0])
    trial = copy.copy(estimator)
    trial._owner, trial.classes_ = np.arange(len(labels)), labels
    if additive:
        state = (trial, clone(prototype), run.params, labels, lam)
        total = yield Round(state, text_distributions)
    else:
        total = yield _round(vectorizer, (trial, run.params, labels, lam), distributions)
    trial._set_fitted(view, run.result(), labels, total.values[0].rows, tol, max_iter)
    estimator.__dict__.clear()
    estimator.__dict__.update(trial.__dict__)
    return estimator


def _round(vectorizer: Any, state: Any, summarize: Any) -> Round:
    """A round on rows, or on documents read through a fitted ``vectorizer``."""
    if vectorizer is None:
        return Round(state, summarize)
    return Round((vectorizer, summarize, state), vectorized)
