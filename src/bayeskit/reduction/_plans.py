"""The rounds that fit each kind of bayeskit estimator from partitions.

Nothing here re-implements a model: every round calls the estimator's own ``summarize`` on a
partition, the statistics add with ``+``, and the estimator's own ``fit_summary`` (or, for the
text models, the same adoption ``partial_fit`` uses) finalizes once on the client.

* :class:`~bayeskit.GenerativeClassifier` (naive Bayes, discriminant analysis) — one round of
  :meth:`summarize`; the partitions must agree on the columns (and MixedNB on the family of
  each column); a fit is refused as ``fit`` refuses it (the template's ``check_fit``).
* :class:`~bayeskit.text.TextClassifier` / :class:`~bayeskit.text.SpamFilter` with "counts" or
  "binary" output — one round of term-keyed statistics and vocabulary statistics.
  With "tfidf" output or a given vocabulary — two rounds: vocabulary statistics (idf needs the
  document frequencies of the whole corpus), then the counts under the vectorizer they give.
  With "hashed" output — one round of counts.
* :class:`~bayeskit.text.TextVectorizer` — one round of vocabulary statistics ("hashed": none).

An estimator that declares ``rounds`` (:mod:`bayeskit.contract`) is fitted by its own rounds
instead (:func:`bayeskit.contract.fit_rounds`, a generator of :class:`~bayeskit.dask.Round`,
see :mod:`bayeskit.dask`): how an iterative (EM) estimator runs one reduction per iteration
(GaussianMixtureClassifier, :mod:`bayeskit.mixture._rounds`; SemiSupervisedNB,
:mod:`bayeskit.semi_supervised._rounds`).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._base import GenerativeClassifier
from .._merging import hold_declared_classes
from .._params import clone, is_classifier
from .._rounds import (
    _FITTED,
    Part,
    Round,
    Rounds,
    Schema,
    _commit,
    _fresh,
    _set_schema,
    schema_of,
)
from .._values import union_sorted, unique_sorted
from ..contract import contract_of, declares, fit_rounds
from ..errors import DataError, InputTypeError, ParameterError
from ..stats import Summary
from ..text import TextClassifier, TextVectorizer
from ..text._documents import document_list


def rounds_for(estimator: Any, *, partial: bool, classes: Any = None, **options: Any) -> Rounds:
    """The rounds that fit (``partial``: add to) ``estimator``; ``options`` (not None) go to
    an iterative estimator's own rounds (``init_sample`` for EM)."""
    options = {key: value for key, value in options.items() if value is not None}
    declared = contract_of(estimator) if declares(estimator) else None
    if declared is not None and declared.rounds is not None:
        rounds: Rounds = fit_rounds(estimator, partial=partial, classes=classes, **options)
        return rounds
    if options:
        raise ParameterError(
            f"{', '.join(options)} only applies to GaussianMixtureClassifier (EM's start), "
            f"not to a {type(estimator).__name__}"
        )
    text = declared is not None and declared.input == "documents"
    if text and is_classifier(estimator):
        # (checks the settings before any work)
        if estimator.keeps_term_statistics():
            return _text_additive(estimator, partial, classes)
        return _text_fixed(estimator, partial, classes)
    if text:
        return _vectorizer(estimator, partial)
    if declared is not None and declared.state == "generative":
        return _generative(estimator, partial, classes)
    raise InputTypeError(
        f"bayeskit.dask fits bayeskit estimators (the naive Bayes and discriminant analysis "
        f"models, TextClassifier, SpamFilter, TextVectorizer), not a {type(estimator).__name__}"
    )


# ---------------------------------------------------------------------------- helpers
def _declare(summary: Summary, classes: Any) -> Summary:
    """``summary`` with the declared ``classes`` present (at zero weight when unseen)."""
    if classes is None:
        return summary
    return summary.embed_classes(union_sorted(summary.classes, unique_sorted(np.asarray(classes))))


def _more(fitted: Summary, batch: Summary) -> Summary:
    """A fitted model's statistics plus a batch's, as ``partial_fit`` adds them: a sum that
    overflows float64 is refused by ``fit_summary`` (naming the weights), not warned of."""
    with np.errstate(over="ignore", invalid="ignore"):
        return fitted + batch


# ---------------------------------------------------------------------------- generative
def _generative(model: GenerativeClassifier, partial: bool, classes: Any) -> Rounds:
    if partial and "stats_" in model.__dict__:
        total = yield Round(_fresh(model, ("stats_", "_cache")), summarize_more)
        trial = copy.copy(model)
        hold_declared_classes(trial, total.values[0].classes, classes, first=False)
        trial.fit_summary(_more(model.statistics(), _declare(total.values[0], classes)))
        return _commit(model, trial)
    total = yield Round(clone(model), summarize_new)
    if not total.values[0].class_count.any():  # as fit refuses it
        raise DataError(
            "every sample_weight is zero; at least one row needs a positive weight to learn from"
        )
    trial = _fresh(model, _FITTED)
    assert total.schema is not None
    _set_schema(trial, total.schema)
    if partial:
        hold_declared_classes(trial, total.values[0].classes, classes, first=True)
    trial.fit_summary(_declare(total.values[0], classes))
    trial.check_fit()  # what fit demands (discriminant analysis: two classes, usable matrices)
    return _commit(model, trial)


def summarize_new(template: GenerativeClassifier, X: Any, y: Any, weight: Any) -> Any:
    """A partition's statistics, with the columns read as a first fit reads them."""
    model = copy.copy(template)  # (no columns read yet: it reads them as a first fit)
    summary = model.summarize(X, y, weight, part=True)
    schema = schema_of(model)
    _refuse_layout_from_rows(model, schema)
    return (summary,), schema


def _refuse_layout_from_rows(model: Any, schema: Schema) -> None:
    """A model whose first fit chooses cut points of numeric columns from the rows (its
    contract's ``layout_from_rows``) cannot be fitted by partitions: each would choose its
    own, and partitions that happen to agree would still not choose what ``fit`` of all the
    rows chooses."""
    if not (declares(model) and contract_of(model).layout_from_rows):
        return
    state = schema.state if isinstance(schema.state, dict) else {}
    numeric = [int(j) for j in state.get("numeric", ())]
    if not numeric:
        return
    names = schema.names
    shown = ", ".join(repr(names[j]) if names is not None else f"column {j}" for j in numeric[:5])
    more = f" and {len(numeric) - 5} more" if len(numeric) > 5 else ""
    raise DataError(
        f"{type(model).__name__} chooses the cut points of its numeric columns ({shown}{more}) "
        "from the rows of its first fit, which a fit by partitions cannot see together: fit a "
        "first batch in memory (or summarize a sample spread over all the rows on the unfitted "
        "model, then fit_summary), then add the rest with bayeskit.dask.partial_fit"
    )


def summarize_more(template: GenerativeClassifier, X: Any, y: Any, weight: Any) -> Any:
    """A partition's statistics under a fitted model's columns (``partial_fit``)."""
    model = copy.copy(template)  # (the fitted model's columns, without its statistics)
    return (model.summarize(X, y, weight, part=True),), None


# ---------------------------------------------------------------------------- text
def _documents(X: Any) -> list[Any]:
    return document_list(X)  # a table of one column: its documents, as fit reads them


_TEXT_FITTED = (
    "stats_",
    "vectorizer_",
    "_cache",
    "_parts_cache",
    "_layout_cache",
    "_declared_classes",
)


def _text_additive(clf: TextClassifier, partial: bool, classes: Any) -> Rounds:
    total = yield Round(clone(clf), text_statistics)
    labels = total.values[0].classes
    summary = _declare(total.values[0], classes)
    if partial and "stats_" in clf.__dict__:
        trial = copy.copy(clf)
        hold_declared_classes(trial, labels, classes, first=False)
        summary = _more(clf.statistics(), summary)
    else:
        trial = _fresh(clf, _TEXT_FITTED)
        if partial:
            hold_declared_classes(trial, labels, classes, first=True)
    trial.fit_summary(summary)
    return _commit(clf, trial)


def text_statistics(template: TextClassifier, X: Any, y: Any, weight: Any) -> Any:
    """A partition's statistics kept per term (the count model's statistic of every term
    and the vocabulary statistics, one documents block)."""
    return (template.summarize(_documents(X), y, weight),), None


def _text_fixed(clf: TextClassifier, partial: bool, classes: Any) -> Rounds:
    if partial and "vectorizer_" in clf.__dict__:
        # the count statistics of the partitions over the columns the model has
        total = yield Round(_fresh(clf, ("stats_", "_cache", "_parts_cache")), text_counts)
        trial = copy.copy(clf)
        hold_declared_classes(trial, total.values[0].classes, classes, first=False)
        trial.fit_summary(_more(clf.statistics(), _declare(total.values[0], classes)))
        return _commit(clf, trial)
    vec, _ = clf.prototypes()
    vectorizer = clone(vec)
    if vectorizer.output == "hashed":
        vectorizer.fit([])  # nothing to learn: the columns are hashes
    else:
        total = yield Round(clone(vec), vocabulary_statistics)
        vectorizer.fit_stats(total.values[0])
    trial = _fresh(clf, _TEXT_FITTED)
    trial.vectorizer_ = vectorizer  # the columns every partition is counted over
    total = yield Round(copy.copy(trial), text_counts)
    if partial:
        hold_declared_classes(trial, total.values[0].classes, classes, first=True)
    trial.fit_summary(_declare(total.values[0], classes))
    return _commit(clf, trial)


def text_counts(template: TextClassifier, X: Any, y: Any, weight: Any) -> Any:
    """A partition's count statistics over the columns of a text model's fitted vectorizer."""
    return (copy.copy(template).summarize(_documents(X), y, weight, part=True),), None


def vocabulary_statistics(vectorizer: TextVectorizer, X: Any, y: Any, weight: Any) -> Any:
    """A partition's vocabulary statistics (document and term frequencies)."""
    return (vectorizer.summarize(_documents(X)),), None


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
