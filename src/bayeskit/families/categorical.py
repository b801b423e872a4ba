"""Categorical event model: each feature takes one of finitely many values (McCallum & Nigam 1998).

``θ_cjv = (N_cjv + α) / (N_cj + α K_j)`` with ``K_j`` the number of categories of feature ``j``.
Values are taken as they are (strings, ints, bools…); a missing value drops out of the product
in training and in prediction (Duda et al.). Scoring is linear in the one-hot encoding of the
values, which is how it runs: one sparse product over all features at once.

Whole numbers ≥ 0 are ordinal codes, as in scikit-learn's ``CategoricalNB``: a feature whose
values are codes has the categories ``0 … max code`` (``K_j = max + 1``, raised to
``min_categories``), so a code absent from training is a category with zero count, not an
unseen value. ``finalize`` adds those categories to the statistics it is given (the
statistics themselves keep the values seen, so that unlearning stays exact) unless the range
is far wider than the values seen (beyond ``max(2^16, 4 × seen)``: identifiers rather than
codes), where ``K_j`` only enters the smoothing denominator. Whole numbers of 2^53 and beyond
(a uint64 hash) are identifiers, not codes: each is a category of its own.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from .._validation import column_label, column_named
from ..errors import DataError, ParameterError, UnknownCategoryError
from ..stats import CategoryCounts
from ..stats.category_counts import offsets_of
from . import _categorical_kernels as kernels
from ._base import Family, class_totals, hard_labels, safe_dot
from ._codebook import (
    _MAX_LUT,
    MISSING,
    UNSEEN,
    Codebook,
    Table,
    _integral,
    discover_codes,
    summarize_codes,
)
from ._dirichlet import (
    check_alpha,
    check_auto_estimate,
    check_estimate,
    choose_alpha,
    is_auto,
    log_ratio,
    pseudo_count,
)

UNSEEN_POLICIES = ("smooth", "ignore", "error")

#: The suffix of a feature's linear column for a value no training row had.
UNSEEN_MARK = "=<unseen>"


@dataclass(frozen=True)
class CategoricalParams:
    codebook: Codebook
    feature_log_prob: np.ndarray  # (n_classes, n_total_categories), flat over features
    unseen_log_prob: np.ndarray  # (n_classes, n_features): score of a never-seen value
    n_categories: np.ndarray  # (n_features,) categories used in each denominator
    category_count: np.ndarray  # (n_classes, n_total_categories): the counts, codes added
    alpha: np.ndarray  # (n_features,) the pseudo-count each feature was smoothed with

    @cached_property
    def table(self) -> np.ndarray:
        """Scores of every (feature, category) column, then each feature's unseen column:
        (n_classes, n_total_categories + n_features). Built once per fitted model."""
        return np.hstack([self.feature_log_prob, self.unseen_log_prob])

    @cached_property
    def table_by_code(self) -> np.ndarray:
        """``table`` transposed, contiguous: one row per code, as the compiled scorer reads it."""
        return np.ascontiguousarray(self.table.T)


def one_hot(codes: np.ndarray, n_columns: int) -> sp.csr_matrix:
    """CSR indicator matrix of global codes; negative codes (missing, dropped) make no entry."""
    n = codes.shape[0]
    valid = codes >= 0
    if valid.all():
        indices = codes.ravel()
        indptr = np.arange(0, codes.size + 1, max(codes.shape[1], 1), dtype=np.int64)
        if codes.shape[1] == 0:
            indptr = np.zeros(n + 1, dtype=np.int64)
    else:
        indices = codes[valid]
        indptr = np.concatenate([[0], np.cumsum(valid.sum(axis=1))])
    data = np.ones(len(indices))
    return sp.csr_matrix((data, indices, indptr), shape=(n, n_columns))


class Categorical(Family):
    """Categorical family over the columns of a block.

    Parameters
    ----------
    alpha : float, array of shape (n_features,) or "auto"
        Dirichlet prior concentration for each feature's categories. ``"auto"``: one
        pseudo-count for the block, chosen among 1, 1/2, 1/4, 1/10, 1/30 and 1/100 by the
        leave-one-out log-likelihood of the class given each feature, computed exactly from
        the counts (:func:`~bayeskit.families._dirichlet.choose_alpha`); the choice is
        ``params.alpha``. Needs ``estimate="mean"``.
    force_alpha : bool
        Keep an alpha below 1e-10 as given.
    estimate : {"mean", "map", "mle"}
        Posterior mean (Laplace/Lidstone), posterior mode, or maximum likelihood.
    min_categories : int, array of shape (n_features,) or None
        Number of categories assumed per feature at least (unobserved ones get zero counts).
    unseen : {"smooth", "ignore", "error"}
        What a value never seen in training does at prediction time: ``"smooth"`` scores it
        as a category with zero counts, ``α / (N_cj + α K_j)`` (with α = 0 it carries no
        information and drops out); ``"ignore"`` drops the feature from the product;
        ``"error"`` raises :class:`~bayeskit.errors.UnknownCategoryError` naming it.
    """

    name = "categorical"
    column_kind = "category"
    linear = True

    def __init__(
        self,
        alpha: Any = 1.0,
        *,
        force_alpha: bool = True,
        estimate: str = "mean",
        min_categories: Any = None,
        unseen: str = "smooth",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.estimate = estimate
        self.min_categories = min_categories
        self.unseen = unseen

    def config(self) -> dict[str, Any]:
        def plain(v: Any) -> Any:
            return v.tolist() if isinstance(v, np.ndarray) else v

        return {
            "alpha": plain(self.alpha),
            "force_alpha": self.force_alpha,
            "estimate": self.estimate,
            "min_categories": plain(self.min_categories),
            "unseen": self.unseen,
        }

    def _check_unseen(self) -> None:
        # Checked by finalize too: a model file's settings reach the model without validate.
        if not isinstance(self.unseen, str) or self.unseen not in UNSEEN_POLICIES:
            raise ParameterError(f"unseen={self.unseen!r} is not one of {UNSEEN_POLICIES}")

    def validate(self, X: Table, names: Sequence[str]) -> Table:
        self._check_unseen()
        for j, col in enumerate(X.columns):
            if col.dtype.kind == "f":
                inf = np.isinf(col)
                if inf.any():
                    row = int(np.flatnonzero(inf)[0])
                    accepted = "a category must be a finite number, a string or a bool"
                    raise DataError(
                        f"X contains {col[row]} at row {row}, {column_label(names, j)}; "
                        f"{accepted} (NaN = missing)",
                        row=row,
                        detail=f"{column_named(names, j)} holds {col[row]}; {accepted}",
                    )
        return X

    def summarize(self, X: Table, R: np.ndarray | sp.spmatrix) -> CategoryCounts:
        labels = hard_labels(R)
        if labels is not None and X.matrix is not None and X.matrix.dtype.kind in "biuf":
            fast = summarize_codes(X.matrix, labels[0], labels[1], R.shape[1])
            if fast is not None:
                return fast
        categories, local = discover_codes(X)
        offsets = offsets_of(categories)
        if labels is not None:
            counts = kernels.key_counts(
                local,
                labels[0],
                labels[1],
                np.zeros(X.n_features, dtype=np.int64),
                offsets[:-1],
                R.shape[1],
                int(offsets[-1]),
            )
        else:
            codes = np.where(local >= 0, local + offsets[:-1], MISSING)
            counts = class_totals(R, one_hot(codes, int(offsets[-1])))
        # A value met only in rows of weight 0 was not seen: weight 0 means "row absent".
        return CategoryCounts(categories, counts).without_empty(0.0)

    def _n_categories(self, stats: CategoryCounts, codes: np.ndarray) -> np.ndarray:
        observed = np.maximum(np.diff(stats.offsets), codes)
        if self.min_categories is None:
            return observed
        wanted = np.asarray(self.min_categories)
        if wanted.dtype.kind not in "iu":
            raise ParameterError(
                f"'min_categories' should have integral type. Got {wanted.dtype} instead."
            )
        if (wanted.ndim == 1 and wanted.shape[0] != stats.n_features) or wanted.ndim > 1:
            raise ParameterError(
                f"'min_categories' should have shape ({stats.n_features},) when an array-like "
                f"is provided. Got {wanted.shape} instead."
            )
        return np.maximum(observed, wanted.astype(np.int64))

    def parameter_size(self, stats: CategoryCounts) -> int:
        """What :meth:`finalize` holds at its peak, temporaries included, over the columns
        it makes (every materialized code range: a file of a few codes per feature can ask
        for 2^16 columns each), told before any of them is allocated (a model file's load
        takes it from its budget first; finalize took up to 1.7 times what was counted
        before, and ``alpha="auto"`` 3.9 times): the counts with the code ranges, then the
        larger of the choice of ``alpha="auto"`` (measured at 11.5 (n_classes, columns)
        arrays: 12 counted) and the log probabilities' numerators, denominators and
        logarithm (3, and a mask and the denominators' copy where one can be 0: when a
        pseudo-count is not positive); per column, its feature and the pseudo-counts,
        denominators and sizes gathered by it and the indicator summing them (8 words), and
        per feature and class the sums and the unseen scores (8)."""
        ranges = _code_ranges(stats)[1]
        width = sum(max(len(c), int(n)) for c, n in zip(stats.categories, ranges, strict=True))
        k, d = stats.n_classes, stats.n_features
        tables = 3.0 if self._positive(d) else 4.125
        work = max(12.0 if is_auto(self.alpha) else 0.0, tables)
        materialized = 1.0 if ranges.any() else 0.0
        return math.ceil((materialized + work) * k * width) + 8 * width + 8 * k * d

    def _positive(self, d: int) -> bool:
        """Whether every pseudo-count is positive (no denominator is then 0); the settings'
        refusals are finalize's to make."""
        if is_auto(self.alpha):
            return True  # (the candidates are all positive, under the posterior mean)
        try:
            with warnings.catch_warnings():  # (finalize warns about a raised alpha itself)
                warnings.simplefilter("ignore")
                alpha = check_alpha(self.alpha, d, force_alpha=self.force_alpha)
                a = pseudo_count(alpha, check_estimate(self.estimate))
        except ParameterError:
            return False
        return bool(np.all(np.asarray(a) > 0))

    def finalize(self, stats: CategoryCounts) -> CategoricalParams:
        self._check_unseen()
        d = stats.n_features
        estimate = check_estimate(self.estimate)
        auto = is_auto(self.alpha)
        if auto:
            check_auto_estimate(estimate)
        else:
            alpha = check_alpha(self.alpha, d, force_alpha=self.force_alpha)
        codes, materialize = _code_ranges(stats)
        if materialize.any():
            stats = _with_code_ranges(stats, materialize)
        offsets = stats.offsets
        sizes = np.diff(offsets)
        n_cat = self._n_categories(stats, codes)
        col_feature = np.repeat(np.arange(d), sizes)
        if auto:
            alpha = choose_alpha(stats.counts, col_feature, n_cat)[0]
        a = np.broadcast_to(np.asarray(pseudo_count(alpha, estimate), float), (d,))
        num = stats.counts + a[col_feature]
        # Σ_v (N_cjv + a) over observed and assumed (min_categories) categories, per feature.
        indicator = sp.csr_matrix(
            (np.ones(len(col_feature)), col_feature, np.arange(len(col_feature) + 1)),
            shape=(len(col_feature), d),
        )
        per_feature = np.asarray(stats.counts @ indicator) + a * n_cat
        flp = log_ratio(num, per_feature[:, col_feature], n_cat[col_feature], own=True)
        with np.errstate(divide="ignore"):
            unseen = np.where(
                a > 0,
                np.log(np.where(a > 0, a, 1.0))
                - np.log(np.where(per_feature > 0, per_feature, 1.0)),
                0.0,
            )
        return CategoricalParams(
            Codebook(stats.categories), flp, unseen, n_cat, stats.counts, np.array(a)
        )

    def encode(self, params: CategoricalParams, X: Table) -> sp.csr_matrix:
        """One-hot rows over (feature, category) columns plus one "unseen" column per feature."""
        codebook = params.codebook
        codes = codebook.encode(X)
        unseen = codes == UNSEEN
        if unseen.any():
            _refuse_other_kind(
                codebook.categories, X, codes, unseen, fractions=self.unseen != "error"
            )
            if self.unseen == "error":
                row, j = (int(v) for v in np.argwhere(unseen)[0])
                value = X.columns[j][row]
                value = value.item() if isinstance(value, np.generic) else value
                known = f"known values: {_preview(codebook.categories[j])}"
                raise UnknownCategoryError(
                    f"value {value!r} at row {row}, {column_label(X.names, j)} was never seen in "
                    f"training; {known}. Use unseen='smooth' or 'ignore' to score such values",
                    row=row,
                    detail=f"{column_named(X.names, j)} holds {value!r}, never seen in "
                    f"training; {known}",
                )
            if self.unseen == "smooth":
                cols = np.broadcast_to(codebook.n_codes + np.arange(codes.shape[1]), codes.shape)
                codes = np.where(unseen, cols, codes)
            else:
                codes = np.where(unseen, MISSING, codes)
        return one_hot(codes, codebook.n_codes + codes.shape[1])

    def log_prob(self, params: CategoricalParams, X: Table) -> np.ndarray:
        matrix = X.matrix
        if matrix is not None and matrix.dtype.kind in "biuf" and params.codebook.all_lut:
            return self._score_codes(params, matrix, X)
        return safe_dot(self.encode(params, X), params.table)

    def _score_codes(self, params: CategoricalParams, matrix: np.ndarray, X: Table) -> np.ndarray:
        """The compiled path for integer-valued tables: one pass, no one-hot matrix."""
        book = params.codebook
        out = np.zeros((matrix.shape[0], params.table.shape[0]))
        bad = np.zeros(matrix.shape[0], dtype=np.int64)
        mode = UNSEEN_POLICIES.index(self.unseen)
        values = matrix.view(np.int8) if matrix.dtype.kind == "b" else matrix
        kernels.score(
            np.ascontiguousarray(values),
            book.lut_lo,
            book.lut_span,
            book.lut_base[:-1],
            book.lut,
            params.table_by_code,
            mode,
            out,
            bad,
        )
        if bad.any():  # a value never seen: a fraction among whole numbers is refused
            if mode == kernels.ERROR:
                self.encode(params, X)  # raises UnknownCategoryError naming the first one
            if matrix.dtype.kind == "f":
                refuse_fractions(book.categories, X)
        return out

    def design(self, params: CategoricalParams, X: Table) -> sp.csr_matrix:
        """One-hot rows (see :meth:`encode`): what :meth:`linear_form`'s weights multiply."""
        return self.encode(params, X)

    def column_names(self, params: CategoricalParams, names: Sequence[str]) -> list[str]:
        """``feature=value`` for every category, then ``feature=<unseen>`` per feature."""
        cats = params.codebook.categories
        known = [f"{names[j]}={v}" for j, values in enumerate(cats) for v in values.tolist()]
        return known + [f"{names[j]}{UNSEEN_MARK}" for j in range(len(cats))]

    def linear_form(self, params: CategoricalParams) -> tuple[np.ndarray, np.ndarray]:
        """Weights over the one-hot (feature = value) columns, then one "unseen" column per
        feature; bias 0."""
        W = params.table
        return W, np.zeros(W.shape[0])


#: Whole numbers from here on are not ordinal codes: float64 holds every whole number only
#: below 2**53, so a code range beyond it could not be counted (values such as uint64 hashes
#: are identifiers, each its own category).
_LARGEST_CODE = 2.0**53


def _code_ranges(stats: CategoryCounts) -> tuple[np.ndarray, np.ndarray]:
    """(max code + 1, and the same where the code range is added to the categories, else 0)
    of each feature, 0 for features whose values are not whole numbers >= 0 (ordinal codes,
    scikit-learn's CategoricalNB's only input)."""
    d = stats.n_features
    codes, materialize = np.zeros(d, dtype=np.int64), np.zeros(d, dtype=np.int64)
    for j, cats in enumerate(stats.categories):
        if len(cats) and cats.dtype.kind == "O":
            # whole numbers held as objects (a column with None beside them, a batch of an
            # object frame) are codes as they are in an integer array: the model's
            # categories do not change with how a batch holds its numbers
            cats = _object_integers(cats)
        if not len(cats) or cats.dtype.kind not in "biuf" or cats[0] < 0:
            continue
        if not _integral(cats, np.zeros(len(cats), dtype=bool)):
            continue
        if not float(cats[-1]) < _LARGEST_CODE:  # an identifier (a uint64 hash…), not a code
            continue
        codes[j] = int(cats[-1]) + 1
        if len(cats) < codes[j] <= max(_MAX_LUT, 4 * len(cats)):
            materialize[j] = codes[j]
    return codes, materialize


def _object_integers(cats: np.ndarray) -> np.ndarray:
    """``cats`` as int64 when every value is an integer (bools are not: they are labels),
    else as it is."""
    values = cats.tolist()
    if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return cats
    try:
        return np.asarray(values, dtype=np.int64)
    except OverflowError:  # beyond int64: identifiers, not codes
        return cats


def _with_code_ranges(stats: CategoryCounts, materialize: np.ndarray) -> CategoryCounts:
    """``stats`` with the categories ``0 … n − 1`` of each feature whose ``materialize`` is
    ``n > 0`` (its codes, all among them), those never seen counted 0: each feature's counts
    placed by code in one new array (adding a statistic of the ranges took three arrays of
    its size, and a model file's load counts what finalize holds)."""
    categories = tuple(
        np.arange(n).astype(c.dtype) if n else c
        for c, n in zip(stats.categories, materialize, strict=True)
    )
    before, after = stats.offsets, offsets_of(categories)
    counts = np.zeros((stats.n_classes, int(after[-1])))
    for j, (c, n) in enumerate(zip(stats.categories, materialize, strict=True)):
        # (the codes of a materialized feature are whole numbers >= 0: their own columns)
        columns = after[j] + (c.astype(np.int64) if n else np.arange(len(c)))
        counts[:, columns] = stats.counts[:, before[j] : before[j + 1]]
    return CategoryCounts(categories, counts)


def _as_learned(value: Any, cats: np.ndarray) -> Any:
    """The learned category ``value`` spells in the other kind — ``3`` for the text ``"3"``,
    ``"3"`` for the number 3 — or None."""
    learned = cats.tolist()
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
        found = [c for c in learned if not isinstance(c, str) and c == number]
    else:
        spelled = {str(value)}
        if isinstance(value, float) and value.is_integer():
            spelled.add(str(int(value)))
        found = [c for c in learned if isinstance(c, str) and c in spelled]
    return found[0] if found else None


def _whole_categories(cats: np.ndarray) -> bool:
    """Whether every learned category of a column is a whole number (bools are labels)."""
    if not len(cats) or cats.dtype.kind == "b":
        return False
    if cats.dtype.kind in "iu":
        return True
    if cats.dtype.kind == "f":
        return bool(np.all(np.isfinite(cats)) and np.all(cats == np.round(cats)))
    if cats.dtype.kind != "O":
        return False
    return all(
        (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)))
        or (isinstance(v, (float, np.floating)) and math.isfinite(v) and float(v).is_integer())
        for v in cats.tolist()
    )


def _fraction(value: Any) -> bool:
    return (
        isinstance(value, (float, np.floating))
        and math.isfinite(value)
        and not float(value).is_integer()
    )


def refuse_fractions(
    categories: Sequence[np.ndarray], X: Table, unseen: np.ndarray | None = None
) -> None:
    """Refuse a number with a fractional part (2.5) in a column whose learned categories are
    all whole numbers (codes, counts read as categories): it can be no category of the
    column, and counting it as a value never seen would drop the column from the row
    silently. ``unseen`` (where the codes found no learned value) limits the search."""
    for j, cats in enumerate(categories):
        if unseen is not None and not unseen[:, j].any():
            continue
        col = X.columns[j]
        if col.dtype.kind not in "fO" or not _whole_categories(cats):
            continue
        if col.dtype.kind == "f":
            with np.errstate(invalid="ignore"):
                bad = np.isfinite(col) & (col != np.round(col))
        else:
            rows = np.flatnonzero(unseen[:, j]) if unseen is not None else range(len(col))
            bad = np.zeros(len(col), dtype=bool)
            for row in rows:
                bad[row] = _fraction(col[row])
        if not bad.any():
            continue
        row = int(np.flatnonzero(bad)[0])
        value = float(col[row])
        detail = (
            f"{column_named(X.names, j)} holds {value!r}, a number between whole-number "
            f"categories; the model learned the column as the categories {_preview(cats)} "
            "(a missing value is None or NaN)"
        )
        raise UnknownCategoryError(f"row {row}: {detail}", row=row, detail=detail)


def _refuse_other_kind(
    categories: Sequence[np.ndarray],
    X: Table,
    codes: np.ndarray,
    unseen: np.ndarray,
    *,
    fractions: bool = True,
) -> None:
    """Refuse a column none of whose values was seen in training whose first value spells a
    learned category in the other kind (the text ``"3"`` where the model learned the number 3,
    or the reverse): a column read as text would otherwise score every row as values never
    seen, silently. A fraction among whole-number categories is refused too, unless
    ``fractions`` is False (:func:`refuse_fractions`)."""
    if fractions:
        refuse_fractions(categories, X, unseen)
    for j in np.flatnonzero(unseen.any(axis=0)).tolist():
        cats = categories[j]
        if not len(cats) or (codes[:, j] >= 0).any():
            continue
        row = int(np.flatnonzero(unseen[:, j])[0])
        value = X.columns[j][row]
        value = value.item() if isinstance(value, np.generic) else value
        if isinstance(value, bool):
            continue
        match = _as_learned(value, cats)
        if match is None:
            continue
        held = "text" if isinstance(value, str) else "a number"
        detail = (
            f"{column_named(X.names, j)} holds {value!r}, {held}, where the model learned "
            f"{match!r}; no value of the column is one it learned: pass the column as it was "
            "in training (numbers or text)"
        )
        raise DataError(f"row {row}: {detail}", row=row, detail=detail)


def _preview(values: np.ndarray, limit: int = 10) -> str:
    shown = ", ".join(repr(v) for v in values[:limit].tolist())
    return f"[{shown}{', …' if len(values) > limit else ''}]"
