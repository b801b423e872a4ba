"""The documents a process has counted for semi-supervised EM on a cluster, kept between EM
rounds: a worker counts each partition of documents once per fit, not once per round.

The counts of a partition over the terms it holds depend on its documents and the
vectorizer's settings alone (not on the model EM is fitting), so they are kept under a digest
of both (BLAKE2b of every document, length-prefixed; documents that are neither str nor bytes
are not kept). The least recently used are dropped beyond :data:`CACHE_BYTES`.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from ._views import Rows, TextView

#: Most bytes of counts kept per process.
CACHE_BYTES = 512 * 2**20

_kept: OrderedDict[bytes, tuple[np.ndarray, Any, Rows, int]] = OrderedDict()
_lock = threading.Lock()


def _digest(settings: str, docs: list[Any]) -> bytes | None:
    h = hashlib.blake2b(settings.encode(), digest_size=32)
    for doc in docs:
        if isinstance(doc, str):
            doc = doc.encode("utf-8", "surrogatepass")
        elif not isinstance(doc, bytes):
            return None
        h.update(len(doc).to_bytes(8, "little"))
        h.update(doc)
    return h.digest()


def _size(terms: np.ndarray, rows: Rows) -> int:
    counts = rows.data
    return int(terms.nbytes + counts.data.nbytes + counts.indices.nbytes + counts.indptr.nbytes)


def counted(prototype: Any, labels: np.ndarray, docs: list[Any]) -> tuple[TextView, Rows]:
    """The view of ``prototype`` over ``docs`` and their counts (kept, or counted now)."""
    view = TextView(prototype, labels)
    vec, _ = prototype.prototypes()
    key = _digest(repr(sorted(vec.get_params().items())), docs)
    with _lock:
        hit = None if key is None else _kept.get(key)
        if hit is not None:
            _kept.move_to_end(key)  # type: ignore[arg-type]
    if hit is not None:
        view.terms, view.vocabulary, rows, _ = hit
        return view, rows
    rows = view.prepare(docs)
    if key is not None:
        size = _size(view.terms, rows)
        with _lock:
            _kept[key] = (view.terms, view.vocabulary, rows, size)
            total = sum(entry[3] for entry in _kept.values())
            while total > CACHE_BYTES and _kept:
                total -= _kept.popitem(last=False)[1][3]
    return view, rows


def clear() -> None:
    """Drop every kept count."""
    with _lock:
        _kept.clear()
