"""Naive Bayes estimators, one per file."""

from .bernoulli import BernoulliNB
from .binomial import BinomialNB
from .categorical import CategoricalNB
from .complement import ComplementNB
from .discretized import DiscretizedNB
from .gaussian import GaussianNB
from .kernel import KernelNB
from .mixed import MixedNB
from .multinomial import MultinomialNB
from .poisson import PoissonNB

__all__ = [
    "BernoulliNB",
    "BinomialNB",
    "CategoricalNB",
    "ComplementNB",
    "DiscretizedNB",
    "GaussianNB",
    "KernelNB",
    "MixedNB",
    "MultinomialNB",
    "PoissonNB",
]
