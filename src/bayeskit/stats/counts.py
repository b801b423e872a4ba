"""Per-class weighted sums of features: the statistic of every linear count family."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import MergeError, ModelFileError
from ._base import ColumnStatistic, Statistic, Tolerance, check_arrays, kept_tolerance, per_class

#: the rounding residue of removing data, relative to the entry it was removed from (as the
#: class weights' residue is relative to the class's weight: ``Summary.__sub__``)
_RESIDUE = 1e-9


@dataclass(frozen=True, eq=False)
class Counts(ColumnStatistic):
    """Class weights and per-class feature totals.

    Parameters
    ----------
    weight : ndarray of shape (n_classes,)
        Total weight of the rows of each class (rows × sample weights, or responsibilities).
    total : ndarray of shape (n_classes, n_features)
        ``total[c, j] = Σ_i R[i, c] · X[i, j]``: word counts for multinomial and complement
        models, presence counts for Bernoulli.
    missing : ndarray of shape (n_classes, n_features), optional
        Weight of the rows of each class in which the feature is missing (Bernoulli models
        need it: a missing feature is neither present nor absent). None means none missing.

    Examples
    --------
    >>> import numpy as np
    >>> a = Counts(np.array([1.0, 2.0]), np.array([[1.0, 0.0], [3.0, 4.0]]))
    >>> b = Counts.zero(2, 2)
    >>> (a + b).total
    array([[1., 0.],
           [3., 4.]])
    """

    weight: np.ndarray
    total: np.ndarray
    missing: np.ndarray | None = None

    kind = "counts"

    def __post_init__(self) -> None:
        # In C order in memory, as a model file stores it, whatever made it (a fit's product
        # lays it out class-fastest): the same counts then score the same to the last bit,
        # loaded or not, and a row's sums (a class's total, at every learn) run along memory.
        if not self.total.flags.c_contiguous:
            object.__setattr__(self, "total", np.ascontiguousarray(self.total))

    @classmethod
    def zero(cls, n_classes: int, n_features: int) -> Counts:
        """The additive identity for ``n_classes`` classes and ``n_features`` features."""
        return cls(np.zeros(n_classes), np.zeros((n_classes, n_features)))

    @property
    def n_features(self) -> int:
        return int(self.total.shape[1])

    def _add(self, other: Counts) -> Counts:
        if other.n_features != self.n_features:
            raise MergeError(
                f"cannot add counts over {self.n_features} and {other.n_features} features"
            )
        if self.missing is None and other.missing is None:
            missing = None
        else:
            missing = self.missing_weight() + other.missing_weight()
        return Counts(self.weight + other.weight, self.total + other.total, missing)

    def feature_totals(self) -> np.ndarray:
        """Each feature's total over the classes, ``total.sum(axis=0)``: (n_features,)."""
        if self.n_classes < 8:  # (numpy adds fewer than 8 values one after another anyway)
            return self.total.sum(axis=0)
        # numpy's pairwise sum of each column, as a class-fastest array (a fit's product) and
        # SparseCounts' cells sum it: the same pooled counts to the last bit in any layout
        return np.asfortranarray(self.total).sum(axis=0)

    def missing_weight(self) -> np.ndarray:
        """``missing`` as an array (zeros when nothing is missing)."""
        if self.missing is None:
            return np.zeros_like(self.total)
        return self.missing

    def without_empty(self, tolerance: Tolerance) -> Counts:
        # After removing data, rows missing a feature may be gone altogether: no missing
        # weight left is the same statistic as none recorded.
        if self.missing is not None and not self.missing.any():
            return Counts(self.weight, self.total)
        return self

    def cleaned_after(self, before: Statistic, keep: np.ndarray, tolerance: Tolerance) -> Counts:
        # ``total`` sums the rows' values, not their weights: its rounding residue is relative
        # to each entry before the removal, whatever the values' scale. Measured against the
        # class's weight (``tolerance``), every count of values below 1e-9 a row was made 0 by
        # any unlearn, the other rows' counts too (counts of values of 1e-12).
        if not isinstance(before, Counts) or before.total.shape != self.total.shape:
            return self.cleaned(keep, tolerance)
        of_class = per_class(tolerance, self.total)
        t = self.total
        # a negative entry within the class's tolerance is residue as before (an entry of
        # data never learned shows only beyond it)
        residue = (np.abs(t) <= _RESIDUE * np.abs(before.total)) | ((t < 0) & (-t <= of_class))
        total = np.where(residue, 0.0, t)[keep]
        weight = np.where(
            np.abs(self.weight) <= per_class(tolerance, self.weight), 0.0, self.weight
        )
        missing = None
        if self.missing is not None:
            missing = np.where(np.abs(self.missing) <= of_class, 0.0, self.missing)[keep]
        cleaned = Counts(weight[keep], total, missing)
        return cleaned.without_empty(kept_tolerance(tolerance, keep))

    def observed_weight(self) -> np.ndarray:
        """Weight of the rows of each class in which each feature is observed, (K, D)."""
        seen = np.broadcast_to(self.weight[:, None], self.total.shape)
        if self.missing is None:
            return seen
        # A feature missing in every row leaves the rounding of two sums of the same weights
        # (1.0000000000000002e-300 against 1e-300, after a fold's rows were subtracted): no
        # rows, not a weight of 2e-316 that a rate's denominator would divide by.
        observed = seen - self.missing
        return np.where(observed > 1e-12 * seen, observed, 0.0)

    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.weight, self.weight  # the rows' weight itself

    def column_weight(self) -> np.ndarray:
        return self.total if self.missing is None else np.abs(self.total) + self.missing

    def pooled(self, where: np.ndarray | None = None) -> Counts:
        if self.missing is not None:
            # a missing value in one column does not say how many events the sum holds
            raise MergeError("counts with missing values cannot be pooled into one column")
        mask = True if where is None else where[None, :]  # summed in place, no copy
        return Counts(self.weight, self.total.sum(axis=1, keepdims=True, where=mask))

    def weights(self) -> tuple[np.ndarray, ...]:
        if self.missing is None:
            return self.weight, self.total
        return self.weight, self.total, self.missing

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> Counts:
        return Counts(*arrays)

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays = {"weight": self.weight, "total": self.total}
        if self.missing is not None:
            arrays["missing"] = self.missing
        return arrays, {}

    @classmethod
    def read_size(cls, arrays: Mapping[str, Any]) -> int:
        # and the mask comparing 'missing' with its class's weight
        missing = arrays.get("missing")
        # and a C-ordered copy of the total (a file stores C order: none where it is read
        # as it is, but the budget is the larger)
        total = arrays.get("total")
        copy = 8 * total.size if isinstance(total, np.ndarray) else 0
        return (
            super().read_size(arrays)
            + (missing.size if isinstance(missing, np.ndarray) else 0)
            + copy
        )

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Counts:
        checked = check_arrays(
            cls.kind,
            {key: arrays.get(key) for key in ("weight", "total", "missing")},
            ndim={"weight": 1, "total": 2, "missing": 2},
        )
        weight, total, missing = checked["weight"], checked["total"], checked.get("missing")
        if total.shape[0] != weight.shape[0] or (
            missing is not None and missing.shape != total.shape
        ):
            raise ModelFileError("counts arrays have inconsistent shapes")
        if missing is not None and (missing > weight[:, None] * (1 + 1e-9)).any():
            raise ModelFileError(
                "the counts statistic's array 'missing' holds more missing weight than its class "
                "has rows"
            )
        return cls(weight, total, missing)
