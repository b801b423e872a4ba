"""The check of BIC's mixtures against one Gaussian per class (GaussianNB), by cross-validation
on the training rows.

BIC chooses each class's number of components by how well the mixture describes that class's
rows; a better density of each class is not always a better classifier. On a one-hot table
(R's ``infert``) the components sit on the categories' 0/1 columns and the mixtures classify
13 rows of 248 worse than GaussianNB; on others (``Pima``: a class's young and old women) they
model a real split of the class that does not separate the classes. So, after BIC's choice,
the rows are dealt into ``k`` folds and each fold is scored by the model fitted on the others,
twice: with BIC's mixtures and with GaussianNB. With ``d_i`` GaussianNB's Brier score
``Σ_c (p_c − [y_i = c])²`` minus the mixtures' on held-out row ``i`` (weighted by its sample
weight), the mixtures are kept when

    Σ_i w_i d_i > Z · √(Σ_i w_i² (d_i − m)²),   m = Σ_i w_i d_i / Σ_i w_i

better by ``Z = 2`` standard errors of the paired difference — about a one-sided test at the
2.5 % level, which puts the burden of proof on the model with more parameters; otherwise the
model becomes the GaussianNB of the same rows. The Brier score, a proper scoring rule that is
bounded, rather than the log-loss: one held-out row a mixture gives a probability of 1e-30 does
not decide the comparison (with the log-loss the check dropped mixtures that classify far
better, on the forensic glass table). On R's and UCI's tables the mixtures are kept where they
classify far better (survey, fgl, Aids2, spambase, car), in most folds where they classify
somewhat better (crabs, Titanic), and dropped where they classify worse (infert, Pima,
kyphosis, birthwt); ``benchmarks/gmm_guard.py`` measures it beside the thresholds 0 to 3.

The folds are stratified by a hash of each row's values: within each class the rows are ranked
by the hash and cut into ``k`` runs of near-equal size (equal rows share a fold). They depend
neither on the order of the rows nor on how the data is split into parts, so a fit by rounds
(:mod:`bayeskit.mixture._rounds`, :func:`bayeskit.dask.fit`), which brings each class's hashes
to the client with its sample of rows, makes the same folds, the same fits on them (by the
in-memory fit's own parity) and the same choice. (Folds by the hash modulo ``k``, not
stratified, gave noisier choices: iris lost 2 rows to GaussianNB at 5 folds.)

GaussianNB's variances are ``σ²_cj + ε`` with ``ε = 1e-9 · max_j Var(x_j)`` (scikit-learn's
``var_smoothing``); the mixture's one component keeps them as its variance floor, so its
variance is ``max(σ²_cj + r_cj, σ²_cj + ε)`` with a ridge ``r_cj``. With the default
``var_floor="resolution"`` the ridge is 0 where the class has spread in column j (the variances
are GaussianNB's exactly) and, where the column is constant in the class, ``reg_covar`` times
its variance over every row (:mod:`._ridge`): the same in any units. With ``var_floor=None``
it is ``reg_covar`` itself, GaussianNB's wherever ``ε ≥ reg_covar``. A ridge on the columns
constant in a class keeps them from weighing ~1e9 times their spread elsewhere (on one-hot
tables: mushroom's GaussianNB with it classifies 140 rows of 8124 better than with ε alone,
``benchmarks/gmm_guard.py``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._base import PreparedRows
from .._decision import normalize_log
from .._labels import label_positions
from .._params import clone
from ..errors import BayeskitError, ConvergenceWarning, ParameterError
from ..families._base import weight_exponent
from ..families.gaussian import Gaussian
from ..stats import MixtureStats, Moments, Summary
from ..stats.moments import rounding_variance
from ._class_fit import FewRowsWarning, SwampedColumnWarning
from ._em import _bounded_int
from ._ridge import relative_ridge, ridge_scales

#: Standard errors of the paired Brier difference by which the mixtures must be better.
CHECK_Z = 2.0
#: The most folds ``check_folds`` may ask for.
MAX_CHECK_FOLDS = 100

_MASK = (1 << 64) - 1


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer on uint64 values (wrapping arithmetic)."""
    z = z ^ (z >> np.uint64(30))
    z = z * np.uint64(0xBF58476D1CE4E5B9)
    z = z ^ (z >> np.uint64(27))
    z = z * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def row_keys(X: np.ndarray, seed: int) -> np.ndarray:
    """A 64-bit hash of each row's values (and ``seed``): the order of the uniform sample."""
    bits = np.ascontiguousarray(X, dtype=np.float64).view(np.uint64)
    salt = np.array(
        [
            (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019 * (j + 1)) & _MASK
            for j in range(X.shape[1])
        ],
        dtype=np.uint64,
    )
    with np.errstate(over="ignore"):
        return _mix(_mix(bits ^ salt).sum(axis=1, dtype=np.uint64))


def class_bounds(keys: np.ndarray | None, n_rows: int, k: int) -> np.ndarray:
    """The ``k − 1`` keys that end each of a class's folds but the last: with the keys of all
    its ``n_rows`` rows, the rows ranked by key and cut into ``k`` runs of near-equal size
    (stratified folds); without them (a class larger than the rows a fit by rounds brings
    to the client), equal ranges of the 64-bit keys, which the hash fills evenly."""
    if keys is not None and len(keys) == n_rows and n_rows:
        ends = -(-np.arange(1, k) * n_rows // k)  # ⌈i n / k⌉: the first rank of fold i
        return np.sort(keys)[ends - 1]
    return np.arange(1, k, dtype=np.uint64) * np.uint64((1 << 64) // k)


def folds_of(keys: np.ndarray, where: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The fold of rows of keys ``keys`` and class index ``where`` under ``bounds``
    (n_classes, k − 1): how many of their class's fold ends lie below the key."""
    return (bounds[where] < keys[:, None]).sum(axis=1)


def check_folds(value: Any) -> int | None:
    """``check_folds`` validated: None, or an int from 2 to :data:`MAX_CHECK_FOLDS`."""
    if value is None:
        return None
    try:
        return _bounded_int("check_folds", value, 2, MAX_CHECK_FOLDS)
    except ParameterError as exc:
        raise ParameterError(
            f"{exc} (folds of the check against GaussianNB), or None (BIC's choice alone)"
        ) from None


def applies(family: Any, folds: int | None) -> bool:
    """Whether the check runs: ``n_components="bic"`` without ``means_init`` on diagonal
    covariances, with neither a prior nor ``reg_param`` — the settings under which one
    component per class is GaussianNB."""
    return (
        folds is not None
        and isinstance(family.n_components, str)
        and family.means_init is None
        and family.covariance_type == "diag"
        and family.prior is None
        and not float(family.reg_param)
    )


def seed_of(family: Any) -> int:
    state = family.random_state
    return int(state) if isinstance(state, (int, np.integer)) else 0


def one_hot(codes: np.ndarray, w: np.ndarray, n_classes: int) -> np.ndarray:
    """``R`` of rows of class index ``codes`` and weights ``w``, (n_rows, n_classes)."""
    R = np.zeros((len(codes), n_classes))
    R[np.arange(len(codes)), codes] = w
    return R


# ------------------------------------------------------------------------ GaussianNB inside
def naive_statistic(
    moments: Moments, totals: np.ndarray, reg_covar: float, bic: np.ndarray, relative: bool
) -> MixtureStats:
    """One component per class with GaussianNB's variances as its floor (see the module
    docstring): ``moments`` of each class's rows, ``totals`` their weights, ``bic``
    (n_classes, m) the BIC tables of the fit it replaces; ``relative``: whether ``reg_covar``
    is relative to the columns' variances (``var_floor="resolution"``). A class without rows
    gets no component."""
    n_classes = moments.weight.shape[0]
    naive = Gaussian(1e-9).finalize(moments).var
    sigma2 = moments.variance
    scale = None
    if relative:
        own = [
            Moments(moments.weight[c : c + 1], moments.mean[c : c + 1], moments.m2[c : c + 1])
            for c in range(n_classes)
        ]
        # a ridge only where the column is constant in the class: elsewhere the variances
        # are GaussianNB's exactly (its ε is ~1e-9 of the largest variance, the ridge 1e-6 of
        # the column's own, which on a column of large variance would exceed it)
        spread = sigma2 > rounding_variance(moments.mean)
        scale = np.where(spread, 0.0, ridge_scales(own, moments.n_features))
    var = np.maximum(sigma2 + reg_covar * (1.0 if scale is None else scale), naive)
    total = np.asarray(totals, dtype=np.float64)
    share = np.divide(
        moments.weight, total[:, None], out=np.zeros_like(var), where=total[:, None] > 0
    )
    # mean log-likelihood per row: −½ Σ_j (ln 2π v_j + σ²_j / v_j) over each feature's rows
    bound = -0.5 * (share * (np.log(2.0 * np.pi * var) + sigma2 / var)).sum(axis=1)
    parts = [MixtureStats.empty(n_classes, Moments.zero(0, moments.n_features))]
    for c in np.flatnonzero(total > 0):
        one = Moments(moments.weight[c : c + 1], moments.mean[c : c + 1], moments.m2[c : c + 1])
        stats = MixtureStats.of_class(
            total[c : c + 1],
            one,
            converged=True,
            n_iter=1,  # one M-step: the class's own moments
            lower_bound=float(bound[c]),
            bic=bic[c] if bic.shape[1] else None,
            var_floor=naive[c],
            ridge_scale=None if scale is None else scale[c],
        )
        parts.append(stats.embed_classes(np.array([c]), n_classes))
    return sum(parts[1:], parts[0])


def naive_model(template: Any, labels: np.ndarray, moments: Moments, totals: np.ndarray) -> Any:
    """A fitted GaussianMixtureClassifier that is the GaussianNB of ``moments`` (classes
    without rows left out, as a fit on those rows would have none)."""
    counts = np.asarray(totals, dtype=np.float64)
    present = np.flatnonzero(counts > 0)
    kept = Moments(moments.weight[present], moments.mean[present], moments.m2[present])
    stats = naive_statistic(
        kept,
        counts[present],
        float(template.reg_covar),
        np.zeros((len(present), 0)),
        relative_ridge(template),
    )
    return clone(template).fit_summary(Summary(labels[present], counts[present], (stats,)))


# ------------------------------------------------------------------------ the comparison
@dataclass(frozen=True)
class BrierSums:
    """Over held-out rows of weights ``w`` (``d``: GaussianNB's Brier score minus the
    mixtures'): ``Σ w``, ``Σ w d``, ``Σ w²``, ``Σ w² d`` and ``Σ w² d²``; adds."""

    weight: float = 0.0
    gain: float = 0.0
    w2: float = 0.0
    w2d: float = 0.0
    w2d2: float = 0.0

    @classmethod
    def of(cls, d: np.ndarray, w: np.ndarray) -> BrierSums:
        w2 = w * w
        return cls(
            float(w.sum()), float(w @ d), float(w2.sum()), float(w2 @ d), float(w2 @ (d * d))
        )

    def __add__(self, other: object) -> BrierSums:
        if not isinstance(other, BrierSums):
            return NotImplemented
        return BrierSums(
            self.weight + other.weight,
            self.gain + other.gain,
            self.w2 + other.w2,
            self.w2d + other.w2d,
            self.w2d2 + other.w2d2,
        )

    def keeps_mixtures(self) -> bool:
        """Whether the mixtures are better by :data:`CHECK_Z` standard errors: with
        ``m = Σ w d / Σ w``, whether ``Σ w d > Z √(Σ w² (d − m)²)``, the weighted mean's
        standard error times ``Σ w``. Unchanged when every weight is multiplied by the same
        number; with unit weights ``√(Σ (d − m)²) = √(n − 1) · sd(d)``."""
        if self.weight <= 0:
            return True  # nothing held out to judge by: BIC's choice stands
        m = self.gain / self.weight
        spread = max(self.w2d2 - 2.0 * m * self.w2d + m * m * self.w2, 0.0)
        return bool(self.gain > CHECK_Z * np.sqrt(spread))


def brier_exponent(class_count: np.ndarray) -> int:
    """The power of two the held-out weights are divided by before their squares are summed
    (0 for ordinary weights; weights near float64's limits brought to about 1, so ``Σ w²``
    neither overflows nor underflows): from the class totals, which a fit in memory and one
    by rounds both know."""
    return weight_exponent(np.asarray(class_count, dtype=np.float64))


def _probabilities(model: Any, X: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The posterior of each class of ``classes`` for validated rows ``X`` (0 for a class
    the model has no rows of), read from the rows as prepared: a fit on named parts (a
    DataFrame on a cluster) scores the same block as the fit in memory."""
    joint = model.joint_log_proba_rows(PreparedRows([X], X.shape[0]))
    out = np.zeros((X.shape[0], len(classes)))
    out[:, label_positions(classes, model.classes_)] = np.exp(
        normalize_log(joint, model.class_log_prior_)
    )
    return out


def brier_sums(
    mixture: Any, naive: Any, X: np.ndarray, codes: np.ndarray, w: np.ndarray, classes: np.ndarray
) -> BrierSums:
    """The :class:`BrierSums` of rows ``X`` of class index ``codes`` (in ``classes``), weights
    ``w``, held out from both fits."""
    if not len(w):
        return BrierSums()
    truth = one_hot(codes, np.ones(len(codes)), len(classes))
    d = ((_probabilities(naive, X, classes) - truth) ** 2).sum(axis=1)
    d -= ((_probabilities(mixture, X, classes) - truth) ** 2).sum(axis=1)
    return BrierSums.of(d, w)


def ignore_fold_warnings() -> None:
    """Inside ``warnings.catch_warnings()``: the fits on the folds warn as the fit itself
    already did, so their warnings are dropped."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    warnings.simplefilter("ignore", FewRowsWarning)
    warnings.simplefilter("ignore", SwampedColumnWarning)


# ------------------------------------------------------------------------ in memory
def checked(
    estimator: Any,
    stats: MixtureStats,
    X: np.ndarray,
    labels: np.ndarray,
    codes: np.ndarray,
    w: np.ndarray,
    folds: int,
    limit: int,
) -> MixtureStats:
    """``stats`` (BIC's mixtures) or the GaussianNB of the same rows, as the check decides
    (rows ``X`` of class index ``codes`` in ``labels``, weights ``w``; ``limit``: the rows
    per class whose keys a fit by rounds brings to the client)."""
    keep = w > 0
    X, codes, w = X[keep], codes[keep], w[keep]
    if len(labels) < 2:
        return stats  # one class: nothing to classify, the mixture is the model
    keys = row_keys(X, seed_of(estimator))
    sizes = np.bincount(codes, minlength=len(labels))
    bounds = np.stack(
        [
            class_bounds(keys[codes == c] if sizes[c] <= limit else None, int(sizes[c]), folds)
            for c in range(len(labels))
        ]
    )
    fold = folds_of(keys, codes, bounds)
    template = clone(estimator)
    template.set_params(check_folds=None)
    if any(not (fold != f).any() for f in range(folds)):
        return stats  # a fold holds every row: nothing to fit the check on
    sums = BrierSums()
    n_classes = len(labels)
    exponent = brier_exponent(np.bincount(codes, weights=w, minlength=n_classes))
    with warnings.catch_warnings():
        ignore_fold_warnings()
        try:
            for f in range(folds):
                train, test = fold != f, fold == f
                R = one_hot(codes[train], w[train], n_classes)
                mixture = clone(template).fit(
                    X[train], labels[codes[train]], sample_weight=w[train]
                )
                naive = naive_model(template, labels, Moments.of(X[train], R), R.sum(axis=0))
                scaled = np.ldexp(w[test], -exponent)
                sums += brier_sums(mixture, naive, X[test], codes[test], scaled, labels)
        except BayeskitError:
            return stats  # a fold's fit failed where the whole fit did not: BIC's choice stands
    if sums.keeps_mixtures():
        return stats
    R = one_hot(codes, w, n_classes)
    return naive_statistic(
        Moments.of(X, R),
        R.sum(axis=0),
        float(estimator.reg_covar),
        stats.bic,
        relative_ridge(estimator),
    )
