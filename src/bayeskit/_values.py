"""Label and category values to and from JSON, without pickle.

Class labels and categories can be ints, floats, bools, strings or a mix of them. Model files
store them as JSON with an explicit dtype tag, so loading never needs ``allow_pickle``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import pairwise
from typing import Any

import numpy as np

from .errors import ModelFileError

_SCALAR_TAGS = {"b": "bool", "i": "int", "u": "int", "f": "float", "U": "str", "S": "str"}


#: ``take(nbytes, what)`` of the budget of the model file being loaded (set by
#: :func:`charged` around a load): a value list of fixed-width text takes its padded size
#: from it before the array is made (every label padded to the declared width).
_TAKE: ContextVar[Callable[[int, str], None] | None] = ContextVar("_TAKE", default=None)
#: The most bytes one value list may take when decoded outside a load's budget.
UNCHARGED_LIMIT = 1024**3


@contextmanager
def charged(take: Callable[[int, str], None]) -> Iterator[None]:
    """Within the block, :func:`values_from_json` takes what it allocates from ``take`` (a
    model file's load budget) before allocating it."""
    token = _TAKE.set(take)
    try:
        yield
    finally:
        _TAKE.reset(token)


def _charge(nbytes: int, what: str) -> None:
    take = _TAKE.get()
    if take is not None:
        take(nbytes, what)
    elif nbytes > UNCHARGED_LIMIT:
        raise ModelFileError(
            f"{what} needs {nbytes} bytes, beyond the {UNCHARGED_LIMIT} bytes a value list may "
            "take: refusing it before allocating"
        )


def one_of(value: Any, options: Any) -> bool:
    """Whether ``value`` is one of ``options``: an array, a list or a mapping given for a
    named setting is not (``in`` would compare it element by element, and numpy would ask
    "the truth value of an array is ambiguous")."""
    return not isinstance(value, (np.ndarray, list, dict, set)) and value in options


def _tag_of(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, str):
        return "str"
    raise ModelFileError(
        f"cannot store the value {value!r} of type {type(value).__name__} in a model file; "
        "labels and categories must be bool, int, float or str"
    )


#: The Python type json reads for each tag's values as values_to_json writes them.
_JSON_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str}


def _plain(value: Any, tag: str) -> Any:
    return {"bool": bool, "int": int, "float": float, "str": str}[tag](value)


def values_to_json(values: np.ndarray) -> dict[str, Any]:
    """Encode a 1-D array of labels or categories as a JSON-ready dict."""
    values = np.asarray(values)
    tag = _SCALAR_TAGS.get(values.dtype.kind)
    if tag is not None:
        return {"dtype": str(values.dtype), "values": [_plain(v, tag) for v in values.tolist()]}
    tags = [_tag_of(v) for v in values.tolist()]
    return {
        "dtype": "object",
        "values": [[t, _plain(v, t)] for t, v in zip(tags, values, strict=True)],
    }


def values_from_json(obj: Any) -> np.ndarray:
    """Decode what :func:`values_to_json` wrote; refuse anything else."""
    if not isinstance(obj, dict) or "dtype" not in obj or not isinstance(obj.get("values"), list):
        raise ModelFileError("malformed value list in model metadata")
    if len(obj) != 2:  # what save writes and nothing else
        other = sorted(str(k) for k in obj if k not in ("dtype", "values"))
        raise ModelFileError(
            f"a value list in model metadata holds {other[0]!r}: not written by save"
        )
    dtype, raw = obj["dtype"], obj["values"]
    if dtype == "object":
        out = np.empty(len(raw), dtype=object)
        for i, item in enumerate(raw):
            if not (
                isinstance(item, list)
                and len(item) == 2
                and item[0] in ("bool", "int", "float", "str")
            ):
                raise ModelFileError("malformed tagged value in model metadata")
            # the JSON type save writes for the tag (int(1.5) would make a label of 1)
            if type(item[1]) is not _JSON_TYPES[item[0]]:
                raise ModelFileError(
                    f"the value {item[1]!r} tagged {item[0]!r} in model metadata is not a "
                    f"JSON {_JSON_TYPES[item[0]].__name__}"
                )
            out[i] = item[1]
        return out
    try:
        np_dtype = np.dtype(dtype)
    except TypeError as exc:
        raise ModelFileError(f"unknown dtype {dtype!r} in model metadata") from exc
    if np_dtype.kind not in _SCALAR_TAGS:
        raise ModelFileError(f"dtype {dtype!r} is not allowed in model metadata")
    expected = _JSON_TYPES[_SCALAR_TAGS[np_dtype.kind]]
    at = next((i for i, v in enumerate(raw) if type(v) is not expected), None)
    if at is not None:  # (numpy would cast it: 1.5 to an int64 label of 1, 2**31 to '2147')
        raise ModelFileError(
            f"the value {repr(raw[at])[:100]} in a {dtype} list of model metadata is not a "
            f"JSON {expected.__name__}"
        )
    if np_dtype.kind in "US":
        # The declared width is what save wrote (the labels' own): a longer value would be
        # cut to it, and a far wider width would only allocate memory (a 1 KB file declaring
        # S2000000000 asked for 4 GB).
        chars = np_dtype.itemsize // (4 if np_dtype.kind == "U" else 1)
        longest = max(map(len, raw), default=0)
        if longest > chars:
            cut = next(v for v in raw if len(v) == longest)
            raise ModelFileError(
                f"the value {cut[:100]!r} ({longest} characters) in a {dtype} list of model "
                f"metadata is longer than its dtype holds ({chars}): not written by save"
            )
        if chars > max(64, 4 * longest):
            raise ModelFileError(
                f"dtype {dtype!r} in model metadata is far wider than its values "
                f"(the longest has {longest} characters)"
            )
        # every value padded to the width: n x width bytes, known before it is allocated
        # (one label of 200 000 characters among 4 000 short ones: 3.2 GB from 11 KB)
        _charge(
            len(raw) * np_dtype.itemsize,
            f"a list of {len(raw)} values of dtype {dtype!r} in model metadata",
        )
        try:
            return np.array(raw, dtype=np_dtype)
        except (UnicodeEncodeError, ValueError) as exc:  # (S: text that is not ASCII)
            raise ModelFileError(f"values that are not {dtype} in model metadata ({exc})") from None
    try:
        return np.asarray(raw, dtype=np_dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ModelFileError(f"values that are not {dtype} in model metadata ({exc})") from None


_TYPE_RANK = {"bool": 0, "int": 0, "float": 0, "str": 1}


def _sort_key(value: Any) -> tuple[int, Any]:
    tag = _tag_of(value)
    return (_TYPE_RANK[tag], value if tag != "str" else str(value))


def unique_sorted(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values; mixed numbers and strings sort numbers first, then strings."""
    values = np.asarray(values)
    if values.dtype.kind != "O":
        return np.unique(values)
    try:
        return np.unique(values)
    except TypeError:
        out = np.empty(0, dtype=object)
        ordered = sorted(set(values.tolist()), key=_sort_key)
        out = np.empty(len(ordered), dtype=object)
        out[:] = ordered
        return out


def is_sorted_unique(values: np.ndarray) -> bool:
    """Whether ``values`` is strictly increasing in the order :func:`unique_sorted` gives: what
    class and category lists must be for the binary searches that look values up in them."""
    values = np.asarray(values)
    if len(values) < 2:
        return True
    if values.dtype.kind != "O":
        with np.errstate(invalid="ignore"):
            return bool(np.all(values[1:] > values[:-1]))
    try:
        keys = [_sort_key(v) for v in values.tolist()]
        return all(a < b for a, b in pairwise(keys))
    except (ModelFileError, TypeError):
        return False


def _family(values: np.ndarray) -> str:
    kind = values.dtype.kind
    if kind in "biuf":
        return "number"
    if kind in "US":
        return "str"
    return "object"


def union_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted union of two sorted category arrays, never silently turning numbers into text."""
    if len(a) == 0:
        return b
    if len(b) == 0:
        return a
    if _family(a) == _family(b) != "object":
        return np.union1d(a, b)
    both = np.empty(len(a) + len(b), dtype=object)
    both[: len(a)] = a.tolist()
    both[len(a) :] = b.tolist()
    return unique_sorted(both)


def merge_sorted_text(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sorted union of two sorted arrays of distinct ``str`` (object dtype) and where the
    elements of each land in it: ``(union, positions of a, positions of b)``.

    Binary search of the smaller array in the larger (``O(m log n)`` comparisons) and one
    insertion, instead of sorting both: a text model's vocabulary grows by a few terms per
    learned message, and two halves of a corpus add in one search (the positions of the
    searched terms follow from where they were found or inserted, without searching again).
    ``union`` is ``a`` itself when ``b`` adds nothing to it.
    """
    if len(b) > len(a):
        union, pos_b, pos_a = merge_sorted_text(b, a)
        return union, pos_a, pos_b
    at = np.searchsorted(a, b)
    found = np.zeros(len(b), dtype=bool)
    inside = at < len(a)
    found[inside] = a[at[inside]] == b[inside]
    if found.all():
        return a, np.arange(len(a)), at
    fresh = ~found
    where = at[fresh]
    union = np.insert(a, where, b[fresh])
    # each element of a moves right by the number of new elements inserted at or before it
    pos_a = np.arange(len(a)) + np.searchsorted(where, np.arange(len(a)), side="right")
    pos_b = np.empty(len(b), dtype=np.intp)
    pos_b[found] = pos_a[at[found]]
    # the i-th new element goes in before a[where[i]], after the i new ones before it
    pos_b[fresh] = where + np.arange(len(where))
    return union, pos_a, pos_b


def insert_sorted_text(
    a: np.ndarray, b: np.ndarray, most: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`merge_sorted_text` for a few terms ``b`` added to many ``a``:
    ``(union, where, positions of b)``, ``where`` the places in ``a`` before which the
    terms new to it go (sorted; the union is ``a`` with :func:`spread` inserting them),
    or ``None`` when more than ``most`` terms of ``b`` are new to ``a``.

    A learned message holds a few dozen terms, some new: finding them costs ``O(m log n)``
    comparisons and the union one copy of ``a`` in a few slices, where the positions of
    every element of ``a`` (what a merge of two large lists needs) would cost passes over
    all ``n``."""
    at = np.searchsorted(a, b)
    found = np.zeros(len(b), dtype=bool)
    inside = at < len(a)
    found[inside] = a[at[inside]] == b[inside]
    fresh = ~found
    if int(fresh.sum()) > most:
        return None
    where = at[fresh]
    pos_b = np.empty(len(b), dtype=np.intp)
    # a term of a moves right by the number of new terms inserted at or before it; the
    # i-th new term goes in before a[where[i]], after the i new ones before it
    pos_b[found] = at[found] + np.searchsorted(where, at[found], side="right")
    pos_b[fresh] = where + np.arange(len(where))
    union = a if not len(where) else spread(a, where, axis=0, fill=b[fresh])
    return union, where, pos_b


def spread(x: np.ndarray, where: np.ndarray, *, axis: int, fill: Any = 0) -> np.ndarray:
    """``np.insert(x, where, fill, axis=axis)`` for a few sorted ``where``: one slice copy
    per run of ``x`` between them (numpy's insert masks every element), ``fill`` a scalar
    or one value per place."""
    n, k = x.shape[axis], len(where)
    shape = list(x.shape)
    shape[axis] = n + k
    out = np.empty(shape, dtype=x.dtype)
    fills = np.broadcast_to(np.asarray(fill, dtype=x.dtype), (k,))
    # views with the axis first: the slices below copy into ``out`` itself
    src, dst = np.moveaxis(x, axis, 0), np.moveaxis(out, axis, 0)
    start = 0
    for j, w in enumerate(where.tolist()):
        dst[start + j : w + j] = src[start:w]
        dst[w + j] = fills[j]
        start = w
    dst[start + k :] = src[start:]
    return out


def all_text(values: np.ndarray) -> bool:
    """Whether ``values``, sorted distinct categories (numbers sort before strings, see
    :func:`unique_sorted`), are an object array of ``str`` only: then its first value is one."""
    return values.dtype.kind == "O" and (len(values) == 0 or type(values[0]) is str)


def find_sorted(haystack: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each needle sits in the sorted ``haystack`` and whether it is there at all:
    ``(positions, found)``, with positions clamped into range so they can always index."""
    if len(haystack) == 0:
        return np.zeros(len(needles), dtype=np.int64), np.zeros(len(needles), dtype=bool)
    pos = np.minimum(np.searchsorted(haystack, needles), len(haystack) - 1)
    return pos, haystack[pos] == needles
