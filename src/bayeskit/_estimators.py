"""The estimators a model file may name, listed in one place: every public estimator of the
model packages (each package's ``__all__``) and the single estimators of the mixture and Parzen
modules (whose packages also export engine pieces), and the text classifiers (``DOCUMENTS``,
imported when needed). A package of new models in bayeskit joins ``PACKAGES``; a model of
another package joins by :func:`register_estimator`."""

from __future__ import annotations

from . import bayesnet, discriminant, naive_bayes
from ._base import GenerativeClassifier
from .contract import contract_of, declares
from .errors import InputTypeError, ParameterError
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


def register_estimator(cls: type) -> type:
    """Let model files hold ``cls``, an estimator defined outside bayeskit (a generative
    classifier on the template, declaring its contract); returns ``cls``, so it serves as a
    class decorator.

    A model file names its estimator by class name, and loading one finds the class among
    bayeskit's estimators and those registered here, never by importing anything: the
    package that defines ``cls`` must be imported (which registers it) before its files are
    loaded. Its families and statistics are found the same way, by the names they declare.

    Raises
    ------
    InputTypeError
        ``cls`` is no subclass of :class:`~bayeskit.GenerativeClassifier` declaring a
        contract whose model files hold statistics (``state="generative"``).
    ParameterError
        Its name is one of bayeskit's estimators', or another registered class's.

    Examples
    --------
    In the package that defines it (``mypackage/presence.py``)::

        import bayeskit as bk

        @bk.register_estimator
        class PresenceNB(bk.MultinomialNB):
            "Multinomial naive Bayes over presences (a count above 0 counts once)."

    A name bayeskit's estimators hold is refused:

    >>> import bayeskit as bk
    >>> class GaussianNB(bk.MultinomialNB):
    ...     "Not bayeskit's GaussianNB."
    >>> bk.register_estimator(GaussianNB)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayeskit.errors.ParameterError: a model file names its estimator by class name, and ...
    """
    if not (
        isinstance(cls, type)
        and issubclass(cls, GenerativeClassifier)
        and declares(cls)
        and contract_of(cls).state == "generative"
    ):
        raise InputTypeError(
            "register_estimator takes a subclass of bayeskit.GenerativeClassifier that "
            f"declares a contract (state='generative'); got {cls!r}"
        )
    name = cls.__name__
    held = ESTIMATORS.get(name)
    if held is cls:
        return cls
    if held is not None or name in DOCUMENTS:
        owner = f"{held.__module__}.{held.__qualname__}" if held is not None else "bayeskit.text"
        raise ParameterError(
            f"a model file names its estimator by class name, and {name!r} is taken by "
            f"{owner}; give the class another name"
        )
    ESTIMATORS[name] = cls
    return cls
