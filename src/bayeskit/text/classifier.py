"""TextClassifier: raw documents in, labels and probabilities out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._all_or_nothing import unchanged_on_error
from .._base import GenerativeClassifier
from .._labels import mean_accuracy
from .._params import ClassifierMixin, ParamNamesOnce, clone
from .._params import ParamNamesOnce as BaseEstimator
from ..contract import Contract, contract_of, declares
from ..errors import InputTypeError, NotFittedError, ParameterError
from ..inspection import (
    Explanation,
    explain,
    feature_usefulness,
    top_features,
)
from ..naive_bayes import ComplementNB, MultinomialNB
from ..stats import Summary, keyed_block, keyed_summary
from ._document_stats import DocumentStats
from ._documents import DocumentsFamily
from .analyze import DEFAULT_TOKEN_PATTERN
from .capped import add_terms
from .vectorize import TextVectorizer, stats_of
from .vocabulary import VocabularyStats

#: What ``TextClassifier(vectorizer=None, model=None)`` stands for; chosen by cross-validation
#: on training data only (benchmarks/choose_defaults.py, benchmarks/accuracy.md).
#: Raw e-mails (and news posts) read as e-mails, header tokens and the decoded body's word
#: 1-2-grams, the subject line read as the text's first line too, other texts as word
#: 1-2-grams (one-character words kept: analyzer="auto"); 1 + ln tf, a 2-gram weighted 0.7 and
#: a ``subject:`` token 1.5, each document scaled to unit length (per-document weights: the
#: statistics still add, partial_fit grows the vocabulary), and ComplementNB(α=0.01) with the
#: corpus prior tempered by γ = 0.5 (a class's complement falls back on how common a term is,
#: ``corpus_power``). The term weights and the subject line were chosen by a second search on
#: the same folds (benchmarks/accuracy.md, "Term weights").
DEFAULT_VECTORIZER: dict[str, Any] = {
    "analyzer": "auto",
    "ngram_range": (1, 2),
    "token_pattern": r"(?u)\b\w+\b",
    "output": "tfidf",
    "sublinear_tf": True,
    "use_idf": False,
    "norm": "l2",
    "subject_in_text": True,
    "ngram_weights": (1.0, 0.7),
    "subject_weight": 1.5,
}
DEFAULT_MODEL: tuple[type, dict[str, Any]] = (
    ComplementNB,
    {"alpha": 0.01, "smoothing": "corpus", "corpus_power": 0.5},
)


class TextClassifier(ClassifierMixin, ParamNamesOnce):
    """A Naive Bayes text classifier: a :class:`TextVectorizer` and a count model in one
    estimator that takes raw documents.

    With ``"counts"`` or ``"binary"`` output its statistics are kept per *term*, so
    ``partial_fit`` grows the vocabulary, two classifiers merge exactly (``a + b``), and
    ``unlearn`` removes documents; ``min_df``, ``max_df``, ``max_features`` and the
    out-of-vocabulary column are applied to the totals when the model is used. With
    ``"tfidf"`` or ``"hashed"`` output the vectorizer is fitted by the first ``fit`` and kept
    (idf depends on the whole corpus); ``partial_fit`` then adds documents over that
    vocabulary. On a cluster (:func:`bayeskit.dask.fit`) such a model takes two passes over
    the data: the vocabulary statistics of every document first, then the counts under the
    vectorizer they give.

    Parameters
    ----------
    vectorizer : TextVectorizer, optional
        Default (chosen by cross-validation on training data, benchmarks/accuracy.md): raw
        e-mails read as e-mails (header and URL tokens, the decoded body's word 1-2-grams, the
        subject line read as the body's first line too), other texts as word 1-2-grams of
        ``\\b\\w+\\b`` tokens, weighted ``1 + ln tf`` (a 2-gram 0.7 of that, a ``subject:``
        token 1.5 times) and scaled to unit length per document (``TextVectorizer(
        analyzer="auto", ngram_range=(1, 2), token_pattern=r"(?u)\\b\\w+\\b",
        output="tfidf", sublinear_tf=True, use_idf=False, subject_in_text=True,
        ngram_weights=(1.0, 0.7), subject_weight=1.5)``). :meth:`sklearn_defaults` gives
        scikit-learn's ``CountVectorizer()`` + ``MultinomialNB()`` exactly.
    model : a count model, optional
        Any model that declares it reads counts (``input="counts"`` in
        :mod:`bayeskit.contract`): MultinomialNB, ComplementNB, BernoulliNB, PoissonNB,
        BinomialNB or one of your own; its statistic is kept per term
        (:class:`~bayeskit.stats.TermKeyed`). Default ``ComplementNB(alpha=0.01,
        smoothing="corpus", corpus_power=0.5)``: the Dirichlet prior of each complement
        centred on the pooled counts raised to the power 0.5 (see
        :class:`~bayeskit.MultinomialNB`).
    useful_terms : int, optional
        Keep only the ``useful_terms`` most useful terms, by ``max_y p(y|term)`` (Vorontsov;
        drops stop words and words every class uses alike). Chosen from the statistics each
        time they change, so it stays exact under ``partial_fit`` and merging.

    Attributes
    ----------
    classes_, vectorizer_ (the fitted vectorizer), model_ (the fitted count model),
    stats_ (the term-keyed Summary, additive mode: one TermKeyed block of the count model's
    statistic), vocabulary_stats_ (VocabularyStats)

    Examples
    --------
    >>> from bayeskit.text import TextClassifier
    >>> clf = TextClassifier().fit(
    ...     ["win cash now", "free cash prize", "lunch at noon", "see you at lunch"],
    ...     ["spam", "spam", "ham", "ham"])
    >>> clf.predict(["cash prize", "lunch tomorrow"])
    array(['spam', 'ham'], dtype='<U4')
    >>> clf.partial_fit(["meeting moved to noon"], ["ham"]).predict(["meeting"])
    array(['ham'], dtype='<U4')
    """

    #: Documents in, statistics per term that add (:mod:`bayeskit.contract`); the model
    #: service may teach it single documents.
    contract: ClassVar[Contract] = Contract(input="documents", state="text", served_learnable=True)

    def __init__(
        self,
        *,
        vectorizer: TextVectorizer | None = None,
        model: Any = None,
        useful_terms: int | None = None,
    ):
        self.vectorizer = vectorizer
        self.model = model
        self.useful_terms = useful_terms

    @classmethod
    def default_vectorizer(cls) -> TextVectorizer:
        """What ``vectorizer=None`` stands for (chosen by cross-validation on training data,
        see benchmarks/accuracy.md)."""
        return TextVectorizer(**DEFAULT_VECTORIZER)

    @classmethod
    def default_model(cls) -> Any:
        """What ``model=None`` stands for (see :meth:`default_vectorizer`)."""
        return DEFAULT_MODEL[0](**DEFAULT_MODEL[1])

    @classmethod
    def sklearn_defaults(cls, **kwargs: Any) -> Any:
        """scikit-learn's text pipeline exactly, ``CountVectorizer()`` + ``MultinomialNB()``:
        lowercased runs of two or more word characters, their counts, α = 1; the same
        vocabulary and probabilities as scikit-learn's (to 1e-10). For parity with results
        obtained with scikit-learn; the defaults (``TextClassifier()``) are more accurate.
        ``kwargs`` go to the class (e.g. a SpamFilter's cutoffs).

        Examples
        --------
        >>> TextClassifier.sklearn_defaults()
        TextClassifier(model=MultinomialNB(), vectorizer=TextVectorizer())
        """
        return cls(vectorizer=TextVectorizer(), model=MultinomialNB(), **kwargs)

    @classmethod
    def twcnb(
        cls,
        *,
        alpha: float = 0.1,
        ngram_range: tuple[int, int] = (1, 1),
        min_df: float = 1,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        **kwargs: Any,
    ) -> Any:
        """Rennie et al.'s (2003) transformed weight-normalised complement NB: term frequency
        ``log(1 + tf)``, idf, length (L2) normalisation, then complement NB with weight
        normalisation. ``kwargs`` go to the class (e.g. a SpamFilter's cutoffs).

        On 20 Newsgroups the project's best setting is ``ngram_range=(1, 2), min_df=2`` with
        a token pattern that keeps addresses and host names whole (the user guide's text page).
        """
        vectorizer = TextVectorizer(
            output="tfidf",
            sublinear_tf=True,
            norm="l2",
            ngram_range=ngram_range,
            min_df=min_df,
            token_pattern=token_pattern,
        )
        return cls(vectorizer=vectorizer, model=ComplementNB(alpha=alpha, norm=True), **kwargs)

    # ------------------------------------------------------------------ set-up
    def _prototypes(self) -> tuple[TextVectorizer, GenerativeClassifier]:
        vec = self.default_vectorizer() if self.vectorizer is None else self.vectorizer
        model = self.default_model() if self.model is None else self.model
        if not isinstance(vec, TextVectorizer):
            raise ParameterError(f"vectorizer must be a bayeskit TextVectorizer, not {vec!r:.80}")
        if not declares(model) or contract_of(model).input != "counts":
            raise ParameterError(
                "model must be a bayeskit count model (one that declares input='counts': "
                f"MultinomialNB, ComplementNB, BernoulliNB, PoissonNB, …), not {model!r:.80}"
            )
        vec.check_params()
        useful = self.useful_terms
        if useful is not None and (
            isinstance(useful, bool) or not isinstance(useful, (int, np.integer)) or useful < 1
        ):
            raise ParameterError(f"useful_terms must be a positive int or None; got {useful!r}")
        if useful is not None and not self._additive(vec):
            raise ParameterError(
                "useful_terms selects from term statistics: it needs per-document weights "
                "(output='counts', 'binary' or 'tfidf' with use_idf=False) and no fixed "
                "vocabulary"
            )
        if self._additive(vec) and vec.oov_token is not None:
            contract = contract_of(model)
            if not contract.sums_columns:
                raise ParameterError(
                    f"oov_token with {type(model).__name__} needs a fixed vocabulary "
                    "(output='tfidf' or 'hashed', or a vocabulary): it declares "
                    "sums_columns=False, the statistic of 'any unknown word' is not the sum of "
                    "the words' statistics"
                )
        return vec, model

    def prototypes(self) -> tuple[TextVectorizer, GenerativeClassifier]:
        """The vectorizer and count model the settings stand for (the defaults where they
        are None), unfitted and checked: what a fit clones. Raises
        :class:`~bayeskit.errors.ParameterError` naming a setting that is wrong."""
        return self._prototypes()

    def keeps_term_statistics(self) -> bool:
        """Whether the statistics are kept per term (counts or presence, or tf-idf without
        idf, and no given vocabulary): they add, so the model learns incrementally, merges,
        unlearns and is fitted from parts in one round; else the vectorizer is fitted once
        on the whole corpus and the count model learns over its columns."""
        return self._additive(self._prototypes()[0])

    def term_statistics(
        self, X: Any, y: Any, sample_weight: Any = None, *, classes: Any = None
    ) -> tuple[Summary, VocabularyStats]:
        """The term-keyed statistics and vocabulary statistics of documents, without changing
        the model: what :meth:`partial_fit` adds and :meth:`unlearn` subtracts. Those of
        different batches add; :meth:`fit_summary` turns a total into a fitted model (the
        per-term mode, :meth:`keeps_term_statistics`)."""
        vec, model = self._prototypes()
        return self._batch(vec, model, _as_list(X), y, sample_weight, classes)

    def fit_summary(self, summary: Summary, vocabulary_stats: VocabularyStats) -> TextClassifier:
        """Set the model from term-keyed statistics and vocabulary statistics (a sum of
        :meth:`term_statistics`): the vocabulary is selected and the count model finalized
        now, so a refusal (no term left, a class without data) comes here and leaves the
        model as it was.

        Returns
        -------
        self
        """
        return self._adopt(summary, vocabulary_stats)

    def fitted_parts(self) -> tuple[TextVectorizer, GenerativeClassifier]:
        """The fitted vectorizer and count model the current statistics give (computed once
        per change of the statistics): the model's documents are ``vectorizer.transform``'s
        rows and its scores the count model's. Raises
        :class:`~bayeskit.errors.NotFittedError` before a fit."""
        return self._fitted()

    def check_fitted(self) -> TextClassifier:
        """Refuse an unfitted model (:class:`~bayeskit.errors.NotFittedError`).

        Returns
        -------
        self
        """
        self._check_fitted()
        return self

    def check_params(self) -> TextClassifier:
        """Check the hyperparameters, the vectorizer's and the model's types included; raises
        :class:`~bayeskit.errors.ParameterError` naming the one that is wrong. Fitting calls
        it, and so does loading a model file, before anything is built."""
        self._prototypes()
        return self

    def set_params(self, **params: Any) -> TextClassifier:
        """Set parameters; ``model__alpha=…`` and ``vectorizer__min_df=…`` also work while
        ``model`` / ``vectorizer`` are left at their default (None), as in a grid search."""
        defaults = {"vectorizer": self.default_vectorizer, "model": self.default_model}
        for key in params:
            head, nested, _ = key.partition("__")
            if nested and head in defaults and getattr(self, head) is None and head not in params:
                setattr(self, head, defaults[head]())
        self.__dict__.pop("_cache", None)
        return super().set_params(**params)

    @staticmethod
    def _additive(vec: TextVectorizer) -> bool:
        """Whether the statistics are kept per term: a free vocabulary, and per-document
        weights (counts, presence, or tf-idf without idf: log-tf and length normalisation
        depend on the document alone; an OOV column would be weighted apart from the terms
        it sums, so it is left to the fixed mode)."""
        if vec.vocabulary is not None:
            return False
        if vec.output == "tfidf":
            return not vec.use_idf and vec.oov_token is None
        return vec.output in ("counts", "binary")

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> TextClassifier:
        """Fit on raw documents ``X`` (str or bytes) and labels ``y``."""
        with unchanged_on_error(self):  # a refused fit keeps the model fitted before
            for attr in ("stats_", "vocabulary_stats_", "vectorizer_", "model_", "_cache"):
                self.__dict__.pop(attr, None)
            return self.partial_fit(X, y, sample_weight=sample_weight)

    def partial_fit(
        self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None
    ) -> TextClassifier:
        """Add documents (and any new classes) to the model."""
        vec, model = self._prototypes()
        docs = _as_list(X)
        if not self._additive(vec):
            if "vectorizer_" not in self.__dict__:
                self.vectorizer_ = clone(vec)
                counts = self.vectorizer_.fit_transform(docs)
                self.model_ = clone(model).fit(counts, y, sample_weight=sample_weight)
            else:
                counts = self.vectorizer_.transform(docs)
                self.model_.partial_fit(counts, y, classes=classes, sample_weight=sample_weight)
            return self
        keyed, vocab = self._batch(vec, model, docs, y, sample_weight, classes)
        if "stats_" in self.__dict__:
            # one merge of the terms for both sums, which then share one terms array, so
            # _fitted selects the vocabulary by position (comparing every term would cost
            # more than the rest of learning one message)
            keyed, vocab = add_terms((self.stats_, self.vocabulary_stats_), (keyed, vocab))
        return self._adopt(keyed, vocab)

    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> TextClassifier:
        """Remove documents the classifier was trained on (additive mode)."""
        self._check_fitted()
        vec, model = self._prototypes()
        if not self._additive(vec):
            self.model_.unlearn(self.vectorizer_.transform(_as_list(X)), y, sample_weight)
            return self
        keyed, vocab = self._batch(vec, model, _as_list(X), y, sample_weight, None)
        return self._adopt(self.stats_ - keyed, self.vocabulary_stats_ - vocab)

    @classmethod
    def _batch(
        cls,
        vec: TextVectorizer,
        model: GenerativeClassifier,
        docs: list[Any],
        y: Any,
        sample_weight: Any,
        classes: Any,
    ) -> tuple[Summary, VocabularyStats]:
        """The term-keyed statistics of some documents: what ``partial_fit`` adds and
        ``unlearn`` subtracts. No vocabulary is selected and nothing is finalized here."""
        batch_vec = clone(vec)
        terms, counts = batch_vec.count(docs)
        return cls._batch_of(batch_vec, model, terms, counts, y, sample_weight, classes)

    @staticmethod
    def _batch_of(
        batch_vec: TextVectorizer,
        model: GenerativeClassifier,
        terms: np.ndarray,
        counts: sp.csr_matrix,
        y: Any,
        sample_weight: Any,
        classes: Any,
    ) -> tuple[Summary, VocabularyStats]:
        """:meth:`_batch` of documents already counted (``batch_vec.count``)."""
        n_docs = counts.shape[0]
        # The count model's own summarize, on the batch's terms (none: a column of zeros
        # stands for them, dropped below, so only the class counts change).
        no_terms = sp.csr_matrix((n_docs, 1))
        weighed = batch_vec.weigh(counts, terms=terms) if len(terms) else no_terms
        summary = clone(model).summarize(weighed, y, sample_weight, classes=classes)
        return keyed_summary(summary, terms), stats_of(terms, counts)

    def _adopt(self, stats: Summary, vocab: VocabularyStats) -> TextClassifier:
        with unchanged_on_error(self):  # a refused call leaves the model as it was
            self.stats_, self.vocabulary_stats_ = stats, vocab
            self.__dict__.pop("_cache", None)
            self._fitted()  # select the vocabulary and finalize now, so errors surface here
        return self

    def _fitted(self) -> tuple[TextVectorizer, GenerativeClassifier]:
        """The vectorizer and count model for the current statistics (cached)."""
        if "vectorizer_" in self.__dict__ and "stats_" not in self.__dict__:
            return self.vectorizer_, self.model_
        self._check_fitted()
        cache = self.__dict__.get("_cache")
        if cache is not None and cache[0] is self.stats_:
            return cache[1]
        vec, model = self._prototypes()
        # the documents block's own selection (min_df, max_features, useful_terms, the OOV
        # column), on the model's class counts
        vec, selected = self._block(vec, model).select(
            DocumentStats(keyed_block(self.stats_), self.vocabulary_stats_),
            self.stats_.class_count,
        )
        fitted = clone(model).fit_summary(
            Summary(self.stats_.classes, self.stats_.class_count, (selected,))
        )
        self._cache = (self.stats_, (vec, fitted))
        return vec, fitted

    def _block(self, vec: TextVectorizer, model: GenerativeClassifier) -> DocumentsFamily:
        """The documents block of these settings: the vectorizer and the count model's
        family (:mod:`bayeskit.text._documents`)."""
        (count,) = model.configured_families()
        return DocumentsFamily(vec, count, useful_terms=self.useful_terms)

    def _check_fitted(self) -> None:
        if "stats_" not in self.__dict__ and "vectorizer_" not in self.__dict__:
            raise NotFittedError(
                "This TextClassifier instance is not fitted yet. Call 'fit' first."
            )

    def __sklearn_is_fitted__(self) -> bool:
        return "stats_" in self.__dict__ or "vectorizer_" in self.__dict__

    # ------------------------------------------------------------------ prediction
    @property
    def classes_(self) -> np.ndarray:
        return self._fitted()[1].classes_

    @property
    def class_count_(self) -> np.ndarray:
        """Weighted number of training documents of each class."""
        return self._fitted()[1].class_count_

    @property
    def class_log_prior_(self) -> np.ndarray:
        """Log prior probability of each class."""
        return self._fitted()[1].class_log_prior_

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The terms the model currently scores (after ``min_df``, ``max_features`` and
        ``useful_terms``), in the order of :meth:`transform`'s columns."""
        return self._fitted()[0].get_feature_names_out()

    def transform(self, X: Any) -> sp.csr_matrix:
        """The documents as the model sees them (CSR over the vocabulary)."""
        return self._fitted()[0].transform(_as_list(X))

    def _on_model(self, method: str, X: Any) -> np.ndarray:
        vec, model = self._fitted()
        return getattr(model, method)(vec.transform(_as_list(X)))

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """``log P(y) + log p(x|y)`` of each document and class."""
        return self._on_model("predict_joint_log_proba", X)

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``log P(y|x)`` of each document and class."""
        return self._on_model("predict_log_proba", X)

    def predict_proba(self, X: Any) -> np.ndarray:
        """``P(y|x)`` of each document and class."""
        return self._on_model("predict_proba", X)

    def predict(self, X: Any) -> np.ndarray:
        """The model's Bayes decision for each document."""
        return self._on_model("predict", X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of :meth:`predict` on documents ``X`` against the true labels ``y``,
        checked as every model's ``score`` checks them (one label per document, of the
        classes' type)."""
        return mean_accuracy(self, X, y, sample_weight)

    # ------------------------------------------------------------------ understanding
    def explain(self, text: Any, *, label: Any = None, versus: Any = None) -> Explanation:
        """Each term's contribution to the log-odds of the decision on one document."""
        vec, model = self._fitted()
        row = vec.transform([text])
        names: Sequence[str]
        if vec.output == "hashed":  # a column is named by the document's terms counted there
            names = _HashedNames(int(vec.n_features), vec.column_terms(text))
        else:
            names = vec.get_feature_names_out().tolist()
        return explain(model, row, feature_names=names, label=label, versus=versus)

    def linear_form(self) -> tuple[np.ndarray, np.ndarray]:
        """The count model as a linear classifier over :meth:`transform`'s columns:
        ``predict_joint_log_proba(X) == transform(X) @ W.T + b`` (McCallum & Nigam 1998). ``W`` has
        shape (n_classes, n_terms), ``b`` (n_classes,)."""
        return self._fitted()[1].linear_form()

    def top_terms(self, n: int = 10) -> dict[Any, list[tuple[str, float]]]:
        """The ``n`` terms that most favour each class."""
        vec, model = self._fitted()
        return top_features(model, n, feature_names=vec.get_feature_names_out().tolist())

    def term_usefulness(self, *, alpha: float = 1.0, prior: str = "uniform") -> dict[str, float]:
        """``max_y p(y|term)`` of every vocabulary term (Vorontsov), most useful first."""
        vec, model = self._fitted()
        useful = feature_usefulness(model, alpha=alpha, prior=prior)
        names = vec.get_feature_names_out().tolist()
        order = np.argsort(-useful, kind="stable")
        return {names[j]: float(useful[j]) for j in order}

    def __add__(self, other: object) -> TextClassifier:
        if not isinstance(other, TextClassifier):
            return NotImplemented
        for model in (self, other):
            model.check_fitted()
            if "stats_" not in model.__dict__:
                raise ParameterError(
                    "only classifiers with 'counts' or 'binary' output merge exactly"
                )
        mine, theirs = _settings(self), _settings(other)
        if mine != theirs:
            differ = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
            raise ParameterError(f"cannot merge text classifiers with different settings: {differ}")
        out = clone(self)
        return out.fit_summary(
            self.stats_ + other.stats_, self.vocabulary_stats_ + other.vocabulary_stats_
        )

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


class _HashedNames(Sequence[str]):
    """Names of the hashed columns for one document: the terms it counts in a column."""

    def __init__(self, width: int, terms: dict[int, list[str]]):
        self._width, self._terms = width, terms

    def __len__(self) -> int:
        return self._width

    def __getitem__(self, j: Any) -> Any:
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(self._width))]
        j = range(self._width)[j]
        return " | ".join(self._terms[j]) if j in self._terms else f"hash_{j}"


def _settings(estimator: BaseEstimator) -> dict[str, Any]:
    """Parameters by value: nested estimators flattened, sets sorted, arrays as lists."""

    def plain(value: Any) -> Any:
        if isinstance(value, (set, frozenset)):
            return sorted(map(repr, value))
        if isinstance(value, np.ndarray):
            return value.tolist()
        if isinstance(value, BaseEstimator):
            return (type(value).__name__, _settings(value))
        return value

    return {k: plain(v) for k, v in estimator.get_params(deep=False).items()}


def _as_list(X: Any) -> list[Any]:
    if isinstance(X, (str, bytes)):
        raise ParameterError(
            "expected a list of documents, got a single "
            f"{type(X).__name__}; wrap it in a list: [text]"
        )
    try:
        return list(X)
    except TypeError:  # None, a number, a 0-d array: nothing to iterate over
        raise InputTypeError(
            "expected an iterable of documents (a list of str or bytes), got "
            f"{type(X).__name__} ({X!r:.60})"
        ) from None
