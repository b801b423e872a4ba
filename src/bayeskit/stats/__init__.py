"""Sufficient statistics that add: the values every bayeskit model is fitted from.

``fit`` is ``finalize(summarize(data))``; ``partial_fit`` adds a batch's statistics to the
model's; merging two models adds theirs. Statistics are public values: inspect them, save them
with the model, or sum statistics computed on different machines.
"""

from ._base import STATISTIC_KINDS, ColumnStatistic, Statistic
from .category_counts import CategoryCounts
from .counts import Counts
from .mixture import MixtureStats
from .moments import Moments
from .sample import Sample
from .scatter import Scatter
from .sparse_counts import SparseCounts
from .summary import Summary
from .term_keyed import TermKeyed

__all__ = [
    "STATISTIC_KINDS",
    "CategoryCounts",
    "ColumnStatistic",
    "Counts",
    "MixtureStats",
    "Moments",
    "Sample",
    "Scatter",
    "SparseCounts",
    "Statistic",
    "Summary",
    "TermKeyed",
]
