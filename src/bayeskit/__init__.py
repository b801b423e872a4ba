"""bayeskit: Bayesian (generative) classification.

Every Naive Bayes event model and discriminant analysis (QDA, LDA, RDA) on one template
(``argmax_y λ_y P(y) p(x|y)`` in log space), sufficient statistics that add (so ``partial_fit``,
merging and distributed training are exact), and model files that never run code when loaded.
"""

from ._base import GenerativeClassifier, merge
from ._version import __version__
from .discriminant import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
    RegularizedDiscriminantAnalysis,
)
from .io.model_file import load, save
from .mixture import GaussianMixtureClassifier
from .naive_bayes import (
    BernoulliNB,
    BinomialNB,
    CategoricalNB,
    ComplementNB,
    DiscretizedNB,
    GaussianNB,
    KernelNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
)
from .parzen import ParzenWindowClassifier
from .semi_supervised import SemiSupervisedNB

__all__ = [
    "BernoulliNB",
    "BinomialNB",
    "CategoricalNB",
    "ComplementNB",
    "DiscretizedNB",
    "GaussianMixtureClassifier",
    "GaussianNB",
    "GenerativeClassifier",
    "KernelNB",
    "LinearDiscriminantAnalysis",
    "MixedNB",
    "MultinomialNB",
    "ParzenWindowClassifier",
    "PoissonNB",
    "QuadraticDiscriminantAnalysis",
    "RegularizedDiscriminantAnalysis",
    "SemiSupervisedNB",
    "__version__",
    "load",
    "merge",
    "save",
]
