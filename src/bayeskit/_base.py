"""The one template every generative classifier follows.

Contract
--------
A generative classifier models ``P(y)`` and ``p(x|y)``. The template owns everything that follows
from that — class encoding, priors, statistics, prediction and the decision rule — and asks a
subclass for three things only:

``_families(self) -> list[Family]``
    one configured distribution family per feature block, built from the hyperparameters;
``_check_X(self, X, *, reset) -> Any``
    validate and convert ``X`` (set ``n_features_in_`` / ``feature_names_in_`` when ``reset``);
``_split(self, X) -> list``
    the input of each block (default: the whole of ``X`` for a single block);
``_block_names(self, names) -> list``
    the feature names of each block, for messages (default: all names, one block).

The public protocol
-------------------
What adapters (model files, the Dask rounds, the streaming trainer, semi-supervised EM, the
text models) call instead of the template's private members; each is documented on the class:

``summarize(X, y, sample_weight, *, classes, part)`` / ``fit_summary(summary)``
    the statistics of some rows, and a model set from statistics (a sum of parts);
``statistics()``
    the fitted statistics (``stats_``), refusing an unfitted model;
``check_fit()``
    what ``fit`` demands of a fitted model beyond valid statistics (a model assembled from
    parts' statistics is refused as ``fit`` refuses it);
``feature_names()``
    the names of the input's columns, as messages name them;
``configured_families()``
    one configured family per feature block, from the hyperparameters alone (what the
    statistics of a model file must be of);
``prepare(X, *, reset)`` → :class:`PreparedRows`
    the input checked and split into the families' validated blocks once, so an iterative
    fit (EM) does not check it every iteration; ``PreparedRows.take`` selects rows of it;
``summarize_rows(rows, classes, weights)``
    the statistics of prepared rows under class weights (one-hot labels times sample
    weights, or soft weights: EM's M-step is summarize-with-responsibilities);
``joint_log_proba_rows(rows)``
    the joint log-likelihood of prepared rows under the current parameters (EM's E-step).

Fitting is ``stats_ = summarize(X, y)``; ``partial_fit`` adds a batch's summary to ``stats_``;
``m1 + m2`` adds two models' summaries. Parameters are computed lazily from ``stats_`` by each
family's ``finalize`` and cached until the statistics change. ``fit`` also demands a model that
can predict (at least ``_min_classes`` classes; every family's ``check_usable``, e.g. no
singular covariance) and is refused otherwise, leaving the model as it was (as every refused
call below does); ``partial_fit``, merging and ``fit_summary`` accumulate statistics without
that demand (a stream may start with one class or fewer rows than features), and prediction
refuses what cannot score.

Every call that changes a model (``fit``, ``partial_fit``, ``unlearn``, ``fit_summary``) is
all or nothing: the new statistics are checked (finite: no sum overflowed float64), finalized
and their parameters checked (no NaN, no +inf) before the model adopts them; a refused call
leaves the model exactly as it was. A prediction never returns NaN: a row whose
log-likelihood float64 cannot hold is refused naming the row.

The joint log-likelihood is ``log P(y) + Σ_blocks log p(x_block | y)``; ``predict_log_proba``
normalises it by log-sum-exp. ``predict`` applies the Bayes decision rule: the most probable
class, or with ``class_weight`` (λ_y) the class maximising ``λ_y P(y|x)``, or with ``loss`` the
class of minimum conditional risk.

This module is one class, the template, with the contract above — long (about 700 lines)
because that contract is its public protocol, each member documented where it is defined. What
is not the template lives beside it: label and sample-weight checks in :mod:`._labels`,
merging and the declared-classes rule in :mod:`._merging`, the all-or-nothing checks (and
:func:`~._all_or_nothing.unchanged_on_error`) in :mod:`._all_or_nothing`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ._all_or_nothing import (
    check_parameters,
    check_removal,
    check_statistics,
    unchanged_on_error,
)
from ._decision import (
    check_loss,
    class_log_prior,
    class_loss_weights,
    conditional_risk,
    decision_indices,
    normalize_log,
    unknown_weighted_labels,
)
from ._labels import OneHot, class_weights, mean_accuracy, row_count
from ._lazy import sparse as sp
from ._merging import Adds, hold_declared_classes, layout_difference
from ._params import (
    ClassifierMixin,
    ParamNamesOnce,
    fitted_again,
    part_settings,
    refuse_while_waiting,
    same_settings,
    waits_for_fit,
)
from ._validation import FeatureNames, column_index, column_label, prepare_input
from .contract import Contract, requires
from .errors import (
    BayeskitError,
    DataError,
    MergeError,
    ModelFileError,
    NotFittedError,
    ParameterError,
)
from .families import Family
from .stats import Summary


def class_totals(R: Any) -> np.ndarray:
    """The weight of each class under class weights ``R`` (n × n_classes): its column sums,
    float64."""
    with np.errstate(over="ignore"):  # an overflow is refused with the statistics
        if isinstance(R, OneHot):  # the same sums as of its CSR matrix, next
            return np.asarray(R.class_totals(), dtype=np.float64)
        # (issparse first: it imports no SciPy when nothing has)
        if sp.issparse(R) and isinstance(R, (sp.csr_matrix, sp.csr_array)):
            # the column sums, in row order as scipy takes them, without its matrix product
            counts = np.bincount(R.indices, weights=R.data, minlength=R.shape[1])
            return np.asarray(counts, dtype=np.float64)
        return np.asarray(R.sum(axis=0), dtype=np.float64).ravel()


class FittedParameters(NamedTuple):
    """What a fitted generative classifier computes from its statistics and settings: the
    class log prior, each block's parameters and each block's family (cached until either
    changes). A named value: read ``fitted.prior``, ``fitted.params``, ``fitted.families``."""

    #: ``log P(y)`` of each class, shape (n_classes,)
    prior: np.ndarray
    #: each feature block's fitted parameters (its family's ``finalize``)
    params: list[Any]
    #: each feature block's configured family
    families: list[Family]


class PreparedRows(NamedTuple):
    """Rows as a model reads them (:meth:`GenerativeClassifier.prepare`): the input checked
    once and split into each family's validated block, with the number of rows. What
    :meth:`~GenerativeClassifier.summarize_rows` and
    :meth:`~GenerativeClassifier.joint_log_proba_rows` take, so an iterative fit (EM) checks
    its data once, not at every iteration."""

    #: each feature block's validated input (its family's ``validate``)
    blocks: list[Any]
    #: the number of rows
    n_rows: int

    def take(self, rows: Any) -> PreparedRows:
        """The prepared rows ``rows`` (a boolean mask or row indices) of these."""
        index = np.asarray(rows)
        n = int(index.sum()) if index.dtype == bool else len(index)
        return PreparedRows([block[index] for block in self.blocks], n)


class GenerativeClassifier(Adds, ClassifierMixin, ParamNamesOnce):
    """Base class: ``argmax_y λ_y P(y) p(x|y)`` computed in log space.

    Subclasses provide ``_families``, ``_check_X`` and optionally ``_split``; see the module
    docstring for the contract. Hyperparameters shared by all subclasses (each subclass lists
    them in its keyword-only ``__init__``): ``fit_prior``, ``class_prior``, ``prior_alpha``,
    ``class_weight`` and ``loss``.
    """

    #: What the model declares (:mod:`bayeskit.contract`): statistics that add, so every
    #: capability; a subclass that lacks one declares it.
    contract: ClassVar[Contract] = Contract(input="table", state="generative")
    #: ``fit`` refuses data with fewer classes (discriminant analysis needs two to tell apart).
    _min_classes: ClassVar[int] = 1

    #: the setting a fixed class prior is given as, which its refusals name (``priors``
    #: where scikit-learn's counterpart calls it so)
    _prior_name: ClassVar[str] = "class_prior"

    fit_prior: bool
    class_prior: Any
    prior_alpha: float
    class_weight: Any
    loss: Any

    # ------------------------------------------------------------------ subclass hooks
    def _families(self) -> list[Family]:
        raise NotImplementedError

    def _check_X(self, X: Any, *, reset: bool) -> Any:
        raise NotImplementedError

    def _split(self, X: Any) -> list[Any]:
        return [X]

    def _block_names(self, names: FeatureNames) -> list[Sequence[str]]:
        return [names]

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> GenerativeClassifier:
        """Fit the model to ``X`` and labels ``y``.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weight of each row (a row of weight 2 counts as two rows).

        Returns
        -------
        self
        """
        with unchanged_on_error(self):
            for attr in ("stats_", "_cache", "_declared_classes"):
                self.__dict__.pop(attr, None)
            summary = self._summarize(X, y, sample_weight, classes=None, reset=True)
            self._adopt(summary)
            self._check_fit()
            return self

    def check_fit(self) -> GenerativeClassifier:
        """Refuse a fitted model that ``fit`` would refuse, as ``fit`` refuses it.

        ``fit`` demands more of a model than valid statistics: at least as many classes as
        the model tells apart (two for discriminant analysis) and parameters every family can
        score with (no singular covariance). A model set from statistics (:meth:`fit_summary`
        of a sum of parts' :meth:`summarize`, a fit by ``partial_fit``) calls this to be held
        to the same demands.

        Returns
        -------
        self

        Raises
        ------
        DataError
            Naming the missing classes, or the class and column that cannot be scored.
        """
        self._check_fit()
        return self

    def _check_fit(self) -> None:
        """What ``fit`` demands of the fitted model beyond valid statistics (a subclass adds
        its own demands here)."""
        classes = self.classes_
        if len(classes) < self._min_classes:
            raise DataError(
                f"{type(self).__name__} needs at least {self._min_classes} classes to tell "
                f"apart; y holds only the class {', '.join(repr(c) for c in classes.tolist())}"
            )
        self._check_usable()

    def _check_usable(self) -> None:
        """Refuse to score with parameters a family cannot use (a singular covariance),
        naming the class and column."""
        _, params, families = self._fitted()
        classes = self.classes_
        names = self._block_names(self._feature_names())
        for family, p, block_names in zip(families, params, names, strict=True):
            family.check_usable(p, classes, block_names)

    @requires("incremental")
    def partial_fit(
        self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None
    ) -> GenerativeClassifier:
        """Add a batch of data to the model (online / out-of-core learning).

        The result is the model that ``fit`` would give on all batches at once. ``classes``
        declares the classes up front, as in scikit-learn: they start with zero weight, and
        from then on a label outside the model's classes is an
        :class:`~bayeskit.errors.UnknownClassError` (a later call may declare more, never fewer:
        a declaration must hold every class the model has). While
        ``classes`` has never been given, a label not seen before becomes a new class.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, optional
            Every class of the model (each once), including those this batch has no rows of;
            every label of ``y`` must be one of them.
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        with unchanged_on_error(self):
            first = not hasattr(self, "stats_")
            summary = self._summarize(X, y, sample_weight, classes=classes, reset=first)
            hold_declared_classes(self, summary.classes, classes, first=first)
            if not first:
                with np.errstate(over="ignore", invalid="ignore"):  # checked by _adopt
                    summary = self._fitted_summary() + summary
            return self._adopt(summary)

    @requires("unlearnable")
    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> GenerativeClassifier:
        """Remove rows the model was trained on (e.g. a message filed in the wrong folder).

        The result is the model fitted without those rows: their statistics are subtracted.
        A class or category left with no data disappears. Rows the model never saw are
        refused with :class:`~bayeskit.errors.MergeError` when that shows (a count would turn
        negative), and so is removing every row (nothing would be left to predict from) or
        rows whose removal leaves an invalid model (a class with zero variance under
        ``var_smoothing=0``); a refused call leaves the model as it was.

        Returns
        -------
        self
        """
        with unchanged_on_error(self):
            summary = self._summarize(X, y, sample_weight, classes=None, reset=False)
            with np.errstate(over="ignore", invalid="ignore"):  # checked by _adopt
                remaining = self._fitted_summary() - summary
            check_removal(remaining, self._block_names(self._feature_names()))
            try:
                return self._adopt(remaining)
            except (DataError, ParameterError) as exc:
                raise MergeError(
                    f"cannot unlearn these rows: the model left would be invalid ({exc})"
                ) from None

    def summarize(
        self, X: Any, y: Any, sample_weight: Any = None, *, classes: Any = None, part: bool = False
    ) -> Summary:
        """Sufficient statistics of a data block, without changing the model's statistics.

        Summaries of different blocks add up (``sum(parts)``); :meth:`fit_summary` turns the
        total into a fitted model. This is how to train on data spread over many files or
        machines. A model that has not read columns yet reads them as a first fit does (sets
        ``n_features_in_``, and the column layout a fit chooses); one that has reads ``X`` as
        it reads new rows.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional
        classes : array-like, optional
            Classes the statistics hold even without rows (at zero weight), as in
            :meth:`partial_fit`.
        part : bool, default False
            ``X`` is a part of the data (a partition): its weights may all be zero.

        Returns
        -------
        Summary
        """
        reset = "n_features_in_" not in self.__dict__
        return self._summarize(X, y, sample_weight, classes=classes, reset=reset, part=part)

    def fit_summary(
        self, summary: Summary, *, parameters: Sequence[Any] | None = None
    ) -> GenerativeClassifier:
        """Set the model from sufficient statistics (e.g. a sum of :meth:`summarize` results).

        ``parameters``: each block's parameters, already finalized from ``summary`` by this
        model's own families under its settings (a model that wraps this one and finalized
        them itself, as a text classifier its count model): adopted, checked, not computed
        a second time."""
        if not isinstance(summary, Summary):
            raise ParameterError(
                f"fit_summary takes a bayeskit.stats.Summary, not {type(summary).__name__}"
            )
        with unchanged_on_error(self):
            if not hasattr(self, "n_features_in_"):
                self.n_features_in_ = int(sum(b.n_features for b in summary.blocks))
            return self._adopt(summary, parameters)

    @property
    def classes_(self) -> np.ndarray:
        """Class labels, sorted."""
        return self._fitted_summary().classes

    @property
    def class_count_(self) -> np.ndarray:
        """Weighted number of training rows of each class."""
        return self._fitted_summary().class_count

    @property
    def class_log_prior_(self) -> np.ndarray:
        """Log prior probability of each class."""
        return self._fitted().prior

    def statistics(self) -> Summary:
        """The statistics the model is fitted on (``stats_``): what a model file stores and
        merging adds.

        Raises
        ------
        NotFittedError
            Before the model is fitted.
        """
        return self._fitted_summary()

    def _fitted_summary(self) -> Summary:
        refuse_while_waiting(self)
        try:
            return self.__dict__["stats_"]
        except KeyError:
            raise NotFittedError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with "
                "appropriate arguments before using this estimator."
            ) from None

    def __sklearn_is_fitted__(self) -> bool:
        return "stats_" in self.__dict__ and not waits_for_fit(self)

    def _adopt(
        self, summary: Summary, parameters: Sequence[Any] | None = None
    ) -> GenerativeClassifier:
        n_blocks = len(self._families())
        if n_blocks != len(summary.blocks):
            raise MergeError(
                f"{type(self).__name__} has {n_blocks} feature blocks but the summary has "
                f"{len(summary.blocks)}"
            )
        self._check_statistics(summary)
        # Finalize before adopting: bad hyperparameters and statistics no parameters can be
        # made of are reported by fit (or unlearn…), and the model keeps what it had.
        fitted = self._finalize(summary, parameters)
        self.stats_ = summary
        parts = part_settings(self)
        self._cache = (summary, fitted, parts)
        fitted_again(self, parts)
        return self

    def set_params(self, **params: Any) -> GenerativeClassifier:
        """Set hyperparameters. On a fitted model they take effect at the next prediction
        without refitting: the statistics are the fitted state, parameters follow from them;
        settings no model can be made of are refused then, and the model keeps its own. A
        setting the statistics were learned under (the contract's ``refit_settings``) makes
        the model wait for ``fit`` instead."""
        if not hasattr(self, "stats_"):
            return super().set_params(**params)
        before = self.get_params(deep=True)
        cache = self.__dict__.pop("_cache", None)
        super().set_params(**params)
        if waits_for_fit(self):
            return self  # the next fit checks the settings
        try:
            self._fitted()
        except BayeskitError:
            super().set_params(**{k: before[k] for k in params if k in before})
            if cache is not None:
                self._cache = cache
            raise
        return self

    @property
    def families_(self) -> list[Family]:
        """The configured distribution family of each feature block."""
        return self._fitted().families

    def _fitted(self) -> FittedParameters:
        """The class log prior, per-block parameters and families, from stats_ and the
        current hyperparameters; cached until either changes (a part's settings changed by
        the part's own ``set_params`` included: they take effect as the model's would)."""
        summary = self._fitted_summary()
        cache = self.__dict__.get("_cache")
        parts = part_settings(self)
        if cache is not None and cache[0] is summary and same_settings(cache[2], parts):
            return cache[1]
        fitted = self._finalize(summary)
        self._cache = (summary, fitted, parts)
        return fitted

    def _named(self, exc: ParameterError, classes: np.ndarray, block: int) -> ParameterError:
        """``exc`` of the finalize of feature block ``block`` with its class and feature
        indices named by the class's label and the column's name."""
        if exc.cell is None:
            return exc
        c, j = exc.cell
        names = self._block_names(self._feature_names())[block]
        label = classes[c]
        label = label.item() if isinstance(label, np.generic) else label
        message = str(exc).replace(f"class index {c}", f"class {label!r}", 1)
        message = message.replace(f"feature {j}", column_label(names, j), 1)
        return ParameterError(message)

    def _finalize(
        self, summary: Summary, parameters: Sequence[Any] | None = None
    ) -> FittedParameters:
        """The class log prior, per-block parameters and families of ``summary`` (the
        blocks' ``parameters`` when given, finalized already), checked: no parameter is NaN
        or +inf."""
        prior = class_log_prior(
            summary.class_count,
            fit_prior=self.fit_prior,
            class_prior=self.class_prior,
            prior_alpha=self.prior_alpha,
            name=self._prior_name,
            classes=summary.classes,
        )
        families = self._families()
        # Overflow and NaN are looked for in the result below and refused by name, so numpy's
        # warnings about them would only repeat it.
        if parameters is not None:
            if len(parameters) != len(families):
                raise ParameterError(
                    f"{type(self).__name__} has {len(families)} feature blocks but "
                    f"{len(parameters)} blocks' parameters were given"
                )
            params = list(parameters)
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                params = []
                for block, (f, s) in enumerate(zip(families, summary.blocks, strict=True)):
                    try:
                        params.append(f.finalize(s))
                    except ParameterError as exc:
                        raise self._named(exc, summary.classes, block) from None
        check_parameters(
            families, params, summary.classes, self._block_names(self._feature_names())
        )
        # the decision's settings too: fit refuses them, not every later predict
        if self.loss is not None:
            check_loss(self.loss, len(summary.classes), summary.classes)
        if self.class_weight is not None:
            class_loss_weights(self.class_weight, summary.classes, summary.class_count)
            unknown = unknown_weighted_labels(self.class_weight, summary.classes)
            if unknown:
                warnings.warn(
                    f"class_weight names {unknown!r}, none of the classes "
                    f"{summary.classes.tolist()}: it weighs a class of that label once one is "
                    "learned (check the spelling otherwise)",
                    UserWarning,
                    stacklevel=4,
                )
        return FittedParameters(prior, params, families)

    def _check_statistics(self, summary: Summary) -> None:
        """Refuse statistics that overflowed float64 (a sum of weights times values beyond
        1.8e308), naming the class and feature: no finite parameters can be made of them."""
        check_statistics(summary, self._block_names(self._feature_names()))

    def _summarize(
        self, X: Any, y: Any, sample_weight: Any, *, classes: Any, reset: bool, part: bool = False
    ) -> Summary:
        """The statistics of a block of data (``part``: a part of the data, whose weights may
        all be zero)."""
        if y is None:
            raise DataError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        X = self._input(X, reset=reset)
        labels, R = class_weights(y, sample_weight, row_count(X), classes, part=part)
        return self._summary_of(self._blocks_of(X), labels, R)

    def _blocks_of(self, X: Any) -> list[Any]:
        """Checked input (``_check_X``'s output) as each family's validated block: what
        :meth:`_summary_of` and :meth:`_joint_of` take, so that an iterative fit (EM) checks
        its data once, not at every iteration."""
        names = self._block_names(self._feature_names())
        return [
            family.validate(part, block_names)
            for family, part, block_names in zip(
                self._families(), self._split(X), names, strict=True
            )
        ]

    def _summary_of(self, blocks: list[Any], labels: np.ndarray, R: Any) -> Summary:
        """The statistics of validated blocks under class weights ``R`` (n × len(labels):
        one-hot labels times sample weights, or soft weights such as EM responsibilities)."""
        with np.errstate(over="ignore", invalid="ignore"):  # checked by _check_statistics
            stats = tuple(
                family.summarize(part, R)
                for family, part in zip(self._families(), blocks, strict=True)
            )
        return Summary(labels, class_totals(R), stats)

    def _input(self, X: Any, *, reset: bool) -> Any:
        """``X`` through the checks every estimator of a table shares, then the subclass's
        own (documents are not a table: the subclass checks them alone)."""
        if self.contract.input == "documents":
            return self._check_X(X, reset=reset)
        return self._check_X(prepare_input(X, type(self).__name__), reset=reset)

    def configured_families(self) -> list[Family]:
        """One configured distribution family per feature block, from the hyperparameters
        alone (no statistics needed): what the statistics of each block must be of and what
        finalizing them will allocate (``Family.check_statistic``, ``parameter_size``)."""
        return self._families()

    def prepare(self, X: Any, *, reset: bool = False) -> PreparedRows:
        """``X`` checked as the model reads it and split into its families' validated
        blocks, once: what :meth:`summarize_rows` and :meth:`joint_log_proba_rows` take.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        reset : bool, default False
            Read the columns as a first fit reads them (set ``n_features_in_`` and
            ``feature_names_in_``); else check them against the fitted ones.

        Returns
        -------
        PreparedRows
        """
        X = self._input(X, reset=reset)
        return PreparedRows(self._blocks_of(X), row_count(X))

    def summarize_rows(self, rows: PreparedRows, classes: np.ndarray, weights: Any) -> Summary:
        """The statistics of prepared rows under class weights.

        The weighted form of :meth:`summarize`: ``weights[i, c]`` is how much row ``i``
        counts for ``classes[c]`` — one-hot labels times sample weights give
        :meth:`summarize`'s statistics, soft weights such as EM's responsibilities give its
        M-step (Dempster, Laird & Rubin 1977).

        Parameters
        ----------
        rows : PreparedRows
            What :meth:`prepare` gave.
        classes : ndarray of shape (n_classes,)
            The labels of the weights' columns, sorted.
        weights : ndarray or sparse matrix of shape (n_rows, n_classes)

        Returns
        -------
        Summary
        """
        return self._summary_of(rows.blocks, classes, weights)

    def joint_log_proba_rows(self, rows: PreparedRows) -> np.ndarray:
        """The joint log-likelihood ``log P(y) + log p(x|y)`` of prepared rows under the
        current parameters (EM's E-step): :meth:`predict_joint_log_proba` of rows
        :meth:`prepare` checked once.

        Returns
        -------
        ndarray of shape (n_rows, n_classes)
        """
        return self._joint_of(rows.blocks, rows.n_rows)

    def feature_names(self) -> Sequence[str]:
        """The names of the input's columns, as messages name them: ``feature_names_in_``
        when the model was fitted on a named table, else ``x0``, ``x1``, … (made only when
        read)."""
        return self._feature_names()

    def _feature_names(self) -> FeatureNames:
        return FeatureNames(
            getattr(self, "n_features_in_", 0), getattr(self, "feature_names_in_", None)
        )

    # ------------------------------------------------------------------ prediction
    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """Joint log-likelihood ``log P(y) + log p(x|y)`` of each row and class.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return self._joint_log_likelihood(X, relative=False)

    def _joint_log_likelihood(self, X: Any, *, relative: bool) -> np.ndarray:
        """The joint log-likelihood, or with ``relative`` the same up to a term that is the
        same for every class of a row (what posteriors and decisions need: each family may
        skip computing such a term, e.g. the quadratic of a shared covariance)."""
        self._fitted()  # NotFittedError before the input is looked at
        self._check_usable()
        X = self._input(X, reset=False)
        return self._joint_of(self._blocks_of(X), row_count(X), relative=relative)

    def _joint_of(self, blocks: list[Any], n_rows: int, *, relative: bool = False) -> np.ndarray:
        """The joint log-likelihood of validated blocks (see :meth:`_blocks_of`)."""
        prior, params, families = self._fitted()
        jll = np.zeros((n_rows, len(prior)))
        for family, p, part in zip(families, params, blocks, strict=True):
            with np.errstate(over="ignore", invalid="ignore"):  # NaN is refused below
                jll += family.log_prob_relative(p, part) if relative else family.log_prob(p, part)
        if self.scores_include_prior() or len(prior) == 1:
            jll += prior
        # One pass, no temporaries: the largest entry is NaN if any is, +inf if any is.
        if jll.size and not np.max(jll) < np.inf:
            with np.errstate(invalid="ignore"):
                bad = np.isnan(jll) | np.isposinf(jll)
            row = int(np.argwhere(bad)[0][0])
            raise DataError(
                f"the log-likelihood of row {row} is not a number in float64: its values are "
                "too extreme for this model (far beyond the training data's range); rescale "
                "them or check the row"
            )
        if jll.size and all(f.never_zero for f in families) and np.min(jll) == -np.inf:
            # densities that are never 0: -inf under every class is float64's overflow (a
            # value far beyond a class of tiny spread), whose posterior would be the prior
            lost = np.isneginf(jll).all(axis=1)
            if lost.any():
                row = int(np.argmax(lost))
                raise DataError(
                    f"the log-likelihood of row {row} is below float64's range under every "
                    "class: its values lie too far from the training data for this model (a "
                    "class's spread is small next to them); rescale them or check the row"
                )
        return jll

    def scores_include_prior(self) -> bool:
        """Whether the joint log-likelihood includes ``log P(y)``: the declaration's
        ``prior_in_scores`` (ComplementNB's scores do not, after Rennie et al. 2003), or what
        the model's settings decide (a text model's count model)."""
        return self.contract.prior_in_scores

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Log posterior ``log P(y|x)`` by log-sum-exp, shape (n_samples, n_classes)."""
        jll = self._joint_log_likelihood(X, relative=True)
        return normalize_log(jll, self._fitted().prior)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior probabilities ``P(y|x)``; each row sums to 1."""
        return np.exp(self.predict_log_proba(X))

    def predict_risk(self, X: Any) -> np.ndarray:
        """Conditional risk ``R(c_i|x) = Σ_j loss[i, j] λ_j P(c_j|x)`` of each decision,
        ``λ_j`` the class weights (``class_weight``; 1 without them).

        Needs the ``loss`` parameter. Shape (n_samples, n_classes).
        """
        if self.loss is None:
            raise ParameterError("predict_risk needs a loss matrix: set loss=[[...], ...]")
        loss, weights = self._decision_settings()
        assert loss is not None  # (set, checked above)
        return conditional_risk(self.predict_proba(X), loss, weights)

    def _decision_settings(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """The loss matrix and class weights the decision takes, checked (None where unset)."""
        classes = self.classes_
        loss = None if self.loss is None else check_loss(self.loss, len(classes), classes)
        if self.class_weight is None:
            return loss, None
        return loss, class_loss_weights(self.class_weight, classes, self.class_count_)

    def predict(self, X: Any) -> np.ndarray:
        """Bayes decision for each row (see the class docstring for the rule)."""
        classes = self.classes_
        if self.loss is not None or self.class_weight is not None:
            loss, weights = self._decision_settings()
            log_proba = self.predict_log_proba(X)
            return classes[decision_indices(log_proba, loss=loss, weights=weights)]
        jll = self._joint_log_likelihood(X, relative=True)
        # (a pass over the whole array first: a reduction along rows of a few classes is
        # several times slower)
        dead = np.isneginf(jll).all(axis=1) if jll.size and np.min(jll) == -np.inf else None
        if dead is not None and dead.any():
            # No class can have produced the row (a compact kernel reaching none of the
            # training rows, unsmoothed estimates): the prior decides, as predict_proba says.
            jll[dead] = self._fitted().prior
        return classes[np.argmax(jll, axis=1)]

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of :meth:`predict` on ``X`` against the true labels ``y``.

        Labels of a type the model's classes are not (numbers against text labels, say) are
        refused with :class:`~bayeskit.errors.DataError` naming both, not counted as wrong.
        """
        return mean_accuracy(self, X, y, sample_weight)

    # ------------------------------------------------------------------ linear view
    def linear_form(self, *, columns: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """The model as a linear classifier: ``joint log-likelihood = X @ W.T + b``.

        Only for models whose families are all linear (multinomial, Bernoulli, complement,
        categorical over one-hot columns). ``b`` includes the log prior (Duda et al. 2001: ``b_y =
        ln λ_y P(y) + …``; λ is not included).

        Parameters
        ----------
        columns : array of int, optional
            Only these columns of ``W`` (``W[:, columns]``): a text model over a large
            vocabulary keeps its weights as one a term, one a class and those of the cells
            with counts, and gives a few columns without making the whole ``W``.

        Returns
        -------
        W : ndarray of shape (n_classes, n_columns), or (n_classes, len(columns))
        b : ndarray of shape (n_classes,)
        """
        fitted = self._fitted()
        for family in fitted.families:
            if not family.linear:
                raise ParameterError(f"the {family.name} family is not linear in its features")
        if columns is None:
            return self._stacked(lambda family, p: family.linear_form(p))
        if len(fitted.families) > 1:  # (columns across blocks: taken from the whole W)
            W, b = self._stacked(lambda family, p: family.linear_form(p))
            return W[:, column_index(columns, W.shape[1])], b
        (family,), (params,) = fitted.families, fitted.params
        index = column_index(columns, family.linear_width(params))
        return self._stacked(lambda family, p: family.linear_columns(p, index))

    def linear_discriminant(self) -> tuple[np.ndarray, np.ndarray]:
        """The decision rule as a linear classifier: ``(W, b)`` with ``predict_log_proba(X) =
        log_softmax(linear_design(X) @ W.T + b)``.

        Every linear model has one (its :meth:`linear_form`), and so do models whose joint
        log-likelihood is linear up to a term the same for every class: a Gaussian with a
        covariance (or variances) shared by the classes, Fisher's linear discriminant
        (Fisher 1936; Duda et al. 2001, §5.8: ``W_y = α_y = Σ⁻¹μ_y``,
        ``b_y = β_y = ln P(y) − ½ μ_yᵀΣ⁻¹μ_y``). ``b`` includes the log prior; λ is not
        included.

        Returns
        -------
        W : ndarray of shape (n_classes, n_columns)
        b : ndarray of shape (n_classes,)
        """
        self._check_usable()
        return self._stacked(lambda family, p: family.discriminant(p))

    def _stacked(
        self, block: Callable[[Family, Any], tuple[np.ndarray, np.ndarray]]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each block's ``(W, b)`` side by side, the biases summed, with the log prior."""
        prior, params, families = self._fitted()
        Ws, b = [], np.zeros(len(prior))
        for family, p in zip(families, params, strict=True):
            W, bias = block(family, p)
            Ws.append(W)
            b = b + bias
        if self.scores_include_prior() or len(prior) == 1:
            b = b + prior
        return np.hstack(Ws), b

    def linear_design(self, X: Any) -> Any:
        """The rows :meth:`linear_form` applies to: ``predict_joint_log_proba(X) ==
        linear_design(X) @ W.T + b`` (the features for count models, one-hot columns for
        categorical ones)."""
        _, params, families = self._fitted()
        X = self._input(X, reset=False)
        names = self._block_names(self._feature_names())
        parts = [
            family.design(p, family.validate(part, block_names))
            for family, p, part, block_names in zip(
                families, params, self._split(X), names, strict=True
            )
        ]
        if len(parts) == 1:
            return parts[0]
        return sp.hstack([sp.csr_matrix(part) for part in parts], format="csr")

    def linear_feature_names(self) -> list[str]:
        """Names of :meth:`linear_form`'s columns."""
        _, params, families = self._fitted()
        names = self._block_names(self._feature_names())
        out: list[str] = []
        for family, p, block_names in zip(families, params, names, strict=True):
            out += family.column_names(p, block_names)
        return out

    def fitted_blocks(self) -> list[tuple[Family, Any, Any, list[str]]]:
        """Each feature block's family, fitted parameters, statistic and column names, in the
        order of :meth:`linear_form`'s blocks (read them, do not change them): what an
        inspection of the model reads beyond the linear form."""
        _, params, families = self._fitted()
        blocks = self._fitted_summary().blocks
        names = self._block_names(self._feature_names())
        return [
            (family, p, stats, list(block_names))
            for family, p, stats, block_names in zip(families, params, blocks, names, strict=True)
        ]

    # ------------------------------------------------------------------ state beyond statistics
    def layout_state(self) -> dict[str, Any] | None:
        """The column layout a fit chose that is neither a hyperparameter nor a statistic
        (MixedNB's family of each column under ``families="auto"``), as plain JSON; None for
        a model whose settings fix it. Model files store it; models merge only when equal."""
        return None

    def set_layout_state(self, state: Any) -> None:
        """Take a column layout :meth:`layout_state` gave (read back from a model file); a
        model without one refuses any but None (:class:`~bayeskit.errors.ModelFileError`:
        a file holding what ``save`` never writes for it)."""
        if state is not None:
            raise ModelFileError(
                f"a {type(self).__name__} keeps no column layout, but the file holds one "
                "('state'): not a file save wrote"
            )

    def layout_difference(self, other: Any) -> str:
        """What differs between this model's :meth:`layout_state` and ``other``'s (a model of
        its class), in a few words: what a refusal to merge them says."""
        return layout_difference(self.layout_state(), other.layout_state())

    def classes_declared(self) -> bool:
        """Whether ``partial_fit(classes=...)`` declared the model's classes since the last
        ``fit`` (a later label outside them is then refused). Model files store it."""
        return bool(self.__dict__.get("_declared_classes", False))

    def set_classes_declared(self, declared: bool) -> None:
        """Take what :meth:`classes_declared` gave (read back from a model file)."""
        if declared:
            self._declared_classes = True
        else:
            self.__dict__.pop("_declared_classes", None)

    def take_merged(self, models: Sequence[Any]) -> None:
        """Take what a merge of ``models`` keeps besides their statistics, once
        :func:`bayeskit.merge` has set this model (a copy of the first) from the sum of their
        statistics: nothing for a model whose fit is its statistics; a model keeping more
        (a spam filter's held-out score counts) merges it here, in any order alike."""

    def fitted_record(self) -> dict[str, Any] | None:
        """Fitted results a model file stores because they cost more than the load's budget
        to recompute (a Parzen window's width search); None for a model without them."""
        return None

    def set_fitted_record(self, record: Any, summary: Summary) -> None:
        """Take what :meth:`fitted_record` gave for the statistics ``summary`` (read back
        from a model file), refusing a record that does not fit them; a model without one
        refuses any but None."""
        if record is not None:
            raise ModelFileError(
                f"a {type(self).__name__} keeps no fitted record, but the file holds one "
                "('fitted'): not a file save wrote"
            )

    # ------------------------------------------------------------------ merging
    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags
