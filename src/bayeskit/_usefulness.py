"""How useful each feature is to tell the classes apart, ``max_y p(y|j)`` (Vorontsov's
lectures): what :mod:`bayeskit.inspection` reports and its ``UsefulnessSelector`` selects
by. A module below both, so the selector (a module of its own, see :mod:`bayeskit._selector`)
and the inspection module import it without importing each other."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._values import one_of
from .errors import ParameterError
from .stats import Counts

if TYPE_CHECKING:
    from ._base import GenerativeClassifier


def feature_usefulness(
    model: GenerativeClassifier, *, alpha: float = 1.0, prior: str = "uniform"
) -> np.ndarray:
    """Usefulness of each feature, ``max_y p(y|j)`` (Vorontsov's lectures), for count models.

    ``p(y|j) ∝ x̄_yj``, the (smoothed) mean count of feature ``j`` in class ``y``: the class a
    feature points to when it is seen, with equal class priors (``prior="uniform"``, so a word
    used at the same rate everywhere scores ``1/K``) or the training priors
    (``prior="empirical"``, ``p(y|j) = N_yj / N_j``). Selecting features by usefulness drops
    stop words and common words. ``alpha`` is added to every count so rare words do not look
    perfectly useful.

    Returns
    -------
    ndarray of shape (n_features,), values in [1/K, 1]
    """
    summary = model.statistics()  # (refused while a learned setting waits for fit)
    stats = summary.blocks[0] if len(summary.blocks) == 1 else None
    if not isinstance(stats, Counts):
        raise ParameterError(
            "feature_usefulness needs a count model (MultinomialNB, ComplementNB, BernoulliNB)"
        )
    check_settings(alpha=alpha, prior=prior)
    return usefulness_of(
        stats.total, summary.class_count, alpha=alpha, prior=prior, missing=stats.missing
    )


def check_settings(*, alpha: float, prior: str) -> None:
    """Refuse an ``alpha`` or ``prior`` :func:`feature_usefulness` does not take."""
    if not one_of(prior, ("uniform", "empirical")):
        raise ParameterError(f"prior={prior!r}; accepted: 'uniform' or 'empirical'")
    if not _real(alpha) or not alpha >= 0 or alpha == np.inf:  # (NaN too)
        raise ParameterError(f"alpha must be a finite number >= 0; got {alpha!r}")


def _real(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def check_selection(*, k: int | None, threshold: float | None) -> None:
    """Refuse a ``k`` or ``threshold`` :func:`top_useful` does not take."""
    if k is not None and (
        not isinstance(k, (int, np.integer)) or isinstance(k, (bool, np.bool_)) or k < 1
    ):
        raise ParameterError(f"k must be a positive int or None; got {k!r}")
    if threshold is not None and (not _real(threshold) or not np.isfinite(threshold)):
        raise ParameterError(
            f"threshold must be a finite number (a usefulness, in [1/K, 1]) or None; "
            f"got {threshold!r}"
        )


def usefulness_of(
    total: np.ndarray,
    class_count: np.ndarray,
    *,
    alpha: float = 1.0,
    prior: str = "uniform",
    missing: np.ndarray | None = None,
) -> np.ndarray:
    """``max_y p(y|j)`` from per-class feature totals (K, D) and class weights (K,).

    A class of no weight (declared, never seen) takes no part: it has no mean count to
    compare, and its smoothed ``alpha / 0`` would otherwise make it win every feature. With
    ``missing`` (K, D), the weight of each class's rows in which a feature is missing, the
    mean count of a feature is taken over the rows that saw it (a missing value drops out),
    and a class that never saw the feature takes no part for it.
    """
    seen = np.asarray(class_count) > 0
    if not seen.any():  # (no class of any weight: every feature alike)
        return np.ones(total.shape[1], dtype=np.float64)
    counts = total[seen] + alpha
    if prior == "uniform":
        weight = np.asarray(class_count, dtype=np.float64)[seen][:, None]
        if missing is not None:
            weight = weight - missing[seen]
        observed = weight > 0
        counts = np.where(observed, counts / np.where(observed, weight, 1.0), 0.0)
    totals = counts.sum(axis=0)
    share = counts / np.where(totals > 0, totals, 1.0)
    share[:, totals == 0] = 1.0 / counts.shape[0]  # nothing seen: no information
    return np.asarray(share.max(axis=0), dtype=np.float64)


#: Usefulnesses (shares in [1/K, 1]) within this of each other are ties: they are ratios of
#: weighted counts, and weights summed in another order (0.1 + 0.2 + 0.7 is 1, 0.7 + 0.2 +
#: 0.1 is not), in batches or after an unlearn leave residue of 1e-16 that must not choose
#: which of mathematically equal features are kept.
TIE = 1e-9


def top_useful(useful: np.ndarray, *, k: int | None, threshold: float | None) -> np.ndarray:
    """Boolean mask of the ``k`` most useful features at or above ``threshold`` (both to
    within :data:`TIE`; of features tied at the cut, the first ones). A ``k`` at or above
    the number of features (at or above the threshold) keeps them all."""
    check_selection(k=k, threshold=threshold)
    keep = np.ones(len(useful), dtype=bool)
    if threshold is not None:
        keep &= useful >= threshold - TIE
    if k is not None:
        candidates = np.flatnonzero(keep)
        if len(candidates) > k:
            values = useful[candidates]
            cut = float(np.sort(values)[-k])  # the k-th largest
            above = values > cut + TIE
            tied = np.flatnonzero(~above & (values >= cut - TIE))
            best = np.r_[candidates[above], candidates[tied[: k - int(above.sum())]]]
            keep[:] = False
            keep[best] = True
    return keep
