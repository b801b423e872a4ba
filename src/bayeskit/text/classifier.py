"""TextClassifier: raw documents in, labels and probabilities out.

A text classifier is a generative classifier (:mod:`bayeskit._base`) with one feature block,
the documents: a vectorizer plus the count family of any count model
(:mod:`bayeskit.text._documents`). ``fit``, ``partial_fit``, ``unlearn``, merging (``+``),
``summarize`` / ``fit_summary`` and every prediction are the template's own; the class prior
and the decision are the count model's settings (``fit_prior``, ``class_prior``,
``prior_alpha``, ``class_weight``, ``loss``), and so is whether the scores include the prior
(ComplementNB's do not).
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from .._all_or_nothing import unchanged_on_error
from .._base import GenerativeClassifier, class_totals
from .._labels import class_weights
from .._params import clone, fitted_again, unknown_setting
from ..contract import Contract, contract_of, declares
from ..errors import (
    EmptyVocabularyWarning,
    InputTypeError,
    ModelFileError,
    ParameterError,
    UnknownSettingError,
)
from ..families import Family
from ..inspection import (
    Explanation,
    explain,
    feature_usefulness,
    top_features,
)
from ..naive_bayes import ComplementNB, MultinomialNB
from ..stats import Summary
from ._document_stats import DocumentStats
from ._documents import DocumentsFamily, as_documents, document_list, keeps_term_statistics
from .analyze import DEFAULT_TOKEN_PATTERN
from .vectorize import TextVectorizer
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


#: The settings a text model's statistics are learned under: the vectorizer, how it reads
#: and weighs the tokens (its document-frequency limits and term count apply at prediction).
LEARNED_TOKENS = (
    "vectorizer",
    *(
        f"vectorizer__{name}"
        for name in (
            "analyzer",
            "encoding",
            "lowercase",
            "n_features",
            "ngram_range",
            "ngram_weights",
            "norm",
            "oov_token",
            "output",
            "smooth_idf",
            "stop_words",
            "subject_in_text",
            "subject_weight",
            "sublinear_tf",
            "token_pattern",
            "use_idf",
            "vocabulary",
        )
    ),
)


class TextClassifier(GenerativeClassifier):
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
    classes_, stats_ (the statistics, one :class:`~bayeskit.stats.Summary` with one block:
    per term, a :class:`~bayeskit.text._document_stats.DocumentStats` holding the count
    model's statistic of every term and the vocabulary statistics; with a fixed vocabulary,
    the count model's statistic of the vectorizer's columns), vocabulary_stats_ (read-only,
    per term: the vocabulary statistics), vectorizer_ (with a fixed vocabulary: the
    vectorizer the first fit fitted), model_ (read-only: the fitted count model)

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

    #: Documents in, statistics that add (per term, or over a fixed vocabulary's columns)
    #: (:mod:`bayeskit.contract`); the model service may teach it single documents.
    contract: ClassVar[Contract] = Contract(
        input="documents", served_learnable=True, refit_settings=LEARNED_TOKENS
    )

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
    def setting_hint(cls, name: str, value: Any) -> str:
        """A setting of the words given to the classifier (``min_df=2``) goes to its
        vectorizer: the refusal says how."""
        if name not in TextVectorizer().get_params(deep=False):
            return ""
        return (
            f"; {name} is a setting of the vectorizer: "
            f"{cls.__name__}(vectorizer=TextVectorizer({name}={value!r}), model=...)"
        )

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
        _check_class_settings(cls, "sklearn_defaults", kwargs)
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
        _check_class_settings(cls, "twcnb", kwargs)
        vectorizer = TextVectorizer(
            output="tfidf",
            sublinear_tf=True,
            norm="l2",
            ngram_range=ngram_range,
            min_df=min_df,
            token_pattern=token_pattern,
        )
        return cls(vectorizer=vectorizer, model=ComplementNB(alpha=alpha, norm=True), **kwargs)

    # ------------------------------------------------------------------ settings
    def prototypes(self) -> tuple[TextVectorizer, GenerativeClassifier]:
        """The vectorizer and count model the settings stand for (the defaults where they
        are None), unfitted and checked: what a fit clones. Raises
        :class:`~bayeskit.errors.ParameterError` naming a setting that is wrong. Made and
        checked once per change of the settings (every prediction reads the count model's
        prior settings)."""
        key = (self.vectorizer, self.model, self.useful_terms)
        cached = self.__dict__.get("_settings_cache")
        if cached is not None and all(a is b for a, b in zip(cached[0], key, strict=True)):
            return cached[1]
        made = self._checked_prototypes()
        self._settings_cache = (key, made)
        return made

    def _checked_prototypes(self) -> tuple[TextVectorizer, GenerativeClassifier]:
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
        if useful is not None and not keeps_term_statistics(vec):
            raise ParameterError(
                "useful_terms selects from term statistics: it needs per-document weights "
                "(output='counts', 'binary' or 'tfidf' with use_idf=False) and no fixed "
                "vocabulary"
            )
        if (
            keeps_term_statistics(vec)
            and vec.oov_token is not None
            and not contract_of(model).sums_columns
        ):
            raise ParameterError(
                f"oov_token with {type(model).__name__} needs a fixed vocabulary "
                "(output='tfidf' or 'hashed', or a vocabulary): it declares "
                "sums_columns=False, the statistic of 'any unknown word' is not the sum of "
                "the words' statistics"
            )
        return vec, model

    def keeps_term_statistics(self) -> bool:
        """Whether the statistics are kept per term (counts or presence, or tf-idf without
        idf, and no given vocabulary): they add, so the model learns incrementally, merges,
        unlearns and is fitted from parts in one round; else the vectorizer is fitted once
        on the whole corpus and the count model learns over its columns."""
        return keeps_term_statistics(self.prototypes()[0])

    def check_fitted(self) -> TextClassifier:
        """Refuse an unfitted model (:class:`~bayeskit.errors.NotFittedError`).

        Returns
        -------
        self
        """
        self._fitted_summary()
        return self

    def check_params(self) -> TextClassifier:
        """Check the hyperparameters, the vectorizer's and the model's types included; raises
        :class:`~bayeskit.errors.ParameterError` naming the one that is wrong. Fitting calls
        it, and so does loading a model file, before anything is built."""
        self._checked_prototypes()
        return self

    def set_params(self, **params: Any) -> TextClassifier:
        """Set parameters; ``model__alpha=…`` and ``vectorizer__min_df=…`` also work while
        ``model`` / ``vectorizer`` are left at their default (None), as in a grid search. On
        a fitted model they take effect at the next prediction."""
        defaults = {"vectorizer": self.default_vectorizer, "model": self.default_model}
        made = []
        for key in params:
            head, nested, _ = key.partition("__")
            if nested and head in defaults and getattr(self, head) is None and head not in params:
                setattr(self, head, defaults[head]())
                made.append(head)
        self.__dict__.pop("_settings_cache", None)
        try:
            super().set_params(**params)
        except BaseException:
            for head in made:  # refused: the parts left at None stay so
                setattr(self, head, None)
            raise
        return self

    def _count_model(self) -> GenerativeClassifier:
        return self.prototypes()[1]

    # the class prior and the decision rule are the count model's settings
    @property
    def fit_prior(self) -> bool:  # type: ignore[override]
        return bool(self._count_model().fit_prior)

    @property
    def class_prior(self) -> Any:
        return self._count_model().class_prior

    @property
    def prior_alpha(self) -> float:  # type: ignore[override]
        return float(self._count_model().prior_alpha)

    @property
    def class_weight(self) -> Any:
        return self._count_model().class_weight

    @property
    def loss(self) -> Any:
        return self._count_model().loss

    def scores_include_prior(self) -> bool:
        """Whether the scores include ``log P(y)``: the count model's declaration
        (ComplementNB's do not, after Rennie et al. 2003)."""
        return contract_of(self._count_model()).prior_in_scores

    # ------------------------------------------------------------------ template hooks
    def _families(self) -> list[Family]:
        fitted = self.__dict__.get("vectorizer_")
        (count,) = self._count_model().configured_families()
        if fitted is not None:
            return [DocumentsFamily(fitted, count, fitted=True)]
        return [self._per_term_family()]

    def _per_term_family(self) -> DocumentsFamily:
        vec, model = self.prototypes()
        (count,) = model.configured_families()
        return DocumentsFamily(vec, count, useful_terms=self.useful_terms)

    def _check_X(self, X: Any, *, reset: bool) -> Any:
        docs = as_documents(X)
        if reset:
            self.__dict__.pop("vectorizer_", None)
            vec = self.prototypes()[0]
            if not keeps_term_statistics(vec):
                # idf (or hashed columns, or a given vocabulary): fitted once, on this corpus
                fixed = clone(vec)
                self.vectorizer_ = fixed.fit([]) if fixed.output == "hashed" else fixed.fit(docs)
        return docs

    def set_layout_state(self, state: Any) -> None:
        """The layout is the fitted vectorizer's (:meth:`layout_state`), not a state of its
        own: one read back from a model file must be the vectorizer's, or None where the
        settings fix the columns."""
        if state is None:
            return
        if "vectorizer_" in self.__dict__ and state != self.layout_state():
            raise ModelFileError(
                "the file's column layout ('state') is not its vectorizer's: not a file save wrote"
            )
        if not (isinstance(state, dict) and set(state) == {"n_columns", "sha256"}):
            raise ModelFileError(
                "a TextClassifier's column layout ('state') holds n_columns and sha256 only"
            )

    def layout_state(self) -> dict[str, Any] | None:
        """The columns the first fit chose, when the settings do not fix them (idf weights,
        or a vocabulary chosen from the corpus): their number and a SHA-256 digest of the
        terms and idf weights, made once per fit (a hashed vectorizer's million columns
        are not listed on every comparison of two parts). None when the settings fix the
        columns (hashed output or a given vocabulary, without idf) or per term."""
        fitted = self.__dict__.get("vectorizer_")
        if fitted is None:
            return None
        cached = self.__dict__.get("_layout_cache")
        if cached is not None and cached[0] is fitted:
            return None if cached[1] is None else dict(cached[1])
        idf = fitted.__dict__.get("idf_")
        if idf is None and (fitted.output == "hashed" or fitted.vocabulary is not None):
            layout = None
        else:
            digest = hashlib.sha256()
            columns = fitted.get_feature_names_out()
            for term in columns.tolist():
                digest.update(str(term).encode("utf-8", "surrogatepass") + b"\0")
            if idf is not None:
                digest.update(np.ascontiguousarray(idf, dtype=np.float64).tobytes())
            layout = {"n_columns": len(columns), "sha256": digest.hexdigest()}
        self._layout_cache = (fitted, layout)
        return None if layout is None else dict(layout)

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> TextClassifier:
        """Fit on raw documents ``X`` (str or bytes) and labels ``y``: a first
        :meth:`partial_fit`. ``sample_weight`` weighs each document's counts; a document of
        weight 0 is as if left out (its terms not seen, the document not counted), as
        scikit-learn's bootstraps leave out the rows they give weight 0."""
        with unchanged_on_error(self):  # a refused fit keeps the model fitted before
            for attr in ("stats_", "vectorizer_", "_cache", "_declared_classes"):
                self.__dict__.pop(attr, None)
            fitted_again(self)  # a first fit: no statistics wait for a setting
            with warnings.catch_warnings():  # an empty vocabulary is refused below
                warnings.simplefilter("ignore", EmptyVocabularyWarning)
                self.partial_fit(X, y, sample_weight=sample_weight)
            self.check_vocabulary()
            return self

    def _check_fit(self) -> None:
        super()._check_fit()
        self.check_vocabulary()

    def check_vocabulary(self) -> TextClassifier:
        """Refuse a model whose documents meet the vocabulary's rules in no term, as ``fit``
        refuses it (and scikit-learn's vectorizers do); ``partial_fit`` warns instead
        (:class:`~bayeskit.errors.EmptyVocabularyWarning`): a stream goes on.

        Returns
        -------
        self

        Raises
        ------
        DataError
            Naming the rules (``min_df``, ``max_df``, ``max_features``) and the documents.
        """
        vec = self._vectorizer_of_fit()
        if vec.output != "hashed" and vec.vocabulary is None and not vec.n_terms_:
            vec.stats_.select_index(  # raises the DataError naming the rules
                min_df=vec.min_df, max_df=vec.max_df, max_features=vec.max_features
            )
        return self

    def summarize(
        self, X: Any, y: Any, sample_weight: Any = None, *, classes: Any = None, part: bool = False
    ) -> Summary:
        """Statistics of documents, without changing the model's statistics (see
        :meth:`~bayeskit.GenerativeClassifier.summarize`): per term, those of any documents
        add; with a fixed vocabulary, a model that has not fitted its vectorizer yet fits it
        on ``X`` as a first fit does."""
        reset = "vectorizer_" not in self.__dict__
        return self._summarize(X, y, sample_weight, classes=classes, reset=reset, part=part)

    def summarize_counted(
        self,
        terms: np.ndarray,
        counts: Any,
        y: Any,
        sample_weight: Any = None,
        *,
        classes: Any = None,
    ) -> Summary:
        """:meth:`summarize` (per term) of documents already counted by the vectorizer's
        :meth:`~bayeskit.text.TextVectorizer.count` (sorted distinct ``terms``, canonical
        CSR ``counts``): a cross-validation counts a collection once for all its folds."""
        if not self.keeps_term_statistics():
            raise ParameterError(
                "documents already counted are summarized per term; this model's vectorizer "
                "(idf weighting, hashed output or a given vocabulary) keeps no term statistics"
            )
        labels, R = class_weights(y, sample_weight, counts.shape[0], classes)
        family = self._per_term_family()
        block = family.summarize_counted(clone(family.vectorizer), terms, counts, R)
        return Summary(labels, class_totals(R), (block,))

    def fit_summary(
        self, summary: Summary, *, parameters: Sequence[Any] | None = None
    ) -> TextClassifier:
        """Set the model from statistics (a sum of :meth:`summarize` results): the
        vocabulary is selected and the count model finalized now, so a refusal (no term
        left, a class without data) comes here and leaves the model as it was.
        ``parameters``: the block's parameters finalized already (see the template's
        :meth:`~bayeskit.GenerativeClassifier.fit_summary`).

        Returns
        -------
        self
        """
        if not isinstance(summary, Summary):
            raise ParameterError(
                f"fit_summary takes a bayeskit.stats.Summary, not {type(summary).__name__}"
            )
        with unchanged_on_error(self):
            return self._adopt(summary, parameters)

    # ------------------------------------------------------------------ fitted parts
    @property
    def vocabulary_stats_(self) -> VocabularyStats:
        """The vocabulary statistics of the documents learned (statistics kept per term)."""
        (block,) = self._fitted_summary().blocks
        if not isinstance(block, DocumentStats):
            raise AttributeError(
                "'vocabulary_stats_': this TextClassifier's vocabulary is fixed "
                "(vectorizer_), its statistics are the count model's over its columns"
            )
        return block.vocabulary

    @property
    def model_(self) -> GenerativeClassifier:
        """The fitted count model (over :meth:`transform`'s columns)."""
        return self.fitted_parts()[1]

    def fitted_parts(self) -> tuple[TextVectorizer, GenerativeClassifier]:
        """The fitted vectorizer and count model the current statistics give (computed once
        per change of the statistics or settings): the model's documents are
        ``vectorizer.transform``'s rows and its scores the count model's. Raises
        :class:`~bayeskit.errors.NotFittedError` before a fit."""
        fitted = self._fitted()
        cached = self.__dict__.get("_parts_cache")
        if cached is not None and cached[0] is fitted:
            return cached[1]
        (params,) = fitted.params
        summary = self._fitted_summary()
        # the count parameters the template finalized already: adopted, not made again
        model = clone(self._count_model()).fit_summary(
            Summary(summary.classes, summary.class_count, (params.columns,)),
            parameters=[params.count],
        )
        parts = (params.vectorizer, model)
        self._parts_cache = (fitted, parts)
        return parts

    def _vectorizer_of_fit(self) -> TextVectorizer:
        (params,) = self._fitted().params
        return params.vectorizer

    # ------------------------------------------------------------------ prediction
    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The terms the model currently scores (after ``min_df``, ``max_features`` and
        ``useful_terms``), in the order of :meth:`transform`'s columns."""
        return self._vectorizer_of_fit().get_feature_names_out()

    def transform(self, X: Any) -> sp.csr_matrix:
        """The documents as the model sees them (CSR over the vocabulary)."""
        return self._vectorizer_of_fit().transform(document_list(X))

    # ------------------------------------------------------------------ understanding
    def explain(self, text: Any, *, label: Any = None, versus: Any = None) -> Explanation:
        """Each term's contribution to the log-odds of the decision on one document."""
        vec, model = self.fitted_parts()
        if not isinstance(text, (str, bytes)) and hasattr(text, "__len__"):
            # (transform's refusal of a document that is not text asks for many of them)
            raise InputTypeError(
                f"explain takes one document (str or bytes), not a {type(text).__name__} of "
                f"{len(text)}; call it once per document, e.g. model.explain(texts[0])"
            )
        row = vec.transform([text])
        names: Sequence[str]
        if vec.output == "hashed":  # a column is named by the document's terms counted there
            names = _HashedNames(int(vec.n_features), vec.column_terms(text))
        else:
            names = _linear_names(model, vec.get_feature_names_out().tolist())
        return explain(model, row, feature_names=names, label=label, versus=versus)

    def linear_form(self, *, columns: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """The count model as a linear classifier over :meth:`transform`'s columns:
        ``predict_joint_log_proba(X) == design @ W.T + b`` (McCallum & Nigam 1998), the design
        being the count model's ``linear_design(transform(X))``. ``W`` has shape (n_classes,
        n_terms) — for a count family with more linear columns than terms (PoissonNB: a
        missing-value indicator per term and ``−Σ ln x!``), (n_classes, that many) — and
        ``b`` (n_classes,). ``columns`` (column numbers): only ``W[:, columns]``, which a model
        over a large vocabulary gives without making the whole ``W`` (20 classes × a million
        terms: 160 MB)."""
        return self.fitted_parts()[1].linear_form(columns=columns)

    def top_terms(self, n: int = 10) -> dict[Any, list[tuple[str, float]]]:
        """The ``n`` terms that most favour each class."""
        vec, model = self.fitted_parts()
        names = _linear_names(model, vec.get_feature_names_out().tolist())
        return top_features(model, n, feature_names=names)

    def term_usefulness(self, *, alpha: float = 1.0, prior: str = "uniform") -> dict[str, float]:
        """``max_y p(y|term)`` of every vocabulary term (Vorontsov), most useful first."""
        vec, model = self.fitted_parts()
        useful = feature_usefulness(model, alpha=alpha, prior=prior)
        names = vec.get_feature_names_out().tolist()
        order = np.argsort(-useful, kind="stable")
        return {names[j]: float(useful[j]) for j in order}

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


def _linear_names(model: GenerativeClassifier, terms: list[str]) -> Sequence[str]:
    """The count model's linear columns named by the vocabulary's terms, as its family names
    them: the terms themselves, with PoissonNB's missing-value indicators and ``−Σ ln x!``
    beside them."""
    ((family, params, _, _),) = model.fitted_blocks()
    return family.column_names(params, terms)


def _check_class_settings(cls: Any, maker: str, kwargs: dict[str, Any]) -> None:
    """Refuse a keyword of ``cls.maker(**kwargs)`` that is no setting of ``cls``, saying where
    a setting of the words goes (:meth:`TextClassifier.setting_hint`)."""
    accepted = [n for n in cls().get_params(deep=False) if n not in ("model", "vectorizer")]
    unknown = [name for name in kwargs if name not in accepted]
    if not unknown:
        return
    name = unknown[0]
    raise UnknownSettingError(unknown_setting(cls, name, kwargs[name], accepted, called=maker))
