"""bayeskit: Bayesian (generative) classification.

Every Naive Bayes event model and discriminant analysis (QDA, LDA, RDA) on one template
(``argmax_y λ_y P(y) p(x|y)`` in log space), sufficient statistics that add (so ``partial_fit``,
merging and distributed training are exact), and model files that never run code when loaded.

The public names load on first use (``bayeskit.MultinomialNB`` imports the estimators then), so
``import bayeskit`` costs next to nothing and ``bayeskit --version`` starts at once. A new public
name is one line in ``_LAZY`` (name → module) and one in the ``TYPE_CHECKING`` block below, which
type checkers and IDEs read; a test keeps the two in step.
"""

#: ``typing.TYPE_CHECKING`` (which type checkers read as true) without importing typing: a
#: mail filter that asks a running service (``bayeskit filter --server``) starts in a few
#: hundredths of a second, and typing is a tenth of that.
TYPE_CHECKING = False

_LAZY: dict[str, str] = {
    "GenerativeClassifier": "._base",
    "merge": "._merging",
    "load": ".io.model_file",
    "save": ".io.model_file",
    "register_estimator": "._estimators",
    "BernoulliNB": ".naive_bayes",
    "BinomialNB": ".naive_bayes",
    "CategoricalNB": ".naive_bayes",
    "ComplementNB": ".naive_bayes",
    "DiscretizedNB": ".naive_bayes",
    "GaussianNB": ".naive_bayes",
    "KernelNB": ".naive_bayes",
    "MixedNB": ".naive_bayes",
    "MultinomialNB": ".naive_bayes",
    "PoissonNB": ".naive_bayes",
    "LinearDiscriminantAnalysis": ".discriminant",
    "QuadraticDiscriminantAnalysis": ".discriminant",
    "RegularizedDiscriminantAnalysis": ".discriminant",
    "GaussianMixtureClassifier": ".mixture",
    "ParzenWindowClassifier": ".parzen",
    "SemiSupervisedNB": ".semi_supervised",
    "AODEClassifier": ".bayesnet",
    "KDBClassifier": ".bayesnet",
    "TANClassifier": ".bayesnet",
}

if TYPE_CHECKING:  # what type checkers and IDEs see (``X as X``: a re-export)
    from ._base import GenerativeClassifier as GenerativeClassifier
    from ._estimators import register_estimator as register_estimator
    from ._merging import merge as merge
    from .bayesnet import AODEClassifier as AODEClassifier
    from .bayesnet import KDBClassifier as KDBClassifier
    from .bayesnet import TANClassifier as TANClassifier
    from .discriminant import LinearDiscriminantAnalysis as LinearDiscriminantAnalysis
    from .discriminant import QuadraticDiscriminantAnalysis as QuadraticDiscriminantAnalysis
    from .discriminant import RegularizedDiscriminantAnalysis as RegularizedDiscriminantAnalysis
    from .io.model_file import load as load
    from .io.model_file import save as save
    from .mixture import GaussianMixtureClassifier as GaussianMixtureClassifier
    from .naive_bayes import BernoulliNB as BernoulliNB
    from .naive_bayes import BinomialNB as BinomialNB
    from .naive_bayes import CategoricalNB as CategoricalNB
    from .naive_bayes import ComplementNB as ComplementNB
    from .naive_bayes import DiscretizedNB as DiscretizedNB
    from .naive_bayes import GaussianNB as GaussianNB
    from .naive_bayes import KernelNB as KernelNB
    from .naive_bayes import MixedNB as MixedNB
    from .naive_bayes import MultinomialNB as MultinomialNB
    from .naive_bayes import PoissonNB as PoissonNB
    from .parzen import ParzenWindowClassifier as ParzenWindowClassifier
    from .semi_supervised import SemiSupervisedNB as SemiSupervisedNB

__all__ = ["__version__", *sorted(_LAZY)]

if TYPE_CHECKING:
    from typing import Any

    from ._version import __version__ as __version__

# No ``from __future__ import annotations`` here, and neither ``types`` nor ``._version``
# imported up front: ``bayeskit filter --server`` (a mail filter asking a running service)
# imports this package and little else, and those three imports were a quarter of what the
# package added to a bare Python start (callgrind: 2.7 M of Python's 40 M instructions).


def __getattr__(name: str) -> "Any":
    """Load a public name (or a subpackage, ``bayeskit.text``) on first use."""
    if name == "__version__":
        from ._version import __version__ as version

        globals()[name] = version
        return version
    import importlib.util

    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module, __name__), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from types import ModuleType

    loaded = [n for n, v in globals().items() if isinstance(v, ModuleType) and n[0] != "_"]
    return sorted({*__all__, *loaded} - {"importlib"})
