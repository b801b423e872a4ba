"""The contract every sufficient statistic follows.

A statistic is a plain value computed from a block of data and per-row class weights. Two of
them add exactly (associative and commutative, with a zero), so fitting, online learning,
out-of-core and distributed training, and merging models all reduce to ``+``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping
from typing import Any, ClassVar, TypeVar

import numpy as np

from .._labels import OneHot
from .._lazy import sparse as sp
from .._registry import registered
from ..errors import MergeError, ModelFileError

S = TypeVar("S", bound="Statistic")
#: a tolerance for rounding residue: one number, or one per class (an (n_classes,) array).
Tolerance = float | np.ndarray

#: kind name -> class, filled by ``__init_subclass__`` (a kind taken is refused); model files
#: look kinds up here and nowhere else, so a file can only ever name a statistic of a package
#: imported before it is loaded.
STATISTIC_KINDS: dict[str, type[Statistic]] = {}


class Statistic(ABC):
    """An additive sufficient statistic with a class axis first.

    Subclasses define ``kind`` (the name used in model files) and implement :meth:`_add`,
    :meth:`weights`, :meth:`with_weights`, :meth:`to_arrays` and :meth:`from_arrays`. Every
    weight array has the class axis first, so negating (for unlearning), keeping some classes
    and embedding into a longer class list are the same operation for every statistic.
    """

    kind: ClassVar[str]
    #: arrays (by their :meth:`to_arrays` name) that may hold negative numbers (locations,
    #: values), and those in which NaN marks a missing value; every other array holds
    #: non-negative weights.
    signed_arrays: ClassVar[frozenset[str]] = frozenset()
    missing_arrays: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("kind")
        if kind is not None:
            held = STATISTIC_KINDS.get(kind)
            STATISTIC_KINDS[kind] = registered(held, cls, f"the statistic kind {kind!r}")

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

    def min_weights(self) -> np.ndarray:
        """The smallest weight it holds in each class, shape (n_classes,) (negative after
        removing data it never had)."""
        k = self.n_classes
        lows = [per_class_extreme(w.reshape(k, -1), np.minimum) for w in self.weights()]
        return np.min(lows, axis=0) if lows else np.zeros(k)

    def max_weights(self) -> np.ndarray:
        """The largest weight it holds in each class (0 at least): ``-(-self).min_weights()``,
        without the negated copies where :meth:`min_weights` is this class's own."""
        if type(self).min_weights is not Statistic.min_weights:
            return -(-self).min_weights()
        k = self.n_classes
        highs = [per_class_extreme(w.reshape(k, -1), np.maximum) for w in self.weights()]
        return np.max(highs, axis=0) if highs else np.zeros(k)

    def without_empty(self: S, tolerance: Tolerance) -> S:
        """The statistic without entries whose weight is within ``tolerance`` of zero, where
        that changes the model (categories nobody has; most statistics have none)."""
        return self

    def cleaned(self: S, keep: np.ndarray, tolerance: Tolerance) -> S:
        """After removing data: the classes at ``keep``, with weights within ``tolerance`` of
        zero (rounding residue) made exactly zero and emptied entries dropped.
        ``tolerance`` is one number or one per class (the class axis comes first)."""

        def clean(w: np.ndarray) -> np.ndarray:
            return np.where(np.abs(w) <= per_class(tolerance, w), 0.0, w)[keep]

        return self.map_weights(clean).without_empty(kept_tolerance(tolerance, keep))

    def cleaned_after(self: S, before: Statistic, keep: np.ndarray, tolerance: Tolerance) -> S:
        """:meth:`cleaned` of what removing data from ``before`` (this statistic's classes and
        columns, in its order) left: a statistic whose sums are not of rows' weights tells
        their rounding residue by the entries they were (by default, :meth:`cleaned`)."""
        return self.cleaned(keep, tolerance)

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

    def written_layout(self) -> tuple[set[str], dict[str, Any]]:
        """The names of the arrays :meth:`to_arrays` writes and the keys of its metadata (a
        dict's nested dicts kept, any other value None): what a model file of this version
        holds for the statistic, which a load compares the file's with."""
        arrays, meta = self.to_arrays()
        return set(arrays), _keys_of(meta)

    @classmethod
    def read_size(cls, arrays: Mapping[str, Any]) -> int:
        """An upper bound of the bytes :meth:`from_arrays` allocates for ``arrays`` beyond
        them, known before it runs (a model file's load takes it from its budget first): the
        float64 copy ``check_arrays`` makes of each array stored as another type."""
        return sum(
            8 * a.size
            for a in arrays.values()
            if isinstance(a, np.ndarray) and a.dtype != np.float64
        )

    def overflow(self) -> tuple[str, tuple[int, ...], float] | None:
        """(array, index, value) of the first entry that is not a finite float64 (the sums it
        was made of overflowed), or of a weight array whose sum over the classes (what pooling
        them computes) overflows, with an empty index; None if all is well."""
        return overflow_of(self.to_arrays()[0], self.signed_arrays, self.missing_arrays)

    def invalid(self) -> tuple[str, int, str] | None:
        """(array, class index, why) of a part no data could have given (a scatter matrix
        that is not positive semi-definite), or None (most statistics have no such rule
        beyond :meth:`overflow`). Model files refuse such a statistic, and so does fitting
        when numbers at float64's limits produce one: a model that is saved always loads."""
        return None

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(least, most)``, each of shape (n_classes,): the total weight each class's rows
        must have for this statistic to be theirs (a model file's class counts are checked
        against it). A statistic that records the rows' weight itself says it exactly; one
        that records the weight of the rows in which each feature is observed says at least
        the largest (a row missing every value leaves no trace in it); by default, nothing."""
        k = self.n_classes
        return np.full(k, -np.inf), np.full(k, np.inf)

    def spelled_twice(self) -> tuple[int, Any, Any] | None:
        """(feature index, number, text) of a feature whose categories hold a number and the
        text that spells it (the number 3 and the text ``"3"``), or None: one value read two
        ways (a batch or a part read as text beside one read as numbers), which no model
        should learn as two categories. Only statistics that keep categories have any."""
        return None

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


C = TypeVar("C", bound="ColumnStatistic")


class ColumnStatistic(Statistic):
    """A statistic kept column by column, in which a column of zeros (no event in any row)
    has the zero statistic: counts of events. Such a statistic can be kept per term
    (:class:`~bayeskit.stats.TermKeyed`): batches that saw different terms add over the
    union of their terms, and a model reads the columns of the terms it keeps.

    Its weight arrays of one axis are per class (the class weights); every other one has the
    column axis second. Taking, placing and joining columns follow from that; a subclass
    says how much data a column holds (:meth:`column_weight`) and, for counts of events,
    what the sum of columns has (:meth:`pooled`).
    """

    def _columns(self: C, function: Callable[[np.ndarray], np.ndarray]) -> C:
        return self.with_weights(tuple(w if w.ndim == 1 else function(w) for w in self.weights()))

    def take_columns(self: C, index: np.ndarray, found: np.ndarray | None = None) -> C:
        """The statistic of the columns at ``index``, in that order; where ``found`` is
        False, the statistic of a column no row has (zeros)."""
        if found is None or found.all():
            return self._columns(lambda w: w[:, index])

        def take(w: np.ndarray) -> np.ndarray:
            return w[:, index] * found.reshape((1, -1) + (1,) * (w.ndim - 2))

        return self._columns(take)

    def place_columns(self: C, index: np.ndarray, n_features: int) -> C:
        """This statistic's columns at positions ``index`` of ``n_features`` columns, the
        others those of a column no row has."""

        def place(w: np.ndarray) -> np.ndarray:
            out = np.zeros((w.shape[0], n_features, *w.shape[2:]))
            out[:, index] = w
            return out

        return self._columns(place)

    def merge_columns(self: C, at: np.ndarray, other: C, at_other: np.ndarray, n: int) -> C:
        """This statistic's columns at positions ``at`` of ``n`` columns plus ``other``'s at
        ``at_other`` (the sum of both placed, in one array per weight array: what adding
        statistics over two vocabularies costs)."""
        mine, theirs = self.weights(), other.weights()
        if len(mine) != len(theirs):  # the parts differ in what they hold: add them placed
            return self.place_columns(at, n) + other.place_columns(at_other, n)
        arrays = []
        for w, v in zip(mine, theirs, strict=True):
            if w.ndim == 1:
                arrays.append(w + v)
                continue
            out = np.zeros((w.shape[0], n, *w.shape[2:]))
            out[:, at] = w
            out[:, at_other] += v  # positions in one sorted union: distinct
            arrays.append(out)
        return self.with_weights(tuple(arrays))

    def join_columns(self: C, other: C) -> C:
        """This statistic's columns followed by ``other``'s (the same rows and classes)."""
        arrays = tuple(
            w if w.ndim == 1 else np.concatenate([w, v], axis=1)
            for w, v in zip(self.weights(), other.weights(), strict=True)
        )
        return self.with_weights(arrays)

    def seen_columns(self, tolerance: Tolerance) -> np.ndarray:
        """Which columns some class has data of, beyond ``tolerance`` (one number or one per
        class): (n_features,) bool. What removing data keeps of the columns."""
        w = self.column_weight()
        return (np.abs(w) > per_class(tolerance, w)).any(axis=0)

    @abstractmethod
    def column_weight(self) -> np.ndarray:
        """(n_classes, n_features): how much data each class has in each column, 0 exactly
        where it has none (what a term's usefulness and dropping emptied terms read)."""

    @abstractmethod
    def pooled(self: C, where: np.ndarray | None = None) -> C:
        """One column holding the events of every column (or of the columns where ``where``
        is True): the statistic of their sum (an out-of-vocabulary column), for models that
        declare ``sums_columns``."""


def overflow_of(
    arrays: Mapping[str, np.ndarray], signed: Collection[str], missing: Collection[str]
) -> tuple[str, tuple[int, ...], float] | None:
    """:meth:`Statistic.overflow` of ``arrays``, with the names of the signed arrays and of
    those in which NaN marks a missing value."""
    for name, array in arrays.items():
        if name not in missing and _finite_and_poolable(array, pooled=name not in signed):
            continue  # nothing to find: two passes without temporaries
        bad = _first_bad(name, array, signed=True, missing_ok=name in missing)
        if bad is not None:
            return name, bad[0], bad[1]
        if name not in signed and array.size:
            pooled = np.sum(array, axis=0)
            if not np.isfinite(pooled).all():
                return name, (), float(np.max(pooled))
    return None


def _finite_and_poolable(array: np.ndarray, *, pooled: bool) -> bool:
    """Whether every entry of ``array`` is finite and (``pooled``) no sum over its first axis
    can overflow: a quick test by its smallest and largest entries (NaN fails both)."""
    if array.size == 0:
        return True
    low, high = float(np.min(array)), float(np.max(array))
    if not (-np.inf < low and high < np.inf):
        return False
    return not pooled or max(-low, high) * array.shape[0] < 1e307


def per_class_extreme(w: np.ndarray, extreme: np.ufunc) -> np.ndarray:
    """``extreme.reduce`` (``np.minimum`` or ``np.maximum``) of each row of ``w`` (n_classes,
    m) and 0. Count totals are laid out class-fastest (Fortran order), where numpy reduces a
    row element by element (20 times slower than a contiguous pass): there the array is read
    in memory order, 64 columns of all classes at a time, then folded per class (min and max
    are exact, so the order does not change the result)."""
    k, m = w.shape
    if k > 1 and m >= 64 and w.flags.f_contiguous and not w.flags.c_contiguous:
        rows = w.T  # (m, k), C-contiguous
        cut = m - m % 64
        out = extreme.reduce(rows[:cut].reshape(-1, 64 * k), axis=0)
        out = extreme.reduce(out.reshape(64, k), axis=0)
        if cut < m:
            out = extreme(out, extreme.reduce(rows[cut:], axis=0))
        return extreme(out, 0.0)
    return extreme.reduce(w, axis=1, initial=0.0)


def kept_tolerance(tolerance: Tolerance, keep: np.ndarray) -> Tolerance:
    """``tolerance`` of the classes at ``keep`` (a number stays a number)."""
    return tolerance if np.ndim(tolerance) == 0 else np.asarray(tolerance)[keep]


def per_class(tolerance: Tolerance, w: np.ndarray) -> Any:
    """``tolerance`` shaped to broadcast against a weight array ``w`` whose first axis is the
    class axis (a number stays a number)."""
    t = np.asarray(tolerance, dtype=np.float64)
    return t if t.ndim == 0 else t.reshape((-1,) + (1,) * (w.ndim - 1))


def hard_labels(R: np.ndarray | sp.spmatrix | OneHot) -> tuple[np.ndarray, np.ndarray] | None:
    """(class index, weight) of each row when ``R`` is one-hot labels times weights as the
    template builds it (CSR, one stored entry per row, or those entries as a
    :class:`~bayeskit._labels.OneHot`); None for soft labels."""
    if isinstance(R, OneHot):
        return R.codes, R.weight
    if not sp.issparse(R) or not isinstance(R, (sp.csr_matrix, sp.csr_array)):
        return None  # (issparse first: it needs no import of scipy.sparse)
    if R.nnz != R.shape[0]:
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


def _first_bad(
    name: str, array: np.ndarray, *, signed: bool, missing_ok: bool
) -> tuple[tuple[int, ...], float, str] | None:
    """(index, value, what is wrong) of the first entry of ``array`` that is ±inf, NaN (unless
    ``missing_ok``) or negative (unless ``signed``); None when there is none.

    A model file's arrays are checked before the budget of its load has room for masks of
    their size: a valid array is told by its extremes (no temporary), and an invalid one is
    searched in slices of at most ``_SEARCH`` values."""
    if array.size == 0:
        return None
    # fmin/fmax skip NaN (an array of NaN alone gives NaN: where NaN is allowed, nothing else
    # is there to refuse); min/max propagate it, so NaN fails the comparisons below
    low, high = (
        (float(np.fmin.reduce(array, axis=None)), float(np.fmax.reduce(array, axis=None)))
        if missing_ok
        else (float(np.min(array)), float(np.max(array)))
    )
    if (missing_ok and np.isnan(low)) or (
        high < np.inf and (-np.inf < low if signed else low >= 0)
    ):
        return None
    index = _first_bad_index(array, signed=signed, missing_ok=missing_ok)
    if index is None:
        return None
    value = float(array[index])
    what = "negative" if value < 0 and np.isfinite(value) else "not finite"
    return index, value, what


def first_true(mask: np.ndarray) -> tuple[int, ...]:
    """The index (C order) of the first True of a boolean array holding one: found without
    listing every True, as ``np.argwhere`` would (16 bytes each)."""
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))


#: Most values a search for a bad entry masks at a time.
_SEARCH = 1 << 16


def _first_bad_index(
    array: np.ndarray, *, signed: bool, missing_ok: bool
) -> tuple[int, ...] | None:
    """The index (C order) of the first bad entry of ``array`` (see :func:`_first_bad`),
    searched along the first axis in blocks of at most ``_SEARCH`` values (views, so that
    any memory layout is read in place)."""
    if array.size <= _SEARCH:
        with np.errstate(invalid="ignore"):
            bad = np.isinf(array) if missing_ok else ~np.isfinite(array)
            if not signed:
                bad |= array < 0
        return first_true(bad) if bad.any() else None
    rows = max(_SEARCH // (array.size // array.shape[0]), 1)
    for start in range(0, array.shape[0], rows):
        if rows == 1:  # a row larger than a block: searched block by block itself
            inner = _first_bad_index(array[start], signed=signed, missing_ok=missing_ok)
            if inner is not None:
                return (start, *inner)
            continue
        inner = _first_bad_index(array[start : start + rows], signed=signed, missing_ok=missing_ok)
        if inner is not None:
            return (inner[0] + start, *inner[1:])
    return None


def check_arrays(
    kind: str,
    arrays: Mapping[str, Any],
    *,
    signed: Collection[str] = (),
    missing_ok: Collection[str] = (),
    ndim: Mapping[str, int] | None = None,
) -> dict[str, np.ndarray]:
    """The arrays of a statistic read from a model file, as float64, after checking them.

    Each array must have its number of dimensions (``ndim``), hold finite numbers (NaN only
    in ``missing_ok``, which marks a missing value) and no negative number (except in
    ``signed``): weights, counts and sums of squares cannot be negative, and a NaN or an
    infinity would reach every prediction. Raises :class:`~bayeskit.errors.ModelFileError`
    naming the statistic, the array and the first bad entry. Every statistic's
    ``from_arrays`` checks its arrays through this one function; shapes that relate arrays
    to each other stay the statistic's own check.
    """
    out: dict[str, np.ndarray] = {}
    for name, raw in arrays.items():
        if raw is None:
            continue
        array = np.asarray(raw, dtype=np.float64)
        if ndim is not None and name in ndim and array.ndim != ndim[name]:
            raise ModelFileError(
                f"the {kind} statistic's array {name!r} has {array.ndim} dimensions; "
                f"expected {ndim[name]}"
            )
        bad = _first_bad(name, array, signed=name in signed, missing_ok=name in missing_ok)
        if bad is not None:
            index, value, what = bad
            raise ModelFileError(
                f"the {kind} statistic's array {name!r} holds {value!r} at {list(index)}: "
                f"{what} ({'NaN or ' if name not in missing_ok else ''}infinite"
                f"{'' if name in signed else ' or negative'} values are refused)"
            )
        out[name] = array
    return out


def _keys_of(meta: dict[str, Any]) -> dict[str, Any]:
    return {k: _keys_of(v) if isinstance(v, dict) else None for k, v in meta.items()}
