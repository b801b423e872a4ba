"""The variance ``reg_covar`` is relative to (``var_floor="resolution"``, the default).

scikit-learn's GaussianMixture adds ``reg_covar`` (1e-6) to every variance as an absolute
amount, in the units of the features: in units where a column's variances within a class
are ~1e-12 (a table recorded in mega-units, or multiplied by 1e-6) it swamps the column,
which then hardly counts (wine at scale 1e-6: 5-fold accuracy 0.533 against GaussianNB's
0.966). mclust's default prior is instead set from each class's own data (``priorControl()``,
Fraley & Raftery, "Bayesian regularization for normal mixture estimation and model-based
clustering", 2007; ``MclustDA`` fits each class apart), so its classifier is the same in any
units. Here the ridge added to column j of class c is ``reg_covar · s_cj``, with ``s_cj`` the
column's variance over the class's rows:

* scaling a column by ``a`` scales every variance of it, its ridge and its resolution floor by
  ``a²``: EM's iterations, BIC and the posterior are unchanged (to rounding);
* on a table in ordinary units the ridge stays ~1e-6 of the variances it is added to, where
  the absolute 1e-6 was negligible too; it is the variance only of a component sitting on one
  value, which the resolution floor and the components' support rule already keep out;
* ``s_cj`` is a sum over the class's rows alone, like the class's components: classes fitted
  apart (on other machines, or by :func:`bayeskit.dask.fit` from parts of the data) get the
  same scale, and models of different classes merge into the model fitted on all of them.

A column constant in a class (``s_cj`` 0, or only the rounding of its mean) has no spread there
to be relative to: it takes the column's variance over every class's rows (as the resolution
floor does), and a column constant in every row the absolute ``reg_covar`` (it then has the
same value and variance in every class and weighs on none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..stats import Moments, Statistic
from ..stats.moments import rounding_variance
from ._resolution import check_var_floor


def relative_ridge(holder: Any) -> bool:
    """Whether the ``reg_covar`` of ``holder`` (the estimator, or its mixture family) is
    relative to the columns' variances (``var_floor="resolution"``), not absolute
    (``var_floor=None``, scikit-learn's GaussianMixture)."""
    return check_var_floor(holder.var_floor) is not None


def spread_of(stats: Statistic) -> tuple[np.ndarray, np.ndarray]:
    """(variance, mean) of each row of a :class:`Moments` or scatter statistic, each
    (n_rows, n_features)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if isinstance(stats, Moments):
            return stats.variance, np.asarray(stats.mean, dtype=np.float64)
        scatter: Any = stats  # a Scatter: weight, mean and scatter matrices
        diagonal = np.einsum("kjj->kj", np.asarray(scatter.scatter, dtype=np.float64))
        weight = np.asarray(scatter.weight, dtype=np.float64)[:, None]
        variance = np.divide(
            np.maximum(diagonal, 0.0), weight, out=np.zeros_like(diagonal), where=weight > 0
        )
        return variance, np.asarray(scatter.mean, dtype=np.float64)


def ridge_scales(classes: Sequence[Statistic | None], n_features: int) -> np.ndarray:
    """The variance ``reg_covar`` is relative to in each class and feature, (n_classes,
    n_features), from each class's one-component statistic (None: a class without rows,
    whose row is NaN): the column's variance over the class's rows; where that is 0 (or only
    rounding), its variance over every class's rows; where that is too, 1 (see the module
    docstring)."""
    out = np.full((len(classes), n_features), np.nan)
    present = [c for c, stats in enumerate(classes) if stats is not None]
    if not present:
        return out
    own = [stats for stats in classes if stats is not None]
    variance, mean = (np.vstack(a) for a in zip(*(spread_of(s) for s in own), strict=True))
    everything = own[0]
    for stats in own[1:]:
        everything = everything + stats  # one-row statistics add into the rows' union
    overall, centre = spread_of(everything)
    usable = np.isfinite(variance) & (variance > rounding_variance(mean))
    usable_overall = np.isfinite(overall) & (overall > rounding_variance(centre))
    fallback = np.where(usable_overall, overall, 1.0)
    out[present] = np.where(usable, variance, fallback)
    return out
