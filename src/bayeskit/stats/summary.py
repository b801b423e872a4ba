"""A whole model's sufficient statistics: class labels, class weights and one statistic per
feature block. Summaries of different data add into the summary of their union."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._values import is_sorted_unique, union_sorted
from ..errors import DataError, MergeError
from ._base import Statistic


@dataclass(frozen=True, eq=False)
class Summary:
    """Everything a generative classifier learns from data, as values that add.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
        Sorted class labels.
    class_count : ndarray of shape (n_classes,)
        Total (sample-weighted) number of rows of each class.
    blocks : tuple of Statistic
        One statistic per feature block, each with ``n_classes`` rows.

    ``a + b`` aligns the two class lists on their union (a class one side never saw has zero
    weight there), then adds block by block. ``sum(summaries)`` works too.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit.stats import Counts
    >>> counts = Counts(np.array([2.0]), np.ones((1, 3)))
    >>> a = Summary(np.array(["ham"]), np.array([2.0]), (counts,))
    >>> b = Summary(np.array(["spam"]), np.array([2.0]), (counts,))
    >>> s = a + b
    >>> s.classes.tolist(), s.class_count.tolist()
    (['ham', 'spam'], [2.0, 2.0])
    """

    classes: np.ndarray
    class_count: np.ndarray
    blocks: tuple[Statistic, ...]

    def __post_init__(self) -> None:
        # Classes are looked up by binary search and aligned by position: a summary with
        # repeated or unsorted labels (only a crafted one can have them) would misalign.
        if np.shape(self.class_count) != (len(self.classes),) or not is_sorted_unique(self.classes):
            raise MergeError(
                "a summary's classes must be sorted and distinct, with one class count each; "
                f"got {len(self.classes)} classes, counts of shape {np.shape(self.class_count)}"
            )

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def embed_classes(self, classes: np.ndarray) -> Summary:
        """This summary on a larger, sorted class list that contains all of its classes."""
        if len(classes) == len(self.classes) and np.array_equal(classes, self.classes):
            return self
        index = _positions(classes, self.classes)
        count = np.zeros(len(classes))
        count[index] = self.class_count
        return Summary(
            classes, count, tuple(b.embed_classes(index, len(classes)) for b in self.blocks)
        )

    def __add__(self, other: object) -> Summary:
        if not isinstance(other, Summary):
            return NotImplemented
        if len(self.blocks) != len(other.blocks) or any(
            not (isinstance(a, type(b)) or isinstance(b, type(a)))  # (SparseCounts: a Counts)
            for a, b in zip(self.blocks, other.blocks, strict=True)
        ):
            raise MergeError(
                "cannot add summaries of differently structured models: "
                f"{[b.kind for b in self.blocks]} vs {[b.kind for b in other.blocks]}"
            )
        kinds = {_text_labels(self.classes), _text_labels(other.classes)} - {None}
        if len(kinds) > 1:  # (a part without classes adds to either)
            both = sorted(map(repr, [*self.classes.tolist()[:3], *other.classes.tolist()[:3]]))
            raise DataError(
                f"the class labels mix text and numbers ({', '.join(both)}…): a model's "
                "classes are all text or all numbers; give the new labels the model's type"
            )
        classes = union_sorted(self.classes, other.classes)
        a, b = self.embed_classes(classes), other.embed_classes(classes)
        blocks = tuple(x + y for x, y in zip(a.blocks, b.blocks, strict=True))
        return Summary(classes, a.class_count + b.class_count, blocks)

    def __sub__(self, other: object) -> Summary:
        """Remove ``other``'s data: the summary of what is left.

        Raises MergeError when ``other`` holds data this summary never had (a weight would
        turn negative) or all of its data (nothing would be left). Weights that cancel to
        within rounding become exactly 0; a class and a category that no data is left for are
        dropped, as if never seen.
        """
        if not isinstance(other, Summary):
            return NotImplemented
        missing = set(other.classes.tolist()) - set(self.classes.tolist())
        if missing:
            raise MergeError(
                f"cannot remove data of classes the model never saw: {sorted(missing)}"
            )
        negated = Summary(other.classes, -other.class_count, tuple(-b for b in other.blocks))
        out = self + negated  # other's classes are among ours: out has our class order
        # Rounding residue is relative to each class's own weight: a class of tiny weights
        # next to one of huge weights keeps its data.
        tolerance = 1e-9 * np.abs(self.class_count)
        for name, low in [("class", out.class_count)] + [
            (b.kind, b.min_weights()) for b in out.blocks
        ]:
            if (low < -tolerance).any():
                c = int(np.argmax(low < -tolerance))
                raise MergeError(
                    f"cannot remove data the model was not trained on: a {name} weight of class "
                    f"{_plain(self.classes[c])!r} would become {float(low[c]):.6g}"
                )
        emptied = (np.abs(out.class_count) <= tolerance) & (self.class_count != 0)
        for mine, left in zip(self.blocks, out.blocks, strict=True):
            # A class with no rows left must have nothing left in its statistics either
            # (the largest weight of each class is minus the smallest of the negation).
            high, scale = left.max_weights(), mine.max_weights()
            stale = emptied & (high > 1e-9 * scale + tolerance)
            if stale.any():
                c = int(np.argmax(stale))
                raise MergeError(
                    f"cannot remove data the model was not trained on: class "
                    f"{_plain(self.classes[c])!r} would have no rows left but {high[c]:.6g} "
                    f"left in its {mine.kind} statistic"
                )
        keep = np.flatnonzero(~emptied)
        if not np.any(out.class_count[keep] > tolerance[keep]):
            raise MergeError(
                "cannot remove every row the model was trained on: no data would be left to "
                "predict from (fit a new model instead)"
            )
        blocks = tuple(
            left.cleaned_after(mine, keep, tolerance)
            for mine, left in zip(self.blocks, out.blocks, strict=True)
        )
        count = np.where(np.abs(out.class_count) <= tolerance, 0.0, out.class_count)[keep]
        return Summary(out.classes[keep], count, blocks)

    def __radd__(self, other: object) -> Summary:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


def _positions(union: np.ndarray, part: np.ndarray) -> np.ndarray:
    if union.dtype.kind != "O" and part.dtype.kind != "O":
        return np.searchsorted(union, part)
    where: dict[Any, int] = {v: i for i, v in enumerate(union.tolist())}
    return np.fromiter((where[v] for v in part.tolist()), dtype=np.int64, count=len(part))


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _text_labels(classes: np.ndarray) -> bool | None:
    """Whether ``classes`` are text (None: no classes, which adds to either)."""
    if len(classes) == 0:
        return None
    if classes.dtype.kind in "US":
        return True
    if classes.dtype.kind != "O":
        return False
    return isinstance(classes.tolist()[0], str)
