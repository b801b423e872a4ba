"""Discriminant analysis on the same template as the naive Bayes models: a multivariate normal
block (per-class, pooled or Friedman-regularised covariance), one estimator per file."""

from .lda import LinearDiscriminantAnalysis
from .qda import QuadraticDiscriminantAnalysis
from .rda import RegularizedDiscriminantAnalysis

__all__ = [
    "LinearDiscriminantAnalysis",
    "QuadraticDiscriminantAnalysis",
    "RegularizedDiscriminantAnalysis",
]
