"""Running a fit's rounds on dask: map over the partitions, add in a tree, send the total back."""

from __future__ import annotations

import copy
import uuid
import warnings
from typing import Any

import numpy as np

from .._all_or_nothing import unchanged_on_error
from .._params import is_classifier, refuse_while_waiting
from .._rounds import _commit
from ..contract import contract_of, declares
from ..errors import DataError, InputTypeError, ParameterError
from ..reduction import Part, Round, Rounds, add_parts, rounds_for
from ._cluster import cluster_failure
from ._partitions import Checks, MisalignedError, Partitions, n_rows, split

#: How many parts one task of the tree reduction adds (dask's own default for reductions).
SPLIT_EVERY = 8


def fit(
    estimator: Any,
    X: Any,
    y: Any = None,
    sample_weight: Any = None,
    *,
    split_every: int = SPLIT_EVERY,
    init_sample: int | None = None,
) -> Any:
    """Fit ``estimator`` on dask collections: the model its own ``fit`` gives on the same rows.

    Each partition is summarized where it lives (the estimator's ``summarize``), the
    statistics are added in a tree, and the model is finalized once, here on the client. Runs
    on the current dask scheduler: a ``distributed.Client`` if one is active, else dask's
    local threads.

    Parameters
    ----------
    estimator : a bayeskit estimator (naive Bayes model, TextClassifier, SpamFilter,
        TextVectorizer, GaussianMixtureClassifier, SemiSupervisedNB); fitted in place and
        returned.
    X : dask.array (rows × features, or 1-D documents), dask.dataframe DataFrame (or Series
        of documents), or dask.bag of documents — or of ``(document, label)`` pairs when y is
        None.
    y : labels partitioned like X (dask array, Series or bag), partitioned otherwise (re-split
        by position; with X's partition count but other lengths dask does not know, re-split
        when a partition shows it), in memory (split like X), or the name of a column of a
        DataFrame X.
    sample_weight : like y (a column of a DataFrame X too: left out of the features); optional.
    split_every : how many parts each task of the tree reduction adds.
    init_sample : EM estimators (GaussianMixtureClassifier) only: the most rows per class
        brought here to draw EM's start from (default 20000). A class with no more rows
        starts exactly as the in-memory ``fit`` starts; a larger one from a uniform sample
        of its rows (the same whatever the partitioning).

    Returns
    -------
    estimator

    Raises
    ------
    ClusterError
        The cluster failed (the workers that ran a partition's task died, none was left, the
        scheduler went away); the message names the partition when it can. The estimator is
        left as it was, as by any refused fit.

    Notes
    -----
    A GaussianMixtureClassifier is fitted by one reduction per EM iteration (plus one for the
    start, and one for the BIC of each candidate with ``n_components="bic"``): the current
    mixtures go to the workers once per round, each partition returns the statistics of its
    rows under the responsibilities and their log-likelihood, and EM's M-step and convergence
    test run here. A SemiSupervisedNB (over a generative classifier, or a TextClassifier on a
    bag of documents) runs the same way. Every round reads X again: ``X.persist()`` first
    keeps it in the workers' memory between rounds.

    A SpamFilter (``calibration_folds`` set) gets its probability scale from one more
    reduction: the fitted filter goes to the workers, each partition returns the counts of
    its messages' held-out scores (:meth:`~bayeskit.text.SpamFilter.held_out_score_counts`:
    each fold of the partition scored by the filter's statistics minus the fold's), and the
    scale is fitted here on their sum. On one partition the counts are ``fit``'s own for count
    weightings (close, under unit-length weighting); a filter whose vectorizer keeps no
    additive statistics (idf) keeps the model's own probabilities, with a warning.
    """
    _check_split_every(split_every)
    with unchanged_on_error(estimator):  # (memos made while reading its settings included)
        if not _is_spam_filter(estimator):
            rounds = rounds_for(estimator, partial=False, init_sample=init_sample)
            return _run(rounds, _split(estimator, X, y, sample_weight), split_every)
        # A filter is fitted, then calibrated by one more reduction: both on a copy, which
        # the estimator takes when both are done (a calibration that fails leaves it as it
        # was).
        trial = copy.copy(estimator)
        rounds = rounds_for(trial, partial=False, init_sample=init_sample)
        parts = _split(trial, X, y, sample_weight)
        return _commit(
            estimator, _first_filter(_run(rounds, parts, split_every), parts, split_every)
        )


def partial_fit(
    estimator: Any,
    X: Any,
    y: Any = None,
    sample_weight: Any = None,
    *,
    classes: Any = None,
    split_every: int = SPLIT_EVERY,
) -> Any:
    """Add the rows of dask collections to ``estimator`` (fitted or not): the model its own
    ``partial_fit`` gives. ``classes`` declares classes up front, as in ``partial_fit``: a
    label outside the declared classes is refused (:class:`~bayeskit.errors.UnknownClassError`)
    and the estimator is left as it was.

    A calibrated SpamFilter refits its probability scale, as its ``partial_fit`` does: one
    more reduction, before the filter learns the rows, sends the filter to the workers and
    each partition returns the counts of its messages' scores by the filter as it was
    (:meth:`~bayeskit.text.SpamFilter.new_score_counts`); the scale is refitted here on the
    filter's counts plus their sum. A first call (an unfitted filter) calibrates as
    :func:`fit` does.
    """
    _check_split_every(split_every)
    refuse_while_waiting(estimator)  # before any partition is read, as partial_fit refuses
    with unchanged_on_error(estimator):  # (memos made while reading its settings included)
        if not _is_spam_filter(estimator):
            rounds = rounds_for(estimator, partial=True, classes=classes)
            return _run(rounds, _split(estimator, X, y, sample_weight), split_every)
        trial = copy.copy(estimator)
        parts = _split(trial, X, y, sample_weight)
        if not estimator.__sklearn_is_fitted__():  # a first partial_fit calibrates as fit
            rounds = rounds_for(trial, partial=True, classes=classes)
            return _commit(
                estimator, _first_filter(_run(rounds, parts, split_every), parts, split_every)
            )
        # the messages' scores by the filter as it is, before it learns them
        added = _new_score_counts(estimator, parts, split_every)
        fitted = _run(rounds_for(trial, partial=True, classes=classes), parts, split_every)
        fitted.set_score_counts(estimator.score_counts() + added)
        return _commit(estimator, fitted)


def _check_split_every(split_every: Any) -> None:
    if (
        isinstance(split_every, bool)
        or not isinstance(split_every, (int, np.integer))
        or split_every < 2
    ):
        raise ParameterError(
            f"split_every must be an int >= 2 (how many parts one task of the tree reduction "
            f"adds); got {split_every!r}"
        )


def _is_spam_filter(estimator: Any) -> bool:
    return declares(estimator) and contract_of(estimator).decision == "spam"


def _calibrated(fitted: Any) -> bool:
    """Whether ``fitted`` is a SpamFilter whose scale the calibration reduction fits."""
    if not _is_spam_filter(fitted) or fitted.check_params().calibration_folds is None:
        return False
    if not fitted.keeps_term_statistics():
        warnings.warn(
            "a SpamFilter with idf weighting keeps no statistics that add, so its held-out "
            "scores cannot be counted on the cluster: it keeps the model's own probabilities "
            "(fit it in memory, or choose an output without idf, for a calibrated scale)",
            UserWarning,
            stacklevel=3,
        )
        return False
    return True


def _first_filter(fitted: Any, parts: Partitions, split_every: int) -> Any:
    """A filter fitted by its first rounds, with its scale: fitted on the held-out score
    counts of every partition, or the model's own probabilities."""
    if _calibrated(fitted):
        fitted.calibrate(_score_counts(fitted, parts, split_every, held_out_partition))
    else:  # no held-out scores: the model's own probabilities
        from ..text import calibration

        fitted.set_score_counts(calibration.empty_counts())
    return fitted


def _new_score_counts(spam_filter: Any, parts: Partitions, split_every: int) -> Any:
    """The counts of the partitions' scores by the fitted ``spam_filter`` as it is (none
    without calibration: its ``partial_fit`` keeps none then)."""
    if spam_filter.check_params().calibration_folds is None:
        from ..text import calibration

        return calibration.empty_counts()
    return _score_counts(spam_filter, parts, split_every, new_scores_partition)


def _score_counts(spam_filter: Any, parts: Partitions, split_every: int, count: Any) -> Any:
    """The sum over the partitions of ``count(spam_filter, ...)``'s score counts (the
    filter sent to the workers once)."""
    import dask

    model = dask.delayed(spam_filter, name=f"bayeskit-filter-{uuid.uuid4().hex}", traverse=False)
    task = dask.delayed(count, pure=False)
    level = [
        task(model, parts.checks, index, X, None if parts.y is None else parts.y[index])
        for index, X in enumerate(parts.X)
    ]
    return _compute(_tree(level, _add_counts, split_every), parts, level)


def held_out_partition(spam_filter: Any, checks: Checks, index: int, X: Any, y: Any) -> Any:
    """One partition's held-out score counts (none for an empty partition)."""
    return _partition_counts(spam_filter.held_out_score_counts, checks, index, X, y)


def new_scores_partition(spam_filter: Any, checks: Checks, index: int, X: Any, y: Any) -> Any:
    """The counts of one partition's scores by the filter, which has not learned them
    (what its ``partial_fit`` adds to its score counts; none for an empty partition)."""
    return _partition_counts(spam_filter.new_score_counts, checks, index, X, y)


def _partition_counts(counts: Any, checks: Checks, index: int, X: Any, y: Any) -> Any:
    from ..text import calibration

    X, y, _ = checks.apply(index, X, y, None)
    if n_rows(X) == 0:
        return calibration.empty_counts()
    try:
        return counts(X, np.asarray(y))
    except (DataError, InputTypeError) as refused:
        raise checks.located(index, refused, X) from None


def _add_counts(*counts: Any) -> Any:
    return sum(counts[1:], counts[0])


def _split(estimator: Any, X: Any, y: Any, sample_weight: Any) -> Partitions:
    return split(X, y, sample_weight, labelled=is_classifier(estimator))


def _run(rounds: Rounds, parts: Partitions, split_every: int) -> Any:
    try:
        step = next(rounds)
        while True:
            try:
                level = _summaries(step, parts)
                total = _compute(_tree(level, add_parts, split_every), parts, level)
            except MisalignedError:
                if not parts.realign():
                    raise
                continue  # the same round, y and the weights re-split like X
            if total is None:
                raise DataError("X has no rows: every partition is empty")
            step = rounds.send(total)
    except StopIteration as done:
        return done.value


def _compute(total: Any, parts: Partitions, level: list[Any]) -> Any:
    """The value of the delayed ``total``; a failure of the cluster as a ClusterError naming
    the partition whose task (``level``: one per partition) or data it lost."""
    import dask

    tasks = {task.key: index for index, task in enumerate(level)}

    def where(key: Any) -> str | None:
        if key in tasks:
            return f"partition {tasks[key]} of X"
        if isinstance(key, str) and key.startswith(f"{add_parts.__name__}-"):
            # (a task of _tree's: lost with a worker that held it beside a partition's)
            return "the task adding up the partitions' summaries"
        return parts.where(key)

    try:
        return dask.compute(total)[0]
    except Exception as exc:
        failure = cluster_failure(exc, where, "the estimator is as it was")
        if failure is None:
            raise
        raise failure from exc


def _reduction(step: Round, parts: Partitions, split_every: int) -> Any:
    """The dask graph of one round: its state broadcast once, each partition summarized, the
    parts added ``split_every`` at a time."""
    return _tree(_summaries(step, parts), add_parts, split_every)


def _summaries(step: Round, parts: Partitions) -> list[Any]:
    """The delayed summary of each partition in one round (its state sent once)."""
    import dask

    state = dask.delayed(step.state, name=f"bayeskit-state-{uuid.uuid4().hex}", traverse=False)
    task = dask.delayed(summarize_partition, pure=False)
    return [
        task(
            step.summarize,
            state,
            parts.checks,
            index,
            X,
            None if parts.y is None else parts.y[index],
            None if parts.weight is None else parts.weight[index],
        )
        for index, X in enumerate(parts.X)
    ]


def _tree(level: list[Any], add: Any, split_every: int) -> Any:
    """The delayed sum of ``level``, added ``split_every`` at a time by ``add``."""
    import dask

    task = dask.delayed(add, pure=False)
    while len(level) > 1:
        level = [task(*level[i : i + split_every]) for i in range(0, len(level), split_every)]
    return level[0]


def summarize_partition(
    summarize: Any, state: Any, checks: Checks, index: int, X: Any, y: Any, weight: Any
) -> Part | None:
    """One partition's part of the round (None for an empty partition)."""
    X, y, weight = checks.apply(index, X, y, weight)
    if n_rows(X) == 0:
        return None
    try:
        values, schema = summarize(state, X, y, weight)
    except (DataError, InputTypeError) as refused:
        raise checks.located(index, refused, X) from None
    return Part(index, tuple(values), schema)
