"""Class priors and the Bayes decision rule (Duda, Hart & Stork 2001, ch. 2).

``a(x) = argmax_y λ_y P(y) p(x|y)`` with class loss weights ``λ_y``; with a full loss matrix
``λ_ij`` (the cost of deciding ``c_i`` when the truth is ``c_j``) the decision minimises the
conditional risk ``R(c_i|x) = Σ_j λ_ij P(c_j|x)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._validation import as_real, float_values
from .errors import ParameterError


def class_log_prior(
    class_count: np.ndarray,
    *,
    fit_prior: bool,
    class_prior: Any,
    prior_alpha: float,
    name: str = "class_prior",
    classes: np.ndarray | None = None,
) -> np.ndarray:
    """Log prior: fixed by the user, MLE ``N_k/N`` or Dirichlet-smoothed ``(N_k+α)/(N+αK)``
    (Duda, Hart & Stork 2001), or uniform when ``fit_prior=False`` (the maximum likelihood rule).
    ``name``: the setting the user gave the fixed prior as (``priors`` in scikit-learn's
    discriminant analysis and GaussianNB), which its refusals name; ``classes``: the labels,
    by which a pandas Series of priors is read (:func:`by_label`)."""
    k = len(class_count)
    if not isinstance(fit_prior, (bool, np.bool_)):
        raise ParameterError(f"fit_prior must be True or False; got {fit_prior!r}")
    # (checked whether it is used or not: a setting is refused at fit, not when another
    # setting later brings it into use)
    if (
        isinstance(prior_alpha, (bool, np.bool_))
        or not isinstance(prior_alpha, (int, float, np.number))
        or not math.isfinite(as_real(prior_alpha))
        or prior_alpha < 0
    ):
        raise ParameterError(
            f"prior_alpha must be >= 0 (a number of pseudo-rows); got {prior_alpha!r}"
        )
    if class_prior is not None:
        if classes is not None:
            class_prior = by_label(class_prior, classes, name)
        prior = float_values(
            class_prior,
            ParameterError,
            f"{name} must be one probability per class (a flat list of {k} numbers); got "
            f"{class_prior!r}",
        )
        if prior.ndim != 1:
            raise ParameterError(
                f"{name} must be a flat list of {k} probabilities, one per class in the order "
                f"of classes_; got an array of shape {prior.shape}"
            )
        if prior.shape[0] != k:
            raise ParameterError(
                f"{name} has {prior.shape[0]} value{'s' if prior.shape[0] != 1 else ''} but "
                f"the model has {k} classes; give one probability per class, in the order of "
                "classes_"
            )
        if not np.all(np.isfinite(prior)) or np.any(prior < 0):
            raise ParameterError(f"{name} must hold probabilities >= 0; got {prior.tolist()}")
        if not np.isclose(prior.sum(), 1.0, rtol=0, atol=1e-8):
            raise ParameterError(
                f"{name} must sum to 1; its values {prior.tolist()} sum to {prior.sum():.10g}"
            )
        with np.errstate(divide="ignore"):
            return np.log(prior)
    if not fit_prior:
        return np.full(k, -np.log(k))
    smoothed = class_count + prior_alpha
    with np.errstate(divide="ignore", over="ignore"):
        total = smoothed.sum()
        if not np.isfinite(total):
            # Counts near the float limit (a model file may hold them): shares of the
            # largest, which sum finitely, give the same ratios.
            smoothed = smoothed / smoothed.max()
            total = smoothed.sum()
        return np.log(smoothed) - np.log(total)


#: Largest |joint log-likelihood| for which the plain log-sum-exp normalisation is within
#: 1e-10 (a few ulps of 2^20).
_EXACT_UP_TO = 2.0**20


def normalize_log(jll: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Log posteriors from joint log-likelihoods by log-sum-exp. A row in which every class is
    impossible (only unsmoothed MLE can cause that) gets ``fallback`` (the log prior) instead of
    NaN.

    scikit-learn's ``jll − logsumexp(jll)`` to the bit (scipy's ``logsumexp``: the row's
    largest entries ``m`` (``t`` of them) taken out of the sum, ``ln t + log1p(Σ_rest
    exp(jll − m) / t) + m``), in one pass over the rows without scipy's per-call overhead.
    Its error is a few ulps of ``|jll|``: beyond 2^20 that can exceed 1e-10 (at 1e150 the
    log Σ is rounded away and two tied classes each got probability 1). There the row is
    shifted by ``m`` first, which is exact.
    """
    top = _row_max(jll)
    dead = np.isneginf(top[:, 0])
    if dead.any():
        jll = jll.copy()
        jll[dead] = fallback
        top[dead] = np.max(fallback)
    # One (n, K) work array, reused for every step: a fresh array costs page faults.
    work = np.subtract(jll, top)
    ties = work == 0.0
    count = np.count_nonzero(ties, axis=1).astype(np.float64)[:, None]
    np.exp(work, out=work)
    np.copyto(work, 0.0, where=ties)
    # the row sums as scipy takes them (over the contiguous rows: the same rounding)
    rest = work.sum(axis=1, keepdims=True)
    rest /= count
    log_sum = np.log1p(rest) + np.log(count)
    out = np.subtract(jll, log_sum + top, out=work)
    large = np.abs(top[:, 0]) > _EXACT_UP_TO
    if large.any():
        out[large] = (jll[large] - top[large]) - log_sum[large]
    return out


def _row_max(a: np.ndarray) -> np.ndarray:
    """Each row's largest entry, (n, 1): a pass per column (a reduction along rows of a few
    classes is several times slower)."""
    if a.shape[1] == 0:
        return np.zeros((len(a), 1))
    top = a[:, 0].copy()
    for j in range(1, a.shape[1]):
        np.maximum(top, a[:, j], out=top)
    return top[:, None]


def class_loss_weights(
    class_weight: Any, classes: np.ndarray, class_count: np.ndarray
) -> np.ndarray:
    """λ_y for every class in ``classes`` order (1 for classes a dict leaves out; a label a
    dict names that is none of the classes weighs nothing yet: ``partial_fit`` may learn it
    later, and :func:`unknown_weighted_labels` says which they are)."""
    k = len(classes)
    if _labelled(class_weight) and np.ndim(class_weight) == 1:  # a pandas Series: by label
        class_weight = dict(zip(class_weight.index.tolist(), class_weight.tolist(), strict=True))
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ParameterError(
                f"class_weight={class_weight!r}; accepted: None, 'balanced', a dict "
                "{label: weight} or one weight per class"
            )
        # λ_y ∝ 1 / N_y cancels the empirical prior: every class is judged on its likelihood.
        with np.errstate(divide="ignore"):
            return np.where(class_count > 0, class_count.sum() / (k * class_count), 1.0)
    if isinstance(class_weight, Mapping):
        known = {c: i for i, c in enumerate(classes.tolist())}
        weights = np.ones(k)
        for label, w in class_weight.items():
            key = label.item() if isinstance(label, np.generic) else label
            message = f"class_weight[{label!r}] = {w!r}; a class weight must be a number >= 0"
            value = float_values(w, ParameterError, message)
            if value.ndim != 0 or not (np.isfinite(value) and value >= 0):
                raise ParameterError(message)
            if key in known:
                weights[known[key]] = value
    else:
        weights = float_values(
            class_weight,
            ParameterError,
            f"class_weight must be None, 'balanced', a dict {{label: weight}} or one weight per "
            f"class; got {class_weight!r}",
        )
        if weights.shape != (k,):
            raise ParameterError(
                f"class_weight has shape {weights.shape}; give one weight per class ({k})"
            )
    if not np.all(np.isfinite(weights)) or np.any(weights < 0) or not np.any(weights > 0):
        raise ParameterError(
            f"class_weight values must be finite, >= 0 and not all 0; got {weights.tolist()}"
        )
    return weights


def unknown_weighted_labels(class_weight: Any, classes: np.ndarray) -> list[Any]:
    """The labels a ``class_weight`` dict names that are none of ``classes``."""
    if not isinstance(class_weight, Mapping):
        return []
    known = set(classes.tolist())
    return [
        label
        for label in class_weight
        if (label.item() if isinstance(label, np.generic) else label) not in known
    ]


def check_loss(loss: Any, n_classes: int, classes: np.ndarray | None = None) -> np.ndarray:
    """A (n_classes, n_classes) matrix of finite, non-negative losses, not all 0 (a pandas
    DataFrame is read by its labels when ``classes`` are given, see :func:`by_label`)."""
    if classes is not None:
        loss = by_label(loss, classes, "loss")
    if np.iscomplexobj(loss):
        raise ParameterError(f"loss must be a square matrix of real numbers; got {loss!r}")
    try:
        matrix = np.asarray(loss, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"loss must be a square matrix of numbers; got {loss!r}") from exc
    if matrix.shape != (n_classes, n_classes):
        raise ParameterError(
            f"loss has shape {matrix.shape}; it must be ({n_classes}, {n_classes}): "
            "loss[i, j] is the cost of deciding classes_[i] when the truth is classes_[j]"
        )
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        bad = np.argwhere(~np.isfinite(matrix) | (matrix < 0))[0]
        raise ParameterError(
            f"loss[{bad[0]}, {bad[1]}] = {matrix[bad[0], bad[1]]}; losses must be finite and >= 0"
        )
    if n_classes > 1 and not np.any(matrix > 0):
        raise ParameterError(
            "loss is 0 everywhere: every decision costs nothing, so none is better than "
            "another; give the cost of each wrong decision (e.g. 1 off the diagonal)"
        )
    return matrix


def _labelled(value: Any) -> bool:
    """A pandas Series or DataFrame: values with labels (an index), not positions."""
    return hasattr(value, "index") and hasattr(value, "to_numpy") and hasattr(value, "ndim")


def by_label(value: Any, classes: np.ndarray, name: str) -> Any:
    """``value`` in ``classes`` order when it is a pandas Series (or DataFrame: its index and
    columns) labelled by the classes, in any order; as it is when it is not labelled, or
    labelled by positions 0 … K − 1 (a default index). Labels that are not the classes are
    refused by name: read by position, a Series naming the classes in another order would
    give each class another's value without a word."""
    if not _labelled(value):
        return value
    known = classes.tolist()
    axes = [value.index] if value.ndim == 1 else [value.index, value.columns]
    order: list[list[int] | None] = []
    for axis in axes:
        labels = [v.item() if isinstance(v, np.generic) else v for v in axis.tolist()]
        if labels == known:
            order.append(None)
        elif sorted(map(repr, labels)) == sorted(map(repr, known)):
            order.append([labels.index(c) for c in known])
        elif labels == list(range(len(labels))):
            order.append(None)  # (positions: a default index)
        else:
            raise ParameterError(
                f"{name} is labelled {labels!r}; label it by the classes {known!r} (any "
                "order), or give plain values in the order of classes_"
            )
    values = value.to_numpy()
    if value.ndim == 1:
        return values if order[0] is None else values[order[0]]
    rows = values if order[0] is None else values[order[0]]
    return rows if order[1] is None else rows[:, order[1]]


def conditional_risk(
    proba: np.ndarray, loss: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """``R(c_i|x) = Σ_j loss[i, j] λ_j P(c_j|x)`` of each row and decision, ``λ_j`` the class
    weights (1 without ``weights``)."""
    return (proba if weights is None else proba * weights) @ loss.T


def decision_indices(
    log_proba: np.ndarray, *, loss: np.ndarray | None = None, weights: np.ndarray | None = None
) -> np.ndarray:
    """Each row's Bayes decision (an index into the classes) from its log posteriors: the
    minimum of the risk ``Σ_j loss[i, j] λ_j P(c_j|x)`` with a loss matrix, each class's
    probability weighed by its class weight ``λ_j`` (1 without ``weights``); the maximum of
    ``λ_j P(c_j|x)`` without one (the risk of the 0-1 loss); ties to the first class."""
    if loss is None:
        if weights is None:
            return np.argmax(log_proba, axis=1)
        with np.errstate(divide="ignore"):
            return np.argmax(log_proba + np.log(weights), axis=1)
    return np.argmin(conditional_risk(np.exp(log_proba), loss, weights), axis=1)
