"""Bayesian network classifiers beyond naive Bayes for discrete and mixed tables: TAN, AODE
and KDB, learned from class-conditional counts of feature subsets that add."""

from ._counts import MAX_CELLS, SubsetCounts
from .aode import AODEClassifier
from .kdb import KDBClassifier
from .tan import TANClassifier

__all__ = ["MAX_CELLS", "AODEClassifier", "KDBClassifier", "SubsetCounts", "TANClassifier"]
