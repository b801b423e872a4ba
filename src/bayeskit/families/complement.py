"""Complement Naive Bayes (Rennie, Shih, Teevan & Karger, 2003).

Each class is scored by how badly the *other* classes' word distribution explains the document:
``w_cj = −ln θ̃_cj`` with ``θ̃_cj = (Σ_{c'≠c} N_c'j + α) / Σ_j (Σ_{c'≠c} N_c'j + α)``; with
``norm=True`` the weights are normalised per class, ``w_cj = ln θ̃_cj / Σ_j ln θ̃_cj`` (Rennie's
weight normalisation, which corrects for classes with longer documents).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from ..errors import ParameterError
from ..stats import Counts
from ..stats._base import safe_ratio
from ._base import safe_dot
from ._dirichlet import log_ratio
from ._sparse_dot import dot_by_term
from .multinomial import Multinomial

#: Models with at least this many class × term cells keep their weights in the structured
#: form of :class:`ComplementParams` (smaller ones as one array: their numbers are then
#: computed as scikit-learn computes them, bit for bit, and the array is small).
STRUCTURED_CELLS = 1 << 22


@dataclass(frozen=True, eq=False)
class ComplementParams:
    """The class weights ``w``, (n_classes, n_features), in one of two forms.

    Where class ``c`` has no count of term ``j`` (most cells of a text model: 92 % of 20
    classes × 1.2 million 1-2-grams), its complement count is the term's pooled count plus its
    pseudo-count, the same for every such class, so ``w_cj = base_j + shift_c``: one number a
    term and one a class. ``correction`` (CSR by term, the cells with counts) holds what the
    other cells add. Kept so, the model neither computes nor keeps the full array (190 MB there),
    and a document is scored from its terms' base weights and the few corrections.
    ``dense``: the full array instead (weight normalisation, or a complement count of 0).
    ``feature_log_prob`` is the full array either way, made on first use as the dense form
    makes it (the same numbers)."""

    base: np.ndarray | None  # (n_features,)
    shift: np.ndarray | None  # (n_classes,)
    correction: Any  # CSR (n_features, n_classes), or None
    dense: np.ndarray | None  # the full array, or None
    source: tuple[Complement, Counts] | None  # what the full array is made from, or None

    @functools.cached_property
    def feature_log_prob(self) -> np.ndarray:
        if self.dense is not None:
            return self.dense
        assert self.source is not None
        family, stats = self.source
        return family.dense(stats)


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

    def finalize(self, stats: Counts) -> ComplementParams:  # type: ignore[override]
        structured = None
        if not self.norm and stats.total.size >= STRUCTURED_CELLS:
            pooled = stats.total.sum(axis=0)
            structured = _structured(stats.total, pooled, self._pseudo(stats, pooled))
        if structured is None:
            return ComplementParams(None, None, None, self.dense(stats), None)
        return ComplementParams(*structured, None, (self, stats))

    def dense(self, stats: Counts) -> np.ndarray:
        """The class weights as one (n_classes, n_features) array."""
        pooled = stats.total.sum(axis=0)  # (a pass over the array: made once, used twice)
        pseudo = self._pseudo(stats, pooled)
        # One (n_classes, n_features) array, changed in place: the same numbers as
        # ``total.sum(axis=0) - total + pseudo`` and its logarithm, without four more arrays
        # of that size (20 Newsgroups 1-2-grams: 190 MB each).
        complement = np.subtract(pooled, stats.total, dtype=np.float64)
        complement += pseudo
        low = complement.min() if complement.size else 1.0
        empty = (complement <= 0) & (stats.weight[:, None] > 0) if low <= 0 else None
        if empty is not None and empty.any():
            c, j = (int(v) for v in np.argwhere(empty)[0])
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

    def log_prob(self, params: Any, X: Any) -> np.ndarray:
        if params.base is None:
            return safe_dot(X, params.feature_log_prob)
        out = self.log_prob_relative(params, X)
        out += np.asarray(X @ params.base, dtype=np.float64)[:, None]
        return out

    def log_prob_relative(self, params: Any, X: Any) -> np.ndarray:
        if params.base is None:
            return self.log_prob(params, X)
        # X @ w.T less X @ base (the same for every class): the corrections of the cells with
        # counts, and each class's shift times the row's total count.
        out = dot_by_term(X, params.correction)
        out += np.asarray(X.sum(axis=1), dtype=np.float64).reshape(-1, 1) * params.shift
        return out


def _structured(
    total: np.ndarray, pooled: np.ndarray, pseudo: Any
) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """``(base, shift, correction)`` of :class:`ComplementParams`, or None where a complement
    count is not positive (the dense form then refuses it by name, or keeps its infinite
    weights for a class without data)."""
    n_classes, n_features = total.shape
    if not isinstance(total, np.ndarray) or not n_classes or not n_features:
        return None
    pseudo = np.broadcast_to(np.asarray(pseudo, dtype=np.float64), (n_features,))
    # A term's complement count where the class has none of it; the same sum as the dense
    # form's ``(pooled - 0) + pseudo``.
    unseen = pooled + pseudo
    if not unseen.min() > 0:
        return None
    # The cells with counts, read in the order the array is laid out in (no copy of it).
    by_term = total.T.flags.c_contiguous
    flat = total.T.ravel() if by_term else np.ascontiguousarray(total).ravel()
    cells = np.flatnonzero(flat)
    major, minor = np.divmod(cells, n_classes if by_term else n_features)
    terms, classes = (major, minor) if by_term else (minor, major)
    seen = (pooled[terms] - flat[cells]) + pseudo[terms]  # as the dense form sums them
    if seen.size and not seen.min() > 0:
        return None
    # Each class's complement total Σ_j (pooled_j − N_cj + pseudo_j): the other classes'
    # counts summed as they are (subtracting a class from the whole loses the digits of a
    # complement far smaller than the whole), and the pseudo-counts.
    own = np.bincount(classes, weights=flat[cells], minlength=n_classes)
    before = np.concatenate([[0.0], np.cumsum(own)[:-1]])
    after = np.concatenate([np.cumsum(own[::-1])[::-1][1:], [0.0]])
    others = before + after
    sums = others + pseudo.sum()
    if not sums.min() > 0:
        return None
    base = -np.log(unseen)
    correction = -np.log(seen)
    correction -= base[terms]
    pointer = np.zeros((n_features if by_term else n_classes) + 1, dtype=np.int64)
    np.cumsum(np.bincount(major, minlength=len(pointer) - 1), out=pointer[1:])
    if by_term:
        by_term_matrix = sp.csr_matrix((correction, minor, pointer), shape=total.shape[::-1])
    else:
        by_term_matrix = sp.csr_matrix((correction, minor, pointer), shape=total.shape).T.tocsr()
    return base, np.log(sums), by_term_matrix
