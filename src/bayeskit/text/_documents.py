"""The block of a text model: documents read by a vectorizer and scored by a count family.

A text classifier is a generative classifier with one feature block, the documents. Its
family is a vectorizer plus the count family of a count model (any model that declares
``input="counts"``: MultinomialNB, ComplementNB, BernoulliNB, PoissonNB, BinomialNB or one of
your own), in one of two modes:

per term (the vectorizer's weights depend on each document alone, no vocabulary is given)
    ``summarize`` counts the documents over their own terms, weighs them and keeps the count
    family's statistic of every term together with the vocabulary statistics
    (:class:`~bayeskit.text._document_stats.DocumentStats`): batches, parts and models add
    exactly, and ``finalize`` selects the vocabulary (``min_df``, ``max_features``…,
    ``useful_terms``) from the totals before the count family finalizes its columns;
fixed (idf, hashed output, or a given vocabulary)
    the vectorizer is fitted once on the whole corpus (the fit's column layout) and the
    statistic is the count family's own over its columns.

Soft labels come free: ``summarize(docs, R)`` passes the class weights ``R`` to the count
family, so EM's M-step on documents is the same call as a fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._params import clone
from .._validation import FeatureNames
from .._values import find_sorted
from ..errors import InputTypeError, ParameterError
from ..families import Family
from ..inspection import top_useful, usefulness_of
from ..stats import ColumnStatistic, Statistic, TermKeyed
from ._count_matrices import stats_of
from ._document_input import one_column
from ._document_stats import DocumentStats
from .analyze import missing_as_none
from .vectorize import TextVectorizer
from .vocabulary import LazyTerms

__all__ = ["DocumentsFamily", "DocumentsParams", "as_documents", "keeps_term_statistics"]


@dataclass(frozen=True)
class DocumentsParams:
    """A fitted documents block: the vectorizer the statistics give, the count family's
    parameters over its columns, and the count statistic of those columns (what a fitted
    count model is set from)."""

    vectorizer: TextVectorizer
    count: Any
    columns: Statistic

    #: the wrapped count family's parameters, checked as its own (no NaN, no +inf)
    wraps: ClassVar[tuple[str, ...]] = ("count",)


def keeps_term_statistics(vectorizer: TextVectorizer) -> bool:
    """Whether statistics can be kept per term under ``vectorizer``: a free vocabulary, and
    per-document weights (counts, presence, or tf-idf without idf: log-tf and length
    normalisation depend on the document alone; an out-of-vocabulary column would be weighted
    apart from the terms it sums, so it is left to the fixed mode)."""
    if vectorizer.vocabulary is not None:
        return False
    if vectorizer.output == "tfidf":
        return not vectorizer.use_idf and vectorizer.oov_token is None
    return vectorizer.output in ("counts", "binary")


def document_list(X: Any) -> list[Any]:
    """Documents as a list (a table's one column: :func:`one_column`), refusing a single
    text and what is not iterable."""
    if isinstance(X, (str, bytes)):
        raise ParameterError(
            "expected a list of documents, got a single "
            f"{type(X).__name__}; wrap it in a list: [text]"
        )
    X = one_column(X)
    try:
        docs = list(X)
    except TypeError:  # None, a number, a 0-d array: nothing to iterate over
        raise InputTypeError(
            "expected an iterable of documents (a list of str or bytes), got "
            f"{type(X).__name__} ({X!r:.60})"
        ) from None
    return missing_as_none(docs)


def as_documents(X: Any) -> np.ndarray:
    """:func:`document_list` as a 1-D object array (rows a prepared block can be indexed by)."""
    docs = document_list(X)
    out = np.empty(len(docs), dtype=object)
    out[:] = docs
    return out


class DocumentsFamily(Family):
    """Documents through a vectorizer, scored by a count family (see the module docstring).

    Parameters
    ----------
    vectorizer : TextVectorizer
        Unfitted (per-term mode: fitted from the statistics by :meth:`finalize`), or the
        vectorizer a fit chose (``fitted=True``: the fixed mode).
    count : Family
        The count model's configured family.
    useful_terms : int, optional
        Keep the ``useful_terms`` most useful terms (per-term mode).
    fitted : bool
        ``vectorizer`` is fitted and fixes the columns.
    """

    name = "documents"
    by_name = False  # a vectorizer and a count family, which a text model makes

    def __init__(
        self,
        vectorizer: TextVectorizer,
        count: Family,
        *,
        useful_terms: int | None = None,
        fitted: bool = False,
    ):
        if not isinstance(vectorizer, TextVectorizer) or not isinstance(count, Family):
            raise ParameterError(
                "a documents family is a TextVectorizer and a count family, made by a text "
                "model from its settings"
            )
        self.vectorizer = vectorizer
        self.count = count
        self.useful_terms = useful_terms
        self.fitted = fitted
        # linear exactly when its count family is (a class-wide flag on other families)
        self.linear = count.linear  # type: ignore[misc]

    @property
    def per_term(self) -> bool:
        """Whether the statistics are kept per term (:class:`DocumentStats`)."""
        return not self.fitted

    def config(self) -> dict[str, Any]:
        return {
            "vectorizer": repr(self.vectorizer),
            "count": {"name": self.count.name, **self.count.config()},
            "useful_terms": self.useful_terms,
            "fitted": self.fitted,
        }

    def validate(self, X: Any, names: Sequence[str]) -> np.ndarray:
        return as_documents(X)

    def _columns(self, vectorizer: TextVectorizer, docs: np.ndarray) -> Any:
        X = vectorizer.transform(list(docs))
        return self.count.validate(X, FeatureNames(X.shape[1]))

    # ------------------------------------------------------------------ statistics
    def summarize(self, X: Any, R: np.ndarray | sp.spmatrix) -> Statistic:
        if self.fitted:
            return self.count.summarize(self._columns(self.vectorizer, X), R)
        vectorizer = clone(self.vectorizer)
        terms, counts = vectorizer.count(list(X), lazy=True)
        return self.summarize_counted(vectorizer, terms, counts, R, own=True)

    def summarize_counted(
        self,
        vectorizer: TextVectorizer,
        terms: np.ndarray | LazyTerms,
        counts: sp.csr_matrix,
        R: Any,
        *,
        own: bool = False,
    ) -> DocumentStats:
        """:meth:`summarize` of documents already counted (``vectorizer.count``): what a
        cross-validation reuses for every fold. ``own``: ``counts`` is given up to become
        the weighed rows (no one else holds it)."""
        # A document of weight 0 is as if left out (scikit-learn's bootstraps give the rows
        # they leave out weight 0): its terms are not counted as seen, nor the document.
        unweighed = np.asarray(abs(R).sum(axis=1)).ravel() == 0 if counts.shape[0] else None
        kept = None if unweighed is None or not unweighed.any() else np.flatnonzero(~unweighed)
        # (before the counts may be weighed in place)
        vocabulary = stats_of(terms, counts if kept is None else counts[kept])
        if len(terms):
            weighed = vectorizer.weigh(counts, terms=terms, own=own)
        else:  # no terms: one column of zeros stands for them, dropped below
            weighed = sp.csr_matrix((counts.shape[0], 1))
        block = self.count.summarize(
            self.count.validate(weighed, FeatureNames(weighed.shape[1])), R
        )
        if not isinstance(block, ColumnStatistic):
            raise ParameterError(
                f"the {self.count.name} family's {block.kind} statistic is not kept per "
                "column: no term can key it (use a fixed vocabulary)"
            )
        if len(terms) == 0:
            block = block.take_columns(np.zeros(0, dtype=np.int64))
        stats = DocumentStats(TermKeyed(terms, block), vocabulary)  # one terms array
        return stats if kept is None else stats.without_empty(0.0)

    def check_statistic(self, stats: Statistic) -> str | None:
        if self.fitted:
            return self.count.check_statistic(stats)
        if not isinstance(stats, DocumentStats):
            return f"a text model keeps documents statistics, not {stats.kind!r}"
        return self.count.check_statistic(stats.keyed.block)

    def parameter_size(self, stats: Any) -> int:
        if self.fitted:
            return self.count.parameter_size(stats)
        # the count parameters, the selected columns' statistic (a copy of at most every
        # column) and the fitted vectorizer's vocabulary arrays
        block = stats.keyed.block
        selected = sum(int(np.size(w)) for w in block.to_arrays()[0].values())
        return self.count.parameter_size(block) + selected + 2 * len(stats.vocabulary)

    # ------------------------------------------------------------------ parameters
    def finalize(self, stats: Any) -> DocumentsParams:
        if self.fitted:
            return DocumentsParams(self.vectorizer, self.count.finalize(stats), stats)
        vectorizer, columns = self.select(stats)
        return DocumentsParams(vectorizer, self.count.finalize(columns), columns)

    def select(
        self, stats: DocumentStats, class_count: np.ndarray | None = None
    ) -> tuple[TextVectorizer, ColumnStatistic]:
        """The vectorizer the vocabulary statistics give and the count statistic of its
        columns (the out-of-vocabulary column pooled from the terms it leaves out).
        ``class_count``: the weight of each class that ``useful_terms`` weighs the terms by
        (default: the count statistic's own class weights)."""
        vocab = stats.vocabulary
        # Statistics a stream grows may select no term yet (a classifier's fit refuses that;
        # partial_fit warns and predicts the priors until a term qualifies).
        vec = clone(self.vectorizer).fit_stats(vocab, allow_empty=True)
        block, n_terms = stats.keyed.block, stats.keyed.n_features
        # The terms as strings only where a search among them needs them: a vocabulary
        # selected from lazy terms (the compiled scanner's) stays lazy.
        same = stats.shares_terms() or (
            n_terms == len(vocab) and np.array_equal(stats.keyed.terms, vocab.terms)
        )
        index = vec.selection()
        found = None  # where the vocabulary's terms (columns) sit among the counted ones
        if same and index is not None:  # known from the selection: no string search
            selected = block if len(index) == n_terms else block.take_columns(index)
        else:
            index, found = find_sorted(stats.keyed.terms, vec.terms_)
            selected = block.take_columns(index, found)
        if self.useful_terms is not None and vec.n_terms_:
            columns = vec.terms_
            # Vorontsov's usefulness: keep the terms whose class they point to is surest.
            if class_count is None:
                class_count = next(w for w in selected.weights() if w.ndim == 1)
            useful = usefulness_of(selected.column_weight(), class_count)
            keep = top_useful(useful, k=self.useful_terms, threshold=None)
            vec = clone(vec).set_params(vocabulary=columns[keep].tolist())
            vec = vec.fit_stats(vocab)
            selected = selected.take_columns(keep)
            index, found = index[keep], None if found is None else found[keep]
        if vec.oov_token is not None:  # the pool of every term the vocabulary leaves out
            left_out = np.ones(n_terms, dtype=bool)
            left_out[index if found is None else index[found]] = False
            selected = selected.join_columns(block.pooled(where=left_out))
        return vec, selected

    def log_prob(self, params: DocumentsParams, X: Any) -> np.ndarray:
        return self.count.log_prob(params.count, self._columns(params.vectorizer, X))

    def log_prob_relative(self, params: DocumentsParams, X: Any) -> np.ndarray:
        return self.count.log_prob_relative(params.count, self._columns(params.vectorizer, X))

    def linear_form(self, params: DocumentsParams) -> tuple[np.ndarray, np.ndarray]:
        return self.count.linear_form(params.count)

    def discriminant(self, params: DocumentsParams) -> tuple[np.ndarray, np.ndarray]:
        return self.count.discriminant(params.count)

    def check_usable(
        self, params: DocumentsParams, classes: np.ndarray, names: Sequence[str]
    ) -> None:
        # names made only when a message needs one (every prediction checks)
        self.count.check_usable(params.count, classes, FeatureNames(params.columns.n_features))

    def design(self, params: DocumentsParams, X: Any) -> Any:
        return self.count.design(params.count, self._columns(params.vectorizer, X))

    def column_names(self, params: DocumentsParams, names: Sequence[str]) -> list[str]:
        terms = [str(t) for t in params.vectorizer.get_feature_names_out()]
        return self.count.column_names(params.count, terms)
