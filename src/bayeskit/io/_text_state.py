"""Text models in model files (format version 2): TextVectorizer, TextClassifier, SpamFilter.

meta.json holds the header of every model file (format, format_version 2, bayeskit_version,
estimator: a name in :data:`TEXT_ESTIMATORS`), ``params``, ``state`` and the manifest::

    params   the estimator's hyperparameters; a nested estimator (the ``vectorizer`` and
             ``model`` of a classifier) is {"type": "estimator", "class": <a name in
             NESTED_ESTIMATORS>, "params": {...}}; sets are {"type": "set"|"frozenset", ...}
    state    TextVectorizer:  {"stats": VOCAB}  (with "hashed" output: empty statistics)
             classifier with "counts"/"binary" output and no given vocabulary (additive mode):
               {"mode": "additive", "classes": <labels>, "class_count": <float64 entry>,
                "terms": TERMS, "counts": <float64 (n_classes, n_terms) entry>,
                "vocabulary": VOCAB}
               i.e. ``stats_`` (one TermKeyed block over the terms: the count model's own
               statistic of each term, for every count model term counts with the class
               counts as their weights) and ``vocabulary_stats_``; a count model whose
               statistic is another per-column one has, instead of "counts",
               "block": {"kind": <a per-column statistic of bayeskit.stats>, "meta": {...},
               "arrays": {<name>: <float64 entry>}} (what its to_arrays gives); rebuilt with
               ``cls(**params).fit_summary(stats, vocab)``
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

Terms are not JSON: a vocabulary of 10^6 terms is two flat arrays, compressed with the rest. A
term list used twice (the classifier's statistics and its vocabulary usually share one) is
stored once. :func:`build_text` refuses a term list whose offsets do not rise from 0 to the
blob's end, which is not strict UTF-8 term by term, or whose terms are not sorted and distinct;
every class it builds comes from :data:`TEXT_ESTIMATORS` or :data:`NESTED_ESTIMATORS`.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from .._params import ClassifierMixin, is_classifier
from .._values import values_from_json, values_to_json
from ..contract import contract_of
from ..errors import BayeskitError, ModelFileError
from ..stats import STATISTIC_KINDS, ColumnStatistic, Counts, Summary, TermKeyed
from ..text import SpamFilter, TextClassifier, TextVectorizer, VocabularyStats
from ..text._document_stats import DocumentStats
from ..text.analyze import MAX_STOP_WORDS
from ..text.calibration import BINS
from ._format import (
    ESTIMATORS,
    MAX_DEPTH,
    Budget,
    assemble,
    build,
    check_manifest,
    check_section,
    decode,
    decode_params,
    encode,
    model_section,
)

#: The text models a file can hold (the ``estimator`` of its meta.json).
TEXT_ESTIMATORS: dict[str, type[TextClassifier] | type[TextVectorizer]] = {
    cls.__name__: cls for cls in (SpamFilter, TextClassifier, TextVectorizer)
}
#: The classes a hyperparameter of a text model can be an instance of.
NESTED_ESTIMATORS: dict[str, type] = {
    **ESTIMATORS,
    TextVectorizer.__name__: TextVectorizer,
    TextClassifier.__name__: TextClassifier,  # what a SemiSupervisedNB may wrap
}
TEXT_FORMAT_VERSION = 2
#: classes × terms tables an additive text classifier computes when it is rebuilt
_ADOPT_TABLES = 4


# ---------------------------------------------------------------------------------- saving
def text_contents(obj: TextClassifier | TextVectorizer) -> tuple[dict[str, Any], dict[str, bytes]]:
    """meta.json (without checksum) and the entries of a fitted text model."""
    params = _params(obj)
    writer = _Writer()
    if not is_classifier(obj):  # the vectorizer itself
        state = _vectorizer_state(obj, writer, "vectorizer")
    else:
        state = _classifier_state(obj, writer)
        spam = contract_of(obj).decision == "spam"
        counts = obj.__dict__.get("score_counts_") if spam else None
        if counts is not None and np.any(counts):  # a filter without scores stores none
            state["score_counts"] = writer.add(
                "calibration.score_counts.npy", np.asarray(counts, np.float64)
            )
    fields = {"estimator": type(obj).__name__, "params": params, "state": state}
    return assemble(TEXT_FORMAT_VERSION, fields, writer.arrays)


def _params(obj: TextClassifier | TextVectorizer) -> dict[str, Any]:
    params = obj.get_params(deep=False)
    for vec in (obj, params.get("vectorizer")):
        if callable(getattr(vec, "analyzer", None)):  # a vectorizer's (a classifier has none)
            raise ModelFileError(
                f"cannot save a TextVectorizer whose analyzer is a callable ({vec.analyzer!r}): "
                "model files hold no code. Use a named analyzer ('word', 'char', 'char_wb', "
                "'email') to save the model"
            )
    return {k: encode(v, k, 0, _encode_more) for k, v in params.items()}


def _encode_more(value: Any, name: str, depth: int) -> Any:
    """Sets and estimators of NESTED_ESTIMATORS as JSON (see _decode_more)."""
    if isinstance(value, (set, frozenset)):  # sorted, so the same set gives the same file
        items = sorted(value, key=lambda v: (type(v).__name__, repr(v)))
        kind = "frozenset" if isinstance(value, frozenset) else "set"
        return {"type": kind, "items": [encode(v, name, depth + 1, _encode_more) for v in items]}
    cls = type(value)
    if NESTED_ESTIMATORS.get(cls.__name__) is cls:
        params = {
            k: encode(v, f"{name}__{k}", depth + 1, _encode_more)
            for k, v in value.get_params(deep=False).items()
        }
        return {"type": "estimator", "class": cls.__name__, "params": params}
    raise ModelFileError(
        f"cannot store the hyperparameter {name}={value!r} of type {cls.__name__}; model files "
        "hold numbers, strings, bools, None, lists, dicts, sets, numpy arrays and estimators "
        f"of the classes {', '.join(sorted(NESTED_ESTIMATORS))}"
    )


class _Writer:
    """Collects the arrays of a file; stores each distinct term list once."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self._term_lists: list[tuple[np.ndarray, dict[str, str]]] = []

    def add(self, name: str, array: np.ndarray) -> str:
        self.arrays[name] = array
        return name

    def terms(self, name: str, terms: np.ndarray) -> dict[str, str]:
        for seen, ref in self._term_lists:
            if seen is terms or (len(seen) == len(terms) and bool(np.all(seen == terms))):
                return ref
        blob, offsets = encode_terms(terms)
        ref = {"utf8": self.add(f"{name}.utf8.npy", blob)}
        ref["offsets"] = self.add(f"{name}.offsets.npy", offsets)
        self._term_lists.append((terms, ref))
        return ref


def encode_terms(terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The UTF-8 bytes of all terms concatenated (uint8) and the n + 1 offsets (int64)."""
    items = terms.tolist()
    try:
        encoded = [t.encode("utf-8") for t in items]
    except (AttributeError, UnicodeEncodeError) as exc:
        bad = next(t for t in items if not isinstance(t, str) or not _encodable(t))
        raise ModelFileError(
            f"cannot store the term {bad!r}: terms must be str that UTF-8 encodes ({exc})"
        ) from None
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


def _encodable(term: str) -> bool:
    try:
        term.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def _vocab_state(stats: VocabularyStats, writer: _Writer, name: str) -> dict[str, Any]:
    return {
        "terms": writer.terms(f"{name}.terms", stats.terms),
        "doc_freq": writer.add(f"{name}.doc_freq.npy", np.asarray(stats.doc_freq, np.int64)),
        "term_freq": writer.add(f"{name}.term_freq.npy", np.asarray(stats.term_freq, np.int64)),
        "n_docs": int(stats.n_docs),
    }


def _vectorizer_state(vec: TextVectorizer, writer: _Writer, name: str) -> dict[str, Any]:
    # NotFittedError if unfitted; DataError (naming the setting) if its statistics select no
    # vocabulary, so a file that could not be loaded is never written.
    vec.check_fitted()
    return {"stats": _vocab_state(vec.stats_, writer, name)}


def _classifier_state(clf: TextClassifier, writer: _Writer) -> dict[str, Any]:
    clf.check_fitted()  # NotFittedError
    if clf.keeps_term_statistics():
        stats = clf.stats_
        (documents,) = stats.blocks
        if not isinstance(documents, DocumentStats):
            raise ModelFileError(
                f"cannot store the statistics of this {type(clf).__name__}: its one block is "
                f"{documents.kind!r}, not the documents statistic its settings keep"
            )
        keyed = documents.keyed
        state: dict[str, Any] = {
            "mode": "additive",
            "classes": values_to_json(stats.classes),
            "class_count": writer.add(
                "stats.class_count.npy", np.asarray(stats.class_count, np.float64)
            ),
            "terms": writer.terms("stats.terms", keyed.terms),
        }
        arrays, meta = keyed.block.to_arrays()
        if (
            keyed.block.kind == "counts"
            and set(arrays) == {"weight", "total"}
            and np.array_equal(arrays["weight"], stats.class_count)
        ):  # term counts (every count model's): stored as 0.1 stored them
            state["counts"] = writer.add("stats.counts.npy", np.asarray(arrays["total"]))
        else:  # any other per-column statistic, as it describes itself
            state["block"] = {
                "kind": keyed.block.kind,
                "meta": meta,
                "arrays": {
                    name: writer.add(f"stats.block.{name}.npy", np.asarray(array, np.float64))
                    for name, array in arrays.items()
                },
            }
        state["vocabulary"] = _vocab_state(documents.vocabulary, writer, "vocabulary")
        return state
    vec, model = clf.fitted_parts()
    if ESTIMATORS.get(type(model).__name__) is not type(model):
        raise ModelFileError(f"cannot store the count model {model!r} of a {type(clf).__name__}")
    section, arrays = model_section(model, "model.")
    vectorizer = {"params": _params(vec), **_vectorizer_state(vec, writer, "vectorizer")}
    writer.arrays.update(arrays)
    return {"mode": "fixed", "vectorizer": vectorizer, "model": section}


# ---------------------------------------------------------------------------------- loading
def check_text_meta(meta: dict[str, Any]) -> dict[str, str]:
    """Check a text model's meta.json fields; return the manifest {entry name: sha256}."""
    if meta["format_version"] < TEXT_FORMAT_VERSION:
        raise ModelFileError(
            f"a {meta['estimator']} needs format_version {TEXT_FORMAT_VERSION}, not "
            f"{meta['format_version']}"
        )
    for key in ("params", "state"):
        if type(meta.get(key)) is not dict:
            raise ModelFileError(f"meta.json: {key} must be a dict")
    return check_manifest(meta)


class _Entries:
    """The arrays of a file, handed out by the names meta.json gives; all must be used."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self._arrays = arrays
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
            self._terms[key] = decode_terms(blob, offsets, where)
        return self._terms[key]

    def check_all_used(self) -> None:
        for name in sorted(set(self._arrays) - self._used):
            raise ModelFileError(f"entry {name!r} is in the manifest but the model does not use it")


def decode_terms(blob: np.ndarray, offsets: np.ndarray, where: str = "terms") -> np.ndarray:
    """Inverse of :func:`encode_terms`: an object array of str, sorted and distinct."""
    if len(offsets) == 0 or offsets[0] != 0 or offsets[-1] != len(blob):
        raise ModelFileError(
            f"bad term list {where}: its offsets must run from 0 to the {len(blob)} bytes of "
            "its blob"
        )
    if np.any(offsets[1:] < offsets[:-1]):
        raise ModelFileError(f"bad term list {where}: its offsets decrease")
    raw = blob.tobytes()
    ends = offsets.tolist()
    terms = np.empty(len(ends) - 1, dtype=object)
    try:
        terms[:] = [raw[a:b].decode("utf-8") for a, b in pairwise(ends)]
    except UnicodeDecodeError as exc:
        raise ModelFileError(f"bad term list {where}: a term is not valid UTF-8 ({exc})") from None
    if len(terms) > 1 and not bool(np.all(terms[1:] > terms[:-1])):
        raise ModelFileError(f"bad term list {where}: the terms are not sorted and distinct")
    return terms


def build_text(
    meta: dict[str, Any], arrays: dict[str, np.ndarray], budget: Budget | None = None
) -> Any:
    """The text model a checked meta.json and its arrays describe; what building it
    allocates beyond the arrays is taken from the load ``budget`` first, as for a model of
    ESTIMATORS (:func:`~bayeskit.io._format.build`)."""
    cls = TEXT_ESTIMATORS[meta["estimator"]]
    entries = _Entries(arrays)
    params = decode_params(cls, meta["params"], _decode_more)
    state = meta["state"]
    try:
        # Every setting is checked before anything is built: a file cannot carry one that
        # explodes later (an n-gram range of 10^5, a token pattern that backtracks
        # exponentially, an unknown encoding, millions of stop words).
        cls(**params).check_params()
        if not issubclass(cls, ClassifierMixin):  # the vectorizer itself
            obj: Any = _vectorizer(params, state, entries, "state")
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


def _decode_more(obj: dict[str, Any], name: str, depth: int) -> Any:
    """Sets and estimators, built only from classes of NESTED_ESTIMATORS."""
    kind = obj.get("type")
    if kind == "estimator":
        cls_name = obj.get("class")
        cls = NESTED_ESTIMATORS.get(cls_name) if type(cls_name) is str else None
        if cls is None:
            raise ModelFileError(f"unknown estimator class {cls_name!r} in hyperparameter {name}")
        return cls(**decode_params(cls, obj.get("params"), _decode_more, depth + 1, f"{name}__"))
    items = obj.get("items")
    if isinstance(items, list) and len(items) > MAX_STOP_WORDS:  # sets are stop words
        raise ModelFileError(
            f"meta.json: hyperparameter {name} holds {len(items)} items (at most {MAX_STOP_WORDS})"
        )
    if kind in ("set", "frozenset") and isinstance(items, list) and depth < MAX_DEPTH:
        decoded = [decode(v, name, depth + 1, _decode_more) for v in items]
        try:
            return set(decoded) if kind == "set" else frozenset(decoded)
        except TypeError:  # an unhashable item: never written
            pass
    raise ModelFileError(f"meta.json: malformed value of hyperparameter {name}")


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
    return vec.fit_stats(stats)


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
    stats = Summary(classes, class_count, (TermKeyed(terms, block),))
    if budget is not None:
        # What fit_summary computes from the counts before it can be checked: the selected
        # columns (with the out-of-vocabulary one), the count model's statistic and its
        # log-probability table (and a copy while it is made), each classes × terms.
        budget.take(
            8 * _ADOPT_TABLES * len(classes) * (len(terms) + 1), "the text model's parameters"
        )
    return cls(**params).fit_summary(stats, vocabulary)


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
    vec_params = decode_params(TextVectorizer, saved.get("params"), _decode_more)
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
