"""Merging fitted models (:func:`bayeskit.merge`): their statistics add only when they are of
one class with the same settings, features and column layout, and their contract allows it;
and ``partial_fit``'s rule for declared classes, which decides what a batch may add."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import numpy as np

from ._labels import declared_classes, refuse_unknown
from .contract import contract_of, declares, refuse
from .errors import MergeError
from .stats import Summary


class Learner(Protocol):
    """What merging and the declared-classes rule ask of a model: its statistics, a model set
    from statistics, and whether its classes were declared (the generative template's public
    protocol, :class:`bayeskit.GenerativeClassifier`)."""

    @property
    def classes_(self) -> np.ndarray: ...

    def statistics(self) -> Summary: ...

    def fit_summary(self, summary: Summary) -> Any: ...

    def classes_declared(self) -> bool: ...

    def set_classes_declared(self, declared: bool) -> None: ...

    def take_merged(self, models: Sequence[Any]) -> None: ...


M = TypeVar("M", bound=Learner)


class Adds:
    """``a + b`` is :func:`merge` ``(a, b)`` for any two models that declare a contract (the
    merge refuses, by name, what does not merge: other kinds, other settings, a model whose
    contract says it does not merge), and ``sum(models)`` starts from 0."""

    def __add__(self, other: object) -> Any:
        if not declares(other):
            return NotImplemented
        models: tuple[Any, ...] = (self, other)
        return merge(*models)

    def __radd__(self, other: object) -> Any:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


def check_mergeable(a: Any, b: Any) -> None:
    """Refuse (:class:`~bayeskit.errors.MergeError`) to merge fitted models ``a`` and ``b``
    whose statistics do not add."""
    if type(a) is not type(b):
        raise MergeError(f"cannot merge a {type(a).__name__} with a {type(b).__name__}")
    declared = a.contract
    if not declared.mergeable:
        shared = np.intersect1d(a.classes_, b.classes_)
        if not declared.merges_classes or len(shared):
            detail = f" (both have rows of class {shared.tolist()[0]!r})" if len(shared) else ""
            raise refuse(a, "mergeable", detail)
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    differ = [k for k in pa if not same_setting(pa[k], pb.get(k))]
    if differ:
        raise MergeError(
            "cannot merge models with different settings: "
            + ", ".join(f"{k}={pa[k]!r} vs {pb[k]!r}" for k in differ)
        )
    for attr in ("n_features_in_",):
        if getattr(a, attr, None) != getattr(b, attr, None):
            raise MergeError(
                f"cannot merge models fitted on {getattr(a, attr, None)} and "
                f"{getattr(b, attr, None)} features"
            )
    la, lb = a.layout_state(), b.layout_state()
    if la != lb:
        fa, fb = getattr(a, "feature_families_", None), getattr(b, "feature_families_", None)
        if fa is not None and fb is not None and fa != fb:
            raise MergeError(
                "cannot merge models that chose different families for their columns "
                f"({fa} vs {fb})"
            )
        # another fitted layout (a network classifier's cut points of its numeric columns, the
        # pseudo-count a file written by an older version was fitted with): the model names
        # what differs, in a line
        raise MergeError(
            "cannot merge models whose fits chose different column layouts (their first "
            f"fits' data differ, or one was fitted by an older version): "
            f"{a.layout_difference(b)}"
        )
    na, nb = getattr(a, "feature_names_in_", None), getattr(b, "feature_names_in_", None)
    if (na is None) != (nb is None):
        named, kind = ("the first", "the second") if na is not None else ("the second", "the first")
        raise MergeError(
            f"cannot merge models fitted on differently named features: {named} was fitted "
            f"on named columns (a DataFrame), {kind} on unnamed ones (an array)"
        )
    if na is not None and nb is not None and list(na) != list(nb):
        # (the counts of features agree: compared above)
        j = next((i for i, (x, y) in enumerate(zip(na, nb, strict=False)) if x != y), 0)
        raise MergeError(
            f"cannot merge models fitted on differently named features: column {j} is "
            f"{str(na[j])!r} in the first and {str(nb[j])!r} in the second (merge models "
            "fitted on the same columns, in the same order)"
        )


def layout_difference(a: Any, b: Any) -> str:
    """What differs between two column layouts (``layout_state``), each value shortened: a
    layout may hold a list per column, and a refusal is one line."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        return "; ".join(f"{k}: {shortened(a.get(k))} vs {shortened(b.get(k))}" for k in keys)
    return f"{shortened(a)} vs {shortened(b)}"


def shortened(value: Any, most: int = 60) -> str:
    """``repr(value)`` in at most about ``most`` characters (its start, then ``…``)."""
    text = repr(value)
    return text if len(text) <= most else text[: most - 1] + "…"


def _is_estimator(x: Any) -> bool:
    """An estimator (scikit-learn's API: parameters), not an estimator class."""
    return hasattr(x, "get_params") and not isinstance(x, type)


def same_setting(x: Any, y: Any) -> bool:
    if _is_estimator(x) or _is_estimator(y):
        # An estimator given as a setting (a covariance estimator): the same by its settings.
        if type(x) is not type(y):
            return False
        px, py = x.get_params(deep=False), y.get_params(deep=False)
        return px.keys() == py.keys() and all(same_setting(px[k], py[k]) for k in px)
    if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
        return bool(np.array_equal(np.asarray(x), np.asarray(y)))
    seq_x = isinstance(x, Sequence) and not isinstance(x, str)
    seq_y = isinstance(y, Sequence) and not isinstance(y, str)
    if seq_x or seq_y:
        # a list against a number (alpha=[0.5, 0.5] against alpha=0.1) differs; two lists
        # are the same item by item
        return (
            seq_x
            and seq_y
            and len(x) == len(y)
            and all(same_setting(a, b) for a, b in zip(x, y, strict=True))
        )
    return bool(x == y)


def hold_declared_classes(model: Learner, labels: np.ndarray, classes: Any, *, first: bool) -> None:
    """``partial_fit``'s rule for declared classes (scikit-learn's), given a batch's distinct
    ``labels`` before they join the model (``first``: the model has no statistics yet):
    with ``classes`` every label is one of them and the model remembers that its classes
    were declared; without, a label outside the model's classes is refused if they were
    declared (since the last ``fit``), else it becomes a new class. The rule of the
    in-memory ``partial_fit`` and of :func:`bayeskit.dask.partial_fit`."""
    if classes is not None:
        declared = declared_classes(classes)
        if not first:
            # a declaration that leaves out a class the model has would not hold for its own
            # statistics (scikit-learn refuses any change; declaring more stays possible)
            refuse_unknown(
                np.asarray(model.classes_),
                declared,
                "classes",
                what="the model already has",
                fix="declare every class of the model's classes_ and any new ones",
            )
        refuse_unknown(labels, declared, "classes")
        model.set_classes_declared(True)
    elif not first and model.classes_declared():
        refuse_unknown(labels, model.classes_, "the classes declared")


def merged_declaration(models: Sequence[Any]) -> bool:
    """Whether the model merged of ``models`` has declared classes, refusing
    (:class:`~bayeskit.errors.UnknownClassError`) models whose classes a declaration of
    another leaves out.

    Merging learns each model's rows into the others, as ``partial_fit`` would, whichever
    comes first: a model's declared classes (``partial_fit(classes=...)``) must hold every
    class of every other model, so two models that both declare classes merge only when they
    declare the same ones (scikit-learn's ``partial_fit`` refuses any change of its classes);
    the merged model's classes are declared when any model's are. The rule is commutative
    and associative: a merge is refused in whatever order its models are added."""
    declared = [m for m in models if m.classes_declared()]
    if not declared:
        return False
    held = np.asarray(declared[0].classes_)
    fix = (
        "a model's declared classes (partial_fit's classes) must hold every class of the "
        "models it is merged with, as a later partial_fit's must hold the model's: declare the "
        "same classes in each"
    )
    where = "the classes another model merged declares"
    for model in models:
        classes = np.asarray(model.classes_)
        refuse_unknown(classes, held, where, what="a model merged has", fix=fix)
        if model.classes_declared():
            refuse_unknown(held, classes, where, what="a model merged declares", fix=fix)
    return True


def merge(*models: M) -> M:
    """The model fitted on the union of the models' training data.

    All models must be of the same class with the same hyperparameters and features; their
    statistics add exactly, so ``merge(fit(A), fit(B))`` equals ``fit(A ∪ B)``, and ``a + b``
    is this merge. A model given twice is refused (the union of a model's rows with
    themselves is the model itself; to weigh rows twice, fit with ``sample_weight``), and so
    are models whose declared classes (``partial_fit(classes=...)``) do not hold each other's
    classes (``merged_declaration``). What a model keeps besides its statistics is merged
    by the model (:meth:`~bayeskit.GenerativeClassifier.take_merged`: a spam filter's
    held-out score counts add).

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import MultinomialNB, merge
    >>> X = np.array([[2, 0], [0, 3], [1, 1], [0, 2]])
    >>> y = np.array(["a", "b", "a", "b"])
    >>> whole = MultinomialNB().fit(X, y)
    >>> parts = merge(MultinomialNB().fit(X[:2], y[:2]), MultinomialNB().fit(X[2:], y[2:]))
    >>> np.allclose(whole.predict_proba(X), parts.predict_proba(X))
    True
    """
    if not models:
        raise MergeError("merge needs at least one model")
    for model in models:
        # the template's statistics (a text model's per term or over its columns), or none:
        # then it says why
        if contract_of(model).state != "generative":
            raise refuse(model, "mergeable")
        model.statistics()  # NotFittedError names the unfitted one
    first = models[0]
    for other in models[1:]:
        check_mergeable(first, other)
    # (after the kind's own refusals: a model that merges nothing says so first)
    if len({id(model) for model in models}) < len(models):
        raise MergeError(
            f"cannot merge a {type(first).__name__} with itself: the union of a model's rows "
            "with themselves is the model itself, and adding its statistics twice would count "
            "every row twice (to weigh rows twice, fit with sample_weight)"
        )
    with np.errstate(over="ignore", invalid="ignore"):  # checked by _adopt
        summary = sum((m.statistics() for m in models[1:]), models[0].statistics())
    declared = merged_declaration(models)
    out = copy.copy(first)
    out.__dict__ = {k: v for k, v in first.__dict__.items() if k != "_cache"}
    out.fit_summary(summary)
    out.set_classes_declared(declared)
    out.take_merged(models)
    return out
