"""K-fold cross-validation splits: the folds of scikit-learn's ``KFold`` and
``StratifiedKFold`` (the same rows in each fold, for the same seed), without importing
scikit-learn, which costs a one-shot process (the main job, a spam filter's calibration) more
than its work. The constructors and ``split`` take what scikit-learn's take for this use;
``n_splits``, ``shuffle`` and ``random_state`` mean what they mean there."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from ._validation import check_random_state

__all__ = ["KFold", "StratifiedKFold"]


class _KFolds:
    def __init__(
        self, n_splits: int = 5, *, shuffle: bool = False, random_state: Any = None
    ) -> None:
        if int(n_splits) != n_splits or n_splits < 2:
            raise ValueError(
                "k-fold cross-validation requires at least one train/test split by setting "
                f"n_splits=2 or more, got n_splits={n_splits}."
            )
        if not shuffle and random_state is not None:
            raise ValueError(
                "Setting a random_state has no effect since shuffle is False. You should leave "
                "random_state to its default (None), or set shuffle=True."
            )
        self.n_splits = int(n_splits)
        self.shuffle = shuffle
        self.random_state = random_state

    def _test_folds(self, n: int, y: Any) -> np.ndarray:
        """Each row's test fold."""
        raise NotImplementedError

    def split(self, X: Any, y: Any = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(train rows, test rows) of each fold, each in increasing order."""
        n = len(X)
        if self.n_splits > n:
            raise ValueError(
                f"Cannot have number of splits n_splits={self.n_splits} greater than the "
                f"number of samples: n_samples={n}."
            )
        folds = self._test_folds(n, y)
        rows = np.arange(n)
        for k in range(self.n_splits):
            test = folds == k
            yield rows[~test], rows[test]


class KFold(_KFolds):
    """Consecutive folds of the (shuffled) rows, the first ``n % n_splits`` one row larger
    (scikit-learn's ``KFold``)."""

    def _test_folds(self, n: int, y: Any) -> np.ndarray:
        order = np.arange(n)
        if self.shuffle:
            check_random_state(self.random_state).shuffle(order)
        sizes = np.full(self.n_splits, n // self.n_splits, dtype=int)
        sizes[: n % self.n_splits] += 1
        folds = np.empty(n, dtype=int)
        folds[order] = np.repeat(np.arange(self.n_splits), sizes)
        return folds


class StratifiedKFold(_KFolds):
    """Folds holding each class in (nearly) its share of the rows (scikit-learn's
    ``StratifiedKFold``): the classes numbered in order of first appearance, the rows of
    the sorted codes dealt to the folds in turn, each class's fold numbers then shuffled
    (with ``shuffle``) by one random state, class after class."""

    def _test_folds(self, n: int, y: Any) -> np.ndarray:
        rng = check_random_state(self.random_state)
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
        _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
        _, by_appearance = np.unique(first, return_inverse=True)
        codes = by_appearance[inverse.reshape(-1)]
        n_classes = len(first)
        counts = np.bincount(codes)
        if np.all(self.n_splits > counts):
            raise ValueError(
                f"n_splits={self.n_splits} cannot be greater than the number of members in "
                "each class."
            )
        if self.n_splits > counts.min():
            warnings.warn(
                f"The least populated class in y has only {counts.min()} members, which is "
                f"less than n_splits={self.n_splits}.",
                UserWarning,
                stacklevel=3,
            )
        ordered = np.sort(codes)
        allocation = np.asarray(
            [
                np.bincount(ordered[i :: self.n_splits], minlength=n_classes)
                for i in range(self.n_splits)
            ]
        )
        folds = np.empty(n, dtype="i")
        for k in range(n_classes):
            of_class = np.arange(self.n_splits).repeat(allocation[:, k])
            if self.shuffle:
                rng.shuffle(of_class)
            folds[codes == k] = of_class
        return folds
