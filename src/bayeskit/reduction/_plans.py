"""The rounds that fit each kind of bayeskit estimator from partitions.

Nothing here re-implements a model: every round calls the estimator's own ``summarize`` on a
partition, the statistics add with ``+``, and the estimator's own ``fit_summary`` (or, for the
text models, the same adoption ``partial_fit`` uses) finalizes once on the client.

* :class:`~bayeskit.GenerativeClassifier` (naive Bayes, discriminant analysis) — one round of
  :meth:`summarize`; the partitions must agree on the columns (and MixedNB on the family of
  each column); a fit is refused as ``fit`` refuses it (the template's ``_check_fit``).
* :class:`~bayeskit.text.TextClassifier` / :class:`~bayeskit.text.SpamFilter` with "counts" or
  "binary" output — one round of term-keyed statistics and vocabulary statistics.
  With "tfidf" output or a given vocabulary — two rounds: vocabulary statistics (idf needs the
  document frequencies of the whole corpus), then the counts under the vectorizer they give.
  With "hashed" output — one round of counts.
* :class:`~bayeskit.text.TextVectorizer` — one round of vocabulary statistics ("hashed": none).

An estimator that defines ``_fit_rounds(partial=..., classes=...)`` (a generator of
:class:`~bayeskit.dask.Round`, see :mod:`bayeskit.dask`) is fitted by its own rounds instead:
the hook an iterative (EM) estimator uses to run one reduction per iteration
(GaussianMixtureClassifier, :mod:`bayeskit.mixture._rounds`; SemiSupervisedNB,
:mod:`bayeskit.semi_supervised._rounds`).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from sklearn.base import clone

from .._base import GenerativeClassifier
from .._values import union_sorted, unique_sorted
from ..errors import DataError, InputTypeError, ParameterError
from ..stats import Summary
from ..text import TextClassifier, TextVectorizer
from ._rounds import Part, Round, Rounds, Schema

_FITTED = ("stats_", "_cache", "n_features_in_", "feature_names_in_")


def rounds_for(estimator: Any, *, partial: bool, classes: Any = None, **options: Any) -> Rounds:
    """The rounds that fit (``partial``: add to) ``estimator``; ``options`` (not None) go to
    an iterative estimator's own rounds (``init_sample`` for EM)."""
    options = {key: value for key, value in options.items() if value is not None}
    own = getattr(estimator, "_fit_rounds", None)
    if own is not None:
        rounds: Rounds = own(partial=partial, classes=classes, **options)
        return rounds
    if options:
        raise ParameterError(
            f"{', '.join(options)} only applies to GaussianMixtureClassifier (EM's start), "
            f"not to a {type(estimator).__name__}"
        )
    if isinstance(estimator, TextClassifier):
        vec, _ = estimator._prototypes()  # checks the settings before any work
        if estimator._additive(vec):
            return _text_additive(estimator, partial, classes)
        return _text_fixed(estimator, partial, classes)
    if isinstance(estimator, TextVectorizer):
        return _vectorizer(estimator, partial)
    if isinstance(estimator, GenerativeClassifier):
        return _generative(estimator, partial, classes)
    raise InputTypeError(
        f"bayeskit.dask fits bayeskit estimators (the naive Bayes and discriminant analysis "
        f"models, TextClassifier, SpamFilter, TextVectorizer), not a {type(estimator).__name__}"
    )


# ---------------------------------------------------------------------------- helpers
def _commit(estimator: Any, trial: Any) -> Any:
    """Give ``estimator`` the state of ``trial`` (a shallow copy of it that was fitted), so a
    failure while fitting leaves ``estimator`` as it was."""
    estimator.__dict__.clear()
    estimator.__dict__.update(trial.__dict__)
    return estimator


def _fresh(estimator: Any, fitted: tuple[str, ...]) -> Any:
    """A shallow copy of ``estimator`` without its fitted attributes."""
    trial = copy.copy(estimator)
    for attr in fitted:
        trial.__dict__.pop(attr, None)
    return trial


def _declare(summary: Summary, classes: Any) -> Summary:
    """``summary`` with the declared ``classes`` present (at zero weight when unseen)."""
    if classes is None:
        return summary
    return summary.embed_classes(union_sorted(summary.classes, unique_sorted(np.asarray(classes))))


def schema_of(model: GenerativeClassifier) -> Schema:
    """The column choices ``model``'s last reset made (see :class:`Schema`)."""
    names = getattr(model, "feature_names_in_", None)
    families = getattr(model, "feature_families_", None)
    state = getattr(model, "_state_to_json", None)
    return Schema(
        int(model.n_features_in_),
        None if names is None else tuple(str(n) for n in names),
        None if families is None else tuple((str(k), str(v)) for k, v in families.items()),
        None if state is None else state(),
    )


def _set_schema(model: GenerativeClassifier, schema: Schema) -> None:
    model.n_features_in_ = schema.n_features
    if schema.names is not None:
        model.feature_names_in_ = np.asarray(schema.names, dtype=object)
    if schema.state is not None:
        model._state_from_json(schema.state)


# ---------------------------------------------------------------------------- generative
def _generative(model: GenerativeClassifier, partial: bool, classes: Any) -> Rounds:
    if partial and "stats_" in model.__dict__:
        total = yield Round(_fresh(model, ("stats_", "_cache")), summarize_more)
        trial = copy.copy(model)
        trial.fit_summary(model.stats_ + _declare(total.values[0], classes))
        return _commit(model, trial)
    total = yield Round(clone(model), summarize_new)
    if not total.values[0].class_count.any():  # as fit refuses it
        raise DataError(
            "every sample_weight is zero; at least one row needs a positive weight to learn from"
        )
    trial = _fresh(model, _FITTED)
    assert total.schema is not None
    _set_schema(trial, total.schema)
    trial.fit_summary(_declare(total.values[0], classes))
    trial._check_fit()  # what fit demands (discriminant analysis: two classes, usable matrices)
    return _commit(model, trial)


def summarize_new(template: GenerativeClassifier, X: Any, y: Any, weight: Any) -> Any:
    """A partition's statistics, with the columns read as a first fit reads them."""
    model = copy.copy(template)
    summary = model._summarize(X, y, weight, classes=None, reset=True, part=True)
    return (summary,), schema_of(model)


def summarize_more(template: GenerativeClassifier, X: Any, y: Any, weight: Any) -> Any:
    """A partition's statistics under a fitted model's columns (``partial_fit``)."""
    model = copy.copy(template)
    return (model._summarize(X, y, weight, classes=None, reset=False, part=True),), None


# ---------------------------------------------------------------------------- text
def _documents(X: Any) -> list[Any]:
    return X.tolist() if isinstance(X, np.ndarray) else list(X)


_TEXT_FITTED = ("stats_", "vocabulary_stats_", "vectorizer_", "model_", "_cache")


def _text_additive(clf: TextClassifier, partial: bool, classes: Any) -> Rounds:
    total = yield Round(clf._prototypes(), text_statistics)
    keyed, vocabulary = _declare(total.values[0], classes), total.values[1]
    if partial and "stats_" in clf.__dict__:
        trial = copy.copy(clf)
        keyed, vocabulary = clf.stats_ + keyed, clf.vocabulary_stats_ + vocabulary
    else:
        trial = _fresh(clf, _TEXT_FITTED)
    trial._adopt(keyed, vocabulary)
    return _commit(clf, trial)


def text_statistics(prototypes: Any, X: Any, y: Any, weight: Any) -> Any:
    """A partition's term-keyed statistics and vocabulary statistics."""
    vec, model = prototypes
    return TextClassifier._batch(vec, model, _documents(X), y, weight, None), None


def _text_fixed(clf: TextClassifier, partial: bool, classes: Any) -> Rounds:
    if partial and "vectorizer_" in clf.__dict__:
        state = (clf.vectorizer_, _fresh(clf.model_, ("stats_", "_cache")))
        total = yield Round(state, counts_more)
        model = copy.copy(clf.model_)
        model.fit_summary(clf.model_.stats_ + _declare(total.values[0], classes))
        trial = copy.copy(clf)
        trial.model_ = model
        return _commit(clf, trial)
    vec, prototype = clf._prototypes()
    vectorizer = clone(vec)
    if vectorizer.output == "hashed":
        vectorizer.fit([])  # nothing to learn: the columns are hashes
    else:
        total = yield Round(clone(vec), vocabulary_statistics)
        vectorizer.fit_stats(total.values[0])
    total = yield Round((vectorizer, clone(prototype)), counts_new)
    model = clone(prototype)
    assert total.schema is not None
    _set_schema(model, total.schema)
    model.fit_summary(_declare(total.values[0], classes))
    trial = _fresh(clf, _TEXT_FITTED)
    trial.vectorizer_, trial.model_ = vectorizer, model
    return _commit(clf, trial)


def vocabulary_statistics(vectorizer: TextVectorizer, X: Any, y: Any, weight: Any) -> Any:
    """A partition's vocabulary statistics (document and term frequencies)."""
    return (vectorizer.summarize(_documents(X)),), None


def counts_new(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """A partition's count-model statistics under a fitted vectorizer."""
    vectorizer, template = state
    return summarize_new(template, vectorizer.transform(_documents(X)), y, weight)


def counts_more(state: Any, X: Any, y: Any, weight: Any) -> Any:
    vectorizer, template = state
    return summarize_more(template, vectorizer.transform(_documents(X)), y, weight)


def _vectorizer(vec: TextVectorizer, partial: bool) -> Rounds:
    trial = copy.copy(vec)
    if vec.output == "hashed":
        trial.fit([])  # nothing to learn from the documents
        return _commit(vec, trial)
    total: Part = yield Round(clone(vec), vocabulary_statistics)
    stats = total.values[0]
    if partial and "stats_" in vec.__dict__:
        stats = vec.stats_ + stats
    trial.fit_stats(stats)
    return _commit(vec, trial)
