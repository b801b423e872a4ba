"""Which messages the service has learned, and as what: a map each learn copies cheaply.

Every learn makes a new version of the model and of this map (digest → label), while the
requests under way keep reading the old ones. Copying a ``dict`` for each version cost a
learn time in proportion to everything ever learned (1.5 ms at 100,000 messages, more than
the model update of a short message). A :class:`LearnedIndex` is a shared, never-changed
``dict`` plus the changes made since it; a new version copies only the changes, and folds
them into a new shared ``dict`` once they outnumber about twice the square root of its size,
so a learn costs ``O(√n)`` on average instead of ``O(n)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

__all__ = ["LearnedIndex"]

#: The changes kept beside the shared map before they are folded into a new one, at least.
_FOLD_AT_LEAST = 64


class LearnedIndex(Mapping[str, str]):
    """A read-only map of digest → label; :meth:`updated` gives the next version.

    Examples
    --------
    >>> first = LearnedIndex({"a1": "spam"})
    >>> second = first.updated({"b2": "ham", "a1": None})  # b2 learned, a1 unlearned
    >>> dict(second), dict(first)
    ({'b2': 'ham'}, {'a1': 'spam'})
    """

    __slots__ = ("_base", "_changes", "_size")

    def __init__(self, learned: Mapping[str, str] | None = None) -> None:
        self._base: dict[str, str] = dict(learned or {})  # never changed once built
        self._changes: dict[str, str | None] = {}  # None: learned in _base, since unlearned
        self._size = len(self._base)

    def __getitem__(self, digest: str) -> str:
        if digest in self._changes:
            label = self._changes[digest]
            if label is None:
                raise KeyError(digest)
            return label
        return self._base[digest]

    def get(self, digest: str, default: str | None = None) -> str | None:  # type: ignore[override]
        # (the lookup every check and learn makes: no exception on the common miss)
        changes = self._changes
        if digest in changes:
            label = changes[digest]
            return default if label is None else label
        return self._base.get(digest, default)

    def __contains__(self, digest: object) -> bool:
        if digest in self._changes:
            return self._changes[digest] is not None
        return digest in self._base

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[str]:
        changes = self._changes
        yield from (d for d in self._base if d not in changes)
        yield from (d for d, label in changes.items() if label is not None)

    def to_dict(self) -> dict[str, str]:
        """A ``dict`` of this version (for the journal's base line): the shared map and the
        changes merged by ``dict``'s own code, not one lookup per message."""
        merged = self._base | self._changes
        for digest in [d for d, label in self._changes.items() if label is None]:
            del merged[digest]
        return merged  # type: ignore[return-value]  # (the Nones are gone)

    def updated(self, changes: Mapping[str, str | None]) -> LearnedIndex:
        """The next version: each digest of ``changes`` learned as its label, or unlearned
        (None); this one is unchanged."""
        new = LearnedIndex.__new__(LearnedIndex)
        base, merged, size = self._base, dict(self._changes), self._size
        for digest, label in changes.items():
            size += (label is not None) - (digest in self)
            if label is None and digest not in base:
                merged.pop(digest, None)  # learned and unlearned since the fold: nothing left
            else:
                merged[digest] = label
        if len(merged) > max(_FOLD_AT_LEAST, 2 * math.isqrt(len(base))):
            base = dict(base)
            for digest, label in merged.items():
                if label is None:
                    del base[digest]
                else:
                    base[digest] = label
            merged = {}
        new._base, new._changes, new._size = base, merged, size
        return new
