"""Documents to sparse feature matrices: counts, presence, tf-idf or hashed counts.

One estimator, :class:`TextVectorizer`, whose parameters are those of scikit-learn's
``CountVectorizer``, ``TfidfVectorizer`` and ``HashingVectorizer`` together; the scanning,
tables and rows it drives are in :mod:`._scan`, :mod:`._tables` and :mod:`._rows`, the reading
of analyzer="auto" in :mod:`.auto_count` and :mod:`._auto_read`, the helpers on count
matrices in :mod:`._count_matrices`.

Why this module is longer than the project's ~600 lines: it is one estimator, whose parameter
checks, fitting, counting over a fitted vocabulary (the compiled lookups and their caches) and
weighting all read and keep the same fitted state (the vocabulary, its selection among the
counted terms, the scanner's tables); split into mixins, each part would reach into the
others' private attributes. What does not need that state lives in the modules above.
"""

from __future__ import annotations

import copy
import math
import threading
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar, Literal, overload

import numpy as np
import scipy.sparse as sp

from .._all_or_nothing import unchanged_on_error
from .._params import ParamNamesOnce, TransformerMixin, clone
from .._validation import as_real, check_positive_int
from .._values import find_sorted, one_of
from ..contract import Contract
from ..errors import EmptyVocabularyWarning, InputTypeError, NotFittedError, ParameterError
from . import _row_kernels as kernels
from . import _term_lookup as term_lookup
from . import _term_weights as term_weights
from ._count_matrices import (
    divide_rows,
    mail_mask,
    remap_rows_small,
    scale_and_l2_normalize,
    scale_columns,
    stats_of,
    wide_mask,
)
from ._document_input import one_column
from ._one_row import csr_of_rows, row_counts
from ._scan import (
    Analysis,
    Lookup,
    count_hashed,
    count_known,
    count_terms,
    count_terms_lazily,
    counted_entries,
    counted_lookup,
    counted_orders,
    find_lazily,
)
from .analyze import (
    ANALYZERS,
    DEFAULT_TOKEN_PATTERN,
    check_encoding,
    check_ngram_range,
    decode,
    is_raw_email,
    make_analyzer,
    missing_as_none,
    stop_word_set,
)
from .auto_count import Read, count_auto, count_heads, count_token_lists, read_auto
from .vocabulary import LazyTerms, VocabularyStats, as_terms, check_frequencies, strings_at

OUTPUTS = ("counts", "binary", "tfidf", "hashed")
#: Columns of hashed output: CSR column indices are int32.
MAX_HASHED_FEATURES = 2**31 - 1

#: Documents with fewer characters in all are counted in Python: for a few short texts the
#: compiled scanner's fixed costs (~0.15 ms a call; the two break even near 3,000 characters)
#: and its first-call load of compiled code outweigh its speed.
FAST_MIN_CHARS = 1 << 12
#: Fewer count entries than this are moved to the vocabulary's columns by numpy: for a few
#: documents (one line to ``bayeskit predict``) loading the compiled kernel, with numba and
#: LLVM, costs half a second more than the work.
SMALL_REMAP_NNZ = 1 << 12
#: Terms are looked up in a new vocabulary by binary search until this many of its size have
#: been looked up, then through a term -> column dict: a model served while it learns gets a
#: new vocabulary at every learn and reads a few messages with each (a search costs about what
#: ~2 dict insertions do), while a large batch amortizes the dict at once.
SEARCH_BUDGET = 0.25
#: A vocabulary of lazy terms at least this many times as long as the terms looked up in it
#: is searched term by term (:func:`~._scan.find_lazily`), not made: a binary search spells
#: ~20 terms, ~30 µs, where making a term costs ~0.1 µs.
LAZY_SEARCH_TERMS = 300
#: parameter types kept as copies by the word vectorizer's cache (see _as_words)
_CONTAINERS = (list, dict, set)


def _kept(settings: tuple[Any, ...]) -> tuple[Any, ...]:
    """Settings as :func:`_same_setting` compares them later: lists, dicts and sets copied
    (they may change in place), everything else the object itself."""
    return tuple(copy.copy(v) if type(v) in _CONTAINERS else v for v in settings)


def _same_setting(kept: Any, current: Any) -> bool:
    """Whether a parameter is unchanged since it was ``kept``: the same object, or for a
    list, dict or set (kept as a copy) an equal one of the same type."""
    if type(kept) in _CONTAINERS:
        return type(current) is type(kept) and bool(current == kept)
    return kept is current


# No set_output (scikit-learn's set_config(transform_output="pandas")): a sparse matrix cannot be
# wrapped in a DataFrame, so it is not applied, as for CountVectorizer.
class TextVectorizer(TransformerMixin, ParamNamesOnce):
    """Turn documents into a CSR matrix of term counts, presence, tf-idf weights or hashed
    counts.

    With the defaults the terms are exactly scikit-learn ``CountVectorizer()``'s: lowercase,
    runs of two or more Unicode word characters, vocabulary sorted alphabetically.

    Parameters
    ----------
    output : {"counts", "binary", "tfidf", "hashed"}, default="counts"
        ``"binary"``: 1 where a term occurs (McCallum & Nigam's Bernoulli); ``"tfidf"``: term
        frequency (``1 + ln tf`` with ``sublinear_tf``) times idf, rows normalised by
        ``norm``; ``"hashed"``: counts in ``n_features`` columns chosen by a stable hash of
        the term (no vocabulary to store, nothing to fit).
    lowercase, token_pattern, analyzer, ngram_range, stop_words
        How text becomes terms (see :mod:`bayeskit.text.analyze`); ``analyzer`` is "word",
        "char" (character n-grams, for text without spaces), "char_wb", "email" (raw RFC-822
        messages: header, URL and body tokens), "auto" (each document that is a raw e-mail,
        by :func:`~bayeskit.text.analyze.is_raw_email`, gives the e-mail header and URL tokens
        and its decoded body's word n-grams, its parts decoded by their declared charsets
        as :mod:`bayeskit.text.email` reads them; any other document its word n-grams, as
        "word" gives them: bytes decoded with ``encoding``, as "word" decodes them) or a
        callable, which receives each document as text (bytes decoded with ``encoding``
        first, as scikit-learn's vectorizers decode them; a missing document as None).
    max_features : int, optional
        Keep the ``max_features`` most frequent terms (McCallum & Nigam's vocabulary cut).
    min_df, max_df : int or float, default=1 and 1.0
        Keep terms in at least ``min_df`` and at most ``max_df`` documents (a float is a
        fraction of the documents). Two ints, or two floats, with ``min_df`` above ``max_df``
        keep no term whatever the documents: ``check_params`` refuses them.
    vocabulary : iterable of str, optional
        A ready-made vocabulary; fitting then only counts document frequencies.
    oov_token : str, optional
        If given, one extra last column named ``oov_token`` counts every term outside the
        vocabulary (one out-of-vocabulary column). Under tf-idf its idf is 1. It must not be
        a term of the vocabulary (column names are unique): fitting, ``partial_fit`` and
        ``fit_stats`` refuse one the vocabulary they select would hold, ``check_params`` one
        in a given ``vocabulary``, and a transform one set on a fitted vectorizer whose
        vocabulary holds it, with a :class:`~bayeskit.errors.ParameterError` that changes
        nothing. Choose a token the analyzer cannot produce, such as ``"<oov>"`` (the default
        ``token_pattern`` never keeps ``<``).
    sublinear_tf, use_idf, smooth_idf, norm
        tf-idf options as in scikit-learn's ``TfidfVectorizer`` (``norm`` in "l2", "l1",
        None; used by "tfidf" only).
    ngram_weights : sequence of float, optional
        ``output="tfidf"`` with analyzer "word", "auto" or "email": the weight of a word
        n-gram by its length, one per n from 1 to at least ``ngram_range[1]`` (``(1.0, 0.6)``:
        a 2-gram weighs 0.6 of what its tf would; the weights of longer n-grams than the range
        makes go unused, so a search over ``ngram_range`` up to 2 keeps them), applied before
        the rows are normalised. A per-document weight: the statistics still add.
    subject_weight : float, default=1.0
        ``output="tfidf"`` with analyzer "auto" or "email": the weight of an e-mail's ``subject:``
        tokens, applied as ``ngram_weights`` are.
    subject_in_text : bool, default=False
        Analyzer "auto" or "email": read an e-mail's subject line as the first line of its
        text too, so that its words count as the text's words (its ``subject:`` tokens
        stay).
    n_features : int, default=2**20
        Columns of the "hashed" output.
    encoding : str, default="utf-8"
        Encoding of ``bytes`` documents; bytes invalid in it are decoded by their byte-order
        mark when they start with a UTF-16 or UTF-32 one, else as latin-1 (every byte maps to
        a character, so decoding never fails).

    Attributes
    ----------
    stats_ : VocabularyStats
        Document and term frequencies of every term seen; they add across ``partial_fit``.
    terms_ : ndarray of str
        The vocabulary, sorted: column ``j`` counts ``terms_[j]``. The compiled scanner
        chooses it without making the terms' ``str`` objects; they are made when something
        first reads them (this, ``vocabulary_``, ``get_feature_names_out``, saving), not
        when fitting or transforming.
    vocabulary_ : dict of str to int
    idf_ : ndarray, only for ``output="tfidf"`` with ``use_idf``

    Examples
    --------
    >>> from bayeskit.text import TextVectorizer
    >>> vec = TextVectorizer()
    >>> X = vec.fit_transform(["Free money, free!", "Lunch at noon?"])
    >>> vec.get_feature_names_out().tolist()
    ['at', 'free', 'lunch', 'money', 'noon']
    >>> X.toarray()
    array([[0., 2., 0., 1., 0.],
           [1., 0., 1., 0., 1.]])
    >>> TextVectorizer(max_features=1, oov_token="<oov>").fit_transform(
    ...     ["free free money", "free lunch"]).toarray()
    array([[2., 1.],
           [1., 1.]])
    """

    #: The vocabulary: an array of its terms, or its terms before their str objects are
    #: made (see :attr:`terms_`).
    _vocab: np.ndarray | LazyTerms

    #: Documents in, vocabulary statistics that add through ``partial_fit`` and ``fit_stats``
    #: (:mod:`bayeskit.contract`); no ``+`` of vectorizers and no ``unlearn``.
    contract: ClassVar[Contract] = Contract(
        input="documents",
        state="text",
        mergeable=False,
        merges_classes=False,
        unlearnable=False,
        why="a vectorizer's vocabulary statistics add through partial_fit and fit_stats",
    )

    def __init__(
        self,
        *,
        output: str = "counts",
        lowercase: bool = True,
        token_pattern: str = DEFAULT_TOKEN_PATTERN,
        analyzer: str | Callable[[str], Iterable[str]] = "word",
        ngram_range: tuple[int, int] = (1, 1),
        stop_words: Any = None,
        max_features: int | None = None,
        min_df: float = 1,
        max_df: float = 1.0,
        vocabulary: Iterable[str] | None = None,
        oov_token: str | None = None,
        sublinear_tf: bool = False,
        use_idf: bool = True,
        smooth_idf: bool = True,
        norm: str | None = "l2",
        n_features: int = 2**20,
        encoding: str = "utf-8",
        ngram_weights: Any = None,
        subject_weight: float = 1.0,
        subject_in_text: bool = False,
    ):
        self.output = output
        self.lowercase = lowercase
        self.token_pattern = token_pattern
        self.analyzer = analyzer
        self.ngram_range = ngram_range
        self.stop_words = stop_words
        self.max_features = max_features
        self.min_df = min_df
        self.max_df = max_df
        self.vocabulary = vocabulary
        self.oov_token = oov_token
        self.sublinear_tf = sublinear_tf
        self.use_idf = use_idf
        self.smooth_idf = smooth_idf
        self.norm = norm
        self.n_features = n_features
        self.encoding = encoding
        self.ngram_weights = ngram_weights
        self.subject_weight = subject_weight
        self.subject_in_text = subject_in_text

    # ------------------------------------------------------------------ fitting
    def fit(self, raw_documents: Iterable[Any], y: Any = None) -> TextVectorizer:
        """Learn the vocabulary (and idf) from documents."""
        self.fit_transform(raw_documents)
        return self

    def fit_transform(self, raw_documents: Iterable[Any], y: Any = None) -> sp.csr_matrix:  # type: ignore[override]
        """Learn the vocabulary and return the documents' matrix (tokenizing them once). A
        refused fit (a document that is not text, a vocabulary pruned to nothing) leaves the
        vectorizer as it was."""
        self._check_params()
        with unchanged_on_error(self):
            self.__dict__.pop("stats_", None)
            if self.output == "hashed":
                self.stats_ = VocabularyStats.zero()
                return self.transform(raw_documents)
            terms, counts = self._count(raw_documents, lazy=True)
            self.stats_ = stats_of(terms, counts)
            self._set_vocabulary()
            # The vocabulary is chosen among ``terms``: where its terms are, no search among
            # them.
            selected = None if self.vocabulary is not None else self._selected
            return self._weigh(self._reindex(terms, counts, selected=selected), own=True)

    def partial_fit(self, raw_documents: Iterable[Any], y: Any = None) -> TextVectorizer:
        """Add documents to the vocabulary statistics; the vocabulary is re-selected."""
        self._check_params()
        if self.output == "hashed":
            self.stats_ = getattr(self, "stats_", VocabularyStats.zero())
            return self
        batch = self.summarize(raw_documents)
        total = self.stats_ + batch if hasattr(self, "stats_") else batch
        # An oov_token the total selects as a term is refused now, nothing changed (the
        # vocabulary itself is chosen at its next use).
        if self.vocabulary is None and self._oov_selected(total) is not None:
            raise _oov_is_a_term(
                self.oov_token, "the vocabulary the documents learned so far select"
            )
        self.stats_ = total
        # The vocabulary is chosen from the total when it is next used: a first small batch
        # need not satisfy min_df on its own.
        self.__dict__.pop("_vocab", None)
        return self

    def summarize(self, raw_documents: Iterable[Any]) -> VocabularyStats:
        """Vocabulary statistics of documents, without changing the vectorizer."""
        self._check_params()
        terms, counts = self._count(raw_documents, lazy=True)
        return stats_of(terms, counts)

    def fit_stats(self, stats: VocabularyStats, *, allow_empty: bool = False) -> TextVectorizer:
        """Set the vectorizer from vocabulary statistics (e.g. summed over many machines).

        Statistics in which no term meets the rules are refused as ``fit`` refuses them,
        unless ``allow_empty`` (statistics a stream is still growing: every document is then
        a row of zeros, and an :class:`~bayeskit.errors.EmptyVocabularyWarning` says so)."""
        self._check_params()
        with unchanged_on_error(self):  # statistics that select no vocabulary: refused whole
            self.stats_ = stats
            self._set_vocabulary(allow_empty=allow_empty)
        return self

    # ------------------------------------------------------------------ transforming
    def transform(self, raw_documents: Iterable[Any]) -> sp.csr_matrix:
        """The documents' matrix over the fitted vocabulary (CSR, float64)."""
        self._ensure_vocabulary()
        if self.output == "hashed":
            return self._hashed(raw_documents)
        if self.analyzer == "auto":
            documents = list(self._documents(raw_documents))
            mail = mail_mask(documents)
            read = None
            if not mail.any():
                # No e-mail among them: every document is read as analyzer="word" reads it.
                texts = [decode(doc, encoding=self.encoding) for doc in documents]
                if sum(map(len, texts)) < FAST_MIN_CHARS:
                    # Little text (a message to a service): each word looked up as it comes,
                    # without a matrix over the documents' own terms first.
                    known = self._count_into_vocabulary(texts, analyze=self._word_analyzer())
                else:  # the compiled scanner looks the terms up in the vocabulary's table
                    known = self._count_known_words(texts)
            else:
                read = read_auto(documents, mail, bool(self.subject_in_text), self.encoding)
                known = self._count_known_mail(read, len(documents))
            if known is None:
                known = self._reindex(*self._count_auto(documents, mail, read=read))
            return self._weigh(known, own=True)
        if self._analysis() is not None:
            texts = list(self._documents(raw_documents))
            if sum(map(len, texts)) >= FAST_MIN_CHARS:
                return self._weigh(self._count_known(texts), own=True)
            raw_documents = texts
        return self._weigh(self._count_into_vocabulary(raw_documents), own=True)

    def one_row(self, doc: str | bytes) -> tuple[list[int], list[float]] | None:
        """``transform([doc])``'s one row as its columns (increasing) and values, without a
        matrix (a service's check: see the module ``_one_row``); None where ``transform`` must be
        called: an output that is not plain counts or presence, an e-mail, a text the
        compiled scanner would count, an analyzer that reads raw documents."""
        settings = self._settings()  # (read once for the two checks of them)
        self._ensure_vocabulary(settings)
        if self.output not in ("counts", "binary") or not isinstance(doc, (str, bytes)):
            return None
        if self.analyzer == "auto":
            if is_raw_email(doc):
                return None
            analyze = self._words(settings)[1]
        elif isinstance(self.analyzer, str) and self.analyzer != "email":
            analyze = self._analyze
        else:
            return None
        text = decode(doc, encoding=self.encoding)
        if len(text) >= FAST_MIN_CHARS:
            return None
        oov = len(self.terms_) if self.oov_token is not None else -1
        columns, counts = row_counts(analyze(text), self._columns_of, oov)
        if self.output == "binary":
            return columns, [1.0] * len(columns)
        return columns, [float(n) for n in counts]

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Column names: the vocabulary terms (then ``oov_token`` if set). Hashed output has
        no vocabulary: its columns are named ``hash_0``, ``hash_1``, ... (column ``j`` counts
        every term whose ``crc32`` is ``j`` modulo ``n_features``; :meth:`column_terms` says
        which terms of a document those are)."""
        self._ensure_vocabulary()
        if self.output == "hashed":
            return np.asarray([f"hash_{j}" for j in range(int(self.n_features))], dtype=object)
        if self.oov_token is None:
            return self.terms_.copy()  # the caller's own array, as scikit-learn gives
        return np.append(self.terms_, np.array([self.oov_token], dtype=object))

    def column_terms(self, document: Any) -> dict[int, list[str]]:
        """The distinct terms of one document by the column they count in (terms outside the
        vocabulary are left out, or listed under the OOV column when there is one).

        Examples
        --------
        >>> vec = TextVectorizer(output="hashed", n_features=8).fit(["free money"])
        >>> sorted(vec.column_terms("free money free").items())
        [(0, ['free']), (4, ['money'])]
        """
        self._ensure_vocabulary()
        (text,) = self._documents([document])
        terms = sorted(set(self._analyze(text)))
        if self.output == "hashed":
            width = int(self.n_features)
            columns = [zlib.crc32(t.encode("utf-8", "surrogatepass")) % width for t in terms]
        else:
            oov = len(self.terms_) if self.oov_token is not None else -1
            found = self._columns_of(terms)
            columns = np.where(found >= 0, found, oov).tolist()
        out: dict[int, list[str]] = {}
        for term, column in zip(terms, columns, strict=True):
            if column >= 0:
                out.setdefault(column, []).append(term)
        return out

    @property
    def vocabulary_(self) -> dict[str, int]:
        """Term -> column."""
        self._ensure_vocabulary()
        return {t: i for i, t in enumerate(self.terms_.tolist())}

    @property
    def terms_(self) -> np.ndarray:
        """The vocabulary's terms, sorted (object array of str): column ``j`` counts
        ``terms_[j]``. Fitting chooses them without making their ``str`` objects (which costs
        ~50 ns a term); they are made here, the first time anything reads them."""
        # Lazy terms stay what the vocabulary is (made once, inside): caches keyed by it hold.
        return as_terms(self._given_vocabulary())

    @terms_.setter
    def terms_(self, terms: np.ndarray) -> None:
        self.__dict__["_vocab"] = terms

    @property
    def n_terms_(self) -> int:
        """How many terms the vocabulary holds (0 while a stream's documents meet its rules
        in none), without making their ``str`` objects."""
        return len(self._given_vocabulary())

    def _given_vocabulary(self) -> np.ndarray | LazyTerms:
        """:attr:`terms_` as the vocabulary holds them: lazy terms not made."""
        if "_vocab" not in self.__dict__ and "stats_" in self.__dict__:
            self._ensure_vocabulary()  # partial_fit leaves the choice to the first use
        vocab = self.__dict__.get("_vocab")
        if vocab is None:
            raise AttributeError("'TextVectorizer' object has no attribute 'terms_'")
        return vocab

    # ------------------------------------------------------------------ internals
    def _ensure_vocabulary(self, settings: tuple[Any, ...] | None = None) -> None:
        if not hasattr(self, "stats_"):
            raise NotFittedError(
                "This TextVectorizer instance is not fitted yet. Call 'fit' or 'partial_fit' first."
            )
        self._check_params(settings)
        if self.output != "hashed" and "_vocab" not in self.__dict__:
            # the statistics of partial_fit, selected at their first use: a stream whose
            # documents no term meets the rules in yet gives rows of zeros, with a warning.
            # One thread chooses (threads transforming at once with a fitted vectorizer, a
            # web application's, would otherwise see a vocabulary without its idf)
            with _CHOOSING:
                if "_vocab" not in self.__dict__:
                    self._set_vocabulary(allow_empty=True)
        self._check_oov_token()

    def check_params(self) -> TextVectorizer:
        """Check every hyperparameter; raises :class:`~bayeskit.errors.ParameterError` naming
        the one that is wrong and what is accepted. Fitting calls it, and so does loading a
        model file, before anything is built: a setting that would explode later (an n-gram
        range of 10^5, a token pattern that backtracks exponentially, an unknown encoding,
        millions of stop words) is refused at once."""
        if not one_of(self.output, OUTPUTS):
            raise ParameterError(f"output={self.output!r}; accepted: {', '.join(OUTPUTS)}")
        if not one_of(self.norm, ("l2", "l1", None)):
            raise ParameterError(f"norm={self.norm!r}; accepted: 'l2', 'l1' or None")
        if (
            isinstance(self.n_features, bool)
            or not isinstance(self.n_features, (int, np.integer))
            or not 1 <= self.n_features <= MAX_HASHED_FEATURES
        ):
            raise ParameterError(
                f"n_features must be an int from 1 to {MAX_HASHED_FEATURES}; got "
                f"{self.n_features!r}"
            )
        if self.max_features is not None:
            check_positive_int(self.max_features, "max_features")
        check_frequencies(self.min_df, self.max_df)  # each, and min_df above max_df
        for name in ("lowercase", "sublinear_tf", "use_idf", "smooth_idf"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                # a str such as "false" would be true
                raise ParameterError(
                    f"{name} must be True or False; got {getattr(self, name)!r:.60}"
                )
        vocabulary = self.vocabulary
        if isinstance(vocabulary, (str, bytes)):
            raise ParameterError(
                f"vocabulary={vocabulary!r:.60} is a single {type(vocabulary).__name__}, which "
                "would be read as its characters; give a list of terms"
            )
        if vocabulary is not None and not isinstance(vocabulary, Iterable):
            raise ParameterError(
                f"vocabulary must be a list of terms (str) or None; got {vocabulary!r:.60}"
            )
        if isinstance(vocabulary, Iterator):  # read at every selection: once would be empty
            raise ParameterError(
                f"vocabulary is an iterator ({type(vocabulary).__name__}), which can be read "
                "only once; give a list of terms, e.g. list(...)"
            )
        if self.oov_token is not None and not isinstance(self.oov_token, str):
            raise ParameterError(f"oov_token must be a str or None; got {self.oov_token!r}")
        if (
            self.oov_token is not None
            and vocabulary is not None
            and self.output != "hashed"
            and any(isinstance(t, str) and t == self.oov_token for t in vocabulary)
        ):
            raise _oov_is_a_term(self.oov_token, "the given vocabulary")
        check_encoding(self.encoding)
        if not (callable(self.analyzer) or self.analyzer in ANALYZERS):
            raise ParameterError(
                f"analyzer={self.analyzer!r:.60}; accepted: "
                f"{', '.join(map(repr, ANALYZERS))} or a callable"
            )
        self._analyze = make_analyzer(
            analyzer=self.analyzer,
            lowercase=self.lowercase,
            token_pattern=self.token_pattern,
            ngram_range=self.ngram_range,
            stop_words=stop_word_set(self.stop_words),
            subject_in_text=self._check_term_weights(),
            encoding=self.encoding,
        )
        return self

    def _check_term_weights(self) -> bool:
        """Check ``ngram_weights``, ``subject_weight`` and ``subject_in_text``; return the
        last."""
        if not isinstance(self.subject_in_text, (bool, np.bool_)):
            raise ParameterError(
                f"subject_in_text must be True or False; got {self.subject_in_text!r}"
            )
        mail = self.analyzer in ("auto", "email")
        if self.subject_in_text and not mail:
            raise ParameterError(
                "subject_in_text reads e-mails' subject lines: it needs analyzer 'auto' or "
                f"'email', not {self.analyzer!r:.60}"
            )
        weight = self.subject_weight
        if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)):
            raise ParameterError(f"subject_weight must be a positive number; got {weight!r:.60}")
        if not (math.isfinite(as_real(weight)) and weight > 0):
            raise ParameterError(f"subject_weight must be a positive number; got {weight!r}")
        if weight != 1 and (self.output != "tfidf" or not mail):
            raise ParameterError(
                "subject_weight weighs tf-idf values of e-mails' subject: tokens: it needs "
                f"output='tfidf' and analyzer 'auto' or 'email' (got output={self.output!r}, "
                f"analyzer={self.analyzer!r:.60})"
            )
        if self.ngram_weights is None:
            return bool(self.subject_in_text)
        if self.output != "tfidf" or self.analyzer not in ("word", "auto", "email"):
            raise ParameterError(
                "ngram_weights weighs tf-idf values of word n-grams: it needs output='tfidf' "
                f"and analyzer 'word', 'auto' or 'email' (got output={self.output!r}, "
                f"analyzer={self.analyzer!r:.60})"
            )
        high = check_ngram_range(self.ngram_range)[1]
        try:
            weights = np.asarray(self.ngram_weights, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):  # not numbers, or an int past floats
            weights = np.zeros(0)
        if (
            weights.ndim != 1
            or weights.size < high
            or not (np.isfinite(weights).all() and (weights > 0).all())
        ):
            raise ParameterError(
                f"ngram_weights must be positive numbers, one per n-gram length from 1 to at "
                f"least ngram_range[1]={high} (those of longer n-grams go unused); got "
                f"{self.ngram_weights!r:.80}"
            )
        return bool(self.subject_in_text)

    def _weighted(self) -> bool:
        """Whether terms are weighted apart (``ngram_weights`` or ``subject_weight``)."""
        return self.output == "tfidf" and (
            self.ngram_weights is not None or self.subject_weight != 1
        )

    def term_weights(self, terms: np.ndarray | LazyTerms) -> np.ndarray:
        """The weight of each of ``terms`` under ``ngram_weights`` and ``subject_weight`` (a
        word n-gram's n is one more than its spaces; with analyzer "auto" or "email" a term
        holding a colon is a header or URL token, and weighs ``subject_weight`` if it is a
        ``subject:`` token, else 1)."""
        n = len(terms)
        if not self._weighted():
            return np.ones(n)
        by_n = np.asarray(
            (1.0,) if self.ngram_weights is None else self.ngram_weights, dtype=np.float64
        )
        # Terms the word scanner counted: their n from its table (a word n-gram holds n - 1
        # spaces and no colon); the others' from their strings (term_marks).
        orders = counted_orders(terms)
        apart = np.arange(n) if orders is None else np.flatnonzero(orders == 0)
        listed = strings_at(terms, apart) if orders is not None else as_terms(terms).tolist()
        spaces = np.zeros(n, np.int64)
        if orders is not None:
            spaces[orders > 0] = orders[orders > 0] - 1
        mail = self.analyzer in ("auto", "email")
        if by_n.size > 1 or mail:
            own_spaces, colon, subject = term_weights.term_marks(listed)
            if by_n.size > 1:
                spaces[apart] = own_spaces
        weights = by_n[np.minimum(spaces, by_n.size - 1)]
        if mail:
            weights[apart[colon]] = 1.0
            weights[apart[subject]] = float(self.subject_weight)
        return weights

    def _check_params(self, settings: tuple[Any, ...] | None = None) -> TextVectorizer:
        """:meth:`check_params`, once while the settings stay those it found good (every
        transform checks them; for one short message, as a service scores them, that was a
        twentieth of the work). ``settings``: :meth:`_settings`, when the caller has them."""
        settings = self._settings() if settings is None else settings
        good = self.__dict__.get("_good_settings")
        if good is not None and all(map(_same_setting, good, settings)):
            return self
        self.check_params()
        self.__dict__["_good_settings"] = _kept(settings)
        return self

    def _settings(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._get_param_names())

    # ------------------------------------------------------------------ counts, for the models
    # What the text models, their rounds and the semi-supervised wrapper call: documents
    # counted once over their own terms, then weighted or looked up in the vocabulary as
    # many times as needed (a fold of a calibration, an iteration of EM).
    @overload
    def count(
        self,
        raw_documents: Iterable[Any],
        *,
        compiled: bool = True,
        lazy: Literal[False] = False,
    ) -> tuple[np.ndarray, sp.csr_matrix]: ...
    @overload
    def count(
        self, raw_documents: Iterable[Any], *, compiled: bool = True, lazy: bool
    ) -> tuple[np.ndarray | LazyTerms, sp.csr_matrix]: ...
    def count(
        self, raw_documents: Iterable[Any], *, compiled: bool = True, lazy: bool = False
    ) -> tuple[np.ndarray | LazyTerms, sp.csr_matrix]:
        """Sorted distinct terms of the documents and their count matrix over them (canonical
        CSR), by the analyzer; no vocabulary is selected and nothing is weighted.

        Parameters
        ----------
        raw_documents : iterable of str or bytes
        compiled : bool, default True
            Count with the compiled scanner where it implements the analyzer and the text is
            long enough; ``False`` counts in Python (the same terms and counts, without
            loading the scanner: quicker for a small collection in a fresh process).
        lazy : bool, default False
            The terms the compiled scanner counted may come as lazy terms
            (``bayeskit.text.vocabulary.LazyTerms``), whose ``str`` objects are made when
            first read (~50 ns a term: what a model fitted and used in one process never
            needs).

        Returns
        -------
        terms : ndarray of str, or lazy terms (``lazy``)
        counts : csr_matrix of shape (n_documents, n_terms)
        """
        if not compiled:
            return self._count_python(self._documents(raw_documents))
        return self._count(raw_documents, lazy=lazy)

    def build_analyzer(self) -> Callable[[Any], list[str]]:
        """The function that turns one document into its terms, as :meth:`count` reads
        them (scikit-learn's ``CountVectorizer.build_analyzer``); the parameters are checked
        first.

        Examples
        --------
        >>> from bayeskit.text import TextVectorizer
        >>> TextVectorizer(ngram_range=(1, 2)).build_analyzer()("Free cash now")
        ['free', 'cash', 'now', 'free cash', 'cash now']
        """
        self._check_params()
        return self._analyze

    def weigh(
        self,
        counts: sp.csr_matrix,
        *,
        terms: np.ndarray | LazyTerms | None = None,
        own: bool = False,
    ) -> sp.csr_matrix:
        """The vectorizer's output (presence, tf-idf weights, norms) for ``counts``: counts
        over the vocabulary (:meth:`reindex`), or over ``terms`` (sorted, distinct: a batch's
        own terms, :meth:`count`). ``own``: the caller gives ``counts`` up, so a float64
        matrix becomes the output, its values changed in place, instead of a copy (for a
        corpus the copy is tens of megabytes of fresh memory)."""
        return self._weigh(counts, terms=terms, own=own)

    def reindex(self, terms: np.ndarray, counts: sp.csr_matrix) -> sp.csr_matrix:
        """Counts over the fitted vocabulary (plus the out-of-vocabulary column) from counts
        over ``terms`` (:meth:`count`'s): terms outside the vocabulary are dropped, or summed
        into that column; what :meth:`transform` counts before it weighs."""
        return self._reindex(terms, counts)

    def selection(self) -> np.ndarray | None:
        """Where the vocabulary's terms sit among the terms of ``stats_`` when the vocabulary
        was selected from them (``min_df``, ``max_features``…): a column map without a
        search among strings; None for a given vocabulary or hashed output."""
        return self.__dict__.get("_selected")

    def check_fitted(self) -> TextVectorizer:
        """Refuse an unfitted vectorizer (:class:`~bayeskit.errors.NotFittedError`), or one
        whose statistics select no vocabulary (a :class:`~bayeskit.errors.DataError` naming
        the setting); what a model file checks before it writes one.

        Returns
        -------
        self
        """
        self._ensure_vocabulary()
        return self

    def _documents(self, raw_documents: Iterable[Any]) -> Iterable[str]:
        if isinstance(raw_documents, np.ndarray) and raw_documents.ndim == 0:
            raise InputTypeError(
                "expected an iterable of documents, got a 0-d array "
                f"({raw_documents!r:.60}); wrap its one document in a list"
            )
        if isinstance(raw_documents, (str, bytes)):
            raise InputTypeError(
                "expected an iterable of documents, got a single "
                f"{type(raw_documents).__name__}; wrap it in a list"
            )
        raw_documents = one_column(raw_documents)
        if not isinstance(raw_documents, Iterable):
            raise InputTypeError(
                "expected an iterable of documents (a list of str or bytes), got "
                f"{type(raw_documents).__name__} ({raw_documents!r:.60})"
            )
        if callable(self.analyzer) or self.analyzer in ("email", "auto"):
            # the analyzer reads raw documents itself (a missing one as None)
            return iter(missing_as_none(list(raw_documents)))
        if isinstance(raw_documents, list) and set(map(type, raw_documents)) <= {str}:
            return raw_documents  # already text: decode() would return each as it is
        encoding = self.encoding
        return (decode(doc, encoding=encoding) for doc in raw_documents)

    @overload
    def _count(
        self, raw_documents: Iterable[Any], *, lazy: Literal[False] = False
    ) -> tuple[np.ndarray, sp.csr_matrix]: ...
    @overload
    def _count(
        self, raw_documents: Iterable[Any], *, lazy: bool
    ) -> tuple[np.ndarray | LazyTerms, sp.csr_matrix]: ...
    def _count(
        self, raw_documents: Iterable[Any], *, lazy: bool = False
    ) -> tuple[np.ndarray | LazyTerms, sp.csr_matrix]:
        """Sorted distinct terms of the documents and their count matrix over them.

        With an analyzer the compiled scanner implements (:meth:`_analysis`) and enough text,
        :func:`~bayeskit.text._scan.count_terms` counts; it gives exactly the Python path's
        terms and counts (tests/text/test_scan.py), only faster. ``lazy``: the scanner's terms
        may come as :class:`~bayeskit.text.vocabulary.LazyTerms`
        (:func:`~bayeskit.text._scan.count_terms_lazily`).
        """
        self._check_params()
        documents = self._documents(raw_documents)
        if self.analyzer == "auto":
            return self._count_auto(list(documents), lazy=lazy)
        analysis = self._analysis()
        if analysis is None:
            return self._count_python(documents)
        texts = list(documents)
        if sum(map(len, texts)) < FAST_MIN_CHARS:
            return self._count_python(texts)
        return (count_terms_lazily if lazy else count_terms)(texts, analysis)

    def _count_auto(
        self,
        documents: list[Any],
        mail: np.ndarray | None = None,
        *,
        lazy: bool = False,
        read: Read | None = None,
    ) -> tuple[np.ndarray | LazyTerms, sp.csr_matrix]:
        """``_count`` of analyzer="auto": the texts that are not e-mails are counted as
        analyzer="word" counts them (by the compiled scanner when it can), the e-mails by the
        analyzer in Python; the two term lists are merged and the rows keep their order.
        ``mail``: which documents are e-mails, when already known; ``read``: the documents
        already read (:func:`~bayeskit.text.auto_count.read_auto`)."""
        if mail is None:
            mail = mail_mask(documents)
        words = self._as_words()
        if not mail.any():
            return words._count(documents, lazy=lazy)
        return count_auto(
            words._count,
            documents,
            mail,
            bool(self.subject_in_text),
            self.encoding,
            read=read,
            lazy=lazy,
        )

    def _as_words(self) -> TextVectorizer:
        """This vectorizer as analyzer="word" (no vocabulary, no subject weighting): how
        analyzer="auto" counts the words of the texts it reads. Made once while the
        parameters stay the same (a clone costs ~20 µs, a tenth of transforming one short
        message), and it keeps its own scanner tables between calls. A list, dict or set
        parameter is kept as a copy and compared by value, so a stop-word list changed in
        place is seen as a change, as a new clone would see it."""
        return self._words()[0]

    def _word_analyzer(self) -> Callable[[Any], list[str]]:
        """:meth:`_as_words`' analyzer, made (and its parameters checked) once with it."""
        return self._words()[1]

    def _words(
        self, settings: tuple[Any, ...] | None = None
    ) -> tuple[TextVectorizer, Callable[[Any], list[str]]]:
        settings = self._settings() if settings is None else settings
        cached = self.__dict__.get("_words_cache")
        if cached is not None and all(map(_same_setting, cached[0], settings)):
            return cached[1]
        words = clone(self).set_params(
            analyzer="word", vocabulary=None, subject_in_text=False, subject_weight=1.0
        )
        # the word vectorizer is this one's alone and never changes: checked once here
        made = (words, words.build_analyzer())
        self.__dict__["_words_cache"] = (_kept(settings), made)
        return made

    def _analysis(self) -> Analysis | None:
        """The compiled scanner's version of this analyzer, or None if it has none: word
        n-grams up to 3 of the default token pattern (or ``\\b\\w+\\b``), character
        n-grams."""
        return Analysis.of(
            self.analyzer,
            self.token_pattern,
            check_ngram_range(self.ngram_range),
            bool(self.lowercase),
            stop_word_set(self.stop_words),
        )

    def _count_python(self, texts: Iterable[str]) -> tuple[np.ndarray, sp.csr_matrix]:
        """``_count`` by the analyzer, in Python: every setting, decoded documents."""
        self._check_params()
        analyze = self._analyze
        return count_token_lists(analyze(text) for text in texts)

    def _count_into_vocabulary(
        self, raw_documents: Iterable[Any], analyze: Callable[[Any], list[str]] | None = None
    ) -> sp.csr_matrix:
        """``_reindex(*_count(raw_documents))`` by the analyzer in Python, each term looked
        up in the fitted vocabulary as it comes: no matrix over the documents' own terms is
        built first (for one short message, as a service scores them, that was most of
        the cost). ``analyze``: another analyzer than this vectorizer's (analyzer="auto"
        counts the words of decoded texts by its word vectorizer's). The parameters are
        checked and the vocabulary made (:meth:`_ensure_vocabulary`) by the caller."""
        n_vocab = len(self.terms_)
        oov = n_vocab if self.oov_token is not None else -1
        if analyze is None:
            analyze = self._analyze
        indices: list[int] = []
        data: list[int] = []
        indptr = [0]
        for text in self._documents(raw_documents):
            columns, counts = row_counts(analyze(text), self._columns_of, oov)
            indices += columns
            data += counts
            indptr.append(len(indices))
        return csr_of_rows(data, indices, indptr, n_vocab + (oov >= 0))

    def _set_vocabulary(self, *, allow_empty: bool = False) -> None:
        """Choose the vocabulary (given, or selected from the statistics by the frequency
        rules) and its idf, and publish them together, the vocabulary last: a thread that
        finds it finds the rest."""
        selected: np.ndarray | None = None
        if self.vocabulary is not None:
            fixed = list(self.vocabulary)
            for odd in (t for t in fixed if not isinstance(t, str)):
                raise ParameterError(
                    f"vocabulary must hold terms as str; got {odd!r:.60} ({type(odd).__name__})"
                )
            fixed = [str(t) for t in fixed]  # (np.str_ as str)
            if not fixed:
                raise ParameterError("vocabulary is empty; give at least one term")
            if len(set(fixed)) != len(fixed):
                seen: set[str] = set()
                twice = next(t for t in fixed if t in seen or seen.add(t))  # type: ignore[func-returns-value]
                raise ParameterError(
                    f"vocabulary has repeated terms: {twice!r} appears "
                    f"{fixed.count(twice)} times; each term must appear once"
                )
            vocab: np.ndarray | LazyTerms = np.asarray(sorted(fixed), dtype=object)
        else:
            # Where the vocabulary's terms are in the statistics: no search among strings.
            selected = self.stats_.select_index(
                min_df=self.min_df,
                max_df=self.max_df,
                max_features=self.max_features,
                allow_empty=allow_empty,
            )
            if self._oov_selected(self.stats_, selected) is not None:
                raise _oov_is_a_term(self.oov_token, "the vocabulary learned from the documents")
            if not len(selected):  # (allowed: a stream's statistics)
                warnings.warn(empty_vocabulary_warning(self), stacklevel=4)
            terms = self.stats_.given_terms
            # Every term kept (no frequency rule cut any): the same terms, not a copy of them.
            if len(selected) == len(terms):
                vocab = terms
            elif isinstance(terms, LazyTerms):
                vocab = terms.take(selected)
            else:
                vocab = terms[selected]
        idf = self._idf(selected, vocab) if self.output == "tfidf" and self.use_idf else None
        state = self.__dict__
        for name, value in (("_selected", selected), ("idf_", idf)):
            if value is None:
                state.pop(name, None)
            else:
                state[name] = value
        state["_oov_checked"] = (vocab, self.oov_token)
        state["_vocab"] = vocab

    def _oov_selected(
        self, stats: VocabularyStats, selected: np.ndarray | None = None
    ) -> int | None:
        """Where ``oov_token`` is among the terms of ``stats`` when the vocabulary selected
        from them (``selected``, else selected now by the rules) holds it, else None. Only a
        token that is a counted term costs a selection; lazy terms stay so."""
        token = self.oov_token
        if token is None or self.output == "hashed":
            return None
        at = _position(stats.given_terms, token)
        if at < 0:
            return None
        if selected is None:
            selected = stats.select_index(
                min_df=self.min_df,
                max_df=self.max_df,
                max_features=self.max_features,
                allow_empty=True,
            )
        return at if _position(selected, at) >= 0 else None

    def _check_oov_token(self) -> None:
        """Refuse an ``oov_token`` that is a term of the fitted vocabulary (one set after
        fitting, by ``set_params``); checked once per vocabulary and token."""
        token = self.oov_token
        vocab = self.__dict__.get("_vocab")
        if token is None or vocab is None or self.output == "hashed":
            return
        checked = self.__dict__.get("_oov_checked")
        if checked is not None and checked[0] is vocab and checked[1] == token:
            return
        selected = self.__dict__.get("_selected")
        if selected is not None and len(selected) == len(vocab):
            collides = self._oov_selected(self.stats_, selected) is not None
        else:
            collides = _position(vocab, token) >= 0
        if collides:
            raise _oov_is_a_term(token, "the fitted vocabulary")
        self.__dict__["_oov_checked"] = (vocab, token)

    def _idf(self, selected: np.ndarray | None, vocab: np.ndarray | LazyTerms) -> np.ndarray:
        """The idf of the vocabulary ``vocab``: selected from the statistics at ``selected``,
        or given (None)."""
        stats = self.stats_
        if selected is not None:
            df = stats.doc_freq[selected].astype(np.float64)
        else:  # a given vocabulary: its terms looked up among those counted
            pos, known = find_sorted(stats.terms, as_terms(vocab))
            df = np.where(known, stats.doc_freq[pos] if len(stats) else 0, 0).astype(np.float64)
        n = float(stats.n_docs)
        if self.smooth_idf:
            idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
        else:
            with np.errstate(divide="ignore"):
                idf = np.log(np.where(df > 0, n / np.maximum(df, 1), 1.0)) + 1.0
        if self.oov_token is not None:
            idf = np.append(idf, 1.0)
        return idf

    def _reindex(
        self,
        terms: np.ndarray | LazyTerms,
        counts: sp.csr_matrix,
        *,
        selected: np.ndarray | None = None,
    ) -> sp.csr_matrix:
        """Counts over the fitted vocabulary (plus the OOV column) from counts over ``terms``
        (sorted, distinct; ``counts`` in canonical format).

        Terms outside the vocabulary are dropped, or summed into the OOV column. Both term
        lists are sorted, so the column map increases and the rows stay sorted: entries are
        moved in place of a rebuild, and when the terms are the vocabulary the counts are
        already the answer. ``selected``: where the vocabulary's terms are among ``terms``
        (``fit_transform``: it was chosen among them), so no term is compared or looked up.
        """
        vocab = self._vocab
        n_rows = counts.shape[0]
        oov = self.oov_token is not None
        if (selected is not None and len(selected) == len(terms)) or (
            selected is None
            and len(terms) == len(vocab)
            and (terms is vocab or np.array_equal(as_terms(terms), self.terms_))
        ):
            if not oov:
                return counts
            out = sp.csr_matrix(
                (counts.data, counts.indices, counts.indptr), shape=(n_rows, len(vocab) + 1)
            )
        else:
            if selected is not None:
                column = np.full(len(terms), -1, np.int64)
                column[selected] = np.arange(len(selected), dtype=np.int64)
            else:
                column = self._columns_of(as_terms(terms))
            if counts.nnz < SMALL_REMAP_NNZ:
                indptr, indices, data = remap_rows_small(counts, column, len(vocab) if oov else -1)
            else:
                indptr, indices, data = kernels.remap_rows(
                    counts.indptr.astype(np.int64, copy=False),
                    counts.indices,
                    counts.data.astype(np.float64, copy=False),
                    column,
                    len(vocab) if oov else -1,
                )
            out = sp.csr_matrix((data, indices, indptr), shape=(n_rows, len(vocab) + oov))
        out.has_canonical_format = True
        return out

    def _columns_of(self, terms: np.ndarray | list[str]) -> np.ndarray:
        """The column of each of ``terms`` in the fitted vocabulary (int64, -1 for a term
        outside it): by binary search in the sorted vocabulary while few terms have been
        looked up in it and in the vocabularies it was learned from (:data:`SEARCH_BUDGET`),
        then by its term lookup (:mod:`._term_lookup`: built once, or derived from the
        lookup of the vocabulary it was learned from). Both give the same columns. A
        vocabulary of lazy terms (:class:`~.vocabulary.LazyTerms`) stays so while the terms
        are few: each is then found by binary search among the terms spelled out one at a
        time, ~30 µs a term where making all of them costs ~0.1 µs a term."""
        given = self._given_vocabulary()
        if (
            isinstance(given, LazyTerms)
            and not given.made
            and len(terms) * LAZY_SEARCH_TERMS < len(given)
        ):
            found = find_lazily(given, list(terms))
            if found is not None:
                return found
        vocab = self.terms_
        lookup = term_lookup.registered(vocab)
        if lookup is None:
            if term_lookup.search_instead(vocab, len(terms), SEARCH_BUDGET * len(vocab)):
                needles = np.empty(len(terms), dtype=object)
                needles[:] = terms
                pos, found = find_sorted(vocab, needles)
                return np.where(found, pos, -1).astype(np.int64, copy=False)
            lookup = term_lookup.build(vocab)
        return lookup.columns_of(terms.tolist() if isinstance(terms, np.ndarray) else terms)

    def _count_known_words(self, texts: list[str]) -> sp.csr_matrix | None:
        """``_reindex(*_count(texts))`` of analyzer="auto" for decoded texts none of which is
        an e-mail, by the compiled scanner's lookup (:meth:`_count_known`); None where that
        path does not apply (settings it does not compile)."""
        if self._word_analysis() is None:
            return None
        try:
            return self._count_known(texts)
        except _NoTable:
            return None

    def _count_known_mail(self, read: Read, n_rows: int) -> sp.csr_matrix | None:
        """``_reindex(*_count(documents))`` of analyzer="auto" for documents read
        (:func:`~bayeskit.text.auto_count.read_auto`): their words by the compiled scanner's
        lookup in the table it counted the vocabulary's words with, their header tokens by a
        dict of the vocabulary's header tokens, the two added; no term becomes a ``str``
        twice. A vocabulary not chosen among terms the scanner counted in this process (a
        loaded model's) is looked up by a table of its word terms, built once. None where
        that does not apply (settings the scanner does not compile)."""
        if self._word_analysis() is None:
            return None
        selected = "_selected" in self.__dict__
        counted = counted_entries(self.stats_.given_terms) if selected else None
        texts = read.texts
        # No FAST_MIN_CHARS here: the other way makes every term a str and looks it up (one
        # SpamAssassin message: ~6.5 ms this way, ~10 ms the other).
        if counted is None and sum(map(len, texts)) < FAST_MIN_CHARS:
            return None  # little text: looking its terms up costs less than a table
        utf8, entry = (False, None) if counted is None else counted
        # A table of latin-1 text reads the texts that fit latin-1 (all, as a rule); the
        # others (a body decoded from a wider charset) are counted and looked up by term.
        wide = np.zeros(len(texts), bool) if utf8 else wide_mask(texts)
        try:
            if wide.any():
                words = self._count_rows_apart(texts, wide)
            else:
                words = self._count_known(texts, utf8=utf8)
        except _NoTable:
            return None
        n_vocab = len(self._vocab)
        oov = n_vocab if self.oov_token is not None else -1
        heads = count_heads(
            read, self._head_columns(entry), self._columns_of, n_rows, words.shape[1], oov
        )
        out = (words + heads).tocsr()
        out.sum_duplicates()  # canonical (a no-op when the sum is already)
        return out

    def _count_rows_apart(self, texts: list[str], wide: np.ndarray) -> sp.csr_matrix:
        """The words of ``texts`` over the vocabulary: the latin-1 ones by the compiled
        lookup, the ``wide`` ones counted and looked up by term, the rows in order."""
        apart = np.flatnonzero(wide)
        rest = np.flatnonzero(~wide)
        known = self._count_known([texts[i] for i in rest.tolist()])
        words = self._as_words()
        other = self._reindex(*words.count([texts[i] for i in apart.tolist()]))
        order = np.empty(len(texts), np.int64)
        order[np.concatenate((rest, apart))] = np.arange(len(texts))
        out = sp.vstack([known, other], format="csr")[order]
        out.has_canonical_format = True  # each row's columns stay sorted
        return out

    def _head_columns(self, entry: np.ndarray | None) -> dict[str, int]:
        """Header token -> column, for the vocabulary's terms the compiled scanner did not
        count (``entry`` -1: analyzer="auto"'s header and URL tokens), or without ``entry``
        its terms holding a colon (every header token holds one, no word term does), built
        once per vocabulary."""
        cached = self.__dict__.get("_head_cache")
        if cached is not None and cached[0] is self._vocab:
            return cached[1]
        if entry is None:
            heads = np.flatnonzero(self._colon_terms())
            names = self.terms_[heads].tolist()
        else:
            selected = self._selected
            heads = np.flatnonzero(entry[selected] < 0)
            names = strings_at(self.stats_.given_terms, selected[heads])
        index = dict(zip(names, heads.tolist(), strict=True))
        self._head_cache = (self._vocab, index)
        return index

    def _word_analysis(self) -> Analysis | None:
        """The compiled scanner's analysis of the texts analyzer="auto" reads as words."""
        return Analysis.of(
            "word",
            self.token_pattern,
            check_ngram_range(self.ngram_range),
            bool(self.lowercase),
            stop_word_set(self.stop_words),
        )

    def _scanned_analysis(self) -> Analysis | None:
        """The analysis :meth:`_count_known` scans with: this analyzer's, or for "auto" that
        of the texts it reads as words."""
        return self._word_analysis() if self.analyzer == "auto" else self._analysis()

    def _count_known(self, texts: list[str], *, utf8: bool = False) -> sp.csr_matrix:
        """``_reindex(*_count(texts))`` for a compiled analyzer, by looking every term up in a
        table of the fitted vocabulary (:func:`~bayeskit.text._scan.count_known`): no term
        becomes a ``str``. Stop words are dropped by the scanner before n-grams are formed,
        as when counting."""
        analysis = self._scanned_analysis()
        assert analysis is not None
        n_vocab = len(self._vocab)
        oov = self.oov_token is not None
        return count_known(
            texts, analysis, self._lookup, n_vocab + oov, n_vocab if oov else -1, utf8=utf8
        )

    def _lookup(self, utf8: bool) -> Lookup:
        """The fitted vocabulary's lookup table for text in UTF-8 or latin-1, built once per
        vocabulary and cached (never saved: see ``__getstate__``). For "auto", only the table
        of terms the scanner counted (:class:`_NoTable` otherwise)."""
        analysis = self._scanned_analysis()
        assert analysis is not None
        words, high = analysis.kind == "word", analysis.high
        cached: tuple[Any, ...] | None = self.__dict__.get("_lookup_cache")
        vocab = self._vocab  # the key of the cache: its terms need not be made
        if cached is None or cached[0] is not vocab or cached[1] != (words, high):
            cached = (vocab, (words, high), {})
            self._lookup_cache = cached
        tables = cached[2]
        if utf8 not in tables and "_selected" in self.__dict__:
            # The vocabulary is chosen among terms the compiled scanner counted: its table.
            found = counted_lookup(self.stats_.given_terms, self._selected, analysis, utf8)
            if found is not None:
                tables[utf8] = found
        if utf8 not in tables:
            terms = self.terms_
            columns = np.arange(len(terms), dtype=np.int64)
            if self.analyzer == "auto":
                if ":" in analysis.joiners:
                    raise _NoTable  # a word n-gram could hold a colon, as header tokens do
                # The table of the word terms: the header tokens (each holding a colon)
                # are looked up apart (:meth:`_head_columns`).
                words_only = ~self._colon_terms()
                terms, columns = terms[words_only], columns[words_only]
            tables[utf8] = Lookup.build(terms.tolist(), columns, utf8=utf8, words=words, high=high)
        return tables[utf8]

    def _colon_terms(self) -> np.ndarray:
        """Which of the vocabulary's terms hold a colon (analyzer="auto"'s header and URL
        tokens, ``subject:…``, ``url:…``), found once per vocabulary."""
        cached = self.__dict__.get("_colon_cache")
        if cached is None or cached[0] is not self._vocab:
            found = term_weights.holds_colon(self.terms_.tolist())
            cached = self._colon_cache = (self._vocab, found)
        return cached[1]

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())
        state.pop("_lookup_cache", None)
        state.pop("_head_cache", None)
        state.pop("_colon_cache", None)
        state.pop("_words_cache", None)
        state.pop("_good_settings", None)  # checked again by the next process that uses it
        state.pop("_oov_checked", None)  # (the same)
        state.pop("_analyze", None)  # a closure: rebuilt from the parameters when next used
        if "_vocab" in state:  # lazy terms are made: what makes them stays in this process
            state["_vocab"] = self.terms_
        return state

    def _weigh(
        self,
        counts: sp.csr_matrix,
        *,
        own: bool = False,
        terms: np.ndarray | LazyTerms | None = None,
    ) -> sp.csr_matrix:
        """The output for counts; ``own``: ``counts`` is no one else's, so it may become the
        output (its data changed in place) instead of being copied. ``terms``: the terms of
        the columns when they are not the vocabulary's (a batch's own terms)."""
        out = counts.astype(np.float64, copy=not own)
        if self.output == "binary":
            out.data[:] = 1.0
        elif self.output == "tfidf":
            if self.sublinear_tf:
                np.log(out.data, out=out.data)
                out.data += 1.0
            idf = self.idf_ if self.use_idf else None
            weights = self._column_weights(terms) if self._weighted() else None
            if self.norm == "l2":
                scale_and_l2_normalize(out, idf, weights)
                return out
            scale_columns(out, idf, weights)
            if self.norm is not None:
                divide_rows(out, np.asarray(abs(out).sum(axis=1)).ravel())
        return out

    def _column_weights(self, terms: np.ndarray | LazyTerms | None) -> np.ndarray:
        """:meth:`term_weights` of the columns (read-only): of ``terms``, or of the vocabulary
        and its OOV column (which weighs 1). Kept with the terms array while it lives, for any
        vectorizer weighing alike: a batch's terms weighed when a classifier fits them are its
        vocabulary at the first transform (0.19 s each for the 1.17 million terms of 20
        Newsgroups under the default ``TextClassifier``)."""
        oov = terms is None and self.oov_token is not None
        given = self._given_vocabulary() if terms is None else terms
        key = (self.ngram_weights, self.subject_weight, self.analyzer in ("auto", "email"), oov)
        found = term_weights.kept(given, key)
        if found is not None:
            return found
        passed_on = term_weights.inherited(given, key)
        if passed_on is None:
            weights = self.term_weights(given)
        else:  # terms merged from weighed ones: only the new terms weighed
            weights = np.empty(len(given))
            old, at = passed_on
            weights[at] = old
            new = np.ones(len(given), dtype=bool)
            new[at] = False
            weights[new] = self.term_weights(as_terms(given)[new])
        if oov:
            weights = np.append(weights, 1.0)
        weights.flags.writeable = False
        term_weights.keep(given, key, weights)
        return weights

    def _hashed(self, raw_documents: Iterable[Any]) -> sp.csr_matrix:
        """Counts in ``n_features`` columns: a term counts in column ``crc32(its UTF-8 bytes)
        % n_features`` (the compiled scanner's :func:`~bayeskit.text._scan.count_hashed` for
        the analyzers it implements, the same columns in Python for the others)."""
        width = int(self.n_features)
        documents = self._documents(raw_documents)
        analysis = self._analysis()
        if analysis is not None:
            texts = list(documents)
            if sum(map(len, texts)) >= FAST_MIN_CHARS:
                return count_hashed(texts, analysis, width)
            documents = texts
        analyze = self._analyze
        indices: list[int] = []
        indptr = [0]
        for text in documents:
            indices.extend(
                zlib.crc32(t.encode("utf-8", "surrogatepass")) % width for t in analyze(text)
            )
            indptr.append(len(indices))
        out = sp.csr_matrix(
            (np.ones(len(indices)), np.asarray(indices, dtype=np.int64), np.asarray(indptr)),
            shape=(len(indptr) - 1, width),
        )
        out.sum_duplicates()
        return out

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.string = True
        tags.input_tags.two_d_array = False
        return tags


def _position(terms: np.ndarray | LazyTerms, term: Any) -> int:
    """Where ``term`` is among ``terms`` (sorted, distinct), -1 when it is not there; lazy
    terms the compiled scanner counted are searched without being made."""
    if isinstance(terms, LazyTerms) and not terms.made:
        found = find_lazily(terms, [term])
        if found is not None:
            return int(found[0])
    needle = np.empty(1, dtype=object if isinstance(term, str) else np.int64)
    needle[0] = term
    pos, there = find_sorted(as_terms(terms), needle)
    return int(pos[0]) if there[0] else -1


def _oov_is_a_term(token: Any, vocabulary: str) -> ParameterError:
    """The refusal of an ``oov_token`` that is also a term of the vocabulary."""
    example = (
        "" if token == "<oov>" else ", e.g. '<oov>' (the default token_pattern never keeps '<')"
    )
    return ParameterError(
        f"oov_token={token!r} is also the term {token!r} of {vocabulary}: the term's column "
        "and the out-of-vocabulary column would both be named so (feature names must be "
        f"unique); choose an oov_token that cannot be a term{example}"
    )


#: Held while a vectorizer chooses its vocabulary at first use (see ``_ensure_vocabulary``).
_CHOOSING = threading.RLock()


class _NoTable(Exception):  # noqa: N818 - a signal, not an error
    """No lookup table of an "auto" vocabulary for this text's encoding: count in Python."""


def empty_vocabulary_warning(vectorizer: TextVectorizer) -> EmptyVocabularyWarning:
    """The warning of a vocabulary that statistics grown by ``partial_fit`` select no term of
    yet (:class:`~bayeskit.errors.EmptyVocabularyWarning`)."""
    rules = vectorizer.stats_.rules(vectorizer.min_df, vectorizer.max_df, vectorizer.max_features)
    return EmptyVocabularyWarning(
        f"no term meets the vocabulary's rules yet, {rules}: until more documents are "
        "learned, every term of a document is out of the vocabulary and a classifier predicts "
        "from its class priors (and the out-of-vocabulary column, if any); or lower min_df / "
        "raise max_df"
    )
