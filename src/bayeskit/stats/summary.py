"""A whole model's sufficient statistics: class labels, class weights and one statistic per
feature block. Summaries of different data add into the summary of their union."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._values import union_sorted
from ..errors import MergeError
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
            type(a) is not type(b) for a, b in zip(self.blocks, other.blocks, strict=True)
        ):
            raise MergeError(
                "cannot add summaries of differently structured models: "
                f"{[b.kind for b in self.blocks]} vs {[b.kind for b in other.blocks]}"
            )
        classes = union_sorted(self.classes, other.classes)
        a, b = self.embed_classes(classes), other.embed_classes(classes)
        blocks = tuple(x + y for x, y in zip(a.blocks, b.blocks, strict=True))
        return Summary(classes, a.class_count + b.class_count, blocks)

    def __sub__(self, other: object) -> Summary:
        """Remove ``other``'s data: the summary of what is left.

        Raises MergeError when ``other`` holds data this summary never had (a weight would
        turn negative). Weights that cancel to within rounding become exactly 0; a class and a
        category that no data is left for are dropped, as if never seen.
        """
        if not isinstance(other, Summary):
            return NotImplemented
        missing = set(other.classes.tolist()) - set(self.classes.tolist())
        if missing:
            raise MergeError(
                f"cannot remove data of classes the model never saw: {sorted(missing)}"
            )
        negated = Summary(other.classes, -other.class_count, tuple(-b for b in other.blocks))
        out = self + negated
        scale = max(float(np.abs(self.class_count).max(initial=0.0)), 1.0)
        tolerance = 1e-9 * scale
        for name, low in [("class", float(out.class_count.min(initial=0.0)))] + [
            (b.kind, b.min_weight()) for b in out.blocks
        ]:
            if low < -tolerance:
                raise MergeError(
                    f"cannot remove data the model was not trained on: a {name} weight would "
                    f"become {low:.6g}"
                )
        emptied = (np.abs(out.class_count) <= tolerance) & (np.abs(self.class_count) > tolerance)
        keep = np.flatnonzero(~emptied)
        blocks = tuple(b.cleaned(keep, tolerance) for b in out.blocks)
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
