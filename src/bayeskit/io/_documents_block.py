"""The block of kind ``"documents"`` in a model file: the one block of a generative classifier
that reads documents (a TextClassifier or SpamFilter, format version 3).

A text model is written as every generative classifier is (:func:`bayeskit.io._format.
model_section`: hyperparameters, classes, class counts, declared classes, layout, fitted
record, one entry per statistic block); its one block is written here, in one of the two
modes of its documents family (:mod:`bayeskit.text._documents`)::

    per term   meta   {"mode": "per_term", "keyed": {"kind": <the count model's per-column
                       statistic>, **its meta}, "n_docs": int, "vocabulary_terms": "same" |
                       "own"}
               arrays terms.utf8, terms.offsets (TERMS), keyed.<name> (the count statistic
                      of every term, what its to_arrays gives), doc_freq, term_freq (int64),
                      and vocabulary_terms.utf8/offsets when the vocabulary statistics are
                      over other terms than the counts ("own")
               i.e. the :class:`~bayeskit.text.DocumentStats` of ``stats_``
    fixed      meta   {"mode": "fixed", "count": {"kind": <the count model's statistic>,
                       **its meta}, "n_docs": int}
               arrays vocabulary.terms.utf8/offsets, vocabulary.doc_freq,
                      vocabulary.term_freq (the fitted vectorizer's vocabulary statistics:
                      the vectorizer is the settings' one fitted on them) and count.<name>
                      (the count statistic over the vectorizer's columns, ``stats_``'s block)

TERMS are not JSON: a vocabulary of 10^6 terms is two flat arrays (the UTF-8 bytes of every
term concatenated, uint8, and the n + 1 byte offsets, int64), compressed with the rest.
Reading refuses a term list whose offsets do not rise from 0 to the blob's end, which is not
strict UTF-8 term by term, or whose terms are not sorted and distinct; the statistic classes
come from :data:`~bayeskit.stats.STATISTIC_KINDS` only.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np

from .._params import clone
from ..errors import ModelFileError
from ..stats import STATISTIC_KINDS, ColumnStatistic, Statistic, TermKeyed
from ._unwritten import unwritten_parts

#: Takes a number of bytes from a load's budget before they are allocated, naming what for
#: (:meth:`bayeskit.io._format.Budget.take`), or refuses them.
Take = Callable[[int, str], None]

KIND = "documents"


# ---------------------------------------------------------------------------------- terms
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


#: Terms decoded (and their order checked) this many at a time: the lists a chunk needs are
#: let go before the next one.
_CHUNK = 8192


def decoded_size(blob: np.ndarray, offsets: np.ndarray) -> int:
    """The bytes :func:`decode_terms` holds at its peak for the terms of ``blob`` and
    ``offsets``, told before any is decoded (a load takes it from its budget first: a term
    of a few bytes becomes a str object of 50 to 80 bytes, and a SpamFilter's load peaked at
    1.45 times what was counted before): per term, CPython's str object (its header, 49
    bytes with the terminator for ASCII, at most 80 otherwise, and up to 15 of alignment)
    and the object array's pointer; the characters, one byte each if the blob is ASCII,
    else at most 4 bytes a character (no more characters than bytes); the blob's copy; a
    chunk's offsets and strings listed."""
    n = max(len(offsets) - 1, 0)
    if not len(blob) or int(blob.max()) < 128:
        per_term, per_byte = 49 + 15 + 8, 1 + 1
    else:
        per_term, per_byte = 80 + 15 + 8, 4 + 1
    # (a chunk's offsets as Python ints and its strings' list: 36 and 8 bytes a term)
    return per_term * n + per_byte * len(blob) + 48 * min(n, _CHUNK)


def decode_terms(
    blob: np.ndarray, offsets: np.ndarray, where: str = "terms", take: Take | None = None
) -> np.ndarray:
    """Inverse of :func:`encode_terms`: an object array of str, sorted and distinct; what
    the strings take (:func:`decoded_size`) is taken from a load's budget by ``take``
    first."""
    if len(offsets) == 0 or offsets[0] != 0 or offsets[-1] != len(blob):
        raise ModelFileError(
            f"bad term list {where}: its offsets must run from 0 to the {len(blob)} bytes of "
            "its blob"
        )
    if np.any(offsets[1:] < offsets[:-1]):
        raise ModelFileError(f"bad term list {where}: its offsets decrease")
    if take is not None:
        take(decoded_size(blob, offsets), f"decoding the term list {where}")
    raw = blob.tobytes()
    n = len(offsets) - 1
    terms = np.empty(n, dtype=object)
    for start in range(0, n, _CHUNK):
        ends = offsets[start : start + _CHUNK + 1].tolist()
        try:
            terms[start : start + len(ends) - 1] = [
                raw[a:b].decode("utf-8") for a, b in pairwise(ends)
            ]
        except UnicodeDecodeError as exc:
            raise ModelFileError(
                f"bad term list {where}: a term is not valid UTF-8 ({exc})"
            ) from None
    for start in range(0, n - 1, _CHUNK):
        chunk = terms[start : start + _CHUNK + 1]
        if not bool(np.all(chunk[1:] > chunk[:-1])):
            raise ModelFileError(f"bad term list {where}: the terms are not sorted and distinct")
    return terms


# ---------------------------------------------------------------------------------- writing
def documents_arrays(model: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and metadata of a fitted text model's one block (see the module docstring),
    read through its public members: its statistics, whether they are kept per term, and in
    the fixed mode the vectorizer its first fit fitted (``vectorizer_``)."""
    (block,) = model.statistics().blocks
    if model.keeps_term_statistics():
        keyed, vocabulary = block.keyed, block.vocabulary
        arrays = _terms_arrays("terms", keyed.terms)
        keyed_meta = _statistic_arrays(arrays, "keyed.", keyed.block)
        same = block.shares_terms() or (
            len(vocabulary) == len(keyed.terms) and np.array_equal(vocabulary.terms, keyed.terms)
        )
        if not same:
            arrays.update(_terms_arrays("vocabulary_terms", vocabulary.terms))
        arrays.update(_frequency_arrays("", vocabulary))
        meta = {
            "mode": "per_term",
            "keyed": keyed_meta,
            "n_docs": int(vocabulary.n_docs),
            "vocabulary_terms": "same" if same else "own",
        }
        return arrays, meta
    # DataError (naming the setting) if its statistics select no vocabulary: a file that
    # could not be loaded is never written
    vectorizer = model.vectorizer_.check_fitted()
    vocabulary = vectorizer.stats_
    arrays = _terms_arrays("vocabulary.terms", vocabulary.terms)
    arrays.update(_frequency_arrays("vocabulary.", vocabulary))
    count_meta = _statistic_arrays(arrays, "count.", block)
    return arrays, {"mode": "fixed", "count": count_meta, "n_docs": int(vocabulary.n_docs)}


# The writer's halves of what the reader takes apart below (_Parts.terms, _vocabulary and
# _statistic read the same names).
def _terms_arrays(name: str, terms: np.ndarray) -> dict[str, np.ndarray]:
    blob, offsets = encode_terms(terms)
    return {f"{name}.utf8": blob, f"{name}.offsets": offsets}


def _frequency_arrays(prefix: str, vocabulary: Any) -> dict[str, np.ndarray]:
    return {
        f"{prefix}doc_freq": np.asarray(vocabulary.doc_freq, np.int64),
        f"{prefix}term_freq": np.asarray(vocabulary.term_freq, np.int64),
    }


def _statistic_arrays(
    arrays: dict[str, np.ndarray], prefix: str, statistic: ColumnStatistic
) -> dict[str, Any]:
    """Add the count statistic's arrays to ``arrays`` under ``prefix``; its meta (with kind)."""
    inner, inner_meta = statistic.to_arrays()
    arrays.update({f"{prefix}{name}": a for name, a in inner.items()})
    return {"kind": statistic.kind, **inner_meta}


# ---------------------------------------------------------------------------------- reading
def documents_statistic(
    model: Any, arrays: dict[str, np.ndarray], meta: dict[str, Any], take: Take | None = None
) -> Statistic:
    """The statistic of a documents block (``arrays`` by their names in the block): per
    term a DocumentStats; fixed, the count statistic, the vectorizer fitted on the stored
    vocabulary statistics being given to ``model`` as ``vectorizer_`` (the columns its first
    fit chose). ``model``'s settings are checked first: a file cannot carry one that explodes
    later (an n-gram range of 10^5, a token pattern that backtracks exponentially). What
    decoding the terms takes is taken from the load's budget by ``take`` first."""
    from ..text import DocumentStats

    model.check_params()
    parts = _Parts(arrays, take)
    mode = meta.get("mode")
    if mode == "per_term":
        if not model.keeps_term_statistics():
            raise ModelFileError(
                "a documents block kept per term, but the model's settings fix its vocabulary "
                "(idf, hashed output or a given vocabulary)"
            )
        terms = parts.terms("terms")
        block = _statistic(parts, "keyed.", meta.get("keyed"))
        if meta.get("vocabulary_terms") == "same":
            vocab_terms = terms
        elif meta.get("vocabulary_terms") == "own":
            vocab_terms = parts.terms("vocabulary_terms")
        else:
            raise ModelFileError("a documents block's vocabulary_terms must be 'same' or 'own'")
        vocabulary = _vocabulary(parts, "", vocab_terms, meta.get("n_docs"))
        if block.n_features != len(terms):
            raise ModelFileError("the documents block's count statistic does not match its terms")
        _check_fields(meta, mode)
        parts.check_all_used()
        return DocumentStats(TermKeyed(terms, block), vocabulary)
    if mode != "fixed":
        raise ModelFileError(
            f"a documents block's mode must be 'per_term' or 'fixed', not {mode!r}"
        )
    if model.keeps_term_statistics():
        raise ModelFileError(
            "a documents block of a fixed vocabulary, but the model's settings keep statistics "
            "per term"
        )
    terms = parts.terms("vocabulary.terms")
    vocabulary = _vocabulary(parts, "vocabulary.", terms, meta.get("n_docs"))
    block = _statistic(parts, "count.", meta.get("count"))
    _check_fields(meta, mode)
    parts.check_all_used()
    vectorizer = clone(model.prototypes()[0])
    if vectorizer.output == "hashed":  # nothing to select: the statistics as they were kept
        vectorizer.stats_ = vocabulary
        width = int(vectorizer.n_features)
    else:
        vectorizer.fit_stats(vocabulary, allow_empty=True)  # as it was saved (a stream's)
        width = len(vectorizer.terms_) + (vectorizer.oov_token is not None)
    if block.n_features != width:
        raise ModelFileError(
            f"the documents block's count statistic has {block.n_features} columns but the "
            f"vectorizer {width}"
        )
    model.vectorizer_ = vectorizer  # the columns its first fit chose
    return block


#: The fields of a documents block's meta in each mode (see the module docstring).
_FIELDS = {
    "per_term": {"mode", "keyed", "n_docs", "vocabulary_terms"},
    "fixed": {"mode", "count", "n_docs"},
}


def _check_fields(meta: dict[str, Any], mode: str) -> None:
    """Refuse a field this version does not write in ``mode`` (a newer bayeskit's), rather
    than read the block without it."""
    unknown = sorted(set(meta) - _FIELDS[mode])
    if unknown:
        raise ModelFileError(
            f"the documents block holds the field {unknown[0]!r}, which this bayeskit does "
            "not write (a file of a newer bayeskit? load it with the version that wrote it)"
        )


class _Parts:
    """The block's arrays, handed out by name; all must be used."""

    def __init__(self, arrays: dict[str, np.ndarray], take: Take | None = None) -> None:
        self._arrays = arrays
        self._take = take
        self._used: set[str] = set()

    def get(self, name: str, dtype: type, ndim: int) -> np.ndarray:
        array = self._arrays.get(name)
        if array is None:
            raise ModelFileError(f"the documents block has no array {name!r}")
        if array.dtype != np.dtype(dtype) or array.ndim != ndim:
            raise ModelFileError(
                f"the documents block's array {name!r} must be a {ndim}-D {np.dtype(dtype)} "
                f"array, not a {array.ndim}-D {array.dtype} one"
            )
        self._used.add(name)
        return array

    def terms(self, name: str) -> np.ndarray:
        blob = self.get(f"{name}.utf8", np.uint8, 1)
        offsets = self.get(f"{name}.offsets", np.int64, 1)
        return decode_terms(blob, offsets, name, self._take)

    def prefixed(self, prefix: str) -> dict[str, np.ndarray]:
        found = {k[len(prefix) :]: v for k, v in self._arrays.items() if k.startswith(prefix)}
        self._used.update(prefix + k for k in found)
        return found

    def check_all_used(self) -> None:
        for name in sorted(set(self._arrays) - self._used):
            raise ModelFileError(f"the documents block's array {name!r} is not used")


def _statistic(parts: _Parts, prefix: str, meta: Any) -> ColumnStatistic:
    """The count model's per-column statistic the block names (one of this package's, never
    code the file brings)."""
    kind = meta.get("kind") if isinstance(meta, dict) else None
    cls = STATISTIC_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None or not issubclass(cls, ColumnStatistic):
        raise ModelFileError(f"a documents block's count statistic {kind!r} is not kept per column")
    assert isinstance(meta, dict)
    inner = {k: v for k, v in meta.items() if k != "kind"}
    arrays = parts.prefixed(prefix)
    try:
        statistic = cls.from_arrays(arrays, inner)
    except ModelFileError:
        raise
    except (ValueError, TypeError, KeyError) as error:
        raise ModelFileError(f"a documents block's count statistic: {error}") from None
    # as every statistic block of a model file is checked (bayeskit.io._format)
    unknown = unwritten_parts(statistic, arrays, inner, prefix)
    if unknown:
        raise ModelFileError(
            f"the documents block holds {unknown[0]!r}, which this bayeskit does not write "
            "(a file of a newer bayeskit? load it with the version that wrote it)"
        )
    return statistic


def _vocabulary(parts: _Parts, prefix: str, terms: np.ndarray, n_docs: Any) -> Any:
    from ..text import VocabularyStats

    doc_freq = parts.get(f"{prefix}doc_freq", np.int64, 1)
    term_freq = parts.get(f"{prefix}term_freq", np.int64, 1)
    if isinstance(n_docs, bool) or not isinstance(n_docs, int) or n_docs < 0:
        raise ModelFileError("a documents block's n_docs must be an int >= 0")
    if len(doc_freq) != len(terms) or len(term_freq) != len(terms):
        raise ModelFileError("the documents block's frequencies do not match its terms")
    if len(terms) and (doc_freq.min() < 0 or term_freq.min() < 0):
        raise ModelFileError("the documents block holds negative frequencies")
    if doc_freq.max(initial=0) > n_docs:
        raise ModelFileError("the documents block counts a term in more than n_docs documents")
    return VocabularyStats(terms, doc_freq, term_freq, n_docs)
