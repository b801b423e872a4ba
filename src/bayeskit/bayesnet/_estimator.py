"""What the three network classifiers share: reading a table (numbers cut into intervals,
everything else taken as categories), the fitted cut points, and the structure's views."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._base import GenerativeClassifier
from .._labels import OneHot, hard_class_weights, row_count
from .._validation import check_features, column_label, column_named
from .._values import one_of
from ..contract import Contract
from ..errors import DataError, ModelFileError, ParameterError
from ..families._codebook import Table, missing_mask
from ..families._mdl import Rows
from ..families.discretized import Discretized, interval_codes
from ..naive_bayes._columns import column_types, real_columns
from ..naive_bayes._numeric import wrap_sklearn_errors
from ..naive_bayes._table import refuse_dates, to_table
from ..stats import Sample, Summary
from ._counts import SubsetCounts
from ._family import encode

#: ``discretize``: which columns are cut into intervals.
DISCRETIZE = ("floats", "numbers", "none")


def text_or_missing(X: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """An object array whose every cell is text or None (a table of categories with missing
    values, as read from a file) as (fixed-width text, missing mask): the table the cell by
    cell reading gives, with the missing cells marked instead of held as None. Whether it is
    one is told by the distinct types of the cells (``map(type, …)`` runs in C), not by a
    check of each cell in Python. None for any other input."""
    if not (isinstance(X, np.ndarray) and X.dtype.kind == "O" and X.ndim == 2 and X.size):
        return None
    if not set(map(type, X.ravel().tolist())) <= {str, type(None)}:
        return None
    missing = np.asarray(X == None, dtype=bool)  # noqa: E711 (cell by cell, in C)
    return np.where(missing, "", X).astype(str), missing


class NetworkClassifier(GenerativeClassifier):
    """Base of :class:`TANClassifier`, :class:`AODEClassifier` and :class:`KDBClassifier`."""

    #: the statistics count intervals of the columns ``discretize`` cuts: another choice of
    #: columns needs the rows; the cut points are chosen from the rows of a first fit, best a
    #: sample spread over all the batches (:mod:`bayeskit.contract`)
    contract: ClassVar[Contract] = Contract(refit_settings=("discretize",), layout_from_rows=True)

    alpha: Any
    force_alpha: bool
    estimate: str
    discretize: str

    # ------------------------------------------------------------------ template hooks
    def _check_X(self, X: Any, *, reset: bool) -> Any:
        what = type(self).__name__
        coded = text_or_missing(X)
        if coded is None:
            table, shaped = to_table(X, what)
        else:  # the same table, without reading each cell in Python
            table, shaped = to_table(coded[0], what)
            # the values as the object columns held them (categories keep their dtype)
            table.columns = [column.astype(object) for column in table.columns]
            table.missing = coded[1]
        refuse_dates(table, what)
        try:
            check_features(self, shaped, reset=reset)
        except (ValueError, TypeError) as exc:
            raise wrap_sklearn_errors(exc) from None
        if getattr(self, "feature_names_in_", None) is not None:
            table.names = [str(n) for n in self.feature_names_in_]
        if reset:
            self._numeric_ = self._numeric_columns(X, table)
            self._cuts_: tuple[np.ndarray, ...] = ()
        return table

    def _numeric_columns(self, X: Any, table: Table) -> tuple[int, ...]:
        if not one_of(self.discretize, DISCRETIZE):
            raise ParameterError(
                f"discretize={self.discretize!r} is not one of {DISCRETIZE}: 'floats' (float "
                "columns cut into intervals), 'numbers' (integer columns too) or 'none' (every "
                "column a category)"
            )
        if self.discretize == "none":
            return ()
        kinds = ("float",) if self.discretize == "floats" else ("float", "integer")
        types = column_types(X, table)
        return tuple(
            j
            for j, kind in enumerate(types)
            # an object column with nothing observed is no evidence of numbers (a batch of
            # a text column may hold only missing values)
            if kind in kinds
            and not (table.columns[j].dtype.kind == "O" and missing_mask(table.columns[j]).all())
        )

    def _summarize(
        self, X: Any, y: Any, sample_weight: Any, *, classes: Any, reset: bool, part: bool = False
    ) -> Summary:
        if y is None:
            raise DataError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        table = self._input(X, reset=reset)
        # each row's class and weight, which the network's counts read (SciPy's sparse
        # matrix of them would cost more to import than fitting a small table takes)
        labels, R = hard_class_weights(y, sample_weight, row_count(table), classes, part=part)
        if reset:  # the cut points are fixed by the first fit's data (see the class docstring)
            self._cuts_ = self._choose_cuts(table, R)
        return self._summary_of(self._blocks_of(table), labels, R)

    def _split(self, X: Any) -> list[Any]:
        return [self._coded(X)]

    # ------------------------------------------------------------------ numbers to intervals
    def _numbers(self, table: Table) -> np.ndarray:
        """The numeric columns as a float (n, m) block, NaN = missing; ±inf refused."""
        numeric = getattr(self, "_numeric_", ())
        block = real_columns(table, numeric, "discretized", table.names)
        bad = np.isinf(block)
        if bad.any():
            row, k = (int(v) for v in np.argwhere(bad)[0])  # the first row holding one
            accepted = "numeric columns take finite numbers (NaN or None is a missing value)"
            # row and detail: a caller reading a file in batches names its own row (from 1)
            raise DataError(
                f"{column_label(table.names, numeric[k])} holds {block[row, k]} at row {row}; "
                f"{accepted}",
                row=row,
                detail=f"{column_named(table.names, numeric[k])} holds {block[row, k]}; {accepted}",
            )
        return block

    def _choose_cuts(self, table: Table, R: OneHot) -> tuple[np.ndarray, ...]:
        """Fayyad & Irani's MDL cut points of every numeric column, from this data."""
        if not self._numeric_:
            return ()
        block = self._numbers(table)
        feature, cut = Discretized("mdl").cut(Rows.of(Sample.of(block, R.tocsr())))
        return tuple(np.sort(cut[feature == k]) for k in range(block.shape[1]))

    def _coded(self, table: Table) -> Table:
        """``table`` with every numeric column replaced by its interval's index (a whole
        float, NaN = missing): the categories the network counts."""
        numeric = getattr(self, "_numeric_", ())
        if not numeric:
            return table
        block = self._numbers(table)
        cuts = getattr(self, "_cuts_", ())
        if len(cuts) != len(numeric):
            raise DataError(f"this {type(self).__name__} has no cut points yet; call fit")
        flat = np.concatenate(cuts) if cuts else np.zeros(0)
        offsets = np.concatenate([[0], np.cumsum([len(c) for c in cuts])]).astype(np.int64)
        codes = interval_codes(block, flat, offsets)
        local = np.where(codes >= 0, codes - (offsets[:-1] + np.arange(len(cuts))), -1)
        intervals = np.where(local >= 0, local, np.nan)
        columns = list(table.columns)
        for k, j in enumerate(numeric):
            columns[j] = intervals[:, k]
        matrix = None
        if table.matrix is not None and table.matrix.dtype.kind in "biuf":
            matrix = np.asarray(table.matrix, dtype=np.float64).copy()
            matrix[:, list(numeric)] = intervals
        return Table(columns, table.names, matrix)

    # ------------------------------------------------------------------ fitted views
    @property
    def cut_points_(self) -> dict[str, np.ndarray]:
        """The interval cut points of each numeric column, by name (fixed by the first fit)."""
        self._fitted_summary()
        names = self._feature_names()
        return {names[j]: c for j, c in zip(self._numeric_, self._cuts_, strict=True)}

    @property
    def categories_(self) -> list[np.ndarray]:
        """The values seen of each feature (interval indices for numeric columns)."""
        return list(self._fitted()[1][0].categories)

    def observed_values(self, X: Any) -> np.ndarray:
        """Where the model reads a value of ``X``: (n, n_features) bool, True where the value
        is observed and one the model learned (a value never seen in training counts as
        missing, and so does its interval once unlearning emptied it). A parent whose value
        is not read leaves its child's factor ``P(x_i | y)``."""
        _, params, _ = self._fitted()
        table = self._input(X, reset=False)
        (block,) = self._blocks_of(table)
        return encode(params[0].codebook, block) >= 0

    @property
    def class_information_(self) -> np.ndarray:
        """``I(X_i; Y)`` of each feature (nats), from the training counts."""
        return np.asarray(self._fitted()[1][0].class_information)

    # ------------------------------------------------------------------ model files
    def layout_state(self) -> dict[str, Any]:
        """The numeric columns and their cut points the first fit chose (see the template's
        method): model files store them, and models merge only when they are equal."""
        numeric = getattr(self, "_numeric_", ())
        cuts = getattr(self, "_cuts_", ())
        return {"numeric": list(numeric), "cuts": [c.tolist() for c in cuts]}

    def layout_difference(self, other: Any) -> str:
        """The first column whose cut points differ from ``other``'s (a network of this
        class), and its two lists of cut points, shortened."""
        mine, theirs = (
            dict(zip(state["numeric"], state["cuts"], strict=True))
            for state in (self.layout_state(), other.layout_state())
        )
        names = self._feature_names()
        for j, name in enumerate(names):
            a, b = mine.get(j), theirs.get(j)
            if a != b:
                return f"column {name!r} is cut at {_cuts(a)} in one, at {_cuts(b)} in the other"
        return super().layout_difference(other)

    def set_layout_state(self, state: Any) -> None:
        """Take stored numeric columns and cut points; a file without them is refused."""
        if state is None:
            raise ModelFileError(f"a {type(self).__name__} file needs its fitted state")
        unknown = sorted(set(state) - {"numeric", "cuts"}) if isinstance(state, dict) else []
        if unknown:  # a newer version's part is refused, not ignored
            raise ModelFileError(
                f"the stored {type(self).__name__} state holds {unknown}, which this bayeskit "
                "does not write (a file of a newer bayeskit?)"
            )
        try:
            numeric = tuple(int(j) for j in state["numeric"])
            cuts = tuple(np.asarray(c, dtype=np.float64).reshape(-1) for c in state["cuts"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelFileError(f"the stored cut points are invalid: {exc}") from None
        d = int(self.n_features_in_)
        if (
            len(cuts) != len(numeric)
            or len(set(numeric)) != len(numeric)
            or any(not 0 <= j < d for j in numeric)
        ):
            raise ModelFileError("the stored numeric columns do not match the model's columns")
        for c in cuts:
            if not np.all(np.isfinite(c)) or np.any(np.diff(c) <= 0):
                raise ModelFileError("stored cut points must be finite and increasing")
        if numeric and self.discretize == "none":
            raise ModelFileError(
                f"the stored model cuts {len(numeric)} column(s) into intervals under "
                "discretize='none', which cuts none"
            )
        self._numeric_ = numeric
        self._cuts_ = cuts

    def set_fitted_record(self, record: Any, summary: Summary) -> None:
        # The stored cut points (the layout state, taken before the statistics are read)
        # against the statistics: a cut column's categories are the intervals its cuts make,
        # indices 0 to the number of cuts (fewer once rows are unlearned: an emptied interval
        # is dropped), or prediction codes its values into intervals its counts never name.
        super().set_fitted_record(record, summary)
        block = summary.blocks[0] if summary.blocks else None
        categories = block.categories if isinstance(block, SubsetCounts) else ()
        names = self._feature_names()
        for j, cuts in zip(
            getattr(self, "_numeric_", ()), getattr(self, "_cuts_", ()), strict=True
        ):
            values = categories[j] if j < len(categories) else None
            if values is None:
                continue
            intervals = len(cuts) + 1
            numbers = values.dtype.kind in "biuf"
            if not numbers or (
                values.size
                and not (
                    np.all(values == np.floor(values))
                    and values.min() >= 0
                    and values.max() < intervals
                )
            ):
                raise ModelFileError(
                    f"{column_label(names, j)} is cut into {intervals} intervals by its "
                    f"{len(cuts)} stored cut points, but its categories are "
                    f"{_sample(values)}: a cut column's categories are interval indices 0 to "
                    f"{intervals - 1}"
                )

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = True
        return tags


def _cuts(cuts: list[float] | None, most: int = 4) -> str:
    """Cut points in a few words: ``[0.055, 0.165, 0.31, 0.69, … 12 cuts]``; ``no cut points
    (a category)`` for a column not cut."""
    if cuts is None:
        return "no cut points (a category)"
    shown = ", ".join(f"{c:.6g}" for c in cuts[:most])
    return f"[{shown}, … {len(cuts)} cuts]" if len(cuts) > most else f"[{shown}]"


class TreeClassifier(NetworkClassifier):
    """A network whose features each have a set of parents (TAN, KDB): the structure and
    each feature's contribution to a decision."""

    @property
    def parents_(self) -> dict[str, tuple[str, ...]]:
        """Each feature's parents besides the class, by name (``()``: the class alone)."""
        params = self._fitted()[1][0]
        names = self._feature_names()
        return {
            names[i]: tuple(names[int(p)] for p in row if p >= 0)
            for i, row in enumerate(params.parents)
        }

    @property
    def conditional_information_(self) -> np.ndarray:
        """``I(X_i; X_j | Y)`` of every pair of features (nats), the structure's weights."""
        return np.asarray(self._fitted()[1][0].pair_information)

    def feature_log_factors(self, X: Any) -> np.ndarray:
        """``ln P(x_i | y, x_pa(i))`` of each row, feature and class: (n, n_features,
        n_classes). ``predict_joint_log_proba(X) == class_log_prior_ + factors.sum(axis=1)``;
        the difference of two classes' factors is each feature's share of their log-odds."""
        _, params, families = self._fitted()
        X = self._input(X, reset=False)
        (block,) = self._blocks_of(X)
        factors: np.ndarray = families[0].factors(params[0], block)  # type: ignore[attr-defined]
        return factors


def _sample(values: np.ndarray, n: int = 5) -> str:
    """The first ``n`` of ``values`` as a list, for a message."""
    shown = ", ".join(repr(v) for v in values[:n].tolist())
    return f"[{shown}{', …' if len(values) > n else ''}]"
