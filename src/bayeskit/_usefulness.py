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
    if not one_of(prior, ("uniform", "empirical")):
        raise ParameterError(f"prior={prior!r}; accepted: 'uniform' or 'empirical'")
    if (
        isinstance(alpha, (bool, np.bool_))
        or not isinstance(alpha, (int, float, np.integer, np.floating))
        or not alpha >= 0  # (NaN too)
        or alpha == np.inf
    ):
        raise ParameterError(f"alpha must be a finite number >= 0; got {alpha!r}")
    return usefulness_of(stats.total, summary.class_count, alpha=alpha, prior=prior)


def usefulness_of(
    total: np.ndarray, class_count: np.ndarray, *, alpha: float = 1.0, prior: str = "uniform"
) -> np.ndarray:
    """``max_y p(y|j)`` from per-class feature totals (K, D) and class weights (K,)."""
    counts = total + alpha
    if prior == "uniform":
        counts = counts / np.maximum(class_count, 1e-300)[:, None]
    totals = counts.sum(axis=0)
    share = counts / np.where(totals > 0, totals, 1.0)
    share[:, totals == 0] = 1.0 / counts.shape[0]  # never seen and alpha = 0: no information
    return np.asarray(share.max(axis=0), dtype=np.float64)


#: Usefulnesses (shares in [1/K, 1]) within this of each other are ties: they are ratios of
#: weighted counts, and weights summed in another order (0.1 + 0.2 + 0.7 is 1, 0.7 + 0.2 +
#: 0.1 is not), in batches or after an unlearn leave residue of 1e-16 that must not choose
#: which of mathematically equal features are kept.
TIE = 1e-9


def top_useful(useful: np.ndarray, *, k: int | None, threshold: float | None) -> np.ndarray:
    """Boolean mask of the ``k`` most useful features at or above ``threshold`` (both to
    within :data:`TIE`; of features tied at the cut, the first ones)."""
    keep = np.ones(len(useful), dtype=bool)
    if threshold is not None:
        keep &= useful >= threshold - TIE
    if k is not None:
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ParameterError(f"k must be a positive int; got {k!r}")
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
