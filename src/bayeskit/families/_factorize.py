"""Cholesky factors of the multivariate normal family's covariance matrices, their triangular
inverses and log-determinants, and which matrices are singular (see :mod:`.mvnormal`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._blas import function, letters
from ..errors import DataError
from ._covariance import constant
from ._mvnormal_kernels import factor_classes


@dataclass(frozen=True)
class Singular:
    """Why a covariance matrix is singular: ``klass`` is the class index (None: the shared
    matrix), ``column`` a column with no variance there (index into the block, or None), and
    ``smallest`` the smallest eigenvalue of its correlation matrix."""

    klass: int | None
    column: int | None
    smallest: float
    weight: float


def factorize(
    cov: np.ndarray,
    means: np.ndarray,
    weight: np.ndarray,
    empty: np.ndarray,
    *,
    diagonal: bool,
    tol: float,
    shared: bool,
) -> tuple[
    np.ndarray | None, np.ndarray | None, np.ndarray | None, np.ndarray, tuple[Singular, ...]
]:
    """Cholesky factors and their triangular inverses (or variances, for diagonal shapes),
    log-determinants of each matrix, and the matrices that are singular (skipped: empty
    classes).

    Each matrix is factored on the correlation scale, ``D^-½ Σ D^-½ = C Cᵀ`` (so ``L = D^½ C``
    and ``L⁻¹ = C⁻¹ D^-½``), which is also where it is judged: the smallest eigenvalue ``λ`` of
    the correlation matrix is ``1 / ||C⁻¹||_2²``, at least ``1 / ||C⁻¹||_F²`` (and at most
    ``d`` times that), so the factor's inverse settles ``λ > tol²`` for all but matrices
    within a factor ``d`` of the threshold; for those, and for the message of a singular
    matrix, ``λ`` is computed (an eigen-decomposition, ten times a factorisation's work).
    """
    m, d = cov.shape[0], cov.shape[-1]
    var = np.diagonal(cov, axis1=1, axis2=2)
    flat = flat_columns(cov, means, weight, shared)
    klass = [None] * m if shared else list(range(m))
    total = [float(weight.sum())] if shared else weight.tolist()
    singular = [
        Singular(klass[k], int(np.argmax(flat[k])), 0.0, total[k])
        for k in np.flatnonzero(~empty & flat.any(axis=1))
    ]
    regular = np.flatnonzero(~empty & ~flat.any(axis=1))
    log_det = np.zeros(m)
    if diagonal or d == 0:
        log_det[regular] = np.log(var[regular]).sum(axis=1)
        return None, None, var, log_det, tuple(singular)
    cov = np.ascontiguousarray(cov, dtype=np.float64)
    factor = np.zeros_like(cov)
    inverse = np.zeros_like(cov)
    frobenius = np.zeros(len(regular))
    info = np.zeros(len(regular), dtype=np.int32)
    factor_classes(
        function("dpotrf"),
        function("dtrtri"),
        cov,
        regular,
        factor,
        inverse,
        log_det,
        frobenius,
        info,
        letters(),
    )
    good = info == 0
    with np.errstate(over="ignore", divide="ignore"):
        certain = good & (1.0 / frobenius > tol * tol)
    for i in np.flatnonzero(~certain).tolist():
        k = int(regular[i])
        root = np.sqrt(var[k])
        with np.errstate(invalid="ignore", over="ignore"):
            correlation = cov[k] / root[:, None] / root[None, :]
        if not np.isfinite(correlation).all():  # a covariance past float64 (values near 1e154)
            which = "the pooled" if klass[k] is None else f"class {klass[k]!r}'s"
            raise DataError(
                f"{which} covariance matrix is beyond float64's range (values near 1e150 "
                "square past it in the covariance or its shrinkage): rescale the columns "
                "(standardize them, or change their unit) before fitting"
            )
        low = float(np.linalg.eigvalsh(correlation)[0])
        if not good[i] or low <= tol * tol:
            singular.append(Singular(klass[k], None, low, total[k]))
            factor[k] = 0.0
            inverse[k] = 0.0
            log_det[k] = 0.0
    singular.sort(key=lambda s: -1 if s.klass is None else s.klass)
    return factor, inverse, None, log_det, tuple(singular)


def flat_columns(
    cov: np.ndarray, means: np.ndarray, weight: np.ndarray, shared: bool
) -> np.ndarray:
    """Which variances of each matrix are 0 within rounding (a column constant in a class, or
    in every class for a shared matrix), (K or 1, d)."""
    var = np.diagonal(cov, axis1=1, axis2=2)
    size = np.abs(means).max(axis=0) if shared else np.abs(means)
    n = weight.sum() if shared else weight[:, None]
    return np.asarray(constant(var, size, n))
