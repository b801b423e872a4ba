"""Learning from labelled and unlabelled rows together: semi-supervised Naive Bayes by EM."""

from .nb import SemiSupervisedNB

__all__ = ["SemiSupervisedNB"]
