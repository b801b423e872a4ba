"""The wrapped estimators seen as models EM can fit (:class:`~bayeskit.mixture.EMModel`):
their components are the classes of a fitted estimator (one per class, or several), so the
M-step is the estimator's own ``summarize`` with soft class weights and its own ``finalize``
(``fit_summary``), and the E-step its joint log-likelihood.

The input is prepared once: a :class:`~bayeskit.GenerativeClassifier` checks and splits ``X``
into its families' blocks once (its ``prepare``), and a :class:`~bayeskit.text.TextClassifier`
counts its documents once over every term they contain (its vectorizer's ``count``), so an EM
iteration is matrix products, not parsing.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._base import GenerativeClassifier, PreparedRows
from .._params import clone
from .._values import find_sorted
from ..contract import contract_of
from ..errors import EmptyVocabularyWarning
from ..stats import ColumnStatistic, Summary, TermKeyed


@dataclass(frozen=True)
class Rows:
    """A prepared block of rows: what the view's ``summarize`` and ``log_joint`` take."""

    data: Any
    n_rows: int


class EstimatorView:
    """EM over a bayeskit generative classifier whose classes are the mixture components
    (labelled ``components``)."""

    log_prior = None  # maximum likelihood (EMModel)

    def __init__(self, estimator: GenerativeClassifier, components: np.ndarray):
        self.model = clone(estimator)
        self.components = components

    @classmethod
    def of_fitted(cls, model: GenerativeClassifier, components: np.ndarray) -> EstimatorView:
        """The view of a model EM has fitted (its current parameters), as EM left it: what a
        worker runs an E-step and an M-step's share with."""
        view = cls.__new__(cls)
        view.model, view.components = model, components
        return view

    def prepare(self, X: Any, labels: Any = None, weight: Any = None) -> Rows:
        """``X`` read once, as a first fit reads it. A model that chooses part of its layout
        from the rows' values and classes (its contract's ``layout_from_rows``: a network's
        cut points) chooses it from the labelled rows, the only ones with a class:
        ``labels`` gives each row's (any class for an unlabelled row), ``weight`` each row's
        weight (0 for an unlabelled row, which then takes no part)."""
        reset = True
        if labels is not None and contract_of(self.model).layout_from_rows:
            self.model.summarize(X, labels, sample_weight=weight)  # the layout; nothing kept
            reset = False
        prepared = self.model.prepare(X, reset=reset)
        return Rows(prepared, prepared.n_rows)

    def summarize(self, rows: Rows, R: np.ndarray) -> Summary:
        return self.model.summarize_rows(rows.data, self.components, R)

    def finalize(self, stats: Summary) -> GenerativeClassifier:
        return self.model.fit_summary(stats)

    def log_joint(self, model: GenerativeClassifier, rows: Rows) -> np.ndarray:
        return model.joint_log_proba_rows(rows.data)

    def fitted(self) -> GenerativeClassifier:
        return self.model


class TextView:
    """EM over a :class:`~bayeskit.text.TextClassifier`.

    With counts or presence output and no fixed vocabulary (its additive mode) the statistics
    are kept per term, as the classifier keeps them (one documents statistic): the documents
    are counted once over every term they hold, each M-step is the count model's
    ``summarize`` with soft class weights keyed by term, together with the vocabulary
    statistics of every document the view counted (labelled and unlabelled alike, whatever
    their weights: the vocabulary, ``min_df`` and the other limits see all of them), and each
    E-step scores the columns the classifier selected. With tf-idf or hashed output the
    vectorizer is fitted once on every document and EM runs on the count model over its
    output.
    """

    log_prior = None  # maximum likelihood (EMModel)

    def __init__(self, classifier: Any, components: np.ndarray):
        self.classifier = clone(classifier)
        self.components = components
        self.additive = self.classifier.keeps_term_statistics()
        self.inner: EstimatorView | None = None
        self._columns: tuple[Any, np.ndarray, np.ndarray] | None = None
        self._prepared: tuple[Any, PreparedRows] | None = None

    def prepare(self, docs: list[Any]) -> Rows:
        from ..text.vectorize import stats_of

        vec, model = self.classifier.prototypes()
        if not self.additive:
            self.vectorizer = clone(vec)
            counts = self.vectorizer.fit_transform(docs)
            self.inner = EstimatorView(model, self.components)
            return self.inner.prepare(counts)
        counter = clone(vec)
        terms, counts = counter.count(docs)
        self.terms = terms
        self.vocabulary = stats_of(terms, counts)
        if len(terms) == 0:
            # documents of no term (empty ones): one column of zeros stands for the terms, as
            # in the classifier's own summarize (documents() drops it; _select reads zeros)
            return Rows(sp.csr_matrix((len(docs), 1)), len(docs))
        return Rows(sp.csr_matrix(counter.weigh(counts, terms=terms)), len(docs))

    def summarize(self, rows: Rows, R: np.ndarray) -> Summary:
        if self.inner is not None:
            return self.inner.summarize(rows, R)
        _, model = self.classifier.prototypes()
        model = clone(model)
        # the counts over the documents' own terms, read as the count model reads its input
        # (a presence model binarizes them), once per block of rows
        cached = self._prepared
        if cached is None or cached[0] is not rows.data:
            cached = self._prepared = (rows.data, model.prepare(rows.data, reset=True))
        summary = model.summarize_rows(cached[1], self.components, R)
        return self.documents(summary)

    def documents(self, summary: Summary) -> Summary:
        """``summary`` (the count model's, of one per-column block over the view's terms)
        as the classifier's statistics: one documents block of its statistic of every term
        and the vocabulary statistics of the view's documents."""
        from ..text import DocumentStats

        (block,) = summary.blocks
        if not isinstance(block, ColumnStatistic):
            raise TypeError(f"a {block.kind} statistic is not kept per column: no term can key it")
        if len(self.terms) == 0:  # one column of zeros stood for no terms
            block = block.take_columns(np.zeros(0, dtype=np.int64))
        documents = DocumentStats(TermKeyed(self.terms, block), self.vocabulary)
        return Summary(summary.classes, summary.class_count, (documents,))

    def with_vocabulary(self, summary: Summary) -> Summary:
        """``summary`` (documents statistics, e.g. of the labelled documents of some parts)
        with the view's vocabulary statistics instead of its own (those of every part's
        documents, labelled or not)."""
        from ..text import DocumentStats

        (block,) = summary.blocks
        assert isinstance(block, DocumentStats)  # what summarize gives
        documents = DocumentStats(block.keyed, self.vocabulary)
        return Summary(summary.classes, summary.class_count, (documents,))

    def finalize(self, stats: Summary) -> Any:
        if self.inner is not None:
            return self.inner.finalize(stats)
        # no term in the vocabulary: nothing to learn the unlabelled documents' classes from,
        # refused (not the warning a stream gets)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EmptyVocabularyWarning)
            fitted = self.classifier.fit_summary(stats)
        return fitted.check_vocabulary()

    def log_joint(self, fitted: Any, rows: Rows) -> np.ndarray:
        if self.inner is not None:
            return self.inner.log_joint(fitted, rows)
        vec, model = fitted.fitted_parts()
        return model.predict_joint_log_proba(self._select(vec, rows.data))

    def _select(self, vec: Any, counts: sp.csr_matrix) -> sp.csr_matrix:
        """The columns of the classifier's current vocabulary (and its out-of-vocabulary
        column), from the counts over every term: what its vectorizer would give."""
        columns = vec.terms_
        cached = self._columns
        if cached is None or cached[0] is not columns:
            pos, found = find_sorted(self.terms, columns)
            self._columns = cached = (columns, pos, found)
        _, pos, found = cached
        selected = counts[:, pos]
        if not found.all():
            selected = selected @ sp.diags(found.astype(np.float64))
        if vec.oov_token is not None:
            rest = np.asarray(counts.sum(axis=1)).ravel() - np.asarray(selected.sum(axis=1)).ravel()
            selected = sp.hstack([selected, sp.csr_matrix(rest[:, None])], format="csr")
        return sp.csr_matrix(selected)

    def fitted(self) -> Any:
        if self.inner is None:
            return self.classifier
        # the classifier over the vectorizer fitted on every document, with the count
        # model's statistics over its columns
        self.classifier.vectorizer_ = self.vectorizer
        return self.classifier.fit_summary(self.inner.fitted().statistics())
