"""Label and category values to and from JSON, without pickle.

Class labels and categories can be ints, floats, bools, strings or a mix of them. Model files
store them as JSON with an explicit dtype tag, so loading never needs ``allow_pickle``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import ModelFileError

_SCALAR_TAGS = {"b": "bool", "i": "int", "u": "int", "f": "float", "U": "str", "S": "str"}


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
            out[i] = _plain(item[1], item[0])
        return out
    try:
        np_dtype = np.dtype(dtype)
    except TypeError as exc:
        raise ModelFileError(f"unknown dtype {dtype!r} in model metadata") from exc
    if np_dtype.kind not in _SCALAR_TAGS:
        raise ModelFileError(f"dtype {dtype!r} is not allowed in model metadata")
    if np_dtype.kind in "US":
        return np.asarray([str(v) for v in raw], dtype=np_dtype if raw else "U1")
    return np.asarray(raw, dtype=np_dtype)


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


def merge_sorted(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The sorted union of two sorted arrays of distinct values, and where each value of ``a``
    and of ``b`` sits in it: ``(union, positions of a, positions of b)``.

    Found by binary search of ``b`` in ``a`` and an insert, not by sorting the two together:
    for text terms (Python strings, whose comparisons are the cost) a few times faster than
    ``np.union1d`` followed by two ``searchsorted``. None when the values are not all numbers
    or all strings of one array kind (mixed categories sort by their own rule, see
    :func:`unique_sorted`).
    """
    if a.dtype.kind != b.dtype.kind or not (_comparable(a) and _comparable(b)):
        return None
    if len(a) == 0 or len(b) == 0:
        union = b if len(a) == 0 else a
        return union, np.arange(len(a)), np.arange(len(b))
    pos = np.searchsorted(a, b)
    found = (pos < len(a)) & (a[np.minimum(pos, len(a) - 1)] == b)
    new_at = pos[~found]
    union = np.insert(a, new_at, b[~found])
    where_a = np.arange(len(a)) + np.searchsorted(new_at, np.arange(len(a)), side="right")
    where_b = np.empty(len(b), dtype=np.int64)
    where_b[found] = where_a[pos[found]]
    where_b[~found] = new_at + np.arange(len(new_at))
    return union, where_a, where_b


def _comparable(values: np.ndarray) -> bool:
    """Numbers, or only strings (then ``<`` is the strings' own order)."""
    if values.dtype.kind != "O":
        return values.dtype.kind in "biufUS"
    return all(type(v) is str for v in values.tolist())


def find_sorted(haystack: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each needle sits in the sorted ``haystack`` and whether it is there at all:
    ``(positions, found)``, with positions clamped into range so they can always index."""
    if len(haystack) == 0:
        return np.zeros(len(needles), dtype=np.int64), np.zeros(len(needles), dtype=bool)
    pos = np.minimum(np.searchsorted(haystack, needles), len(haystack) - 1)
    return pos, haystack[pos] == needles
