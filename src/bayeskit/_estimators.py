"""The estimators a model file may name, listed in one place: every public estimator of the
model packages (each package's ``__all__``) and the single estimators of the mixture and Parzen
modules (whose packages also export engine pieces), and the text classifiers (``DOCUMENTS``,
imported when needed). A package of new models joins ``PACKAGES``."""

from __future__ import annotations

from . import bayesnet, discriminant, naive_bayes
from ._base import GenerativeClassifier
from .contract import declares
from .mixture import GaussianMixtureClassifier
from .parzen import ParzenWindowClassifier

#: the packages whose public estimators model files hold
PACKAGES = (naive_bayes, discriminant, bayesnet)
#: estimators of modules whose ``__all__`` lists more than estimators
SINGLE = (GaussianMixtureClassifier, ParzenWindowClassifier)

#: class name -> class, for every estimator of PACKAGES (a class declaring a contract, not a
#: constant such as bayesnet's MAX_CELLS) and SINGLE
ESTIMATORS: dict[str, type[GenerativeClassifier]] = {
    **{
        name: getattr(package, name)
        for package in PACKAGES
        for name in package.__all__
        if isinstance(getattr(package, name), type) and declares(getattr(package, name))
    },
    **{cls.__name__: cls for cls in SINGLE},
}

#: the estimators of raw documents a model file may name (their package, bayeskit.text, is
#: imported only when a file names one of them or one is saved)
DOCUMENTS = ("TextClassifier", "SpamFilter")


def documents_estimators() -> dict[str, type[GenerativeClassifier]]:
    """class name -> class for :data:`DOCUMENTS` (generative classifiers whose one block is
    documents: a vectorizer and a count family)."""
    from . import text

    return {name: getattr(text, name) for name in DOCUMENTS}


def estimator_class(name: object) -> type[GenerativeClassifier] | None:
    """The generative classifier a model file may name ``name`` by, or None."""
    if not isinstance(name, str):
        return None
    found = ESTIMATORS.get(name)
    if found is None and name in DOCUMENTS:
        found = documents_estimators()[name]
    return found
