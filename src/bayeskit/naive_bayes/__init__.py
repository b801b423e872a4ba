"""Naive Bayes estimators, one per file."""

from .bernoulli import BernoulliNB
from .categorical import CategoricalNB
from .complement import ComplementNB
from .mixed import MixedNB
from .multinomial import MultinomialNB

__all__ = ["BernoulliNB", "CategoricalNB", "ComplementNB", "MixedNB", "MultinomialNB"]
