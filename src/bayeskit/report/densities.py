"""Class-conditional densities ``p(x_j | c)`` of single features, read off any fitted model.

A naive Bayes model scores a missing value as a factor of 1 (Duda et al.), so a row in which only
feature ``j`` is observed scores ``log P(c) + log p(x_j | c)``: subtracting the log prior leaves
the model's own density of that one feature, whatever its family (Gaussian, kernel, …).

Which features are worth a picture? The ones whose class densities stand apart where the data
are. Each feature is scored by the ROC-AUC of the one-feature model — the posterior
``P(c | x_j)`` from the model's densities — on (a sample of) the training rows, one class
against the rest and averaged when there are more than two. It is 0.5 when the densities
coincide and 1 when they do not overlap, and depends only on how the densities order the
rows, so a few rows in a tail that a density fits badly cannot decide the ranking.

The information in bits, ``mean log₂ P(y|x_j) − log₂ P(y)`` (the drop in log-loss from the
class frequencies to the feature's densities), is reported beside it but not used to rank: on
UCI spambase a Gaussian gives some rows a posterior of e^-300 for their true class, and those
few rows turn 51 of the 57 features negative, word_freq_remove among them (AUC 0.70).
A negative value is then a useful warning that the family fits the feature badly.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats
from sklearn import metrics
from sklearn.feature_selection import f_classif

from .._decision import normalize_log
from ..errors import BayeskitError, ShapeError
from ..families import FAMILIES


def one_column(family: str | None) -> str | None:
    """What a family's one-column log-probability is, as the family declares it
    (``Family.one_column``): "density", "pmf" (on the integers) or None — a count vector's
    family (one count has no distribution of its own), discretized (a probability per
    interval, not per unit of x), or a family not known, left out rather than drawn wrong."""
    found = FAMILIES.get(family) if isinstance(family, str) else None
    return None if found is None else found.one_column


#: at most this many numeric features are scored (the rest screened out by an F-test).
MAX_RANKED = 60
#: rows used to score a feature (a random subset: ranking needs no more), fewer for a wide
#: table since each row carries every column: about RANK_CELLS values, at least 300 rows.
RANK_ROWS = 2000
RANK_CELLS = 150_000
GRID = 240
#: a non-negative feature whose 99.5% quantile exceeds this many times its upper quartile is
#: drawn on a log(1 + x) axis.
SKEW = 10.0
BINS = 32


@dataclass(frozen=True)
class FeatureScore:
    """How well feature ``j`` alone separates the classes, and its per-class data means."""

    j: int
    name: str
    family: str
    auc: float
    bits: float
    means: np.ndarray  # (K,), NaN for a class with no observed value


@dataclass(frozen=True)
class FeatureDensity:
    """One feature's picture: the model's ``p(x | c)`` on ``grid`` (K, G) and the data's
    per-class histogram densities ``hist`` (K, B) over ``edges`` (B+1,)."""

    score: FeatureScore
    grid: np.ndarray
    density: np.ndarray
    edges: np.ndarray
    hist: np.ndarray
    #: "linear", or "log1p": grid and edges are then log(1 + x) and both densities are per
    #: unit of log(1 + x), so areas still read as shares of the class
    axis: str = "linear"


def numeric_columns(model: Any, X: Any) -> list[int]:
    """Columns whose family gives the column a density (or a pmf on the integers) of its own:
    see :func:`one_column`."""
    n = getattr(model, "n_features_in_", None)
    if getattr(model, "families_", None) is None or n is None or _n_columns(X) != n:
        return []
    return [
        j
        for j, family in enumerate(column_families(model, int(n)))
        if one_column(family) is not None and _column(X, j) is not None
    ]


def column_families(model: Any, n: int) -> list[str | None]:
    """The family name of each column, in column order; None where unknown."""
    recorded = getattr(model, "feature_families_", None)
    if isinstance(recorded, dict):  # MixedNB: column name (or x0, x1, …) -> family name
        names = getattr(model, "feature_names_in_", None)
        keys = [str(names[j]) if names is not None else f"x{j}" for j in range(n)]
        return [_family_name(recorded.get(key, recorded.get(j))) for j, key in enumerate(keys)]
    out: list[str | None] = []
    for family, block in zip(model.families_, model.stats_.blocks, strict=True):
        out += [_family_name(family)] * block.n_features
    return out if len(out) == n else [None] * n


def _family_name(family: Any) -> str | None:
    if family is None or isinstance(family, str):
        return family
    return getattr(family, "name", None)


def rank_features(model: Any, X: Any, y: Any) -> list[FeatureScore]:
    """The numeric features' scores, best separating first (at most ``MAX_RANKED``)."""
    columns = numeric_columns(model, X)
    if not columns:
        return []
    classes = np.asarray(model.classes_)
    labels = np.asarray(y).ravel()
    if len(labels) != _n_rows(X):
        raise ShapeError(f"X has {_n_rows(X)} rows but y has {len(labels)} labels")
    code = _codes(classes, labels)
    if len(columns) > MAX_RANKED:
        columns = _screen(X, columns, code)
    rng = np.random.default_rng(0)
    probe = Probe(X)
    rows = rank_rows(int(model.n_features_in_))
    scores = []
    families = column_families(model, int(model.n_features_in_))
    for j in columns:
        values = _column(X, j)
        assert values is not None
        seen = np.flatnonzero(np.isfinite(values) & (code >= 0))
        if len(np.unique(code[seen])) < 2 or np.ptp(values[seen]) == 0:
            continue
        sample = seen if len(seen) <= rows else rng.choice(seen, rows, replace=False)
        try:
            auc, bits = separation(model, probe, j, values[sample], code[sample])
        except BayeskitError:  # a family refusing its own training values: nothing to show
            continue
        sums = np.bincount(code[seen], weights=values[seen], minlength=len(classes))
        counts = np.bincount(code[seen], minlength=len(classes))
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(counts > 0, sums / counts, np.nan)
        family = str(families[j])
        scores.append(FeatureScore(j, _name(model, X, j), family, auc, bits, means))
    scores.sort(key=lambda s: -s.auc)
    return scores


def rank_rows(n_features: int) -> int:
    """How many rows score each feature of a table with ``n_features`` columns."""
    return int(min(RANK_ROWS, max(300, RANK_CELLS // max(n_features, 1))))


def _screen(X: Any, columns: list[int], code: np.ndarray) -> list[int]:
    """The ``MAX_RANKED`` columns with the largest ANOVA F between classes (missing values
    set to the column mean): scoring one column costs a pass over every column, so a wide
    table is narrowed first by this one vectorised pass over the data."""
    known = code >= 0
    values = np.column_stack([_numeric(X, j) for j in columns])[known]
    seen = np.isfinite(values)
    means = np.where(seen, values, 0.0).sum(axis=0) / np.maximum(seen.sum(axis=0), 1)
    filled = np.where(seen, values, means[None, :])
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")  # constant columns: F is NaN, and they go last
        F, _ = f_classif(filled, code[known])
    order = np.argsort(-np.nan_to_num(F, nan=-1.0), kind="stable")[:MAX_RANKED]
    return [columns[i] for i in np.sort(order)]


def feature_densities(
    model: Any, X: Any, y: Any, *, limit: int = 6
) -> tuple[list[FeatureScore], list[FeatureDensity]]:
    """All numeric features ranked, and pictures of the ``limit`` best."""
    scores = rank_features(model, X, y)
    if not scores:
        return [], []
    code = _codes(np.asarray(model.classes_), np.asarray(y).ravel())
    probe = Probe(X)
    pictures = []
    for score in scores[:limit]:
        try:
            pictures.append(_picture(model, probe, score, code))
        except BayeskitError:  # the family refuses part of the drawn range: no picture
            continue
    return scores, pictures


def separation(
    model: Any, probe: Probe, j: int, values: np.ndarray, code: np.ndarray
) -> tuple[float, float]:
    """ROC-AUC (one-vs-rest, macro) and information in bits of the one-feature posterior
    ``P(c | x_j)`` on rows whose classes are ``code`` (indices into ``model.classes_``); the
    class frequencies of the rows are the prior."""
    K = len(model.classes_)
    share = np.bincount(code, minlength=K) / len(code)
    present = np.flatnonzero(share > 0)
    log_prior = np.log(share[present])
    joint = log_density(model, probe, j, values)[:, present] + log_prior
    post = normalize_log(joint, log_prior)
    col = np.full(K, -1)
    col[present] = np.arange(len(present))
    truth = col[code]
    bits = float(np.mean(post[np.arange(len(code)), truth] - log_prior[truth]) / np.log(2))
    if len(present) == 2:
        auc = metrics.roc_auc_score(truth == 1, post[:, 1])
    else:
        P = np.exp(post)
        auc = ovr_macro_auc(truth, P / P.sum(axis=1, keepdims=True))
    return float(auc), bits


def ovr_macro_auc(truth: np.ndarray, score: np.ndarray) -> float:
    """The one-vs-rest ROC-AUC of each column of ``score`` (n, K) for its class, averaged;
    every class of ``0..K-1`` occurs in ``truth``. It is scikit-learn's
    ``roc_auc_score(truth, score, multi_class="ovr")`` computed as the Mann-Whitney statistic
    (Hanley & McNeil 1982: ties count one half, as the trapezoidal area does) from one ranking
    of all the columns at once: scikit-learn's loop over the classes took seconds per feature
    with hundreds of classes."""
    n, K = score.shape
    ranks = stats.rankdata(score, axis=0)  # average ranks: a tie counts one half
    positives = np.bincount(truth, minlength=K).astype(np.float64)
    rank_sum = np.bincount(truth, weights=ranks[np.arange(n), truth], minlength=K)
    area = (rank_sum - positives * (positives + 1) / 2) / (positives * (n - positives))
    return float(np.mean(area))


def log_density(model: Any, probe: Probe, j: int, values: np.ndarray) -> np.ndarray:
    """``log p(x_j = v | c)`` for each value ``v`` and class, shape (len(values), K)."""
    jll = np.asarray(model.predict_joint_log_proba(probe.rows(j, values)), dtype=np.float64)
    if model.scores_include_prior():  # a text model's count model decides
        jll = jll - model.class_log_prior_
    return jll


class Probe:
    """Makes rows shaped like ``X`` (same type, column names and kinds) in which one column
    holds given values and every other column is missing."""

    def __init__(self, X: Any):
        self.X = X
        if _is_polars(X):
            self.kind = "polars"
            self.schema = list(X.schema.items())  # built once: every probe reuses it
            self.empty: dict[int, Any] = {}
        elif hasattr(X, "iloc"):
            self.kind = "pandas"
            head = X.iloc[:1]
            self.numeric = [_column(head, k) is not None for k in range(X.shape[1])]
        else:
            self.kind = "array"
            A = np.asarray(X)
            self.width, self.floats = A.shape[1], A.dtype.kind in "biuf"

    def rows(self, j: int, values: np.ndarray) -> Any:
        m = len(values)
        if self.kind == "polars":
            import polars as pl

            # an all-missing frame per length (a few lengths in all), one column replaced:
            # building thousands of null columns for every probe was most of a wide report
            empty = self.empty.get(m)
            if empty is None:
                nulls = [pl.Series(name, [None] * m, dtype=dtype) for name, dtype in self.schema]
                empty = self.empty[m] = pl.DataFrame(nulls)
            name = self.schema[j][0]
            return empty.with_columns(pl.Series(name, values, dtype=pl.Float64))
        if self.kind == "pandas":
            import pandas as pd

            if all(self.numeric):  # one float block: fast to build and to validate
                empty = np.full((m, len(self.numeric)), np.nan)
                frame = pd.DataFrame(empty, columns=self.X.columns)
                frame.iloc[:, j] = values
                return frame
            data = {
                name: pd.Series(values, dtype="float64")
                if k == j
                else pd.Series(np.full(m, np.nan) if self.numeric[k] else [None] * m)
                for k, name in enumerate(self.X.columns)
            }
            return pd.DataFrame(data, columns=self.X.columns)
        missing: Any = np.nan if self.floats else None
        rows = np.full((m, self.width), missing, dtype=np.float64 if self.floats else object)
        rows[:, j] = values
        return rows


def _picture(model: Any, probe: Probe, score: FeatureScore, code: np.ndarray) -> FeatureDensity:
    K, j = len(model.classes_), score.j
    values = _column(probe.X, j)
    assert values is not None
    keep = np.isfinite(values) & (code >= 0)
    v, c = values[keep], code[keep]
    lo, hi = (float(q) for q in np.quantile(v, [0.005, 0.995]))
    if hi <= lo:
        lo, hi = float(v.min()), float(v.max())
    if one_column(score.family) == "density" and v.min() >= 0 and hi > SKEW * np.quantile(v, 0.75):
        # a long right tail (word frequencies, run lengths) would squeeze the bulk of the data
        # into the first pixels: draw on log(1 + x), densities per unit of it (Jacobian 1 + x)
        u = np.linspace(0.0, np.log1p(hi) * 1.04, GRID)
        x = np.expm1(u)
        density = np.exp(log_density(model, probe, j, x)).T * (1.0 + x)
        edges = np.linspace(0.0, u[-1], BINS + 1)
        return FeatureDensity(score, u, density, edges, _hist(np.log1p(v), c, edges, K), "log1p")
    pad = 0.04 * (hi - lo)
    # the grid stays where values can be: a count or a frequency is never negative
    lo, hi = (lo - pad if v.min() < 0 else max(lo - pad, 0.0)), hi + pad
    if one_column(score.family) == "pmf" and _is_integral(v):  # a pmf: scored at the integers only
        lo, hi = max(np.ceil(lo), v.min()), min(np.floor(hi), v.max())
        step = max(1.0, np.ceil((hi - lo) / GRID))
        grid = np.arange(lo, hi + step / 2, step)
    else:
        grid = np.linspace(lo, hi, GRID)
    density = np.exp(log_density(model, probe, j, grid)).T
    edges = np.linspace(lo, hi, BINS + 1)
    if _is_integral(v) and hi - lo <= 2 * BINS:  # counts: one bin per integer
        edges = np.arange(np.ceil(lo) - 0.5, np.floor(hi) + 1.0)
    return FeatureDensity(score, grid, density, edges, _hist(v, c, edges, K))


def _hist(v: np.ndarray, c: np.ndarray, edges: np.ndarray, K: int) -> np.ndarray:
    """Per-class histogram densities (K, B) over ``edges``, each relative to its class's whole
    sample, so a bar's area is the share of the class in it."""
    inside = (v >= edges[0]) & (v <= edges[-1])
    which = np.clip(np.searchsorted(edges, v[inside], side="right") - 1, 0, len(edges) - 2)
    counts = np.zeros((K, len(edges) - 1))
    np.add.at(counts, (c[inside], which), 1.0)
    per_class = np.maximum(np.bincount(c, minlength=K), 1)
    return counts / per_class[:, None] / np.diff(edges)[None, :]


def _codes(classes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Index of each label in ``classes``; -1 for a label the model does not know."""
    order = np.argsort(classes, kind="stable")
    pos = np.clip(np.searchsorted(classes[order], labels), 0, len(classes) - 1)
    found = classes[order][pos] == labels
    return np.where(found, order[pos], -1)


def _name(model: Any, X: Any, j: int) -> str:
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return str(names[j])
    cols = getattr(X, "columns", None)
    return str(list(cols)[j]) if cols is not None else f"x{j}"


def _is_polars(X: Any) -> bool:
    # Asked of the type, not the frame: a polars frame's ``schema`` property builds a new
    # Schema of every column on each access, and this is asked once per column (a report on
    # 3,000 columns spent a minute here).
    kind = type(X)
    return hasattr(kind, "schema") and hasattr(kind, "with_columns")


def _column(X: Any, j: int) -> np.ndarray | None:
    """Column ``j`` as float64 with NaN for missing, or None when it is not numeric (text,
    categories, booleans)."""
    if _is_polars(X):
        series = X.to_series(j)
        if not series.dtype.is_numeric():
            return None
        return np.asarray(series.cast(_polars_float()).to_numpy(), dtype=np.float64)
    if hasattr(X, "iloc"):  # pandas
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        column = X.iloc[:, j]
        if not is_numeric_dtype(column.dtype) or is_bool_dtype(column.dtype):
            return None
        return np.asarray(column.to_numpy(dtype="float64", na_value=np.nan))
    A = np.asarray(X)
    if A.ndim != 2:
        return None
    if A.dtype.kind in "iuf":
        return A[:, j].astype(np.float64)
    try:
        return A[:, j].astype(np.float64)  # object arrays of numbers (NaN for missing)
    except (TypeError, ValueError):
        return None


def _numeric(X: Any, j: int) -> np.ndarray:
    values = _column(X, j)
    assert values is not None, "only numeric columns are passed here"
    return values


def _polars_float() -> Any:
    import polars as pl

    return pl.Float64


def _is_integral(v: np.ndarray) -> bool:
    return bool(np.all(v == np.round(v)))


def _n_rows(X: Any) -> int:
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None else len(X)


def _n_columns(X: Any) -> int | None:
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[1])
    try:
        return int(np.asarray(X).shape[1])
    except (IndexError, ValueError, TypeError):
        return None
