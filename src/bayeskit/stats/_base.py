"""The contract every sufficient statistic follows.

A statistic is a plain value computed from a block of data and per-row class weights. Two of
them add exactly (associative and commutative, with a zero), so fitting, online learning,
out-of-core and distributed training, and merging models all reduce to ``+``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np
import scipy.sparse as sp

from ..errors import MergeError

S = TypeVar("S", bound="Statistic")

#: kind name -> class, filled by ``__init_subclass__``; model files look kinds up here and
#: nowhere else, so a file can only ever name a statistic this package defines.
STATISTIC_KINDS: dict[str, type[Statistic]] = {}


class Statistic(ABC):
    """An additive sufficient statistic with a class axis first.

    Subclasses define ``kind`` (the name used in model files) and implement :meth:`_add`,
    :meth:`weights`, :meth:`with_weights`, :meth:`to_arrays` and :meth:`from_arrays`. Every
    weight array has the class axis first, so negating (for unlearning), keeping some classes
    and embedding into a longer class list are the same operation for every statistic.
    """

    kind: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("kind")
        if kind is not None:
            STATISTIC_KINDS[kind] = cls

    @property
    @abstractmethod
    def n_features(self) -> int:
        """Number of features the statistic covers."""

    @abstractmethod
    def weights(self) -> tuple[np.ndarray, ...]:
        """The weight arrays, each with the class axis first."""

    @abstractmethod
    def with_weights(self: S, arrays: tuple[np.ndarray, ...]) -> S:
        """The same statistic (features, categories) holding other weights."""

    @abstractmethod
    def _add(self: S, other: S) -> S:
        """Add a statistic of the same type and class axis."""

    @property
    def n_classes(self) -> int:
        """Length of the class axis."""
        return int(self.weights()[0].shape[0])

    def map_weights(self: S, function: Callable[[np.ndarray], np.ndarray]) -> S:
        """The statistic with ``function`` applied to every weight array."""
        return self.with_weights(tuple(function(w) for w in self.weights()))

    def __neg__(self: S) -> S:
        """Every weight negated, so ``a + (-b)`` removes ``b``'s data."""
        return self.map_weights(np.negative)

    def min_weight(self) -> float:
        """The smallest weight it holds (negative after removing data it never had)."""
        return min((float(w.min()) for w in self.weights() if w.size), default=0.0)

    def without_empty(self: S, tolerance: float) -> S:
        """The statistic without entries whose weight is within ``tolerance`` of zero, where
        that changes the model (categories nobody has; most statistics have none)."""
        return self

    def cleaned(self: S, keep: np.ndarray, tolerance: float) -> S:
        """After removing data: the classes at ``keep``, with weights within ``tolerance`` of
        zero (rounding residue) made exactly zero and emptied entries dropped."""

        def clean(w: np.ndarray) -> np.ndarray:
            return np.where(np.abs(w) <= tolerance, 0.0, w)[keep]

        return self.map_weights(clean).without_empty(tolerance)

    def embed_classes(self: S, index: np.ndarray, n_classes: int) -> S:
        """Place this statistic's classes at rows ``index`` of a zero statistic with
        ``n_classes`` classes (used to align two statistics on the union of their classes)."""

        def embed(w: np.ndarray) -> np.ndarray:
            out = np.zeros((n_classes, *w.shape[1:]))
            out[index] = w
            return out

        return self.map_weights(embed)

    @abstractmethod
    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Numeric arrays and JSON metadata that together describe the statistic exactly."""

    @classmethod
    @abstractmethod
    def from_arrays(cls: type[S], arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> S:
        """Inverse of :meth:`to_arrays`."""

    def __add__(self: S, other: object) -> S:
        if not isinstance(other, type(self)):
            return NotImplemented
        if other.n_classes != self.n_classes:
            raise MergeError(
                f"cannot add {self.kind} statistics with {self.n_classes} and {other.n_classes} "
                "classes; align them on one class list first (Summary does this)"
            )
        return self._add(other)

    def __radd__(self: S, other: object) -> S:
        # ``sum(stats)`` starts from the integer 0, the additive identity.
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


def hard_labels(R: np.ndarray | sp.spmatrix) -> tuple[np.ndarray, np.ndarray] | None:
    """(class index, weight) of each row when ``R`` is one-hot labels times weights as the
    template builds it (CSR, one stored entry per row); None for soft labels."""
    if not isinstance(R, (sp.csr_matrix, sp.csr_array)) or R.nnz != R.shape[0]:
        return None
    if not np.array_equal(R.indptr, np.arange(R.shape[0] + 1)):
        return None
    return np.asarray(R.indices), np.asarray(R.data)


def safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` (broadcast) with 0 where ``den`` is 0: a class that has no value of a
    feature, or a feature no class has."""
    out = np.zeros(np.broadcast_shapes(np.shape(num), np.shape(den)))
    np.divide(num, den, out=out, where=den != 0)
    return out
