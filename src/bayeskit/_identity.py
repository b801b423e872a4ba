"""Values kept beside objects that cannot be dictionary keys (numpy arrays, scipy matrices),
for as long as those objects live: looked up by identity, dropped when the object is
collected. The text scanner keeps how it counted a vocabulary's terms and the column totals
of the matrix it just made this way, and the vectorizer the term weights of a terms array."""

from __future__ import annotations

import weakref
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class KeptBeside(Generic[V]):
    """A value per living object, by identity.

    Examples
    --------
    >>> import numpy as np
    >>> kept: KeptBeside[str] = KeptBeside()
    >>> terms = np.array(["free", "money"], dtype=object)
    >>> kept.put(terms, "counted")
    >>> kept.get(terms), kept.get(terms.copy())
    ('counted', None)
    >>> key = id(terms); del terms
    >>> key in kept
    False
    """

    def __init__(self) -> None:
        self._items: dict[int, tuple[weakref.ref[Any], V]] = {}

    def put(self, owner: Any, value: V) -> None:
        key, items = id(owner), self._items
        items[key] = (weakref.ref(owner, lambda _: items.pop(key, None)), value)

    def get(self, owner: Any) -> V | None:
        """The value kept beside ``owner`` (this very object), or None."""
        found = self._items.get(id(owner))
        return found[1] if found is not None and found[0]() is owner else None

    def pop(self, owner: Any) -> V | None:
        """:meth:`get`, the value no longer kept."""
        value = self.get(owner)
        if value is not None:
            del self._items[id(owner)]
        return value

    def __contains__(self, key: int) -> bool:
        """Whether a value is kept beside the living object whose ``id`` is ``key``."""
        return key in self._items
