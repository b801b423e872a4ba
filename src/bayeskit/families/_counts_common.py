"""Helpers shared by the count families of exponential form (Poisson, binomial).

``ln p(x|c) = Σ_j o_j (x_j θ_cj − A_cj + h_j(x_j))`` with ``o_j`` = feature j observed: the
input check (:func:`count_block`), the per-class moments of observed counts
(:func:`count_moments`, CSR kept sparse), and the pieces of the log-likelihood and of its
linear form.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any, TypeAlias

import numpy as np

from .._jit import njit
from .._lazy import sparse as sp
from .._lazy import special
from .._validation import LARGEST_VALUE, as_real, check_not_infinite
from ..errors import ParameterError
from ..stats import Counts
from ._base import (
    class_totals,
    class_weight_totals,
    real_block,
    safe_dot,
    split_missing,
)

#: a validated count block: dense float64 (NaN = missing) or CSR float64.
Block: TypeAlias = Any


def count_block(X: Any, names: Sequence[str], what: str) -> Block:
    """Dense float64 (NaN = missing) or CSR float64 with each cell stored once; ±inf and
    values beyond ``LARGEST_VALUE`` in magnitude refused naming the cell.

    CSR stays CSR: for count data zeros cost nothing (``h(0) = 0`` for every family here).
    """
    if not sp.issparse(X):
        return real_block(X, names, what)
    X = sp.csr_matrix(X, dtype=np.float64)
    # Functions of single entries (ln x!, squared deviations) need each cell stored once;
    # unsorted indices are fine.
    if _has_duplicates(X.indptr, X.indices, X.shape[1]):
        X = X.copy()
        X.sum_duplicates()
    check_not_infinite(X, names, what, LARGEST_VALUE)
    return X


def count_totals(X: Block, R: np.ndarray | sp.spmatrix) -> Counts:
    """Per-class row weight, count totals and weight of the rows missing each feature: all
    that the rate of a Poisson or the probability of a binomial needs (the same statistic as
    the multinomial and Bernoulli families). CSR input stays sparse."""
    Xz, missing = split_missing(X)
    lost = None if missing is None else class_totals(R, missing)
    return Counts(class_weight_totals(R), class_totals(R, Xz), lost)


@njit(nogil=True)
def _has_duplicates(
    indptr: np.ndarray, indices: np.ndarray, n_cols: int
) -> bool:  # pragma: no cover
    last = np.full(n_cols, -1, dtype=np.int64)
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            if last[indices[k]] == i:
                return True
            last[indices[k]] = i
    return False


def observed_sum(missing: Block, A: np.ndarray) -> np.ndarray:
    """``Σ_j o_ij A_cj`` of every row and class, shape (n, K), given the indicator of the
    missing entries: the row's observed features only. Rows with missing values are summed
    directly (no cancellation)."""
    out = np.repeat(A.sum(axis=1)[None, :], missing.shape[0], axis=0)
    holes = np.flatnonzero(np.asarray(missing.sum(axis=1)).ravel())
    if holes.size:
        part = missing[holes]
        seen = 1.0 - (part.toarray() if sp.issparse(part) else part)
        out[holes] = seen @ A.T
    return out


def row_sums(X: Block, f: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """``Σ_j f(x_ij, j)`` of each row, for an ``f`` with ``f(0, j) = 0`` (only stored entries
    of CSR input are visited; ``j`` is passed as column indices)."""
    if sp.issparse(X):
        return np.asarray(_with_data(X, f(X.data, X.indices)).sum(axis=1)).ravel()
    return np.asarray(f(X, np.arange(X.shape[1])[None, :]).sum(axis=1), dtype=np.float64)


def exp_log_prob(
    Xz: Block, missing: Block | None, theta: np.ndarray, A: np.ndarray, h: np.ndarray
) -> np.ndarray:
    """``Σ_j o_ij (x_ij θ_cj − A_cj) + h_i``: the exponential-family log-likelihood (θ may
    hold −inf, an impossible count; A is finite)."""
    jll = safe_dot(Xz, theta)
    if missing is None:
        jll -= A.sum(axis=1)
    else:
        jll -= observed_sum(missing, A)
    jll += h[:, None]
    return jll


def exp_design(Xz: Block, missing: Block | None, h: np.ndarray) -> Block:
    """``[x, missing indicator, h]``: the columns ``exp_log_prob`` is linear in, given the
    weights ``[θ, A, 1]`` and bias ``−Σ_j A_cj`` (a missing feature gives its A back)."""
    n, d = Xz.shape
    if sp.issparse(Xz):
        holes = missing if missing is not None else sp.csr_matrix((n, d))
        return sp.hstack([Xz, holes, sp.csr_matrix(h[:, None])], format="csr")
    holes_d = missing if missing is not None else np.zeros((n, d))
    return np.hstack([Xz, holes_d, h[:, None]])


#: how :func:`exp_column_names` names the missing-value indicator of a column
MISSING_MARK = "=<missing>"


def exp_column_names(names: Sequence[str], base: str) -> list[str]:
    return [*names, *(f"{n}{MISSING_MARK}" for n in names), base]


def log_factorial(x: np.ndarray) -> np.ndarray:
    """``ln x! = ln Γ(x + 1)``; whole counts (the usual case) are looked up in a table, which
    is several times faster than evaluating Γ at every entry."""
    if x.size == 0:
        return np.zeros_like(x)
    top = float(x.max())
    if top < 1 << 16:
        whole = x.astype(np.int64)
        if np.array_equal(whole, x):
            return special.gammaln(np.arange(int(top) + 1) + 1.0)[whole]
    return special.gammaln(x + 1.0)


def _with_data(X: sp.csr_matrix, data: np.ndarray) -> sp.csr_matrix:
    return sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)


def check_nonneg_number(value: Any, what: str) -> float:
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, Real)
        or not np.isfinite(as_real(value))
        or value < 0
    ):
        raise ParameterError(f"{what} must be a finite number >= 0; got {value!r}")
    return float(value)
