"""Bayesian network classifiers beyond naive Bayes for discrete and mixed tables: TAN, AODE
and KDB, learned from class-conditional counts of feature subsets that add.

``__all__`` lists the estimators only (model files may name them); the statistic
(``SubsetCounts``) and its bound (``MAX_CELLS``) are importable from here too."""

from ._counts import MAX_CELLS as MAX_CELLS
from ._counts import SubsetCounts as SubsetCounts
from .aode import AODEClassifier
from .kdb import KDBClassifier
from .tan import TANClassifier

__all__ = ["AODEClassifier", "KDBClassifier", "TANClassifier"]
