"""Bayesian network classifier families over categorical columns: TAN, AODE and KDB.

Each is a family of the template (``summarize`` → :class:`SubsetCounts`, ``finalize`` →
structure and conditional probability tables, ``log_prob`` → ``ln p(x | y)``); the structure
is learned in ``finalize`` from the counts alone, so it follows every change of the statistics
(a new batch, a merge, unlearning) and is cached with the other parameters until they change.

Every conditional probability is smoothed as :class:`~bayeskit.CategoricalNB` smooths:
``P(x_i = a | y, x_pa = b) = (N(y, a, b) + α) / (N(y, b) + α V_i)`` with the pseudo-count of
``estimate`` (posterior mean ``α``, mode ``α − 1``, maximum likelihood 0); a parent value with
no data in class ``y`` gives the uniform ``1 / V_i``. Missing values drop out of the factors
they touch: a missing ``x_i`` drops its factor; a missing parent turns ``P(x_i | y, x_pa)``
into ``P(x_i | y)``. A value never seen in training is treated as missing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from .._lazy import sparse as sp
from .._validation import as_real
from ..errors import DataError, ParameterError
from ..families._base import Family, hard_labels
from ..families._categorical_kernels import column_range, value_range
from ..families._codebook import _MAX_LUT, UNSEEN, Codebook, Table, discover_codes
from ..families._dirichlet import check_alpha, check_estimate, log_ratio, pseudo_count
from ..families.categorical import _refuse_other_kind
from . import _kernels as kernels
from . import _small as small_passes
from ._counts import MAX_ORDER, Extent, SubsetCounts, check_size, class_sums, layout_of
from ._structure import (
    TIE_RTOL,
    PairCells,
    bayesian_gain,
    chow_liu,
    class_information,
    conditional_information,
    first_of_max,
    gain_scale,
    kdb_parents,
    tie_tolerance,
)

#: Rows are counted in up to this many chunks side by side (fixed by the number of rows, so
#: the sums do not depend on the machine), each of at least CHUNK_ROWS rows.
COUNT_CHUNKS = 8
CHUNK_ROWS = 1 << 16


def local_codes(table: Table) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Categories of every column and each cell's index among them (−1: missing). A table of
    whole numbers in modest ranges is coded in one pass (the values less the column's least),
    its categories every whole number between; values no row has are dropped afterwards."""
    matrix = table.matrix
    if matrix is not None and matrix.dtype.kind in "biuf" and matrix.size:
        values = matrix.view(np.int8) if matrix.dtype.kind == "b" else matrix
        values = np.ascontiguousarray(values)
        small = values.size <= small_passes.NUMPY_WORK
        lo, hi, whole = (value_range if small else column_range)(values)
        empty = lo > hi
        span = np.where(empty, 0, hi - lo + 1)
        if whole and span.sum() <= max(_MAX_LUT, 2 * matrix.size):
            lo = np.where(empty, 0, lo)
            if small:
                codes = small_passes.shifted_codes(values, lo)
            else:
                codes = np.empty(values.shape, dtype=np.int64)
                kernels.shifted_codes(values, lo, codes)
            cats = tuple(
                (np.arange(int(lo[j]), int(lo[j] + span[j]))).astype(matrix.dtype)
                for j in range(matrix.shape[1])
            )
            return cats, codes
    return discover_codes(table)


def _dense(R: np.ndarray | sp.spmatrix) -> np.ndarray:
    """Soft class weights as a dense float (n, n_classes) array."""
    W = sp.csr_matrix(R).toarray() if sp.issparse(R) else R
    return np.ascontiguousarray(W, dtype=np.float64)


def encode(codebook: Codebook, table: Table) -> np.ndarray:
    """Each value's index among its feature's training categories; −1 where missing or never
    seen. A column none of whose values was seen that spells learned categories in the other
    kind (the number 3 where the model learned the text ``"3"``, or the reverse) is refused,
    as :class:`~bayeskit.CategoricalNB` refuses it: read as values never seen, every row would
    silently lose the column."""
    codes = codebook.encode(table)
    unseen = codes == UNSEEN
    if unseen.any():
        _refuse_other_kind(codebook.categories, table, codes, unseen)
    local = codes - codebook.offsets[:-1]
    return np.ascontiguousarray(np.where(codes >= 0, local, -1))


@dataclass(frozen=True)
class NetworkParams:
    """A fitted network: each feature's parents and log conditional probability table.

    ``parents`` (d, k), −1 padded; feature ``i``'s table is rows ``cpt_offsets[i] + a ·
    strides[i, 0] + Σ_t b_t · strides[i, t + 1]`` of ``cpt`` (cells, n_classes), ``a`` its
    value and ``b_t`` its parents'; ``single`` (Σ V_i, n_classes) holds ``ln P(x_i | y)``;
    ``edge_weight`` (d, d) the weights the structure was chosen by.
    """

    categories: tuple[np.ndarray, ...]
    parents: np.ndarray
    strides: np.ndarray
    cpt_offsets: np.ndarray
    cpt: np.ndarray
    cat_offsets: np.ndarray
    single: np.ndarray
    class_information: np.ndarray
    pair_information: np.ndarray
    edge_weight: np.ndarray

    @cached_property
    def codebook(self) -> Codebook:
        return Codebook(self.categories)


@dataclass(frozen=True)
class AODEParams:
    """Every feature a super-parent: ``ln P(x_p | y)`` (``single``), ``ln P(x_lo | y, x_hi)``
    and ``ln P(x_hi | y, x_lo)`` over every pair block (``given_hi``, ``given_lo``), and which
    values are frequent enough to be super-parents (``parent_ok``)."""

    categories: tuple[np.ndarray, ...]
    cat_offsets: np.ndarray
    single: np.ndarray
    pair_index: np.ndarray
    pair_offsets: np.ndarray
    given_hi: np.ndarray
    given_lo: np.ndarray
    parent_ok: np.ndarray
    value_count: np.ndarray
    class_information: np.ndarray

    @cached_property
    def codebook(self) -> Codebook:
        return Codebook(self.categories)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.cat_offsets)


class _Network(Family):
    """What the three share: counting, smoothing, the singles."""

    column_kind: ClassVar[str] = "category"
    order: int

    def __init__(self, alpha: Any = 1.0, *, force_alpha: bool = True, estimate: str = "mean"):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.estimate = estimate

    def config(self) -> dict[str, Any]:
        alpha = self.alpha.tolist() if isinstance(self.alpha, np.ndarray) else self.alpha
        return {"alpha": alpha, "force_alpha": self.force_alpha, "estimate": self.estimate}

    def validate(self, X: Any, names: Sequence[str]) -> Table:
        if not isinstance(X, Table):
            raise DataError(f"the {self.name} family takes a table of category values")
        return X

    def summarize(self, X: Table, R: np.ndarray | sp.spmatrix) -> SubsetCounts:
        categories, codes = local_codes(X)
        sizes = np.array([len(c) for c in categories], dtype=np.int64)
        n_classes = R.shape[1]
        check_size(sizes, self.order, n_classes, X.names)
        layout = layout_of(sizes, self.order)
        labels = hard_labels(R)
        per_row = layout.features.size * (1 if labels is not None else n_classes)
        if codes.shape[0] * per_row <= small_passes.NUMPY_WORK:
            # numpy's bincount: the kernels' sums without loading them (see _small)
            cells = small_passes.subset_cells(
                codes, layout.features, layout.strides, layout.offsets
            )
            if labels is not None:
                counts = small_passes.count_hard(
                    cells, labels[0].astype(np.int64), labels[1].astype(np.float64),
                    n_classes, layout.n_cells,
                )  # fmt: skip
            else:
                counts = small_passes.count_soft(cells, _dense(R), layout.n_cells)
        elif labels is not None and self.order == 2:
            pair_offsets = np.zeros((len(sizes), len(sizes)), dtype=np.int64)
            index = layout.pair_index(len(sizes))
            pair_offsets[index >= 0] = layout.offsets[index[index >= 0]]
            args = (
                codes, labels[0].astype(np.int64), labels[1].astype(np.float64),
                layout.offsets, pair_offsets, sizes, n_classes, layout.n_cells,
            )  # fmt: skip
            chunks = min(COUNT_CHUNKS, 1 + codes.shape[0] // CHUNK_ROWS)
            if chunks == 1:
                counts = kernels.count_pairs_serial(*args).T
            else:
                counts = kernels.count_pairs(*args, chunks).T
        elif labels is not None:
            counts = kernels.count_hard(
                codes, labels[0].astype(np.int64), labels[1].astype(np.float64),
                layout.features, layout.strides, layout.offsets, n_classes, layout.n_cells,
            ).T  # fmt: skip
        else:
            counts = kernels.count_soft(
                codes, _dense(R), layout.features, layout.strides, layout.offsets, layout.n_cells
            ).T
        stats = SubsetCounts(categories, self.order, np.ascontiguousarray(counts))
        # A value met only in rows of weight 0 was not seen: weight 0 means "row absent".
        return stats.without_empty(0.0)

    def parameter_size(self, stats: SubsetCounts) -> int:
        """What :meth:`finalize` holds at its peak, temporaries included, told from the value
        counts before any of it is allocated (a model file's load takes it from its budget
        first; the counts of pairs took 2 to 25 times their size, uncounted): the layout and
        its pair cells (made again for every large one), the singles' informations and
        tables (a few (n_classes, Σ V_i) arrays), the (d, d) informations and weights, and
        the family's own work over the cells (:meth:`_work_size`)."""
        extent = Extent.of(stats.sizes, stats.order)
        d = stats.n_features
        shared = extent.layout_size() + 10 * stats.n_classes * extent.singles + 4 * d * d + 2 * d
        return shared + self._work_size(stats.n_classes, extent)

    def _work_size(self, n_classes: int, extent: Extent) -> int:
        """The float64 words the family's finalize adds over the cells at its peak."""
        raise NotImplementedError

    def _check_order(self, stats: SubsetCounts) -> None:
        if stats.order != self.order:
            raise DataError(
                f"the {self.name} family needs counts of feature subsets of up to {self.order} "
                f"features, not {stats.order} (k was changed after fitting? refit the model)"
            )

    def _pseudo(self, d: int) -> np.ndarray:
        alpha = check_alpha(self.alpha, d, force_alpha=self.force_alpha)
        a = pseudo_count(alpha, check_estimate(self.estimate))
        return np.broadcast_to(np.asarray(a, dtype=np.float64), (d,))

    def _singles(self, stats: SubsetCounts, a: np.ndarray) -> np.ndarray:
        """``ln P(x_i = a | y)``, (Σ V_i, n_classes)."""
        sizes = stats.sizes
        feature = stats.layout.single_feature
        singles = stats.single_counts()
        per_feature = class_sums(singles, feature, stats.n_features)
        num = singles + a[feature]
        den = (per_feature + a * sizes)[:, feature]
        return np.ascontiguousarray(log_ratio(num, den, sizes[feature]).T)


class _Tree(_Network):
    """Each feature with a set of parents among the others (TAN: at most one; KDB: k)."""

    def _edge_weight(self, stats: SubsetCounts, cmi: np.ndarray) -> np.ndarray:
        """The (d, d) weights the structure is chosen by (``I(X_i; X_j | Y)`` here)."""
        return cmi

    def _parents(self, stats: SubsetCounts, ci: np.ndarray, weight: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _work_size(self, n_classes: int, extent: Extent) -> int:
        k, margins = n_classes, extent.first + extent.second
        # the conditional informations: the counts' non-negative copy, the pair cells'
        # margins (and the keys and copies of the class sums making them), the ratios, their
        # logarithms and the terms (measured at 4.8 (n_classes, pair cells) arrays)
        information = k * extent.cells + 7 * k * extent.pair_cells + 3 * k * margins
        # the conditional tables: each feature's block (at most V_i times the widest
        # feature's values per parent, and at most every cell) gathered, its class sums,
        # denominators, logarithms and per-cell indices
        block = min(extent.cells, extent.singles * extent.widest ** (extent.order - 1))
        tables = 9 * k * block + 8 * block + 2 * extent.subsets
        return max(information, tables)

    def finalize(self, stats: SubsetCounts) -> NetworkParams:
        self._check_order(stats)
        a = self._pseudo(stats.n_features)
        cat = stats.cat_offsets
        singles = stats.single_counts()
        ci = class_information(singles, cat)
        cmi = conditional_information(stats.counts, stats.layout)
        weight = self._edge_weight(stats, cmi)
        parents = self._parents(stats, ci, weight)
        strides, offsets, cpt = conditional_tables(stats, parents, a)
        return NetworkParams(
            stats.categories, parents, strides, offsets, cpt, cat, self._singles(stats, a),
            ci, cmi, weight,
        )  # fmt: skip

    def log_prob(self, params: NetworkParams, X: Table) -> np.ndarray:
        codes = encode(params.codebook, X)
        work = codes.size * params.cpt.shape[1]
        args = (
            codes, params.parents, params.strides, params.cpt_offsets, params.cpt,
            params.cat_offsets, params.single,
        )  # fmt: skip
        if work <= small_passes.NUMPY_WORK:
            return small_passes.network(*args)
        out = np.zeros((codes.shape[0], params.cpt.shape[1]))
        kernels.network(*args, out)
        return out

    def factors(self, params: NetworkParams, X: Table) -> np.ndarray:
        """``ln P(x_i | y, x_pa(i))`` of every row, feature and class, (n, d, n_classes); 0
        where ``x_i`` is missing. Their sum over the features is :meth:`log_prob`."""
        return small_passes.network_factors(
            encode(params.codebook, X), params.parents, params.strides, params.cpt_offsets,
            params.cpt, params.cat_offsets, params.single,
        )  # fmt: skip


class TAN(_Tree):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997).

    The features form the maximum-weight spanning tree of the complete graph (Chow & Liu
    1968, conditioned on the class), directed away from the root: the feature of largest
    ``I(X_i; Y)`` (the lowest index among ties: informations within
    :data:`~bayeskit.bayesnet._structure.TIE_RTOL` of the largest). Every feature depends on
    the class and on its parent in the tree. An edge weighs ``I(X_i; X_j | Y)``
    (``edge_weight="cmi"``, Friedman et al.'s weight) or the Bayesian Dirichlet gain of the
    parent (``edge_weight="bayes"``, see :func:`~bayeskit.bayesnet._structure.bayesian_gain`),
    whose Dirichlet prior is ``alpha``.

    Parameters
    ----------
    edge_weight : {"bayes", "cmi"}
        Which weight.
    """

    name = "tan"
    order = 2

    def __init__(
        self,
        alpha: Any = 1.0,
        *,
        force_alpha: bool = True,
        estimate: str = "mean",
        edge_weight: str = "bayes",
    ):
        super().__init__(alpha, force_alpha=force_alpha, estimate=estimate)
        self.edge_weight = edge_weight

    def config(self) -> dict[str, Any]:
        return {"edge_weight": self.edge_weight, **super().config()}

    def _edge_weight(self, stats: SubsetCounts, cmi: np.ndarray) -> np.ndarray:
        if check_edge_weight(self.edge_weight) == "cmi":
            return cmi
        alpha = np.broadcast_to(
            np.asarray(check_alpha(self.alpha, stats.n_features, force_alpha=self.force_alpha)),
            (stats.n_features,),
        )
        if stats.n_features and not alpha.min() > 0:
            raise ParameterError(
                "edge_weight='bayes' needs alpha > 0: alpha is the Dirichlet prior the "
                "Bayesian score integrates over (use edge_weight='cmi' with alpha=0)"
            )
        return bayesian_gain(stats.counts, stats.layout, alpha.astype(np.float64))

    def _work_size(self, n_classes: int, extent: Extent) -> int:
        work = super()._work_size(n_classes, extent)
        if check_edge_weight(self.edge_weight) == "cmi":
            return work
        # the Bayesian gain: lnΓ of the cells with counts of eight terms (the pair cells and
        # their margins, twice each), gathered with their pseudo-counts' codes, and the sort
        # finding their distinct values when the counts are weighted (measured at 18.3 of
        # these per class: 20 counted)
        terms = extent.pair_cells + extent.first + extent.second + extent.pairs
        return max(work, 20 * n_classes * terms)

    def _parents(self, stats: SubsetCounts, ci: np.ndarray, weight: np.ndarray) -> np.ndarray:
        d = stats.n_features
        if d == 0:
            return np.zeros((0, 1), dtype=np.int64)
        root = first_of_max(ci, tie_tolerance(ci))
        if check_edge_weight(self.edge_weight) == "cmi":
            return chow_liu(weight, root)[:, None]
        # the gains' rounding is relative to the log-gamma sums they are differences of
        tol = tie_tolerance(weight, gain_scale(stats.counts, stats.layout))
        return chow_liu(weight, root, tol)[:, None]


#: ``TANClassifier(edge_weight=...)``: what the tree's edges weigh.
EDGE_WEIGHTS = ("bayes", "cmi")


def check_edge_weight(weight: Any) -> str:
    if not isinstance(weight, str) or weight not in EDGE_WEIGHTS:
        raise ParameterError(
            f"edge_weight must be 'bayes' (the Bayesian Dirichlet gain of a parent) or 'cmi' "
            f"(the conditional mutual information I(X_i; X_j | Y)); got {weight!r}"
        )
    return weight


class KDB(_Tree):
    """k-dependence Bayesian classifier (Sahami 1996): features in decreasing ``I(X_i; Y)``,
    each with the (up to) ``k`` earlier features of largest ``I(X_i; X_j | Y)`` as parents.

    Parameters
    ----------
    k : int, 0 to 3
        Parents per feature (0: naive Bayes, 1: a tree or forest).
    """

    name = "kdb"

    def __init__(
        self, k: int = 1, alpha: Any = 1.0, *, force_alpha: bool = True, estimate: str = "mean"
    ):
        super().__init__(alpha, force_alpha=force_alpha, estimate=estimate)
        self.k = k

    @property
    def order(self) -> int:  # type: ignore[override]
        return max(check_k(self.k) + 1, 2)

    def config(self) -> dict[str, Any]:
        return {"k": self.k, **super().config()}

    def _parents(self, stats: SubsetCounts, ci: np.ndarray, weight: np.ndarray) -> np.ndarray:
        return kdb_parents(ci, weight, check_k(self.k))


def check_k(k: Any) -> int:
    integral = isinstance(k, Integral) and not isinstance(k, (bool, np.bool_))
    if not integral or not 0 <= k <= MAX_ORDER - 1:
        raise ParameterError(
            f"k must be an integer from 0 to {MAX_ORDER - 1} (parents per feature); got {k!r}"
        )
    return int(k)


class AODE(_Network):
    """Averaged one-dependence estimators (Webb, Boughton & Wang 2005).

    ``p(x | y) = (1 / |P(x)|) Σ_{p ∈ P(x)} P(x_p | y) Π_{i ≠ p} P(x_i | y, x_p)`` over the
    super-parents ``P(x)``: the features whose value in ``x`` occurs in at least ``m``
    training rows (Weka's frequency limit, default 1); with none, naive Bayes. With the class
    prior the template adds, each term is ``P(y, x_p) Π P(x_i | y, x_p)``, Webb et al.'s
    one-dependence estimator.

    Parameters
    ----------
    m : float >= 0
        The least (weighted) number of training rows with a value for it to be a super-parent.
    """

    name = "aode"
    order = 2

    def __init__(
        self, m: float = 1, alpha: Any = 1.0, *, force_alpha: bool = True, estimate: str = "mean"
    ):
        super().__init__(alpha, force_alpha=force_alpha, estimate=estimate)
        self.m = m

    def config(self) -> dict[str, Any]:
        return {"m": self.m, **super().config()}

    def _work_size(self, n_classes: int, extent: Extent) -> int:
        # the pair cells' margins (and the keys and copies of the class sums making them),
        # both conditional tables with log_ratio's temporaries and their transposed copies,
        # and each pair cell's pseudo-counts and value counts
        k = n_classes
        return (
            11 * k * extent.pair_cells
            + 4 * extent.pair_cells
            + 3 * k * (extent.first + extent.second)
        )

    def finalize(self, stats: SubsetCounts) -> AODEParams:
        self._check_order(stats)
        m = check_m(self.m)
        d = stats.n_features
        a = self._pseudo(d)
        layout = stats.layout
        cat = stats.cat_offsets
        singles = stats.single_counts()
        cells = PairCells.of(stats.counts, layout)
        sizes = stats.sizes
        a_first, a_second = a[cells.first], a[cells.second]
        v_first, v_second = sizes[cells.first], sizes[cells.second]
        given_hi = log_ratio(cells.N + a_first, cells.n_yb + a_first * v_first, v_first)
        given_lo = log_ratio(cells.N + a_second, cells.n_ya + a_second * v_second, v_second)
        value_count = singles.sum(axis=0)
        offsets = layout.offsets - cells.start  # pair blocks start at 0 in the tables
        return AODEParams(
            stats.categories, cat, self._singles(stats, a), layout.pair_index(d), offsets,
            np.ascontiguousarray(given_hi.T), np.ascontiguousarray(given_lo.T),
            # (a weighted count summed in another order, or after an unlearn, is m to rounding)
            value_count >= m - TIE_RTOL * max(m, 1.0), value_count,
            class_information(singles, cat),
        )  # fmt: skip

    def log_prob(self, params: AODEParams, X: Table) -> np.ndarray:
        codes = encode(params.codebook, X)
        work = codes.size * codes.shape[1] * params.single.shape[1]
        args = (
            codes, params.pair_index, params.pair_offsets, params.sizes, params.given_hi,
            params.given_lo, params.cat_offsets, params.single, params.parent_ok,
        )  # fmt: skip
        if work <= small_passes.NUMPY_WORK:
            return small_passes.aode(*args)
        out = np.zeros((codes.shape[0], params.single.shape[1]))
        kernels.aode(*args, out)
        return out


def check_m(m: Any) -> float:
    if (
        isinstance(m, (bool, np.bool_))
        or not isinstance(m, (int, float, np.number))
        or not (math.isfinite(as_real(m)) and m >= 0)
    ):
        raise ParameterError(
            f"m must be a number >= 0 (the least training rows of a super-parent's value); "
            f"got {m!r}"
        )
    return float(m)


def conditional_tables(
    stats: SubsetCounts, parents: np.ndarray, a: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each feature's smoothed ``ln P(x_i | y, x_pa(i))`` from the block of the subset
    ``{i} ∪ pa(i)``, every feature at once: (strides, cpt_offsets, cpt) of
    :class:`NetworkParams`.

    A table's rows are its block's cells; the denominator ``N(y, x_pa = b)`` of a cell sums
    the cells of its block that differ from it in ``x_i`` alone (one group per block and
    parent values: the cell's index with ``x_i``'s digit set to 0)."""
    layout = stats.layout
    d, k = parents.shape
    sizes = stats.sizes
    members = np.concatenate([np.arange(d)[:, None], parents], axis=1)
    members = np.sort(np.where(members < 0, d, members), axis=1)  # padding last
    members = np.where(members == d, -1, members)
    width = layout.features.shape[1]
    if members.shape[1] < width:
        pad = np.full((d, width - members.shape[1]), -1, dtype=np.int64)
        members = np.concatenate([members, pad], axis=1)
    subset = layout.subset_of(members)
    start = layout.offsets[subset]
    size = layout.offsets[subset + 1] - start
    cpt_offsets = np.concatenate([[0], np.cumsum(size)])[:-1].astype(np.int64)
    block = np.repeat(np.arange(d), size)
    local = np.arange(int(size.sum())) - cpt_offsets[block]
    chosen = layout.features[subset]  # (d, width)
    step = layout.strides[subset, np.argmax(chosen == np.arange(d)[:, None], axis=1)]
    strides = np.zeros((d, k + 1), dtype=np.int64)
    strides[:, 0] = step
    for t in range(k):  # parent slots: k ≤ 3
        has = parents[:, t] >= 0
        slot = np.argmax(chosen == parents[:, t : t + 1], axis=1)
        strides[:, t + 1] = np.where(has, layout.strides[subset, slot], 0)
    N = stats.counts[:, start[block] + local]
    cell_step, V = step[block], sizes[block]
    group = (
        cpt_offsets[block]
        + local
        - (local // np.maximum(cell_step, 1)) % np.maximum(V, 1) * cell_step
    )
    den = class_sums(N, group, len(local))[:, group] + a[block] * V
    cpt = log_ratio(N + a[block], den, V)
    return strides, cpt_offsets, np.ascontiguousarray(cpt.T)


__all__ = ["AODE", "KDB", "TAN", "AODEParams", "NetworkParams"]
