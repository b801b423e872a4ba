"""The "text" state of model files (format version 2): TextVectorizer, and the text
classifiers (TextClassifier, SpamFilter) as bayeskit wrote them before format version 3.

A TextVectorizer is written here; a text classifier is written as every generative classifier
is (:mod:`bayeskit.io._format`, its block of kind "documents": :mod:`bayeskit.io.
_documents_block`), and the classifier files of this state, written by bayeskit 0.1 and later
before format version 3, are read here.

meta.json holds the header of every model file (format, format_version 2, bayeskit_version,
estimator: a name in :data:`TEXT_ESTIMATORS`), ``params``, ``state`` and the manifest::

    params   the estimator's hyperparameters; a nested estimator (the ``vectorizer`` and
             ``model`` of a classifier) is {"type": "estimator", "class": <a name of
             nested_estimators()>, "params": {...}}; sets are {"type": "set"|"frozenset", ...}
    state    TextVectorizer:  {"stats": VOCAB}  (with "hashed" output: empty statistics)
             classifier with "counts"/"binary" output and no given vocabulary (additive mode):
               {"mode": "additive", "classes": <labels>, "class_count": <float64 entry>,
                "terms": TERMS, "counts": <float64 (n_classes, n_terms) entry>,
                "vocabulary": VOCAB}
               i.e. the term-keyed statistics (the count model's own statistic of each
               term: term counts with the class counts as their weights) and the vocabulary
               statistics; a count model whose statistic is another per-column one has,
               instead of "counts", "block": {"kind": <a per-column statistic of
               bayeskit.stats>, "meta": {...}, "arrays": {<name>: <float64 entry>}} (what its
               to_arrays gives); rebuilt as one DocumentStats block
             classifier otherwise (fixed mode: "tfidf"/"hashed" output or a given vocabulary):
               {"mode": "fixed", "vectorizer": {"params": {...}, "stats": VOCAB},
                "model": <the fields a version-1 file has for its model, entries "model.*">}
             a SpamFilter's state also has "score_counts": <float64 (2, BINS) entry>, its
               ``score_counts_`` (the probability scale is refitted from them); a file
               without it loads with the model's own probabilities
    VOCAB    {"terms": TERMS, "doc_freq": <int64 entry>, "term_freq": <int64 entry>,
              "n_docs": int}
    TERMS    {"utf8": <uint8 entry: the UTF-8 bytes of every term, concatenated>,
              "offsets": <int64 entry of n_terms + 1 byte offsets>}

A term list used twice (the classifier's statistics and its vocabulary usually share one) is
stored once. :func:`build_text` refuses a term list whose offsets do not rise from 0 to the
blob's end, which is not strict UTF-8 term by term, or whose terms are not sorted and distinct;
every class it builds comes from :data:`TEXT_ESTIMATORS` or ``nested_estimators()``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import ClassifierMixin
from .._values import values_from_json
from ..contract import contract_of
from ..errors import BayeskitError, ModelFileError, ModelFileVersionError
from ..stats import STATISTIC_KINDS, ColumnStatistic, Counts, Summary, TermKeyed
from ..text import DocumentStats, SpamFilter, TextClassifier, TextVectorizer, VocabularyStats
from ..text.calibration import BINS
from ._documents_block import decode_terms, encode_terms
from ._format import (
    ESTIMATORS,
    HEADER_FIELDS,
    Budget,
    assemble,
    build,
    check_class_count,
    check_fields,
    check_manifest,
    check_section,
    decode_more,
    decode_params,
    encode,
    encode_more,
)

#: The text models a file of this state can hold (the ``estimator`` of its meta.json); it
#: writes the vectorizer only.
TEXT_ESTIMATORS: dict[str, type[TextClassifier] | type[TextVectorizer]] = {
    cls.__name__: cls for cls in (SpamFilter, TextClassifier, TextVectorizer)
}
TEXT_FORMAT_VERSION = 2
#: classes × terms tables an additive text classifier computes when it is rebuilt
_ADOPT_TABLES = 4


# ---------------------------------------------------------------------------------- saving
def text_contents(vec: TextVectorizer) -> tuple[dict[str, Any], dict[str, bytes]]:
    """meta.json (without checksum) and the entries of a fitted TextVectorizer."""
    params = vec.get_params(deep=False)
    if callable(params.get("analyzer")):
        raise ModelFileError(
            f"cannot save a TextVectorizer whose analyzer is a callable ({vec.analyzer!r}): "
            "model files hold no code. Use a named analyzer ('word', 'char', 'char_wb', "
            "'email') to save the model"
        )
    encoded = {k: encode(v, k, 0, encode_more) for k, v in params.items()}
    # NotFittedError if unfitted; DataError (naming the setting) if its statistics select no
    # vocabulary, so a file that could not be loaded is never written.
    vec.check_fitted()
    stats = vec.stats_
    blob, offsets = encode_terms(stats.terms)
    arrays = {
        "vectorizer.terms.utf8.npy": blob,
        "vectorizer.terms.offsets.npy": offsets,
        "vectorizer.doc_freq.npy": np.asarray(stats.doc_freq, np.int64),
        "vectorizer.term_freq.npy": np.asarray(stats.term_freq, np.int64),
    }
    state = {
        "stats": {
            "terms": {
                "utf8": "vectorizer.terms.utf8.npy",
                "offsets": "vectorizer.terms.offsets.npy",
            },
            "doc_freq": "vectorizer.doc_freq.npy",
            "term_freq": "vectorizer.term_freq.npy",
            "n_docs": int(stats.n_docs),
        }
    }
    fields = {"estimator": type(vec).__name__, "params": encoded, "state": state}
    return assemble(TEXT_FORMAT_VERSION, fields, arrays)


# ---------------------------------------------------------------------------------- loading
def check_text_meta(meta: dict[str, Any]) -> dict[str, str]:
    """Check a text model's meta.json fields; return the manifest {entry name: sha256}."""
    if meta["format_version"] < TEXT_FORMAT_VERSION:
        raise ModelFileError(
            f"a {meta['estimator']} needs format_version {TEXT_FORMAT_VERSION}, not "
            f"{meta['format_version']}"
        )
    check_fields(meta, HEADER_FIELDS | {"state"}, "meta.json")
    for key in ("params", "state"):
        if type(meta.get(key)) is not dict:
            raise ModelFileError(f"meta.json: {key} must be a dict")
    return check_manifest(meta)


class _Entries:
    """The arrays of a file, handed out by the names meta.json gives; all must be used."""

    def __init__(self, arrays: dict[str, np.ndarray], budget: Budget | None = None) -> None:
        self._arrays = arrays
        self._budget = budget  # (what decoding a term list takes is taken from it first)
        self._used: set[str] = set()
        self._terms: dict[tuple[str, str], np.ndarray] = {}

    def raw(self, name: Any, where: str) -> np.ndarray:
        if type(name) is not str or name not in self._arrays:
            raise ModelFileError(f"meta.json: {where} must name an entry of the manifest")
        self._used.add(name)
        return self._arrays[name]

    def get(self, name: Any, where: str, dtype: type, ndim: int) -> np.ndarray:
        array = self.raw(name, where)
        if array.dtype != np.dtype(dtype) or array.ndim != ndim:
            raise ModelFileError(
                f"entry {name!r} ({where}) must be a {ndim}-D {np.dtype(dtype)} array, not a "
                f"{array.ndim}-D {array.dtype} one"
            )
        return array

    def terms(self, ref: Any, where: str) -> np.ndarray:
        ref = _dict(ref, where)
        blob = self.get(ref.get("utf8"), f"{where}.utf8", np.uint8, 1)
        offsets = self.get(ref.get("offsets"), f"{where}.offsets", np.int64, 1)
        key = (ref["utf8"], ref["offsets"])  # a term list two parts share is decoded once
        if key not in self._terms:
            take = None if self._budget is None else self._budget.take
            self._terms[key] = decode_terms(blob, offsets, where, take)
        return self._terms[key]

    def check_all_used(self) -> None:
        for name in sorted(set(self._arrays) - self._used):
            raise ModelFileError(f"entry {name!r} is in the manifest but the model does not use it")


def build_text(
    meta: dict[str, Any], arrays: dict[str, np.ndarray], budget: Budget | None = None
) -> Any:
    """The text model a checked meta.json and its arrays describe; what building it
    allocates beyond the arrays is taken from the load ``budget`` first, as for a model of
    ESTIMATORS (:func:`~bayeskit.io._format.build`)."""
    cls = TEXT_ESTIMATORS[meta["estimator"]]
    entries = _Entries(arrays, budget)
    params = decode_params(cls, meta["params"], decode_more)
    state = meta["state"]
    try:
        # Every setting is checked before anything is built: a file cannot carry one that
        # explodes later (an n-gram range of 10^5, a token pattern that backtracks
        # exponentially, an unknown encoding, millions of stop words).
        cls(**params).check_params()
        if not issubclass(cls, ClassifierMixin):  # the vectorizer itself
            obj: Any = _vectorizer(params, state, entries, "state")
        elif unrecorded := [k for k in ("vectorizer", "model") if params.get(k) is None]:
            # None meant the defaults of the bayeskit that wrote the file, which changed
            # within format version 2 (a word vectorizer and MultinomialNB(alpha=1) at first;
            # since, e-mail-aware 1-2-grams weighed by cross-validated settings): this
            # version cannot tell which the counts were made with.
            raise ModelFileVersionError(
                f"this {cls.__name__} was saved with {unrecorded[0]}=None, the default of the "
                "bayeskit that wrote it, which a file of format version 2 does not record; "
                "the defaults changed since, and this version would read the counts with others"
            )
        elif state.get("mode") == "additive":
            obj = _additive(cls, params, state, entries, budget)
        elif state.get("mode") == "fixed":
            obj = _fixed(cls, params, state, entries, budget)
        else:
            raise ModelFileError(
                f"meta.json: state.mode must be 'additive' or 'fixed', not {state.get('mode')!r}"
            )
        if contract_of(cls).decision == "spam" and "score_counts" in state:
            counts = entries.get(state["score_counts"], "state.score_counts", np.float64, 2)
            if counts.shape != (2, BINS) or not np.all(np.isfinite(counts) & (counts >= 0)):
                raise ModelFileError(
                    f"state.score_counts must hold (2, {BINS}) finite counts >= 0, not "
                    f"an array of shape {counts.shape}"
                )
            obj.set_score_counts(counts)
    except ModelFileError:
        raise
    except BayeskitError as exc:
        raise ModelFileError(f"the stored model is invalid: {exc}") from None
    entries.check_all_used()
    return obj


def _dict(value: Any, where: str) -> dict[str, Any]:
    if type(value) is not dict:
        raise ModelFileError(f"meta.json: {where} must be a dict")
    return value


def _vocabulary(ref: Any, entries: _Entries, where: str) -> VocabularyStats:
    ref = _dict(ref, where)
    terms = entries.terms(ref.get("terms"), f"{where}.terms")
    doc_freq = entries.get(ref.get("doc_freq"), f"{where}.doc_freq", np.int64, 1)
    term_freq = entries.get(ref.get("term_freq"), f"{where}.term_freq", np.int64, 1)
    n_docs = ref.get("n_docs")
    if type(n_docs) is not int or n_docs < 0:
        raise ModelFileError(f"meta.json: {where}.n_docs must be an int >= 0")
    if len(doc_freq) != len(terms) or len(term_freq) != len(terms):
        raise ModelFileError(f"{where}: the frequencies do not match the terms")
    if np.any(doc_freq < 0) or np.any(term_freq < 0):
        raise ModelFileError(f"{where}: negative frequencies")
    return VocabularyStats(terms, doc_freq, term_freq, n_docs)


def _vectorizer(
    params: dict[str, Any], state: dict[str, Any], entries: _Entries, where: str
) -> TextVectorizer:
    stats = _vocabulary(state.get("stats"), entries, f"{where}.stats")
    vec = TextVectorizer(**params)
    if vec.output == "hashed":  # nothing to select: the statistics are kept as they were
        vec.check_params()
        vec.stats_ = stats
        return vec
    return vec.fit_stats(stats, allow_empty=True)  # as it was saved (a stream's)


def _additive(
    cls: type[TextClassifier],
    params: dict[str, Any],
    state: dict[str, Any],
    entries: _Entries,
    budget: Budget | None,
) -> TextClassifier:
    classes = values_from_json(state.get("classes"))
    class_count = entries.get(state.get("class_count"), "state.class_count", np.float64, 1)
    terms = entries.terms(state.get("terms"), "state.terms")
    block = _term_block(state, entries, class_count)
    vocabulary = _vocabulary(state.get("vocabulary"), entries, "state.vocabulary")
    if class_count.shape != classes.shape or (block.n_classes, block.n_features) != (
        len(classes),
        len(terms),
    ):
        raise ModelFileError("the statistics do not match the class list or the terms")
    check_class_count(classes, class_count, (block,))
    documents = DocumentStats(TermKeyed(terms, block), vocabulary)
    stats = Summary(classes, class_count, (documents,))
    if budget is not None:
        # What fit_summary computes from the counts before it can be checked: the selected
        # columns (with the out-of-vocabulary one), the count model's statistic and its
        # log-probability table (and a copy while it is made), each classes × terms.
        budget.take(
            8 * _ADOPT_TABLES * len(classes) * (len(terms) + 1), "the text model's parameters"
        )
    return cls(**params).fit_summary(stats)


def _term_block(state: dict[str, Any], entries: _Entries, class_count: np.ndarray) -> Any:
    """The count model's statistic of every term: term counts, or the per-column statistic
    a file names (one of this package's, never code the file brings)."""
    if "block" not in state:  # term counts, as every file before other blocks has them
        counts = entries.get(state.get("counts"), "state.counts", np.float64, 2)
        if counts.shape[0] != class_count.shape[0]:
            raise ModelFileError("the statistics do not match the class list or the terms")
        return Counts(class_count, counts)
    saved = _dict(state.get("block"), "state.block")
    kind = saved.get("kind")
    block_cls = STATISTIC_KINDS.get(kind) if isinstance(kind, str) else None
    if block_cls is None or not issubclass(block_cls, ColumnStatistic):
        raise ModelFileError(f"meta.json state.block: {kind!r} is no per-column statistic")
    refs = _dict(saved.get("arrays"), "state.block.arrays")
    meta = _dict(saved.get("meta"), "state.block.meta")
    arrays = {name: entries.raw(ref, f"state.block.arrays.{name}") for name, ref in refs.items()}
    try:
        return block_cls.from_arrays(arrays, meta)
    except ModelFileError:
        raise
    except (ValueError, TypeError, KeyError) as error:
        raise ModelFileError(f"meta.json state.block: {error}") from None


def _fixed(
    cls: type[TextClassifier],
    params: dict[str, Any],
    state: dict[str, Any],
    entries: _Entries,
    budget: Budget | None,
) -> TextClassifier:
    saved = _dict(state.get("vectorizer"), "state.vectorizer")
    vec_params = decode_params(TextVectorizer, saved.get("params"), decode_more)
    TextVectorizer(**vec_params).check_params()
    vec = _vectorizer(vec_params, saved, entries, "state.vectorizer")
    section = _dict(state.get("model"), "state.model")
    names = check_section(section, "meta.json state.model")
    # Refused before it is built: another model's parameters could cost far more than its
    # statistics, and the budget below bounds only what is built.
    if contract_of(ESTIMATORS[section["estimator"]]).input != "counts":
        raise ModelFileError(
            f"a {cls.__name__} counts with a count model (one that declares input='counts'), "
            f"not {section['estimator']}"
        )
    model = build(section, {name: entries.raw(name, "state.model") for name in names}, budget)
    if vec.output == "hashed":
        width = int(vec.n_features)
    else:
        width = len(vec.terms_) + (vec.oov_token is not None)
    if model.n_features_in_ != width:
        raise ModelFileError(
            f"the model has {model.n_features_in_} features but the vectorizer {width} columns"
        )
    obj = cls(**params)
    obj.check_params()  # its vectorizer and model hyperparameters are usable
    if type(model) is not type(obj.prototypes()[1]):
        raise ModelFileError(
            f"the file's count model is a {type(model).__name__}, its settings' a "
            f"{type(obj.prototypes()[1]).__name__}"
        )
    obj.vectorizer_ = vec  # the columns its first fit chose
    return obj.fit_summary(model.statistics())
