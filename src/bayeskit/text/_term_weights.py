"""Each terms array's weights under a vectorizer's weighting, kept while the array lives, and
passed on to the terms array a merge makes of it.

A text model's vocabulary weighs its terms apart (``subject_weight``, ``ngram_weights``):
finding each weight reads the term's string, about 0.3 s for the 1.17 million terms of 20
Newsgroups. A learned document merges the model's terms with its own into a new array
(:class:`~bayeskit.text.DocumentStats`), which would be weighed again term by term; a merge
records instead where the old terms went (:func:`inherit`), and the new array's weights are
the old ones moved there, only its new terms weighed (:func:`inherited`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._identity import KeptBeside

#: (the weighting, the weights) of a terms array, while it lives.
_KEPT: KeptBeside[tuple[tuple[Any, ...], np.ndarray]] = KeptBeside()
#: (the weighting, the weights of the terms array it came from, where they went).
_PASSED_ON: KeptBeside[tuple[tuple[Any, ...], np.ndarray, np.ndarray]] = KeptBeside()


def kept(terms: Any, weighting: tuple[Any, ...]) -> np.ndarray | None:
    """The weights kept beside ``terms`` under ``weighting``, or None."""
    found = _KEPT.get(terms)
    return found[1] if found is not None and found[0] == weighting else None


def keep(terms: Any, weighting: tuple[Any, ...], weights: np.ndarray) -> None:
    """Keep ``weights`` (read-only) beside ``terms`` while it lives."""
    _KEPT.put(terms, (weighting, weights))


def holds(terms: Any) -> bool:
    """Whether weights are kept beside ``terms``."""
    return _KEPT.get(terms) is not None


def inherit(parent: Any, child: Any, moved: np.ndarray) -> None:
    """Record that ``child`` holds every term of ``parent``, column ``c`` of ``parent`` at
    column ``moved[c]`` of ``child`` (where ``parent`` has weights kept)."""
    found = _KEPT.get(parent)
    if found is not None and child is not parent:
        _PASSED_ON.put(child, (found[0], found[1][: len(moved)], np.asarray(moved)))


def inherited(child: Any, weighting: tuple[Any, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """(weights, their columns in ``child``) passed on to ``child`` under ``weighting``, or
    None; given once (``child``'s own weights are kept then)."""
    found = _PASSED_ON.get(child)
    if found is None or found[0] != weighting:
        return None
    _PASSED_ON.pop(child)
    return found[1], found[2]
