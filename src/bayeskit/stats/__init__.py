"""Sufficient statistics that add: the values every bayeskit model is fitted from.

``fit`` is ``finalize(summarize(data))``; ``partial_fit`` adds a batch's statistics to the
model's; merging two models adds theirs. Statistics are public values: inspect them, save them
with the model, or sum statistics computed on different machines.
"""

from ._base import STATISTIC_KINDS, Statistic
from .category_counts import CategoryCounts
from .counts import Counts
from .moments import Moments
from .sample import Sample
from .scatter import Scatter
from .summary import Summary

__all__ = [
    "STATISTIC_KINDS",
    "CategoryCounts",
    "Counts",
    "Moments",
    "Sample",
    "Scatter",
    "Statistic",
    "Summary",
]
