"""The contract of a distribution family.

A family is a small object holding hyperparameters (smoothing, estimate, …). It knows how to

``summarize(X, R) -> Statistic``
    sufficient statistics of a data block ``X`` given class weights ``R`` (n × K, dense or
    sparse: one-hot labels times sample weights, or soft responsibilities);
``finalize(stats) -> params``
    point estimates from statistics. Smoothing, priors and floors live here and only here;
``log_prob(params, X) -> ndarray (n, K)``
    per-class log-likelihood of each row (a missing value contributes 0);
    ``log_prob_relative`` the same up to a term shared by the classes of a row (cheaper for a
    shared covariance; posteriors and decisions use it);
``linear_form(params) -> (W, b)``
    for families that are linear in the features: ``log_prob(X) = X @ W.T + b``;
``discriminant(params) -> (W, b)``
    for families whose decision is linear: ``log_prob(X) = X @ W.T + b + g(X)`` with ``g`` the
    same for every class (a shared covariance; every linear family, with ``g = 0``);
``check_usable(params, classes, names)``
    refuses parameters that cannot score (a singular covariance), naming the class and column.

``validate(X, names)`` checks family-specific input rules (non-negative counts, binary values)
with messages that name the column and row.

Missing values: a NaN (what the estimators turn None, pandas NA and polars null into for
numeric columns) is a missing value. ``summarize`` leaves it out of every statistic and
``log_prob`` gives it a contribution of 0, so the feature drops out of the product for that row
(Duda, Hart & Stork 2001, §2.10); a row with every feature missing scores the prior alone.

Every family registers itself by ``name`` in :data:`FAMILIES`; ``family_from_config(name,
config)`` rebuilds one (model files and ``MixedNB`` use it, and nothing else can be named).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar, get_type_hints

import numpy as np

from .._lazy import sparse as sp
from .._registry import registered
from .._validation import LARGEST_VALUE, check_not_infinite
from ..errors import DataError, ParameterError
from ..stats import Statistic
from ..stats._base import hard_labels
from ._sparse_dot import csr_dot_t, one_row_dot_t

__all__ = [
    "FAMILIES",
    "Family",
    "class_totals",
    "class_weight_totals",
    "family_from_config",
    "hard_labels",
    "named_families",
    "observed_mask",
    "real_block",
    "safe_dot",
    "split_missing",
]


#: family name -> class, filled as family modules are imported.
FAMILIES: dict[str, type[Family]] = {}


def named_families(kind: str | None = None) -> list[str]:
    """The families a setting can name by their name alone (:attr:`Family.by_name`), sorted;
    those of :attr:`Family.column_kind` ``kind`` when given (``"real"``: the families of
    numeric columns)."""
    return sorted(
        name
        for name, cls in FAMILIES.items()
        if cls.by_name and (kind is None or cls.column_kind == kind)
    )


def family_from_config(name: str, config: dict[str, Any]) -> Family:
    """The family called ``name`` with hyperparameters ``config`` (as ``Family.config()``)."""
    cls = FAMILIES.get(name)
    if cls is None:
        raise ParameterError(
            f"unknown family {name!r}; known families: {', '.join(sorted(FAMILIES))}"
        )
    try:
        return cls(**config)
    except TypeError as exc:
        raise ParameterError(f"bad settings for the {name} family: {exc}") from None


class Family(ABC):
    """Base class of distribution families."""

    #: name used in model files and ``feature_families_``.
    name: ClassVar[str]
    #: the kind of column ``MixedNB(families="auto")`` may give this family: "real" (floats,
    #: NaN = missing), "binary" (0/1 floats, NaN = missing) or "category" (any values, a Table).
    column_kind: ClassVar[str] = "real"
    #: what the family's log-probability of one column is: "density" (a density of the
    #: column's values), "pmf" (a pmf on the integers) or None (no distribution of one column
    #: of its own: a count vector's count, an interval's probability); the report draws a
    #: column's densities by it.
    one_column: ClassVar[str | None] = None
    #: False for a family its name alone does not make (settings it has no default for: a
    #: binomial's numbers of trials, the documents family's vectorizer): a model setting that
    #: names a family by its name (``MixedNB(numeric=...)``) cannot take it.
    by_name: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if name is not None:
            FAMILIES[name] = registered(FAMILIES.get(name), cls, f"the family name {name!r}")

    #: True when ``log_prob`` is ``X @ W.T + b`` (multinomial, Bernoulli, complement…).
    linear: ClassVar[bool] = False
    #: True when the family's density is never 0 at a finite value (a Gaussian's): a
    #: log-probability of -inf can then only be float64's overflow, never the model's answer.
    never_zero: ClassVar[bool] = False

    @abstractmethod
    def config(self) -> dict[str, Any]:
        """Hyperparameters as JSON-ready values (enough to rebuild the family)."""

    def validate(self, X: Any, names: Sequence[str]) -> Any:
        """Check and prepare input for this family; return what summarize/log_prob take."""
        return X

    @abstractmethod
    def summarize(self, X: Any, R: np.ndarray | sp.spmatrix) -> Statistic:
        """Sufficient statistics of ``X`` under class weights ``R``."""

    def check_statistic(self, stats: Statistic) -> str | None:
        """Why ``stats`` (read from a model file) cannot be this family's statistic under its
        settings, or None. The kind is the one :meth:`summarize` declares it returns."""
        expected = get_type_hints(type(self).summarize).get("return", Statistic)
        if isinstance(expected, type) and not isinstance(stats, expected):
            return (
                f"the {self.name} family keeps {expected.__name__} statistics, not "
                f"{type(stats).__name__} ({stats.kind!r})"
            )
        return None

    @abstractmethod
    def finalize(self, stats: Any) -> Any:
        """Parameters estimated from statistics."""

    def parameter_size(self, stats: Any) -> int:
        """An upper bound of the number of float64 values :meth:`finalize` allocates for
        ``stats``, known before it runs (model files check it against their memory budget).
        Most families' parameters are the size of their statistics; families whose size
        follows a hyperparameter (intervals, grid points) say so."""
        arrays, _ = stats.to_arrays()
        return int(sum(np.size(a) for a in arrays.values()))

    @abstractmethod
    def log_prob(self, params: Any, X: Any) -> np.ndarray:
        """Per-class log-likelihood of each row, shape (n_samples, n_classes)."""

    def log_prob_relative(self, params: Any, X: Any) -> np.ndarray:
        """:meth:`log_prob` up to a term that is the same for every class of a row: all that
        posteriors and decisions need (default: :meth:`log_prob` itself)."""
        return self.log_prob(params, X)

    def linear_form(self, params: Any) -> tuple[np.ndarray, np.ndarray]:
        """Weights ``W`` (n_classes, n_columns) and bias ``b`` (n_classes,)."""
        raise NotImplementedError(f"the {self.name} family is not linear in its features")

    def linear_width(self, params: Any) -> int:
        """The number of columns of :meth:`linear_form`'s ``W``."""
        return int(self.linear_form(params)[0].shape[1])

    def linear_columns(self, params: Any, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`linear_form`'s ``W[:, index]`` and ``b`` (a family whose parameters can
        give a few columns without the whole ``W`` says so here)."""
        W, b = self.linear_form(params)
        return W[:, index], b

    def discriminant(self, params: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(W, b)`` such that ``log_prob(X) − (X @ W.T + b)`` is the same for every class:
        the posterior is ``softmax(X @ W.T + b + log prior)``. A linear family's own form."""
        if not self.linear:
            raise ParameterError(f"the {self.name} family's decision is not linear in its features")
        return self.linear_form(params)

    def check_usable(self, params: Any, classes: np.ndarray, names: Sequence[str]) -> None:
        """Refuse parameters that cannot score data (default: every parameter can)."""
        return None

    def design(self, params: Any, X: Any) -> Any:
        """The rows ``linear_form``'s weights multiply, from validated input: the features
        themselves for count families."""
        return X

    # The held-out choice of a column's family (:class:`~bayeskit.families.Auto`) scores each
    # column of held-out rows apart; a family that can do it without probes says so here.
    def columns_at_once(self, n_classes: int) -> int | None:
        """How many columns :meth:`held_out_log_prob` takes at a time; None (the default):
        the family has no such method, and is scored from its fitted parameters."""
        return None

    def held_out_log_prob(self, stats: Any, X: np.ndarray) -> np.ndarray:
        """``log p(x_ij | c)`` of every column and row of ``X`` under the model fitted on
        ``stats``, shape (n_features, n_rows, n_classes), 0 where missing (a family whose
        :meth:`columns_at_once` is not None)."""
        raise NotImplementedError(f"{type(self).__name__} scores held-out rows by log_prob")

    def log_prob_cells(self, params: Any, X: np.ndarray) -> np.ndarray | None:
        """:meth:`log_prob`'s term of each column apart, (n_features, n_rows, n_classes), 0
        where missing; None (the default): its terms are scored by probes of one column."""
        return None

    def column_names(self, params: Any, names: Sequence[str]) -> list[str]:
        """Names of the columns of :meth:`design`, given the block's feature names."""
        return list(names)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Family):
            return NotImplemented
        return type(self) is type(other) and self.config() == other.config()

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(sorted(self.config().items()))))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.config().items())
        return f"{type(self).__name__}({args})"


def class_totals(R: np.ndarray | sp.spmatrix, X: Any) -> np.ndarray:
    """``R.T @ X`` as a dense (n_classes, n_features) float64 array, for dense or sparse input."""
    if sp.issparse(X) and isinstance(R, (sp.csr_matrix, sp.csr_array)) and _one_class_per_row(R):
        # Hard labels: each stored value of X adds to one cell, so one bincount over
        # ``column * n_classes + class`` does nnz additions in row order -- the same sums,
        # bit for bit, as the product's nnz * n_classes (20 Newsgroups 1-2-grams: 0.50 s ->
        # 0.09 s), laid out as the product lays them out (column-major, so model files are
        # the same bytes).
        X = X.tocsr()
        n_classes, n_features = R.shape[1], X.shape[1]
        per_row = np.diff(X.indptr)
        cells = X.indices.astype(np.int64) * n_classes
        cells += np.repeat(R.indices, per_row)
        weights = np.repeat(np.asarray(R.data, np.float64), per_row) * X.data
        out = np.bincount(cells, weights=weights, minlength=n_classes * n_features)
        return out.reshape(n_features, n_classes).T
    if isinstance(R, (sp.spmatrix, sp.sparray)) and R.shape[0] * R.shape[1] <= 1 << 24:
        R = R.toarray()  # dense × CSR is the faster product for a modest class count
    out = R.T @ X
    if sp.issparse(out):
        out = out.toarray()
    return np.asarray(out, dtype=np.float64)


def _one_class_per_row(R: sp.csr_matrix | sp.csr_array) -> bool:
    """Whether CSR ``R`` has exactly one stored value in each row (hard labels, as
    :func:`bayeskit._labels.class_weights` makes them)."""
    return R.nnz == R.shape[0] and bool(np.array_equal(R.indptr, np.arange(R.shape[0] + 1)))


def weight_exponent(w: np.ndarray) -> int:
    """The power of two that brings weights near float64's limits (beyond 2**±200) to about
    1 (0 for ordinary weights, which are left as they are): sums weighted by
    ``np.ldexp(w, -weight_exponent(w))`` neither overflow nor lose digits to underflow, and
    compare as the unscaled ones would (a power of two scales exactly)."""
    top = float(np.max(w, initial=0.0))
    if top == 0.0 or 2.0**-200 <= top <= 2.0**200:
        return 0
    return math.frexp(top)[1]


def class_weight_totals(R: np.ndarray | sp.spmatrix) -> np.ndarray:
    """Total weight of each class, shape (n_classes,)."""
    if isinstance(R, (sp.csr_matrix, sp.csr_array)) and R.dtype == np.float64:
        # scipy sums a sparse matrix's columns by a product with a vector of ones (~0.1 ms
        # for the one row of a learned message); bincount adds the same values in the same
        # order, from zero
        return np.bincount(R.indices, weights=R.data, minlength=R.shape[1])
    return np.asarray(R.sum(axis=0), dtype=np.float64).ravel()


def safe_dot(X: Any, W: np.ndarray) -> np.ndarray:
    """``X @ W.T`` where ``W`` may hold ``-inf`` (an event of zero probability, as unsmoothed
    maximum likelihood gives): a row that uses such an event scores ``-inf``, a row that does
    not is unaffected (plain ``0 * -inf`` would give NaN)."""
    # The common case (no -inf) by one pass over W without a temporary of its size.
    impossible = None if W.size == 0 or np.min(W) > -np.inf else np.isneginf(W)
    if impossible is None or not impossible.any():
        fast = csr_dot_t(X, W)  # scipy's numbers, on both cores, for a large CSR X
        if fast is None and not W.T.flags.c_contiguous:
            fast = one_row_dot_t(X, W)  # scipy's numbers, without its copy of W
        out = X @ W.T if fast is None else fast
        return np.asarray(out, dtype=np.float64)
    out = np.asarray(X @ np.where(impossible, 0.0, W).T, dtype=np.float64)
    hits = np.asarray(X @ impossible.T.astype(np.float64))
    out[hits > 0] = -np.inf
    return out


def real_block(X: Any, names: Sequence[str], what: str) -> np.ndarray:
    """``X`` as a dense float64 (n, d) array for a real-valued family: NaN (missing) kept,
    ±inf and values beyond ``LARGEST_VALUE`` in magnitude refused naming the row and column."""
    if sp.issparse(X):
        X = X.toarray()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise DataError(f"{what} takes a 2-D table of numbers, got an array of shape {X.shape}")
    check_not_infinite(X, names, what, LARGEST_VALUE)
    return X


def split_missing(X: Any) -> tuple[Any, Any]:
    """(``X`` with NaN replaced by 0, indicator of the NaN entries or None when there are
    none), for dense or CSR input; CSR stays CSR."""
    if sp.issparse(X):
        missing = np.isnan(X.data)
        if not missing.any():
            return X, None
        filled = X.copy()
        filled.data = np.where(missing, 0.0, X.data)
        indicator = X.copy()
        indicator.data = missing.astype(np.float64)
        indicator.eliminate_zeros()
        filled.eliminate_zeros()
        return filled, indicator
    X = np.asarray(X)
    missing = np.isnan(X)
    if not missing.any():
        return X, None
    return np.where(missing, 0.0, X), missing.astype(np.float64)


def observed_mask(X: np.ndarray) -> np.ndarray | None:
    """Float 0/1 mask of the observed entries of a dense block, or None when none is missing
    (the fast path every family takes on complete data)."""
    missing = np.isnan(X)
    if not missing.any():
        return None
    return (~missing).astype(np.float64)
