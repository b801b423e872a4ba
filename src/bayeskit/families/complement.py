"""Complement Naive Bayes (Rennie, Shih, Teevan & Karger, 2003).

Each class is scored by how badly the *other* classes' word distribution explains the document:
``w_cj = −ln θ̃_cj`` with ``θ̃_cj = (Σ_{c'≠c} N_c'j + α) / Σ_j (Σ_{c'≠c} N_c'j + α)``; with
``norm=True`` the weights are normalised per class, ``w_cj = ln θ̃_cj / Σ_j ln θ̃_cj`` (Rennie's
weight normalisation, which corrects for classes with longer documents).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ParameterError
from ..stats import Counts, SparseCounts
from ..stats._base import first_true, safe_ratio
from ._dirichlet import log_ratio
from ._structured import StructuredWeights, others, structured
from .multinomial import Multinomial, MultinomialParams


class ComplementParams(MultinomialParams):
    """The complement weights, kept as :class:`~.multinomial.MultinomialParams` keeps a
    multinomial model's: where class ``c`` has no count of term ``j`` its complement count is
    the term's pooled count plus its pseudo-count, whatever the class, so ``w_cj = base_j +
    shift_c`` there."""


class Complement(Multinomial):
    """Complement family; same statistics as :class:`Multinomial`.

    Parameters
    ----------
    alpha, force_alpha, estimate, smoothing, corpus_power
        As for :class:`Multinomial`, applied to the complement counts (``"corpus"``: the
        prior's mean is the pooled distribution of all classes, tempered by ``corpus_power``).
    norm : bool
        Normalise the weights of each class (Rennie et al.'s weight normalisation).
    """

    name = "complement"
    linear = True
    params_type = ComplementParams

    def __init__(
        self,
        alpha: Any = 1.0,
        *,
        force_alpha: bool = True,
        estimate: str = "mean",
        norm: bool = False,
        smoothing: str = "uniform",
        corpus_power: float = 0.5,
    ):
        super().__init__(
            alpha,
            force_alpha=force_alpha,
            estimate=estimate,
            smoothing=smoothing,
            corpus_power=corpus_power,
        )
        self.norm = norm

    def config(self) -> dict[str, Any]:
        return {**super().config(), "norm": self.norm}

    def _dense_arrays(self, stats: Counts, positive: bool) -> float:
        # the complement counts; where a pseudo-count is 0, their copy where a class has none
        # and the masks looking for a zero among them (two bytes a cell); the normalised
        # weights (norm=True); the statistic's own full array when it keeps only its cells
        return (1.0 if positive else 2.25) + self.norm + isinstance(stats, SparseCounts)

    def _structures(self) -> bool:
        return not self.norm  # (each class's weights divided by their sum: kept whole)

    def _pools(self) -> bool:
        return True

    def structured(self, stats: Counts) -> StructuredWeights | None:
        if not self._structures():
            return None
        pooled = stats.feature_totals()
        pseudo = np.broadcast_to(
            np.asarray(self._pseudo(stats, pooled), dtype=np.float64), (stats.n_features,)
        )
        # A term's complement count where a class has none of it is its pooled count plus its
        # pseudo-count; the cells with counts are summed as the dense form sums them.
        return structured(
            stats,
            pooled + pseudo,
            lambda terms, counts: (pooled[terms] - counts) + pseudo[terms],
            lambda own: others(own) + pseudo.sum(),
            -1.0,
        )

    def dense(self, stats: Counts) -> np.ndarray:
        """The class weights as one (n_classes, n_features) array."""
        pooled = stats.feature_totals()  # (a pass over the array: made once, used twice)
        pseudo = self._pseudo(stats, pooled)
        # One (n_classes, n_features) array, changed in place: the same numbers as
        # ``total.sum(axis=0) - total + pseudo`` and its logarithm, without four more arrays
        # of that size (20 Newsgroups 1-2-grams: 190 MB each).
        complement = np.subtract(pooled, stats.total, dtype=np.float64)
        complement += pseudo
        low = complement.min() if complement.size else 1.0
        empty = (complement <= 0) & (stats.weight[:, None] > 0) if low <= 0 else None
        if empty is not None and empty.any():
            c, j = first_true(empty)
            raise ParameterError(
                f"feature {j} has no counts outside class index {c}, so its complement "
                "probability is 0 and its weight infinite; ComplementNB needs smoothing "
                "(alpha > 0 with estimate='mean' or 'map')"
            )
        logged = log_ratio(
            complement, complement.sum(axis=1, keepdims=True), stats.n_features, own=True
        )
        if self.norm:
            # Σ_j ln θ̃_cj is 0 only when every θ̃_cj is 1 (a single feature): the feature then
            # tells the classes nothing, and its weight is 0 (scikit-learn divides 0 by 0).
            total = logged.sum(axis=1, keepdims=True)
            return safe_ratio(logged, total)
        return np.negative(logged, out=logged)
