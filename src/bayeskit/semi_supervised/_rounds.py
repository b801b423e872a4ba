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
with one component per class. A TextClassifier (its vocabulary is counted over every document
at once) and ``n_components > 1`` (labelled rows shared among components by random draws in
row order) are refused by name.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._base import _check_sample_weight, _positions, class_weights
from ..errors import DataError, MergeError, ParameterError
from ..mixture._em import EMRun, Part, e_step
from ..reduction import Each, Round, Rounds, Stacked
from ..reduction import Part as Total
from ..reduction._plans import _set_schema, schema_of
from ._views import EstimatorView, Rows
from .nb import labelled_classes, marked_labels


def first_pass(template: Any, X: Any, y: Any, weight: Any) -> Any:
    """Round 0 on a part: the statistics of its labelled rows (None: it has none), and the
    weight of its labelled rows and its number of rows."""
    model = copy.copy(template)
    X = model._input(X, reset=True)
    blocks = model._blocks_of(X)
    y, labelled = marked_labels(y)
    n = len(y)
    w = _check_sample_weight(weight, n, part=True)
    summary = None
    if labelled.any():
        labels = labelled_classes(y, labelled)
        given = y[labelled].astype(object) if y.dtype.kind == "O" else y[labelled]
        _, R = class_weights(given, w[labelled], int(labelled.sum()), labels, part=True)
        rows = [block[labelled] for block in blocks]
        summary = model._summary_of(rows, labels, R)
    counts = np.array([float(w[labelled].sum()), float(n)])
    return (Each((summary,)), counts), schema_of(model)


def _prepared(state: Any, X: Any, y: Any, weight: Any) -> Any:
    fitted, labels, lam = state
    X = fitted._input(X, reset=False)
    rows = Rows(fitted._blocks_of(X), int(getattr(X, "n_rows", None) or X.shape[0]))
    y, labelled = marked_labels(y)
    w = _check_sample_weight(weight, rows.n_rows, part=True)
    codes = np.full(len(y), -1, dtype=np.int64)
    given = y[labelled].astype(object) if y.dtype.kind == "O" else y[labelled]
    codes[labelled] = _positions(labels, given)
    return rows, labelled, codes, np.where(labelled, w, lam * w)


def em_step(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """An EM round on a part: the estimator's statistics of its rows under their class
    posteriors, and their log-likelihood."""
    fitted, labels, _ = state
    rows, labelled, codes, row_weight = _prepared(state, X, y, weight)
    allowed = np.ones((rows.n_rows, len(labels)), dtype=bool)
    allowed[labelled] = np.arange(len(labels))[None, :] == codes[labelled][:, None]
    view = EstimatorView.of_fitted(fitted, labels)
    return (e_step(view, fitted, Part(rows, row_weight, allowed)),), None


def distributions(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """The last round on a part: each row's class probabilities."""
    estimator, fitted, labels, lam = state
    rows, labelled, codes, _ = _prepared((fitted, labels, lam), X, y, weight)
    jll = fitted._joint_of(rows.data, rows.n_rows)
    return (Stacked(estimator.distributions(jll, codes, labelled)),), None


def semi_supervised_rounds(estimator: Any, *, partial: bool) -> Rounds:
    """The rounds that fit a SemiSupervisedNB (see the module docstring)."""
    from ..text import TextClassifier

    if partial:
        raise MergeError(
            "a SemiSupervisedNB cannot add rows to a fitted model (no partial_fit): EM is "
            "refitted on all the rows (bayeskit.dask.fit)"
        )
    prototype = estimator._prototype()
    lam, tol, max_iter, k = estimator._settings()
    if isinstance(prototype, TextClassifier):
        raise ParameterError(
            "SemiSupervisedNB(TextClassifier) does not run on a cluster: its vocabulary is "
            "counted over every document at once; fit a TextVectorizer with bayeskit.dask.fit "
            "and wrap MultinomialNB over its output, or fit in memory"
        )
    if k > 1:
        raise ParameterError(
            f"SemiSupervisedNB(n_components={k}) does not run on a cluster: labelled rows are "
            "shared among a class's components by random draws in row order; use "
            "n_components=1 there, or fit in memory"
        )
    total: Total = yield Round(copy.copy(prototype), first_pass)
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
    view = EstimatorView(prototype, labels)
    assert total.schema is not None
    _set_schema(view.model, total.schema)
    run = EMRun(view, view.finalize(start), tol=tol, max_iter=max_iter, stats=None)
    while not run.done:
        total = yield Round((run.params, labels, lam), em_step)
        run.advance(total.values[0])
    trial = copy.copy(estimator)
    trial._owner, trial.classes_ = np.arange(len(labels)), labels
    total = yield Round((trial, run.params, labels, lam), distributions)
    trial._set_fitted(view, run.result(), labels, total.values[0].rows, tol, max_iter)
    estimator.__dict__.clear()
    estimator.__dict__.update(trial.__dict__)
    return estimator
