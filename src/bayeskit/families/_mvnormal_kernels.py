"""Compiled kernels of the multivariate normal family: each class's Cholesky factor and its
triangular inverse, and the squared Mahalanobis distances of a block of rows.

Both call BLAS and LAPACK themselves (:mod:`bayeskit._blas`), so a kernel runs without the GIL
from end to end: scipy's Python wrappers of ``dtrmm`` hold it, and each call of theirs copies
or checks its arguments (about a quarter of QDA's scoring on digits went to the numpy passes
around the products, and the factorisation's copies page-faulted).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._blas import L as _L
from .._blas import N as _N
from .._blas import T as _T
from .._blas import U as _U
from .._jit import njit


@njit(nogil=True)
def factor_classes(
    potrf: Any,
    trtri: Any,
    cov: np.ndarray,
    regular: np.ndarray,
    factor: np.ndarray,
    inverse: np.ndarray,
    log_det: np.ndarray,
    frobenius: np.ndarray,
    info: np.ndarray,
    letters: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """For each class ``k`` in ``regular``: the correlation matrix ``C = D^-½ Σ_k D^-½`` is
    factored, ``C = G Gᵀ`` (``dpotrf``), and ``G`` inverted (``dtrtri``), in place in
    ``factor[k]`` and ``inverse[k]``; then ``factor[k] = D^½ G`` (the factor of ``Σ_k``) and
    ``inverse[k] = G⁻¹ D^-½`` (its inverse). ``log_det[k] = ln det Σ_k``, ``frobenius[i] =
    ||G⁻¹||_F²`` and ``info[i]`` LAPACK's status (0: done; otherwise the matrix is not
    positive definite and its rows are left as they were).

    The lower triangle of a C-ordered matrix is the upper triangle of the Fortran matrix it
    is: LAPACK is asked for ``U`` (``C = Uᵀ U``), and ``Uᵀ`` is ``G`` read back in C order;
    the inverse of ``U`` read back in C order is ``(Uᵀ)⁻¹ = G⁻¹``.
    """
    d = cov.shape[1]
    ints = np.empty(3, dtype=np.int32)  # n, lda, info
    ints[0] = d
    ints[1] = d
    root = np.empty(d)
    for i in range(len(regular)):
        k = regular[i]
        F = factor[k]
        G = inverse[k]
        for a in range(d):
            root[a] = math.sqrt(cov[k, a, a])
        for a in range(d):
            for b in range(a + 1):
                F[a, b] = cov[k, a, b] / root[a] / root[b]
        ints[2] = 0
        potrf(letters[_U:].ctypes, ints[0:].ctypes, F.ctypes, ints[1:].ctypes, ints[2:].ctypes)
        if ints[2] == 0:
            for a in range(d):
                for b in range(a + 1):
                    G[a, b] = F[a, b]
            trtri(
                letters[_U:].ctypes,
                letters[_N:].ctypes,
                ints[0:].ctypes,
                G.ctypes,
                ints[1:].ctypes,
                ints[2:].ctypes,
            )
        info[i] = ints[2]
        if ints[2] != 0:
            for a in range(d):
                for b in range(d):
                    F[a, b] = 0.0
                    G[a, b] = 0.0
            continue
        total = 0.0
        logs = 0.0
        for a in range(d):
            logs += math.log(root[a]) + math.log(F[a, a])
            for b in range(a + 1, d):
                F[a, b] = 0.0
                G[a, b] = 0.0
            for b in range(a + 1):
                total += G[a, b] * G[a, b]
                F[a, b] = root[a] * F[a, b]
                G[a, b] = G[a, b] / root[b]
        frobenius[i] = total
        log_det[k] = 2.0 * logs


@njit(nogil=True, fastmath={"reassoc", "contract"})
def distances(
    trmm: Any,
    inverse: np.ndarray,
    means: np.ndarray,
    shift: np.ndarray,
    classes: np.ndarray,
    X: np.ndarray,
    out: np.ndarray,
    start: int,
    stop: int,
    work: np.ndarray,
    letters: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """``out[i, k] = −½ ||L_k⁻¹ (x_i − μ_k)||² − shift[k]`` for the rows ``start:stop`` of
    ``X`` and the classes in ``classes`` (``inverse[k] = L_k⁻¹``, lower triangular).

    Rows go by blocks of ``len(work)``: for each class the block is centred into ``work`` and
    multiplied in place by the triangular inverse (one ``dtrmm``: the C-ordered (rows, d)
    block is the Fortran (d, rows) matrix whose columns are the rows, and the C-ordered lower
    ``L⁻¹`` is the Fortran upper ``L⁻ᵀ``, transposed back by ``T``), then each row's squares
    are summed; the block stays in cache through every class.
    """
    d = X.shape[1]
    ints = np.empty(4, dtype=np.int32)  # m, n, lda, ldb
    ints[0] = d
    ints[2] = d
    ints[3] = d
    one = np.ones(1)
    block = work.shape[0]
    for first in range(start, stop, block):
        last = min(first + block, stop)
        rows = last - first
        ints[1] = rows
        for k in classes:
            mu = means[k]
            for i in range(rows):
                for j in range(d):
                    work[i, j] = X[first + i, j] - mu[j]
            trmm(
                letters[_L:].ctypes,
                letters[_U:].ctypes,
                letters[_T:].ctypes,
                letters[_N:].ctypes,
                ints[0:].ctypes,
                ints[1:].ctypes,
                one.ctypes,
                inverse[k].ctypes,
                ints[2:].ctypes,
                work.ctypes,
                ints[3:].ctypes,
            )
            c = shift[k]
            for i in range(rows):
                # (summed in any order: vectorised, several times faster than in sequence)
                total = 0.0
                for j in range(d):
                    total += work[i, j] * work[i, j]
                out[first + i, k] = -0.5 * total - c
