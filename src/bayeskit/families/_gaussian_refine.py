"""Exact rescoring of the (row, class) pairs whose Gaussian log-likelihood the matrix-product
expansion cannot give accurately.

The expansion ``Σ_j A u² + B u + C`` adds terms of size ``M = ½ Σ_j (u_j² + (μ_cj − m_j)²) / σ²_cj``
to get a result that can be far smaller, for a row close to the mean of a class with a tiny
variance; its absolute error is a few ulps of ``M``. Where a cheap bound on ``M`` says that
error could reach 1e-10 of the result, the pair is scored again by the direct formula
``−½ Σ_j ln(2π σ²) + (x − μ)² / σ²``, which is as accurate as its inputs. On well-conditioned
data no pair qualifies and the products stand alone.
"""

from __future__ import annotations

import numpy as np

from .._in_order import sum_in_order
from .._jit import SMALL_TABLE, njit

#: ulps of M the expansion may lose (a safety factor over its handful of roundings).
_ULPS = 64 * np.finfo(np.float64).eps
#: the relative accuracy kept: pairs whose error bound exceeds it are rescored (scikit-learn
#: parity is asked to 1e-9).
_RELATIVE = 1e-10


@njit(nogil=True)
def _refine(
    X: np.ndarray,
    U2_rows: np.ndarray,
    top_precision: np.ndarray,
    offset_terms: np.ndarray,
    theta: np.ndarray,
    precision: np.ndarray,
    log_norm: np.ndarray,
    jll: np.ndarray,
) -> None:  # pragma: no cover
    # One pass over (row, class) without temporaries: fresh (n, K) arrays would cost more in
    # page faults than the whole check.
    for i in range(jll.shape[0]):
        for c in range(jll.shape[1]):
            bound = 0.5 * U2_rows[i] * top_precision[c] + offset_terms[c]
            if _ULPS * bound <= _RELATIVE * (abs(jll[i, c]) + 1.0):
                continue
            acc = 0.0
            for j in range(X.shape[1]):
                x = X[i, j]
                if x != x or precision[c, j] == 0.0:
                    continue  # missing value, or a feature never seen in training
                z = x - theta[c, j]
                acc -= 0.5 * (log_norm[c, j] + z * z * precision[c, j])
            jll[i, c] = acc


def refine(
    jll: np.ndarray,
    X: np.ndarray,
    U2_rows: np.ndarray,
    theta: np.ndarray,
    precision: np.ndarray,
    offset_terms: np.ndarray,
    log_norm: np.ndarray,
) -> np.ndarray:
    """Rescore in place the entries of ``jll`` (n, K) that the expansion may have got wrong.

    ``U2_rows`` (n,) is ``Σ_j u_ij²`` over observed values, ``offset_terms`` (K,) is
    ``½ Σ_j (μ_cj − m_j)² / σ²_cj``; with the largest precision of each class they bound M.
    """
    top_precision = precision.max(axis=1, initial=0.0)
    if X.size > SMALL_TABLE or jll.size > 4 * SMALL_TABLE:
        _refine(X, U2_rows, top_precision, offset_terms, theta, precision, log_norm, jll)
        return jll
    # A small table (a line typed to predict, a small CSV): numpy, bit for bit the compiled
    # loop's numbers (each rescored pair's terms summed feature after feature, a skipped one
    # adding +0.0), without numba's import and compiler for microseconds of work.
    bound = 0.5 * U2_rows[:, None] * top_precision[None, :] + offset_terms[None, :]
    rows, classes = np.nonzero(~(_ULPS * bound <= _RELATIVE * (np.abs(jll) + 1.0)))
    if len(rows) * X.shape[1] > 4 * SMALL_TABLE:  # too many pairs for numpy's temporaries
        _refine(X, U2_rows, top_precision, offset_terms, theta, precision, log_norm, jll)
    elif len(rows):
        x = X[rows]
        p = precision[classes]
        z = x - theta[classes]
        terms = np.where((x == x) & (p != 0.0), 0.5 * (log_norm[classes] + z * z * p), 0.0)
        jll[rows, classes] = sum_in_order(-terms, axis=1)  # from 0, as the loop adds
    return jll
