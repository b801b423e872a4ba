r"""What a model declares: the one contract every bayeskit model kind states about itself.

Every model class carries a :class:`Contract` as the class-level value ``contract``. The
template, the law grid, the model files, the command line, the service, the Dask rounds and
the reports read it (through :func:`contract_of`) instead of telling model kinds apart by
their class or their private members; a capability a model lacks is declared, and asking for
it is refused with a :class:`~bayeskit.errors.CapabilityError` that quotes the declaration.

The declaration
---------------
``incremental``
    ``partial_fit`` adds a batch exactly: fitting the batches one after another gives the
    model ``fit`` gives on all of them (the statistics are sums over rows).
``mergeable``
    ``m(A) + m(B) = m(A ∪ B)`` for any split of the rows (:func:`bayeskit.merge`).
``merges_classes``
    models fitted on different classes add exactly, even where rows of one class do not
    (true wherever ``mergeable`` is).
``unlearnable``
    ``unlearn(A)`` is the inverse of learning ``A``: the model fitted without those rows.
``rounds``
    the procedure a model is fitted by when it is fitted by rounds (``"EM"``): each round a
    sum over parts of the data, run by :func:`bayeskit.dask.fit` and ``bayeskit train``
    (:func:`fit_rounds`); None for a model fitted in one pass.
``served_learnable``
    the model service (``bayeskit serve --learn``) may teach it single documents.
``input``
    the kind of input it reads: ``"table"`` (columns of any types, a data frame or an
    array), ``"matrix"`` (a numeric matrix), ``"documents"`` (texts or e-mails) or
    ``"counts"`` (a matrix of counts of events per row, or of their presence; such a model is
    the count model a text model plugs in); ``"wrapped"`` for a wrapper that
    reads what its ``estimator`` reads (ask the estimator's contract).
``sums_columns``
    for a model that reads counts: the statistic of a column holding the sum of other columns
    is the sum of their statistics (counts of events, not their presence), so a text model
    can count an out-of-vocabulary column from its terms' statistics.
``decision``
    how it decides: ``"classes"`` (the Bayes rule over the classes' probabilities) or
    ``"spam"`` (a calibrated spam probability, two cutoffs and an unsure band).
``state``
    how a model file writes and reads its state: ``"generative"`` (the template's statistic
    blocks, settings, declared classes and fitted record; a model that reads documents, a
    text classifier, has one block of kind ``"documents"``: its vocabulary statistics and
    the count model's statistic of every term, or over a fixed vocabulary's columns),
    ``"text"`` (a vectorizer's vocabulary statistics; text classifiers were written so before
    format version 3, and such files still load) or ``"semi-supervised"`` (the wrapped
    model's statistics and the EM settings).
``prior_in_scores``
    the joint log-likelihood includes ``log P(y)`` (ComplementNB's, after Rennie et al.,
    does not); what a report subtracts to show ``log p(x|y)``.
``feature_terms``
    one decision's log-odds is the prior's plus one term per feature, exactly: a linear
    model's, naive Bayes' (each feature's term reads its own value; a missing value's is 0) and
    a Bayesian network's that offers ``feature_log_factors`` (each feature's term ``ln P(x_i |
    y, x_pa(i))`` also reads its parents' values); what ``bayeskit explain`` splits. False for
    a model whose features interact within a class: AODE's average of one-dependence models,
    a mixture's components, a class's own full covariance, a kernel density over whole rows.
``em_maximizes``
    the model's estimate from soft-weighted statistics is the maximiser of its expected
    complete-data log-likelihood (with its smoothing's prior: a MAP estimate), so an EM over
    it (``SemiSupervisedNB``) is EM proper: each iteration raises the likelihood (Dempster,
    Laird & Rubin 1977). False for AODE, whose counts estimate each one-dependence model but
    do not maximise their average, and KDB, whose structure is chosen greedily: EM over them
    is a heuristic, whose bound may fall (``SemiSupervisedNB`` warns when it does).
``layout_from_rows``
    a first fit chooses part of the column layout (:meth:`layout_state`) from the rows' values
    and classes — a Bayesian network's cut points of its numeric columns — and every later
    batch keeps it. Fitted from batches, that layout is best chosen from a sample spread over
    all of them: ``summarize`` of the sample on the unfitted model fixes it (and counts
    nothing); ``fit_summary`` of the batches' summaries then counts every row under it.
    ``bayeskit train`` of more than one batch reads such a sample first.
``class_table``
    the name of a fitted attribute ``{label: {name: value}}`` describing each class's part of
    the model beyond its prior — a mixture's number of components, covariance type and BIC —
    which ``bayeskit inspect`` shows one row per class; None for a model without one.
``refit_settings``
    the settings its statistics are learned under — a threshold applied to each row, EM's
    components and starts, a text model's tokens — which a fitted model's parameters cannot
    follow without the data (``"name__*"``: every setting of its part ``name``). Changing
    one with ``set_params`` on a fitted model leaves the model waiting for ``fit``: until
    then everything that reads its statistics raises
    :class:`~bayeskit.errors.NotFittedError` naming the setting (setting it back undoes
    that); every other setting takes effect at the next prediction.
``why``
    the reason a capability is missing, quoted in every refusal.

The rules a model holds and a test checks (``tests/test_contract.py`` and the law grid of
``tests/test_common.py``): every estimator of the registry declares a contract; every law a
declaration claims holds; every law it disclaims is refused by name.

Examples
--------
>>> from bayeskit import GaussianMixtureClassifier, MultinomialNB
>>> from bayeskit.contract import contract_of
>>> contract_of(MultinomialNB).mergeable
True
>>> contract_of(GaussianMixtureClassifier()).rounds
'EM'
>>> try:
...     GaussianMixtureClassifier().unlearn
... except AttributeError as refusal:  # also a CapabilityError, quoting the declaration
...     print(str(refusal).replace("declares", "\ndeclares"))  # doctest: +ELLIPSIS
GaussianMixtureClassifier cannot unlearn: it is fitted by rounds (EM) and
declares unlearnable=False (EM is not additive within a class ...)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from .errors import CapabilityError, MissingCapabilityError

__all__ = [
    "CAPABILITIES",
    "Contract",
    "contract_of",
    "declares",
    "fit_rounds",
    "refuse",
    "require",
    "requires",
]

Input = Literal["table", "matrix", "documents", "counts", "wrapped"]
Decision = Literal["classes", "spam"]
State = Literal["generative", "text", "semi-supervised"]

#: the capabilities a model may lack, with the verb a refusal uses
CAPABILITIES: dict[str, str] = {
    "incremental": "learn incrementally (partial_fit)",
    "mergeable": "merge models of parts of its rows",
    "merges_classes": "merge models of different classes",
    "unlearnable": "unlearn",
    "served_learnable": "learn through the model service",
}


@dataclasses.dataclass(frozen=True)
class Contract:
    """What a model declares about itself (see the module docstring for each field).

    Examples
    --------
    >>> Contract(incremental=False, why="it is fitted by rounds (EM)").incremental
    False
    """

    incremental: bool = True
    mergeable: bool = True
    merges_classes: bool = True
    unlearnable: bool = True
    rounds: str | None = None
    served_learnable: bool = False
    input: Input = "table"
    sums_columns: bool = False
    decision: Decision = "classes"
    state: State = "generative"
    prior_in_scores: bool = True
    feature_terms: bool = True
    em_maximizes: bool = True
    layout_from_rows: bool = False
    class_table: str | None = None
    refit_settings: tuple[str, ...] = ()
    why: str = ""

    def needs_refit(self, name: str) -> bool:
        """Whether the setting ``name`` (``part__setting`` for a part's) is one the
        statistics are learned under."""
        head, nested, _ = name.partition("__")
        return name in self.refit_settings or (bool(nested) and f"{head}__*" in self.refit_settings)

    def __post_init__(self) -> None:
        if self.mergeable and not self.merges_classes:
            raise ValueError("a contract that merges any rows merges different classes too")
        if self.input not in ("table", "matrix", "documents", "counts", "wrapped"):
            raise ValueError(f"input={self.input!r} is not a kind of input")
        if self.sums_columns and self.input != "counts":
            raise ValueError("only a model that reads counts sums columns")
        if self.decision not in ("classes", "spam"):
            raise ValueError(f"decision={self.decision!r} is not a decision")
        if self.state not in ("generative", "text", "semi-supervised"):
            raise ValueError(f"state={self.state!r} is not a model-file state")

    def refusal(self, name: str, capability: str, detail: str = "") -> str:
        """The message refusing ``capability`` to a model of class ``name``: the
        declaration, quoted."""
        verb = CAPABILITIES[capability]
        declared = f"declares {capability}={getattr(self, capability)!r}"
        if self.rounds:
            declared = f"is fitted by rounds ({self.rounds}) and {declared}"
        why = f" ({self.why})" if self.why else ""
        return f"{name} cannot {verb}{detail}: it {declared}{why}"


def declares(model: Any) -> bool:
    """Whether ``model`` (an instance or a class) declares a bayeskit contract."""
    cls = model if isinstance(model, type) else type(model)
    return isinstance(getattr(cls, "contract", None), Contract)


def contract_of(model: Any) -> Contract:
    """The contract a model (or model class) declares.

    Raises
    ------
    CapabilityError
        For an object that is no bayeskit model (declares no contract).
    """
    cls = model if isinstance(model, type) else type(model)
    contract = getattr(cls, "contract", None)
    if not isinstance(contract, Contract):
        raise CapabilityError(
            f"a {cls.__module__}.{cls.__qualname__} declares no bayeskit contract: bayeskit "
            "adapters take bayeskit models (bayeskit.contract)"
        )
    return contract


def refuse(model: Any, capability: str, detail: str = "") -> CapabilityError:
    """The named refusal of ``capability`` to ``model``, quoting its declaration (to raise)."""
    name = (model if isinstance(model, type) else type(model)).__name__
    return CapabilityError(contract_of(model).refusal(name, capability, detail))


def require(model: Any, capability: str) -> None:
    """Refuse (:class:`~bayeskit.errors.CapabilityError`) unless ``model`` declares
    ``capability``."""
    if not getattr(contract_of(model), capability):
        raise refuse(model, capability)


F = TypeVar("F", bound=Callable[..., Any])


class requires:  # noqa: N801 - used as a decorator, like ``available_if``
    """A method a model offers only when its declaration grants ``capability``.

    On a model that lacks it, reading the method raises a
    :class:`~bayeskit.errors.MissingCapabilityError` quoting the declaration; that is also an
    ``AttributeError``, so ``hasattr(model, "partial_fit")`` is False, as scikit-learn's tools
    expect of a model that cannot learn incrementally.
    """

    def __init__(self, capability: str) -> None:
        if capability not in CAPABILITIES:
            raise ValueError(f"{capability!r} is not a capability ({', '.join(CAPABILITIES)})")
        self.capability = capability

    def __call__(self, method: F) -> F:
        return _Guarded(method, self.capability)  # type: ignore[return-value]


class _Guarded:
    """The descriptor :class:`requires` makes."""

    def __init__(self, method: Callable[..., Any], capability: str) -> None:
        self.method = method
        self.capability = capability
        self.__doc__ = method.__doc__
        self.__name__ = method.__name__
        self.__wrapped__ = method

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is not None and not getattr(contract_of(obj), self.capability):
            raise MissingCapabilityError(
                contract_of(obj).refusal(type(obj).__name__, self.capability)
            )
        return self.method.__get__(obj, owner)


def fit_rounds(model: Any, *, partial: bool, classes: Any = None, **options: Any) -> Any:
    """The rounds that fit (``partial``: add to) a model declaring ``rounds``: a generator of
    rounds (``bayeskit.dask.Round``, see :mod:`bayeskit.dask`); ``options`` go to the model's
    own rounds (``init_sample`` for EM). None for a model fitted in one pass."""
    if contract_of(model).rounds is None:
        return None
    return model._fit_rounds(partial=partial, classes=classes, **options)
