"""Multinomial event model: counts of events (words) drawn from a per-class distribution.

``θ_cj = (N_cj + α) / (N_c + αD)`` (McCallum & Nigam 1998); log-likelihood ``Σ_j x_j ln θ_cj``
is linear in the counts. With ``smoothing="corpus"`` the Dirichlet prior's mean is the pooled
(all-class) distribution ``p̂_j = N_j / N`` instead of the uniform ``1/D``:
``θ_cj = (N_cj + αD p̂_j) / (N_c + αD)`` (Dirichlet smoothing of language-model retrieval, Zhai &
Lafferty 2001): a class that has not seen a word falls back on how common the word is, not on
a share every word gets alike. The mean is tempered, ``q_j ∝ N_j^γ`` (``corpus_power``, default
0.5) in place of ``p̂_j``, so that a word's pseudo-count grows slower than its count and the
log-odds of a word seen in one class only grows with how often it was seen there
(``families/_dirichlet.py``); ``γ = 1`` is Zhai & Lafferty's prior. ``N_j`` is the sum of the
class statistics, so the estimate stays a function of additive statistics (partial_fit, merge
and unlearn stay exact).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from .._validation import LARGEST_VALUE, check_non_negative, check_not_infinite
from ..stats import Counts, SparseCounts
from . import _structured
from ._base import Family, safe_dot, split_missing
from ._class_cells import counts_of
from ._dirichlet import (
    check_alpha,
    check_estimate,
    check_power,
    check_smoothing,
    corpus_pseudo_count,
    log_ratio,
    pseudo_count,
)
from ._structured import StructuredWeights, structured


@dataclass(frozen=True, eq=False)
class MultinomialParams:
    """The class weights ``w`` (n_classes, n_features): the full array (``dense``), or, for a
    model of at least ``STRUCTURED_CELLS`` cells (:mod:`._structured`), one weight a term, one a
    class and the cells with counts (``weights``, see :mod:`._structured`). Either way
    ``feature_log_prob`` is the full array, made on first use from ``source`` (the family and
    its statistic) by the dense form's own code."""

    weights: StructuredWeights | None
    dense: np.ndarray | None = field(default=None, metadata={"name": "feature_log_prob"})
    source: tuple[Multinomial, Counts] | None = None

    #: the fields holding parameters the template checks as its own (see check_parameters)
    wraps = ("weights",)

    @functools.cached_property
    def feature_log_prob(self) -> np.ndarray:
        if self.dense is not None:
            return self.dense
        assert self.source is not None
        family, stats = self.source
        return family.dense(stats)


class Multinomial(Family):
    """Multinomial family over all features of a block.

    Parameters
    ----------
    alpha : float or array of shape (n_features,)
        Dirichlet prior concentration (additive smoothing for ``estimate="mean"``).
    force_alpha : bool
        Keep an alpha below 1e-10 as given (else it is raised to 1e-10 with a warning).
    estimate : {"mean", "map", "mle"}
        Posterior mean (Lidstone), posterior mode, or maximum likelihood.
    smoothing : {"uniform", "corpus"}
        The mean of the Dirichlet prior: uniform (Lidstone, ``α`` added to every count) or the
        pooled distribution of all classes tempered by ``corpus_power`` (``αD q_j`` added,
        ``q_j ∝ N_j^γ``; posterior mean only).
    corpus_power : float in [0, 1]
        ``γ`` of the corpus prior (0: uniform, 1: the pooled distribution itself).
    """

    name = "multinomial"
    linear = True
    #: The parameters' class (the complement family's are named for it).
    params_type: type[MultinomialParams] = MultinomialParams

    def __init__(
        self,
        alpha: Any = 1.0,
        *,
        force_alpha: bool = True,
        estimate: str = "mean",
        smoothing: str = "uniform",
        corpus_power: float = 0.5,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.estimate = estimate
        self.smoothing = smoothing
        self.corpus_power = corpus_power

    def config(self) -> dict[str, Any]:
        alpha = self.alpha.tolist() if isinstance(self.alpha, np.ndarray) else self.alpha
        return {
            "alpha": alpha,
            "force_alpha": self.force_alpha,
            "estimate": self.estimate,
            "smoothing": self.smoothing,
            "corpus_power": self.corpus_power,
        }

    def validate(self, X: Any, names: Sequence[str]) -> Any:
        check_non_negative(X, names, f"a {self.name} model")
        check_not_infinite(X, names, f"a {self.name} model", LARGEST_VALUE)
        # A missing count adds no event: it drops out exactly as a zero count does.
        return split_missing(X)[0]

    def summarize(self, X: Any, R: np.ndarray | sp.spmatrix) -> Counts:
        # (kept as its cells with counts, a SparseCounts, for sparse rows over many features)
        return counts_of(R, X)

    def parameter_size(self, stats: Counts) -> int:
        # finalize's peak, its temporaries too: a model file's load takes it from its budget
        # before finalize runs (a dense count array's cells, found and turned into structured
        # weights, took 7 times the array it came from)
        full = stats.n_classes * (stats.n_features + 1)
        positive = self._positive(stats)
        structures = self._structures()
        sizes = [0]
        if stats.n_classes * stats.n_features >= _structured.STRUCTURED_CELLS and structures:
            pooled = 0
            if self._pools() and isinstance(stats, SparseCounts) and not stats.pools_by_cells():
                pooled = stats.n_classes * stats.n_features  # its full array, made to sum it
            sizes.append(-(-_structured.structured_size(stats) // 8) + pooled)
            if positive:  # the structured weights are then always made
                return max(sizes)
        # (and three arrays a term: pooled counts, pseudo-counts and their temporary)
        dense = math.ceil(self._dense_arrays(stats, positive) * full) + 3 * stats.n_features
        return max(*sizes, dense)

    def _structures(self) -> bool:
        """Whether a large model's weights are tried in structured form first."""
        return True

    def _dense_arrays(self, stats: Counts, positive: bool) -> float:
        """How many (n_classes, n_features) float64 arrays :meth:`dense` holds at once: the
        sum with the pseudo-counts, its copy where a class has no count at all (none when
        every pseudo-count is ``positive``), and the statistic's own full array when it
        keeps only its cells."""
        return (1.0 if positive else 2.0) + isinstance(stats, SparseCounts)

    def _pools(self) -> bool:
        """Whether the weights need each term's total over the classes."""
        return self.smoothing == "corpus"

    def _positive(self, stats: Counts) -> bool:
        """Whether every pseudo-count is positive (no probability is then 0), told without
        allocating what the budget has not taken yet: a sparse statistic's full array, made
        to sum it for the corpus prior, is not made to tell (False, the larger bound)."""
        if (
            self.smoothing == "corpus"
            and isinstance(stats, SparseCounts)
            and not stats.pools_by_cells()
        ):
            return False
        with warnings.catch_warnings():  # (finalize warns about a raised alpha itself)
            warnings.simplefilter("ignore")
            pseudo = self._pseudo(stats)
        return bool(np.size(pseudo)) and float(np.min(pseudo)) > 0

    def _pseudo(self, stats: Counts, pooled: np.ndarray | None = None) -> Any:
        """The pseudo-counts added to ``stats.total`` (``pooled``: its column sums, when the
        caller has them)."""
        estimate = check_estimate(self.estimate)
        alpha = check_alpha(self.alpha, stats.n_features, force_alpha=self.force_alpha)
        power = check_power(self.corpus_power)
        if check_smoothing(self.smoothing, estimate) == "corpus":
            pooled = stats.feature_totals() if pooled is None else pooled
            return corpus_pseudo_count(alpha, pooled, power)
        return pseudo_count(alpha, estimate)

    def finalize(self, stats: Counts) -> MultinomialParams:
        large = stats.n_classes * stats.n_features >= _structured.STRUCTURED_CELLS
        weights = self.structured(stats) if large else None
        if weights is None:
            return self.params_type(None, self.dense(stats))
        return self.params_type(weights, None, (self, stats))

    def structured(self, stats: Counts) -> StructuredWeights | None:
        """The weights as :func:`._structured.structured` keeps them, or None where a
        probability is 0 (no smoothing)."""
        pseudo = self._pseudo(stats)
        per_term = np.broadcast_to(np.asarray(pseudo, dtype=np.float64), (stats.n_features,))
        return structured(
            stats,
            per_term,
            lambda terms, counts: counts + per_term[terms],  # as the dense form adds them
            lambda own: own + per_term.sum(),
            1.0,
        )

    def dense(self, stats: Counts) -> np.ndarray:
        """The class weights as one (n_classes, n_features) array."""
        num = stats.total + self._pseudo(stats)
        den = num.sum(axis=1, keepdims=True)
        return log_ratio(num, den, stats.n_features, own=True)

    def log_prob(self, params: MultinomialParams, X: Any) -> np.ndarray:
        if params.weights is not None:
            return params.weights.dot(X)
        return safe_dot(X, params.feature_log_prob)

    def log_prob_relative(self, params: MultinomialParams, X: Any) -> np.ndarray:
        if params.weights is not None:
            return params.weights.dot_relative(X)
        return self.log_prob(params, X)

    def linear_form(self, params: MultinomialParams) -> tuple[np.ndarray, np.ndarray]:
        flp = params.feature_log_prob
        return flp, np.zeros(flp.shape[0])

    def linear_width(self, params: MultinomialParams) -> int:
        return int(
            (params.feature_log_prob if params.weights is None else params.weights.base).shape[-1]
        )

    def linear_columns(
        self, params: MultinomialParams, index: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        if params.weights is None:
            return super().linear_columns(params, index)
        # A large model's few columns from its structured weights (the full array would be
        # made, and kept, for them), whether or not the full array was made already: the
        # same numbers whatever was asked before (they round apart in the last bits).
        return params.weights.columns(index), np.zeros(params.weights.shift.shape[0])
