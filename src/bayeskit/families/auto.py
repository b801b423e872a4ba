"""Each real column's family chosen by held-out log-likelihood on the training data.

The family of a numeric column is a modelling choice that the data can make: a column that is
roughly normal within each class is best served by a Gaussian, a skewed or multi-modal one by a
kernel density (John & Langley 1995), one whose information lies in a few thresholds by
discretization at Fayyad & Irani's (1993) MDL cut points, and a column of counts by a Poisson.
``Auto`` keeps the weighted rows themselves (a :class:`~bayeskit.stats.Sample`, so ``fit``,
``partial_fit`` in any batches, merging and unlearning give the same statistic and the same
choice) and makes the choice in :meth:`Auto.finalize`:

1. the rows are split into ``folds`` stratified folds by a rule that depends on the rows and not
   on their order: within each class (a row's largest weight), the distinct rows are sorted by
   their values and dealt out in turn, the ``r``-th to fold ``r mod folds`` (equal rows share a
   fold, so a row of weight 2 counts as two copies of it);
2. for every candidate family and fold, the family is fitted on the other folds and scores the
   held-out rows. Where the statistics add (Gaussian moments, Poisson counts) each fold is
   summarised once and the training part is the total minus the fold (Chan's formula with a
   negative weight), not a refit; the nonparametric families (kernel, discretized) are fitted
   from the training rows of each fold. Each column's terms are taken apart (the numbers
   a held-out row holding that column's value alone scores): the kernel tabulates many
   columns' grids at once and forms its log density only beside the held-out values
   (``Kernel.held_out_log_prob``), the Poisson family gives its terms directly
   (``log_prob_cells``), the others score stacked probes;
3. the score of a choice is the held-out log-likelihood of the class, ``Σ_i log P(y_i | x_i)``,
   under the naive Bayes model of the numeric columns with their chosen families (class prior
   from the training part, add-one smoothed) — cross-validated likelihood (Smyth 2000) of
   the quantity the classifier is judged on. A density, an interval probability and a count
   probability are measured against different bases and cannot be compared directly; the
   posterior of the class can;
4. every column starts with the one family that scores best on all of them (a tie goes to the
   candidate listed first); a column then takes another family only when that raises the
   score by more than one standard error of the paired row-by-row difference (the
   one-standard-error rule of Breiman, Friedman, Olshen & Stone 1984), until a pass over the
   columns changes nothing (:func:`choose`). Choosing each column's family by its score
   alone, or searching every combination freely, fits the noise of the held-out folds: on a
   table of 50 rows and 8 columns (R's ``state.x77``) such a search reached a held-out
   log-loss of 0.39-0.53 inside the training data and 1.6 on new rows, where the kernel for
   every column scored 0.58-0.75 inside and 0.64 on new rows. The choice is a function of
   the statistic alone: exact and repeatable.

Ten folds by default (Kohavi 1995): each family is fitted on nine tenths of the training
rows, close to the size it will be fitted on, which matters for the families whose detail
grows with the data (Silverman's bandwidth shrinks as ``n^(-1/5)`` and the MDL criterion
admits more cut points as rows are added; Dougherty, Kohavi & Sahami 1995 compare the two);
fewer folds judge them on less data than they will have.

A column is a Poisson candidate only when every observed training value is a non-negative
integer. Missing values (NaN) drop out of every score, as they drop out of the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from .._lazy import sparse as sp
from .._validation import column_label, column_named
from ..errors import DataError, ParameterError
from ..stats import Sample
from ._base import Family, family_from_config, real_block
from ._choice import (  # the choice from the held-out contributions (re-exported)
    choose,
    held_out_prior,
    log_likelihood,
    row_log_likelihoods,
    standard_error,
)

__all__ = [
    "CANDIDATES",
    "Auto",
    "AutoParams",
    "choose",
    "held_out_prior",
    "log_likelihood",
    "row_log_likelihoods",
    "standard_error",
]

#: the families a real column may be given, in the order ties are broken.
CANDIDATES = ("gaussian", "poisson", "discretized", "kernel")
#: candidates whose statistics add and subtract exactly (a fold's part is total − fold).
_ADDITIVE = frozenset({"gaussian", "poisson"})
#: The bound on one column's log-density contribution in the held-out choice.
_IMPOSSIBLE = 1e6


@dataclass(frozen=True)
class AutoParams:
    """The choice and the fitted blocks.

    ``chosen`` (n_features,) the family name of each column; ``blocks`` one ``(family, columns,
    params)`` per family chosen for any column; ``candidates`` the families considered and
    ``scores`` (n_candidates, n_features) their held-out log-likelihoods of the class (−inf
    where a family was not a candidate for a column).
    """

    chosen: tuple[str, ...]
    blocks: tuple[tuple[Family, np.ndarray, Any], ...]
    candidates: tuple[str, ...]
    scores: np.ndarray
    n_classes: int


class Auto(Family):
    """A family for each real column, chosen by held-out log-likelihood (see the module
    docstring).

    Parameters
    ----------
    candidates : sequence of str, default=("gaussian", "poisson", "discretized", "kernel")
        The families to choose from (ties go to the one listed first). ``"poisson"`` is
        considered only for columns of non-negative integers.
    folds : int >= 2, default=10
        Stratified folds of the held-out estimate.
    options : dict, optional
        Settings of the candidate families, ``{"gaussian": {"var_floor": "column"}}``.

    References
    ----------
    .. [1] G. H. John and P. Langley, "Estimating continuous distributions in Bayesian
           classifiers", Proc. 11th Conference on Uncertainty in Artificial Intelligence,
           pp. 338-345, 1995.
    .. [2] U. M. Fayyad and K. B. Irani, "Multi-interval discretization of continuous-valued
           attributes for classification learning", Proc. 13th International Joint
           Conference on Artificial Intelligence, pp. 1022-1027, 1993.
    .. [3] J. Dougherty, R. Kohavi and M. Sahami, "Supervised and unsupervised discretization
           of continuous features", Proc. 12th International Conference on Machine Learning,
           pp. 194-202, 1995.
    .. [4] R. Kohavi, "A study of cross-validation and bootstrap for accuracy estimation and
           model selection", Proc. 14th International Joint Conference on Artificial
           Intelligence, pp. 1137-1143, 1995.
    .. [5] L. Breiman, J. H. Friedman, R. A. Olshen and C. J. Stone, *Classification and
           Regression Trees*, Wadsworth, 1984, §3.4.3 (the one-standard-error rule); T. Hastie,
           R. Tibshirani and J. Friedman, *The Elements of Statistical Learning*, 2nd ed.,
           Springer, 2009, §7.10.
    .. [6] P. Smyth, "Model selection for probabilistic clustering using cross-validated
           likelihood", Statistics and Computing 10(1), pp. 63-72, 2000.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat([0, 1], 200)
    >>> two_modes = np.where(rng.random(400) < 0.5, -4.0, 4.0) * (y == 0) + rng.normal(0, 0.5, 400)
    >>> R = sp.csr_matrix(np.eye(2)[y])
    >>> family = Auto(candidates=("gaussian", "kernel"))
    >>> params = family.finalize(family.summarize(two_modes[:, None], R))
    >>> params.chosen  # class 0 has two modes, class 1 one between them: no Gaussian fits
    ('kernel',)
    >>> params.scores.round(1)  # held-out log-likelihood of the class, per candidate
    array([[-47.9],
           [ -1.2]])
    """

    name = "auto"
    column_kind = "real"

    def __init__(
        self,
        candidates: Sequence[str] = CANDIDATES,
        *,
        folds: int = 10,
        options: Mapping[str, Mapping[str, Any]] | None = None,
    ):
        self.candidates = candidates
        self.folds = folds
        self.options = options
        #: ``(stats, chosen, scores)``: the choice a model file stored for the statistic
        #: ``stats`` (the object itself: any other statistic is chosen for afresh), taken by
        #: :meth:`finalize` without cross-validating again (see :meth:`Auto.check_choice`)
        self.known_choice: tuple[Sample, tuple[str, ...], np.ndarray] | None = None

    def config(self) -> dict[str, Any]:
        return {
            "candidates": list(self.candidates) if not isinstance(self.candidates, str) else [],
            "folds": self.folds,
            "options": {k: dict(v) for k, v in (self.options or {}).items()},
        }

    # ------------------------------------------------------------------ settings
    def _candidates(self) -> tuple[str, ...]:
        given = self.candidates
        if isinstance(given, str) or not isinstance(given, Sequence) or not given:
            raise ParameterError(
                f"candidates must be a non-empty list of family names from {CANDIDATES}; "
                f"got {given!r}"
            )
        unknown = [c for c in given if c not in CANDIDATES]
        if unknown or len(set(given)) != len(given):
            raise ParameterError(
                f"candidates {list(given)!r}: each must be one of {CANDIDATES}, given once"
            )
        if set(given) <= {"poisson"}:
            raise ParameterError(
                f"candidates {list(given)!r} must include one of gaussian, discretized or kernel "
                "(the Poisson family takes columns of counts only)"
            )
        return tuple(given)

    def _folds(self) -> int:
        k = self.folds
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, Integral) or not 2 <= k <= 100:
            raise ParameterError(f"folds must be an integer from 2 to 100; got {k!r}")
        return int(k)

    def _family(self, name: str) -> Family:
        return family_from_config(name, dict(family_options(self.options).get(name, {})))

    # ------------------------------------------------------------------ fitting
    def validate(self, X: Any, names: Sequence[str]) -> np.ndarray:
        block = real_block(X, names, "a numeric column").view(_NamedColumns)
        block.names = names  # for log_prob's refusal of a value a chosen family cannot take
        return block

    def summarize(self, X: np.ndarray, R: np.ndarray | sp.spmatrix) -> Sample:
        return Sample.of(np.asarray(X), R)

    def parameter_size(self, stats: Sample) -> int:
        """What :meth:`finalize` holds at its peak, temporaries included (a model file's load
        takes it from its budget first; the choice made again at load took up to 2.7 times
        what was counted before): the sample in its canonical order and the masks finding
        its columns of counts, then, with the choice known (:attr:`known_choice`), the
        chosen families fitted on their columns; else the larger of the cross-validation
        (each candidate's held-out contributions, (n_columns, n_rows, n_classes) each, and
        those being made, the folds' training samples, a candidate fitted on one of them)
        and every candidate's contributions with the chosen families fitted."""
        n, d, k = stats.n_rows, stats.n_features, stats.n_classes
        # without_empty's weights and mask, the order and its keys, the sorted values and
        # weights, the columns of counts' masks
        base = 3 * k * n + 3 * n + 3 * n * d
        known = self._known(stats)
        if known is not None:
            chosen = np.asarray(known[0])
            return base + sum(
                self._fitted_size(name, stats, int(np.sum(chosen == name)))
                for name in dict.fromkeys(known[0])
            )
        candidates = self._candidates()
        folds = self._folds()
        part = n * d * k
        parts = len(candidates) * part
        # the folds' training samples (the nonparametric candidates'), each candidate fitted
        # on one of them (at most the whole sample), a fold's held-out rows and probe
        trains = (folds - 1) * (n * d + n * k)
        fitting = max(self._fitted_size(name, stats, d) for name in candidates)
        search = parts + part + trains + fitting + 3 * n * d + n
        # the choice (its running totals, trials and row scores) over every candidate's
        # contributions; then the chosen families fitted (the contributions let go)
        choice = parts + 8 * n * k
        final = fitting + len(candidates) * 8 * n * k
        return base + max(search, choice, final)

    def _fitted_size(self, name: str, stats: Sample, n_columns: int) -> int:
        """What fitting candidate ``name`` to ``n_columns`` of ``stats``'s columns holds: the
        columns' copy and the family's statistic and parameters (its finalize at its
        peak)."""
        if not n_columns:
            return 0
        n, k = stats.n_rows, stats.n_classes
        # (a view of the sample's shape: nothing is copied to tell the size)
        shaped = Sample(stats.weight, stats.values[:, :n_columns])
        copy = 2 * n * n_columns + n * k
        if name in _ADDITIVE:  # moments or counts, their summaries' temporaries
            return copy + 2 * n * n_columns + 8 * k * n_columns + 8 * n_columns
        return copy + self._family(name).parameter_size(shaped)

    def check_choice(self, n_columns: int, chosen: Any, scores: Any) -> str | None:
        """Why ``chosen`` (a family name per column) and ``scores`` ((n_candidates,
        n_columns) held-out log-likelihoods of the class, −inf where a family was no
        candidate) cannot be a choice :meth:`finalize` made under these settings, or None
        (what a model file stores for :attr:`known_choice`)."""
        candidates = self._candidates()
        if not isinstance(chosen, (list, tuple)) or len(chosen) != n_columns:
            return f"it must name one family for each of the {n_columns} columns"
        unknown = [c for c in chosen if not isinstance(c, str) or c not in candidates]
        if unknown:
            return f"it names {unknown[0]!r}, not one of the candidates {list(candidates)}"
        scores = np.asarray(scores)
        if scores.shape != (len(candidates), n_columns) or scores.dtype.kind != "f":
            return f"its scores must be ({len(candidates)}, {n_columns}) floats"
        if np.isnan(scores).any() or (scores == np.inf).any():
            return "a score is NaN or +inf"
        return None

    def _known(self, stats: Sample) -> tuple[tuple[str, ...], np.ndarray] | None:
        """The stored choice for ``stats`` (see :attr:`known_choice`), or None."""
        known = self.known_choice
        if known is None or known[0] is not stats:
            return None
        return known[1], known[2]

    def finalize(self, stats: Sample) -> AutoParams:
        candidates = self._candidates()
        k = self._folds()
        families = {name: self._family(name) for name in candidates}
        known = self._known(stats)
        stats = stats.without_empty(0.0)  # removed rows cancelled against their originals
        # Rows in a canonical order (by class, values, weights): every sum below is then taken
        # in the same order however the rows arrived, so the choice is exactly repeatable.
        order = canonical_order(stats.values, stats.weight)
        values, weight = stats.values[order], stats.weight[:, order]
        del order
        counts = _count_columns(values)
        if known is not None:
            pick, scores = _known_pick(candidates, counts, *known)
        else:
            pick, scores = _cross_validated(families, candidates, values, weight, counts, k)
        chosen = tuple(candidates[i] for i in pick)
        blocks = []
        for i, name in enumerate(candidates):
            columns = np.flatnonzero(pick == i)
            if len(columns):
                family = families[name]
                fitted = family.summarize(values[:, columns], weight.T)
                blocks.append((family, columns, family.finalize(fitted)))
                del fitted
        return AutoParams(chosen, tuple(blocks), candidates, scores, int(weight.shape[0]))

    # ------------------------------------------------------------------ scoring
    def log_prob(self, params: AutoParams, X: Any) -> np.ndarray:
        names = getattr(X, "names", None)
        X = np.asarray(X, dtype=np.float64)
        out = np.zeros((X.shape[0], params.n_classes))
        for family, columns, p in params.blocks:
            part = np.ascontiguousarray(X[:, columns])
            if family.name == "poisson":
                _check_counts(part, columns, names)
            out += family.log_prob(p, part)
        return out


def family_options(options: Any) -> Mapping[str, Any]:
    """``options`` (``{family name: {setting: value}}``, None for none) checked to be a dict."""
    options = options or {}
    if not isinstance(options, Mapping):
        raise ParameterError(
            f"options must be a dict of {{family name: {{setting: value}}}}, not {options!r}"
        )
    return options


def _count_columns(values: np.ndarray) -> np.ndarray:
    """Columns whose observed values are all non-negative integers (and not all missing)."""
    observed = ~np.isnan(values)
    whole = np.where(observed, (values >= 0) & (values == np.floor(values)), True)
    return whole.all(axis=0) & observed.any(axis=0)


class _NamedColumns(np.ndarray):
    """A validated block that remembers its columns' names (``None`` once sliced or
    pickled), so that :meth:`Auto.log_prob` names a column whose value the family chosen for
    it cannot take."""

    names: Sequence[str] | None = None


def _check_counts(X: np.ndarray, columns: np.ndarray, names: Sequence[str] | None) -> None:
    """Refuse a value that is not a count (a whole number >= 0) in the columns ``columns`` of
    a block (``X`` those columns) given the Poisson family because every training value was
    one, naming the column, the row and the value."""
    bad = (X < 0) | ((np.floor(X) != X) & ~np.isnan(X))  # missing values pass
    if bad.any():
        row, k = (int(v) for v in np.argwhere(bad)[0])
        j = int(columns[k])
        value = X[row, k]
        why = "counts cannot be negative" if value < 0 else "counts are whole numbers"
        accepted = (
            f"the Poisson family was chosen for it because every training value was a count (a "
            f"whole number >= 0); {why}. To score such values, fit with the column's family "
            "given: families={column: 'gaussian'} (or 'poisson', which takes frequencies)"
        )
        raise DataError(
            f"{column_label(names, j)} holds {value:g} at row {row}; {accepted}",
            row=row,
            detail=f"{column_named(names, j)} holds {value:g}; {accepted}",
        )


def _cross_validated(
    families: Mapping[str, Family],
    candidates: tuple[str, ...],
    values: np.ndarray,
    weight: np.ndarray,
    counts: np.ndarray,
    k: int,
) -> tuple[np.ndarray, np.ndarray]:
    """(choice, scores) of the rows in canonical order (see the module docstring)."""
    d = values.shape[1]
    scores = np.full((len(candidates), d), -np.inf)
    pick = np.zeros(d, dtype=np.int64)
    if not values.shape[0] or weight.shape[0] <= 1:
        return pick, scores
    fold = fold_of(values, weight, k)
    parts: list[np.ndarray | None] = []
    for name in candidates:
        columns = np.flatnonzero(counts) if name == "poisson" else np.arange(d)
        if not len(columns):
            parts.append(None)
            continue
        part = _contributions(families[name], name, values[:, columns], weight, fold, k)
        if len(columns) < d:  # NaN in the columns it is no candidate for
            every = np.full((d, *weight.T.shape), np.nan)
            every[columns] = part
            part = every
        parts.append(part)  # (all columns: as computed, without a second copy)
    return choose(held_out_prior(weight, fold, k), parts, weight)


def _known_pick(
    candidates: tuple[str, ...], counts: np.ndarray, chosen: tuple[str, ...], scores: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(choice, scores) as stored (see :meth:`Auto.check_choice`), refusing the Poisson
    family for a column that is not all counts (the choice never gives it one)."""
    pick = np.array([candidates.index(c) for c in chosen], dtype=np.int64)
    poisson = candidates.index("poisson") if "poisson" in candidates else -1
    wrong = np.flatnonzero((pick == poisson) & ~counts)
    if len(wrong):
        raise DataError(
            f"the stored choice gives column {int(wrong[0])} the Poisson family, but its values "
            "are not all counts (whole numbers >= 0)"
        )
    return pick, np.array(scores, dtype=np.float64)


def canonical_order(values: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Rows sorted by class (largest weight), then values, then weights (NaN last)."""
    label = np.argmax(weight, axis=0)
    keys = [weight[c] for c in range(weight.shape[0] - 1, -1, -1)]
    keys += [values[:, j] for j in range(values.shape[1] - 1, -1, -1)]
    return np.lexsort([*keys, label])


def fold_of(values: np.ndarray, weight: np.ndarray, k: int) -> np.ndarray:
    """The fold of each row: within each class (largest weight), the distinct rows sorted by
    their values, the ``r``-th to fold ``r mod k``. Depends on the rows, not on their order,
    and equal rows share a fold, so a row of weight 2 and two copies of it are the same data
    (as they are to every family)."""
    label = np.argmax(weight, axis=0)
    order = canonical_order(values, weight)
    ranked = label[order]
    rows = values[order]
    same = np.zeros(len(order), dtype=bool)
    if len(order) > 1:
        equal = (rows[1:] == rows[:-1]) | (np.isnan(rows[1:]) & np.isnan(rows[:-1]))
        same[1:] = equal.all(axis=1) & (ranked[1:] == ranked[:-1])
    distinct = np.cumsum(~same) - 1  # rank of each row's distinct row, over every class
    first = distinct[np.searchsorted(ranked, ranked, side="left")]
    fold = np.empty(len(order), dtype=np.int64)
    fold[order] = (distinct - first) % k
    return fold


#: Columns scored together by :func:`_contributions` (a probe's width: the choice costs
#: about rows × columns × this), and at most this many cells in one fold's stacked probes
#: (32 MB). A block of 64 columns is a few hundred calls of each family for 10,000 columns.
PROBE_WIDTH = 64
PROBE_CELLS = 1 << 22


def _contributions(
    family: Family, name: str, X: np.ndarray, weight: np.ndarray, fold: np.ndarray, k: int
) -> np.ndarray:
    """``log p(x_ij | c)`` of every row ``i`` and column ``j`` of ``X`` under ``family``
    fitted without the row's fold, shape (n_columns, n_rows, n_classes); 0 where missing.

    A family that scores each column of held-out rows apart (``held_out_log_prob``: the
    kernel density, whose per-fold grids are most of the choice's work) is given many
    columns at once (``columns_at_once``), each fold's training rows once for all of them.
    Another family scores a row over all its columns, so column ``j``'s terms are the scores
    of probes holding the rows' values in column ``j`` alone (missing elsewhere, which drops
    out). Over all of a wide table's columns each probe would cost its width, the whole
    choice the square of the width (60 rows × 5,000 columns: 59 s, 25 s in blocks); the
    columns are taken in blocks of :data:`PROBE_WIDTH` (each family treats its columns
    apart), scored by one stacked probe per fold. (A Gaussian floor set to a portion of the
    largest variance is then the block's largest, as the fitted model's is the largest among
    the columns its family is given.)"""
    n, d = X.shape
    out = np.zeros((d, n, weight.shape[0]))
    held = max(int(np.bincount(fold, minlength=k).max()), 1)
    at_once = family.columns_at_once(weight.shape[0])
    if at_once is not None:
        width = int(min(d, at_once))
        score = _held_out_contributions
    else:
        width = int(min(d, PROBE_WIDTH, max(1, np.sqrt(PROBE_CELLS / held))))
        score = _block_contributions
    for lo in range(0, d, width):  # blocks of many columns (a wide table: a few dozen)
        block = slice(lo, min(lo + width, d))
        out[block] = score(family, name, X[:, block], weight, fold, k)
    # A value no class can have (a density underflowing to 0 for every class) counts as
    # e^-1e6 rather than -inf, so the sums and differences of contributions below stay
    # finite: such a column then tells the classes apart by nothing, as the template's
    # posterior falls back to the prior for a row every class rules out.
    return np.clip(out, -_IMPOSSIBLE, _IMPOSSIBLE, out=out)


def _held_out_contributions(
    family: Any, name: str, X: np.ndarray, weight: np.ndarray, fold: np.ndarray, k: int
) -> np.ndarray:
    """:func:`_contributions` of the columns of ``X`` by the family's own
    ``held_out_log_prob``: the numbers of the stacked probes, without them."""
    out = np.zeros((X.shape[1], X.shape[0], weight.shape[0]))
    for f in range(k):
        test = np.flatnonzero(fold == f)
        if not len(test) or len(test) == len(fold):
            continue
        train = family.summarize(X[fold != f], weight[:, fold != f].T)
        out[:, test] = family.held_out_log_prob(train, X[test])
    return out


def _block_contributions(
    family: Family, name: str, X: np.ndarray, weight: np.ndarray, fold: np.ndarray, k: int
) -> np.ndarray:
    """:func:`_contributions` of the columns of ``X``, by one stacked probe per fold."""
    K = weight.shape[0]
    if name in _ADDITIVE:
        parts = [family.summarize(X[fold == f], weight[:, fold == f].T) for f in range(k)]
        total = parts[0]
        for part in parts[1:]:
            total = total + part
        scale = 1e-9 * np.abs(weight.sum(axis=1))
        trains = [(total + (-part)).cleaned(np.arange(K), scale) for part in parts]
    else:
        trains = [family.summarize(X[fold != f], weight[:, fold != f].T) for f in range(k)]
    out = np.zeros((X.shape[1], X.shape[0], K))
    for f in range(k):
        test = np.flatnonzero(fold == f)
        if not len(test) or len(test) == len(fold):
            continue
        params = family.finalize(trains[f])
        held = X[test]
        apart = family.log_prob_cells(params, held)
        if apart is not None:  # the family's terms of each column apart: no probes
            out[:, test] = apart
            continue
        seen = np.flatnonzero(~np.isnan(held).all(axis=0))
        if not len(seen):
            continue
        # probe[s, i] is held-out row i with column seen[s]'s value alone
        probe = np.full((len(seen), len(test), X.shape[1]), np.nan)
        probe[np.arange(len(seen)), :, seen] = held[:, seen].T
        scored = family.log_prob(params, probe.reshape(-1, X.shape[1]))
        out[np.ix_(seen, test)] = scored.reshape(len(seen), len(test), K)
    return out
