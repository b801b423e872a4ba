"""Looking inside a fitted model: why it decided, which features carry weight, which are useful.

Every discrete Naive Bayes model is linear in its (one-hot) features (McCallum & Nigam 1998):
``joint log-likelihood = x @ W.T + b``; Fisher's linear discriminant (and a Gaussian with shared
variances) is, up to a term the same for every class (:meth:`linear_discriminant`). The log-odds
of class ``a`` against class ``b`` is then a sum of one term per feature, ``x_j (W_aj − W_bj)``,
plus the bias ``b_a − b_b`` — an exact account of a decision, not an approximation. The bias is
shown in two parts: the prior's log-odds ``ln P(a) − ln P(b)`` and the rest, the intercept (a
Bernoulli model's log-odds of every observed feature absent; Fisher's
``−½ (μ_aᵀΣ⁻¹μ_a − μ_bᵀΣ⁻¹μ_b)``), so that the prior shown is the model's prior.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ._base import GenerativeClassifier
from ._lazy import sparse as sp
from ._usefulness import feature_usefulness as feature_usefulness
from ._usefulness import top_useful as top_useful
from ._usefulness import usefulness_of as usefulness_of
from .errors import ParameterError, ShapeError

if TYPE_CHECKING:
    from ._selector import UsefulnessSelector as UsefulnessSelector


def __getattr__(name: str) -> Any:
    # UsefulnessSelector lives in its own module: scikit-learn's feature_selection package,
    # which it subclasses from, takes ~0.3 s to import and the text models do not need it.
    if name == "UsefulnessSelector":
        from ._selector import UsefulnessSelector

        return UsefulnessSelector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Contribution:
    """One feature's share of a decision."""

    feature: str
    value: Any  # the row's value (a number, or a category of a mixed table)
    weight: float  # x_j (W_aj − W_bj): positive pushes toward ``Explanation.label``


@dataclass(frozen=True)
class Explanation:
    """The log-odds of ``label`` against ``versus`` for one row, term by term.

    ``log_odds == prior + intercept + sum(c.weight for c in contributions)`` exactly (up to
    rounding), where ``log_odds`` is the model's own (``predict_joint_log_proba``), ``prior``
    the log-odds of the two classes' priors as the model scores them (0 for a model whose
    scores leave the prior out, ComplementNB), ``intercept`` the rest of the linear form's
    bias (0 but for a Bernoulli model, where it is the log-odds of every observed feature
    absent, a Poisson model, ``−Σ_j (λ_aj − λ_bj)`` over the observed features, and a
    Gaussian with a shared
    covariance, ``−½ (μ_aᵀΣ⁻¹μ_a − μ_bᵀΣ⁻¹μ_b)``), and
    ``contributions`` lists every feature present in the row, largest effect first.
    """

    label: Any
    versus: Any
    log_odds: float
    prior: float
    contributions: list[Contribution]
    intercept: float = 0.0

    def top(self, n: int = 10) -> list[Contribution]:
        """The ``n`` features that moved the decision most, either way (``n`` a whole number
        >= 0, as :func:`top_features` takes it)."""
        _check_n(n)
        return self.contributions[:n]

    def __str__(self) -> str:
        lines = [
            f"{self.label!r} vs {self.versus!r}: log-odds {self.log_odds:+.3f}",
            f"  {'(prior)':<24} {self.prior:+.3f}",
        ]
        if self.intercept != 0.0:
            lines.append(f"  {'(intercept)':<24} {self.intercept:+.3f}")
        for c in self.top(15):
            shown = f"{c.value:g}" if isinstance(c.value, (int, float)) else repr(c.value)
            lines.append(f"  {c.feature:<24} {c.weight:+.3f}   (x = {shown})")
        return "\n".join(lines)


def explain(
    model: GenerativeClassifier,
    x: Any,
    *,
    feature_names: Sequence[str] | None = None,
    label: Any = None,
    versus: Any = None,
) -> Explanation:
    """Each feature's contribution to the log-odds of one decision.

    Parameters
    ----------
    model : a fitted model with a linear decision (MultinomialNB, ComplementNB, BernoulliNB,
        CategoricalNB, LinearDiscriminantAnalysis, GaussianNB with shared_variance=True), a
        Bayesian network (TAN, KDB), or another naive Bayes model (GaussianNB, KernelNB,
        MixedNB…), whose terms are each value's own effect: the log-odds less the log-odds
        with that value missing (:func:`split_by_leaving_out`)
    x : one row, shape (n_features,) or (1, n_features), dense or sparse
        For CategoricalNB and the naive Bayes models split by leaving values out, the row of
        values as given to ``predict`` (an array or a one-row pandas or polars frame). An
        explanation is of one decision: more than one row raises
        :class:`~bayeskit.errors.ShapeError` (call ``explain`` once per row).
    feature_names : names of the model's linear columns (default: ``x0``, ``x1``, … or the
        one-hot ``column=value`` names of a CategoricalNB)
    label, versus : the two classes compared; default the predicted class (``predict``'s,
        a loss matrix or class weights included) against the most probable other class.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import MultinomialNB
    >>> from bayeskit.inspection import explain
    >>> X = np.array([[3, 0, 1], [2, 0, 1], [0, 3, 1], [0, 2, 1]])
    >>> model = MultinomialNB().fit(X, ["ham", "ham", "spam", "spam"])
    >>> e = explain(model, [0, 2, 1], feature_names=["meeting", "free", "the"])
    >>> e.label, e.versus, [c.feature for c in e.contributions]
    ('spam', 'ham', ['free', 'the'])
    >>> terms = e.prior + e.intercept + sum(c.weight for c in e.contributions)
    >>> round(e.log_odds, 6) == round(terms, 6)
    True
    """
    _check_one_row(x)
    label = _decided(model, x, label, versus)
    if not hasattr(model, "feature_log_factors") and not hasattr(model, "linear_discriminant"):
        wrapper = hasattr(model, "fitted_estimator")
        raise ParameterError(
            f"a {type(model).__name__} has neither a linear form nor per-feature factors for "
            "explain to split (it takes a fitted naive Bayes, LDA or TAN/KDB model"
            + ("; explain model.fitted_estimator(), the model it wraps)" if wrapper else ")")
        )
    if hasattr(model, "feature_log_factors"):
        return _explain_factors(model, x, feature_names, label, versus)
    try:
        W, b = model.linear_discriminant()
    except ParameterError:
        if not _splits_by_leaving_out(model):
            raise
        return split_by_leaving_out(model, x, feature_names, label, versus)[0]
    design, names = _design_row(model, x, W.shape[1], feature_names)
    classes = model.classes_
    if len(classes) < 2:
        raise ParameterError("explain compares two classes; the model knows only one")
    # A missing value (NaN in the design: a Bernoulli feature neither present nor absent)
    # contributes nothing; the model's own scores say what its absence changes in the bias.
    missing = np.isnan(design)
    design = np.where(missing, 0.0, design)
    linear = design @ W.T + b
    jll = linear
    if missing.any():
        jll = np.asarray(model.predict_joint_log_proba(_one_row(x)), dtype=np.float64)[0]
    a, c = _compared(classes, jll, label, versus)
    diff = W[a] - W[c]
    # A count model's missing-value indicator (``column=<missing>``) takes that column's
    # zero-count term out of the bias: it is the intercept's, not evidence of the value.
    indicator = _missing_indicators(model, W.shape[1])
    present = np.flatnonzero((design != 0) & ~indicator)
    terms = design[present] * diff[present]
    rank = np.argsort(-np.abs(terms), kind="stable")
    shown = _given_values(x, design)
    contributions = [
        Contribution(names[present[k]], float(shown[present[k]]), float(terms[k])) for k in rank
    ]
    prior = _scored_prior(model)
    # (a class of no weight has b = prior = −inf: none of its bias is beyond its prior)
    intercept = float(_change(b[a], prior[a]) - _change(b[c], prior[c]))
    if indicator.any():
        intercept += float(design[indicator] @ diff[indicator])
    if missing.any():  # what the missing values take out of the bias
        intercept += float((jll[a] - jll[c]) - (linear[a] - linear[c]))
    return _explanation(classes, a, c, jll, prior, contributions, intercept=intercept)


def _given_values(x: Any, design: np.ndarray) -> np.ndarray:
    """The row's values as given, where the linear design has one column per input column
    (a Bernoulli model's design is its 0/1 after ``binarize``: 2.5 is shown as 2.5, not 1);
    the design itself otherwise (the one-hot columns of a categorical model)."""
    row = x.toarray() if sp.issparse(x) else getattr(x, "to_numpy", lambda: x)()
    try:
        given = np.asarray(row, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        return design
    if given.shape != design.shape:
        return design
    # a missing value contributes nothing and is not listed; its design cell is 0
    return np.where(np.isnan(given), design, given)


def _splits_by_leaving_out(model: Any) -> bool:
    """Whether a model's log-odds is the prior's plus one term per feature that a missing
    value leaves out: a naive Bayes model (its contract's ``feature_terms``) that takes
    missing values."""
    from .contract import contract_of

    return bool(model.__sklearn_tags__().input_tags.allow_nan and contract_of(model).feature_terms)


def split_by_leaving_out(
    model: Any,
    x: Any,
    feature_names: Sequence[str] | None = None,
    label: Any = None,
    versus: Any = None,
) -> tuple[Explanation, float]:
    """Each value's effect on the log-odds of one decision, by leaving it out.

    For a model that is not linear in its features (a Gaussian with per-class variances,
    kernel densities, a mixed table) but takes missing values: feature ``j``'s term is the
    log-odds less the log-odds with that one value missing, and the prior's the log-odds
    with every value missing. A naive Bayes log-odds is the prior's plus one term per
    feature, ``ln p(x_j | a) − ln p(x_j | b)``, and a missing value contributes nothing, so
    this split is exact (:func:`explain` gives it for naive Bayes models). Where the features
    interact within a class (AODE, a mixture) each term is only that value's own effect, and
    the rest of the log-odds is the interactions' part.

    Parameters
    ----------
    model : a fitted model that takes missing values
    x : one row: a sequence, an array, or a one-row pandas or polars frame; a value missing
        in it contributes nothing and is not listed
    feature_names : names of the row's columns (default: the frame's, else the model's)
    label, versus : the two classes compared; default the predicted class against the
        runner-up

    Returns
    -------
    explanation : Explanation
        The terms, largest effect first; ``intercept`` is 0.
    interactions : float
        ``log_odds − prior − Σ terms``: 0 for naive Bayes (to rounding).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bayeskit import GaussianNB
    >>> X, y = load_iris(return_X_y=True)
    >>> e, rest = split_by_leaving_out(GaussianNB().fit(X, y), X[70])
    >>> e.label, e.versus, [c.feature for c in e.contributions]
    (2, 1, ['x3', 'x0', 'x1', 'x2'])
    >>> abs(rest) < 1e-9
    True
    """
    rows, names, values, present = _left_out_rows(x, model)
    if feature_names is not None:
        names = [str(n) for n in feature_names]
    elif not hasattr(x, "columns"):  # an array: the model's own names of its columns
        names = [str(n) for n in model.feature_names()]
    if len(names) != len(values):
        raise ParameterError(
            f"feature_names has {len(names)} names; the row has {len(values)} values"
        )
    jll = np.asarray(model.predict_joint_log_proba(rows), dtype=np.float64)
    classes = model.classes_
    if len(classes) < 2:
        raise ParameterError("explain compares two classes; the model knows only one")
    a, c = _compared(classes, jll[0], label, versus)
    odds = jll[:, a] - jll[:, c]
    d = len(values)
    terms = _change(odds[0], odds[1 : d + 1])
    shown = [j for j in range(d) if present[j]]
    shown.sort(key=lambda j: -abs(terms[j]))
    contributions = [Contribution(names[j], values[j], float(terms[j])) for j in shown]
    e = Explanation(
        _plain(classes[a]), _plain(classes[c]), float(odds[0]), float(odds[-1]), contributions
    )
    rest = float(_change(odds[0], odds[-1]) - sum(terms[j] for j in shown))
    return e, rest


def _change(before: Any, after: Any) -> np.ndarray:
    """``before − after``, 0 where they are equal: a class of no weight has log-odds ±inf
    with any value left out, and a bias and prior of −inf; leaving a value out changes
    nothing, and nothing of the bias is beyond the prior (inf − inf was NaN)."""
    with np.errstate(invalid="ignore"):
        return np.where(before == after, 0.0, np.subtract(before, after))


def _left_out_rows(x: Any, model: Any) -> tuple[Any, list[str], list[Any], list[bool]]:
    """(the row, then the row with each value missing in turn, then every value missing;
    the column names; the row's values; which are present) of one row."""
    if hasattr(x, "with_columns"):  # a polars frame
        import polars as pl

        _check_one_row(x)
        columns = list(x.columns)
        blank = {c: pl.lit(None).cast(x.schema[c]).alias(c) for c in columns}
        rows = [x] + [x.with_columns(blank[c]) for c in columns]
        rows.append(x.select(blank[c] for c in columns))
        values = [_plain(v) for v in x.row(0)]
        return pl.concat(rows), columns, values, [v is not None for v in values]
    if hasattr(x, "iloc"):  # a pandas frame
        import pandas as pd

        _check_one_row(x)
        columns = [str(c) for c in x.columns]
        gap = {
            c: np.nan
            if pd.api.types.is_numeric_dtype(x[c]) and not pd.api.types.is_bool_dtype(x[c])
            else None
            for c in x.columns
        }
        rows = [x] + [x.assign(**{str(c): gap[c]}) for c in x.columns]
        rows.append(x.assign(**{str(c): gap[c] for c in x.columns}))
        values = [_plain(v) for v in x.iloc[0].tolist()]
        return (
            pd.concat(rows, ignore_index=True),
            columns,
            values,
            [not bool(pd.isna(v)) for v in values],
        )
    row = np.asarray(x)
    row = row.reshape(-1) if row.ndim == 2 else row
    width = getattr(model, "n_features_in_", None)
    if row.ndim != 1 or (width is not None and len(row) != width):
        raise ShapeError(
            "explain takes one row of the model's "
            f"{width if width is not None else ''} features; got a {type(x).__name__} of "
            f"shape {np.shape(x)}"
        )
    number = row.dtype.kind in "iuf"
    row = row.astype(np.float64 if number else object)
    d = len(row)
    table = np.tile(row, (d + 2, 1))
    hole = np.nan if number else None
    table[np.arange(1, d + 1), np.arange(d)] = hole
    table[-1] = hole
    values = [_plain(v) for v in row.tolist()]
    present = [not (v is None or (isinstance(v, float) and v != v)) for v in values]
    return table, [f"x{j}" for j in range(d)], values, present


def _scored_prior(model: Any) -> np.ndarray:
    """The log prior in the model's scores: ``ln P(y)``, or zeros for a model whose scores
    leave it out (ComplementNB)."""
    prior = np.asarray(model.class_log_prior_, dtype=np.float64)
    scored = getattr(model, "scores_include_prior", lambda: True)()
    return prior if scored or len(prior) == 1 else np.zeros_like(prior)


def _one_row(x: Any) -> Any:
    return x if (sp.issparse(x) or np.ndim(x) == 2 or hasattr(x, "columns")) else [x]


def _explain_factors(
    model: Any, x: Any, feature_names: Sequence[str] | None, label: Any, versus: Any
) -> Explanation:
    """:func:`explain` for a model that declares one log-factor per feature and class
    (``feature_log_factors``: a Bayesian network's ``ln P(x_i | y, x_pa(i))``): the share of
    feature ``i`` is the difference of its two classes' factors; ``value`` is 1 (the feature is
    present, as a one-hot column of a categorical model)."""
    factors = np.asarray(model.feature_log_factors(_one_row(x)))[0]  # (n_features, n_classes)
    classes = model.classes_
    if len(classes) < 2:
        raise ParameterError("explain compares two classes; the model knows only one")
    names = list(model.feature_names()) if feature_names is None else list(feature_names)
    if len(names) != factors.shape[0]:
        raise ParameterError(
            f"feature_names has {len(names)} names; the model has {factors.shape[0]} features"
        )
    prior_log = model.class_log_prior_
    jll = prior_log + factors.sum(axis=0)
    a, c = _compared(classes, jll, label, versus)
    terms = factors[:, a] - factors[:, c]
    present = np.flatnonzero(np.any(factors != 0, axis=1))
    rank = present[np.argsort(-np.abs(terms[present]), kind="stable")]
    contributions = [Contribution(str(names[j]), 1.0, float(terms[j])) for j in rank]
    return _explanation(classes, a, c, jll, prior_log, contributions)


def _decided(model: Any, x: Any, label: Any, versus: Any) -> Any:
    """``label``, or by default the model's own decision on the row where a loss matrix or
    class weights make it another than the most probable class (which :func:`_compared`
    takes otherwise); None to leave it to :func:`_compared` (also when the decision is
    ``versus`` itself)."""
    if label is not None or not hasattr(model, "get_params"):
        return label
    settings = model.get_params(deep=False)
    if settings.get("loss") is None and settings.get("class_weight") is None:
        return None
    decided = _plain(np.asarray(model.predict(_one_row(x)))[0])
    return None if versus is not None and decided == versus else decided


def _compared(classes: np.ndarray, jll: np.ndarray, label: Any, versus: Any) -> tuple[int, int]:
    """The indices of the two classes :func:`explain` compares: ``label`` (default the class
    of largest joint log-likelihood ``jll`` other than ``versus``) and ``versus`` (default the
    largest other than ``label``); the same class twice is refused (its log-odds against
    itself is 0 whatever the row)."""
    a = None if label is None else _index(classes, label)
    c = None if versus is None else _index(classes, versus)
    order = [int(k) for k in np.argsort(-jll, kind="stable")]
    if a is None:
        a = next(k for k in order if k != c)
    if c is None:
        c = next(k for k in order if k != a)
    if a == c:
        raise ParameterError(
            f"label and versus are both {_plain(classes[a])!r}: explain compares two different "
            f"classes of {classes.tolist()}"
        )
    return a, c


def _plain(label: Any) -> Any:
    return label.item() if isinstance(label, np.generic) else label


def _explanation(
    classes: np.ndarray,
    a: int,
    c: int,
    jll: np.ndarray,
    prior: np.ndarray,
    contributions: list[Contribution],
    *,
    intercept: float = 0.0,
) -> Explanation:
    """The :class:`Explanation` of class index ``a`` against ``c`` (labels as plain Python
    values), with the prior term ``prior[a] - prior[c]``."""
    return Explanation(
        _plain(classes[a]),
        _plain(classes[c]),
        float(jll[a] - jll[c]),
        float(prior[a] - prior[c]),
        contributions,
        intercept,
    )


def top_features(
    model: GenerativeClassifier, n: int = 10, *, feature_names: Sequence[str] | None = None
) -> dict[Any, list[tuple[str, float]]]:
    """For each class, the ``n`` features whose weight most favours it over the average class.

    The score of feature ``j`` for class ``y`` is ``W_yj − mean_c W_cj``: how much one
    occurrence moves the log-odds toward ``y``. ``n`` is a whole number >= 0 (``n`` larger
    than the number of features lists them all); anything else raises
    :class:`~bayeskit.errors.ParameterError`.

    A count model (Poisson, binomial) has a missing-value indicator per column
    (``column=<missing>``), whose weight is the class's expected count: large, and telling
    nothing about the data when no training row left the column missing. Such indicators are
    left out; those of columns the model saw missing are ranked with the rest. A categorical
    model's ``column=<unseen>`` (the smoothed weight of a value no training row had, largest
    for the smallest classes) is never 1 in the data and is left out too. So is a column
    whose weight is the same in every class (a Poisson model's ``<−Σ ln x!>``): it favours
    none, and the lists can then be shorter than ``n``.
    """
    _check_n(n)
    W, _ = model.linear_discriminant()
    names = _names(model, W.shape[1], feature_names)
    lift = W - W.mean(axis=0, keepdims=True)
    # A column weighted alike in every class (a Poisson model's −Σ ln x!) tells nothing.
    alike = np.all(W[:1] == W, axis=0)
    shown = np.flatnonzero(~_indicators_never_missing(model, W.shape[1]) & ~alike)
    out: dict[Any, list[tuple[str, float]]] = {}
    for k, label in enumerate(model.classes_.tolist()):
        best = shown[np.argsort(-lift[k, shown], kind="stable")[:n]]
        out[label] = [(names[j], float(lift[k, j])) for j in best]
    return out


def _missing_indicators(model: Any, n_columns: int) -> np.ndarray:
    """Which linear columns are a missing-value indicator (a mask of ``n_columns``)."""
    return _indicators(model, n_columns, every=True)


def _indicators_never_missing(model: Any, n_columns: int) -> np.ndarray:
    """Which linear columns are the missing-value indicator of a column no training row left
    missing (a mask of ``n_columns``); none for a model without such indicators."""
    return _indicators(model, n_columns, every=False)


def _indicators(model: Any, n_columns: int, *, every: bool) -> np.ndarray:
    """The missing-value indicator columns: all (``every``) or those of columns no training
    row left missing, with the columns of values no training row had."""
    from .families._counts_common import MISSING_MARK
    from .families.categorical import UNSEEN_MARK

    mask = np.zeros(n_columns, dtype=bool)
    fitted_blocks = getattr(model, "fitted_blocks", None)
    if fitted_blocks is None:  # not a model of blocks of families
        return mask
    offset = 0
    for family, p, stats, names in fitted_blocks():
        columns = family.column_names(p, names)
        missing = getattr(stats, "missing", None)
        seen = (
            np.zeros(len(names), dtype=bool)
            if missing is None
            else np.asarray(missing).sum(axis=0) > 0
        )
        where = {f"{name}{MISSING_MARK}": j for j, name in enumerate(names)}
        for k, column in enumerate(columns):
            j = where.get(column)
            never = not every and column.endswith(UNSEEN_MARK)  # (no training row's value)
            if (never or (j is not None and (every or not seen[j]))) and offset + k < n_columns:
                mask[offset + k] = True
        offset += len(columns)
    return mask


def _check_n(n: Any) -> None:
    """``n`` must count features: a Python slice would take -1 as "all but the last", and
    1.5 or "2" would fail with a bare TypeError far from the call."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ParameterError(f"n must be a whole number >= 0 (how many features); got {n!r}")


def _check_one_row(x: Any) -> None:
    """Refuse more than one row: only the first would be explained, silently."""
    shape = getattr(x, "shape", None)
    if shape is not None and len(shape) == 2:
        rows = int(shape[0])
    else:
        try:
            rows = len(x) if np.ndim(x) == 2 else 1
        except ValueError:  # a ragged list of lists: several rows of different lengths
            rows = len(x)
    if rows != 1:
        raise ShapeError(f"explain takes one row; got {rows} rows (call explain once per row)")


def _design_row(
    model: GenerativeClassifier, x: Any, n_columns: int, feature_names: Sequence[str] | None
) -> tuple[np.ndarray, Sequence[str]]:
    """One row of the model's linear design (validated like ``predict`` input) and the
    names of its columns."""
    names = _names(model, n_columns, feature_names)
    design = model.linear_design(_one_row(x))
    row = design[[0]].toarray() if sp.issparse(design) else np.asarray(design)[[0]]
    return np.asarray(row, dtype=np.float64).ravel(), names


def _names(
    model: GenerativeClassifier, n_columns: int, feature_names: Sequence[str] | None
) -> Sequence[str]:
    if feature_names is None:
        return model.linear_feature_names()
    if len(feature_names) != n_columns:
        raise ParameterError(
            f"feature_names has {len(feature_names)} names; the model has {n_columns} "
            "linear columns"
        )
    return feature_names


def _index(classes: np.ndarray, label: Any) -> int:
    if np.ndim(label) != 0:  # (an array would be compared element by element)
        raise ParameterError(f"a label is one class; got {label!r}")
    hits = np.flatnonzero(classes == label)
    if len(hits) == 0:
        raise ParameterError(f"{label!r} is not one of the classes {classes.tolist()}")
    return int(hits[0])
