"""The Gaussian-mixture classifier fitted from parts of the data: one reduction per EM
iteration (:mod:`bayeskit.reduction`; run by :func:`bayeskit.dask.fit` on a cluster and by
``bayeskit train --model gmm`` over the batches of a file).

Round 0 — the start. Every part returns its class counts and, for each class, the
one-component statistics of its rows and a bounded sample of them (at most ``init_sample``
rows per class, :class:`ClassRows`). The client then draws every start exactly as the
in-memory fit does (:meth:`GaussianMixtureFamily.starts`: the same ``random_state``, in the
same order, ``n_init`` starts per number of components) from the sample. A class with at most
``init_sample`` rows is sampled whole, in row order, so its starts are the in-memory ones; a
larger class is sampled uniformly by a hash of each row's values (the rows with the smallest
hashes: the same sample whatever the partitioning), and its starts are drawn from the sample.

Rounds 1, 2, … — EM. The state sent to the workers is the current parameters of every run
still going (every class, every number of components "bic" tries, every start); each part
returns, per run, the statistics of its rows of that class under the responsibilities and
their log-likelihood (a :class:`~bayeskit.mixture.Step` each, in one
:class:`~bayeskit.reduction.Each`); the client does the M-step and the convergence test of each
run (:class:`~bayeskit.mixture.EMRun`, the in-memory loop's own), and
sends the next round while any run goes on. Runs that stopped are no longer sent.

Last round (``n_components="bic"`` only) — each candidate's log-likelihood under its final
parameters, for its BIC; the client then chooses as in memory.

The check against GaussianNB (``check_folds``, :mod:`bayeskit.mixture._check`) — the fits
without each fold's rows, side by side (:func:`bayeskit._rounds.together`: one pass serves a
round of every fold's fit), the folds drawn on the workers from each row's hash and the
per-class fold ends the client computed from round 0's hashes; then one round for each class's
moments without each fold, and one for the held-out rows' Brier scores.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._labels import class_weights, label_positions
from .._params import clone
from .._rounds import (
    _FITTED,
    Each,
    Round,
    Rounds,
    _commit,
    _fresh,
    _set_schema,
    schema_of,
    together,
)
from .._rounds import Part as Total
from ..errors import BayeskitError, DataError, MergeError, ParameterError
from ..stats import MixtureStats, Moments, Summary
from ..stats._base import hard_labels
from ._check import (
    BrierSums,
    applies,
    brier_exponent,
    brier_sums,
    check_folds,
    class_bounds,
    folds_of,
    ignore_fold_warnings,
    naive_model,
    naive_statistic,
    one_hot,
    row_keys,
    seed_of,
)
from ._class_fit import ClassFit, warn_swamped
from ._components import ComponentStats
from ._em import EMRun, Part, check_em_settings, e_step, log_likelihoods
from ._family import GaussianMixtureFamily
from ._ridge import relative_ridge

#: Rows per class brought to the client to draw EM's start from (a class with at most this
#: many rows starts exactly as in memory).
INIT_SAMPLE = 20_000
#: Most rows per class ``init_sample`` may ask for.
INIT_SAMPLE_LIMIT = 10_000_000


@dataclass(frozen=True)
class ClassRows:
    """One class's rows as round 0 gathers them: the count of rows of positive weight, the
    one-component statistics of all of them (None: no such row), and a sample of at most
    ``limit`` of them in row order (the whole class while it has no more). Adds: parts in
    order give the class's rows in order."""

    X: np.ndarray
    weight: np.ndarray
    keys: np.ndarray
    n_rows: int
    one: ComponentStats | None
    limit: int

    @classmethod
    def of(
        cls, X: np.ndarray, w: np.ndarray, one: ComponentStats | None, limit: int, seed: int
    ) -> ClassRows:
        return cls(X, w, row_keys(X, seed), len(w), one, limit)._bounded()

    def _bounded(self) -> ClassRows:
        if len(self.weight) <= self.limit:
            return self
        # The `limit` smallest keys (ties: the earlier row), kept in row order.
        keep = np.sort(np.argsort(self.keys, kind="stable")[: self.limit])
        return ClassRows(
            self.X[keep], self.weight[keep], self.keys[keep], self.n_rows, self.one, self.limit
        )

    def __add__(self, other: object) -> ClassRows:
        if not isinstance(other, ClassRows):
            return NotImplemented
        one = (
            other.one
            if self.one is None
            else self.one
            if other.one is None
            else self.one + other.one
        )
        return ClassRows(
            np.concatenate([self.X, other.X]),
            np.concatenate([self.weight, other.weight]),
            np.concatenate([self.keys, other.keys]),
            self.n_rows + other.n_rows,
            one,
            self.limit,
        )._bounded()


@dataclass(frozen=True)
class Sample:
    """:class:`ClassRows` by class label (a part's labels; parts add in order)."""

    rows: dict[Any, ClassRows]

    def __add__(self, other: object) -> Sample:
        if not isinstance(other, Sample):
            return NotImplemented
        rows = dict(self.rows)
        for label, more in other.rows.items():
            rows[label] = rows[label] + more if label in rows else more
        return Sample(rows)


# ---------------------------------------------------------------------------- on the workers
def _class_rows(
    template: Any, X: Any, y: Any, weight: Any, *, reset: bool, drop: Any = None
) -> Any:
    """(model, validated block, labels, each row's class index in labels, row weights);
    ``drop`` ``(f, seed, bounds, classes)``: only the rows of positive weight outside the
    check's fold ``f`` (:func:`_check.folds_of`)."""
    model = copy.copy(template)
    block = model.prepare(X, reset=reset).blocks[0]
    labels, R = class_weights(y, weight, block.shape[0], part=True)
    if drop is not None:
        f, seed, bounds, classes = drop
        codes, w = hard_labels(R)  # type: ignore[misc]
        where = label_positions(classes, labels)[codes]
        keep = (w > 0) & (folds_of(row_keys(block, seed), where, bounds) != f)
        block, y, w = block[keep], np.asarray(y)[keep], w[keep]
        labels, R = class_weights(y, w, block.shape[0], part=True)
    hard = hard_labels(R)
    assert hard is not None  # one-hot labels times weights
    return model, block, labels, R, hard[0], hard[1]


def first_pass(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """Round 0 on a part: its class counts, and each class's rows (:class:`ClassRows`)."""
    template, limit, seed, drop = state
    model, block, labels, R, codes, w = _class_rows(template, X, y, weight, reset=True, drop=drop)
    family: GaussianMixtureFamily = model.configured_families()[0]
    components = family._components()
    rows: dict[Any, ClassRows] = {}
    for c, label in enumerate(labels.tolist()):
        mine = np.flatnonzero((codes == c) & (w > 0))
        Xc, wc = block[mine], w[mine]
        one = components.summarize(Xc, wc[:, None].copy()) if len(mine) else None
        rows[label] = ClassRows.of(Xc, wc, one, limit, seed)
    counts = np.asarray(R.sum(axis=0), dtype=np.float64).ravel()
    return (Summary(labels, counts, ()), Sample(rows)), schema_of(model)


def _runs_on_part(
    state: Any, X: Any, y: Any, weight: Any, one: Any, *, prepare: bool
) -> tuple[Any, ...]:
    template, classes, tasks, drop = state
    model, block, labels, _, codes, w = _class_rows(template, X, y, weight, reset=False, drop=drop)
    family: GaussianMixtureFamily = model.configured_families()[0]
    components = family._components()
    where = label_positions(classes, labels)[codes]  # each row's class among all the classes
    parts: dict[int, Part | None] = {}
    out = []
    with family._threads():
        for c, params in tasks:
            if c not in parts:
                mine = np.flatnonzero((where == c) & (w > 0))
                Xc, wc = block[mine], w[mine]
                # The EM iterations take the rows prepared as in memory (a diagonal
                # mixture's centred rows), the BIC's likelihoods the rows themselves.
                parts[c] = (
                    Part(components.prepare(Xc, wc) if prepare else Xc, wc) if len(mine) else None
                )
            part = parts[c]
            out.append(None if part is None else one(components, params, part))
    return tuple(out)


def em_steps(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """An EM round on a part: each run's E-step statistics and log-likelihood there."""
    return (Each(_runs_on_part(state, X, y, weight, e_step, prepare=True)),), None


def _log_likelihood(components: Any, params: Any, part: Part) -> np.ndarray:
    return np.array([part.weight @ log_likelihoods(components, params, part.X), part.weight.sum()])


def final_log_likelihoods(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """The BIC round on a part: ``(Σ w ln p(x), Σ w)`` of each candidate's final mixture."""
    sums = _runs_on_part(state, X, y, weight, _log_likelihood, prepare=False)
    return (np.array([np.zeros(2) if s is None else s for s in sums]).reshape(-1, 2),), None


def _rows_by_class(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """A part's rows of positive weight, their class index among all the classes, their
    weights and their check folds."""
    template, classes, seed, bounds = state[:4]
    _, block, labels, _, codes, w = _class_rows(template, X, y, weight, reset=False)
    keep = w > 0
    block, where = block[keep], label_positions(classes, labels)[codes[keep]]
    return block, where, w[keep], folds_of(row_keys(block, seed), where, bounds)


def fold_moments(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """The check's GaussianNB round on a part: each class's moments and weight without each
    fold's rows, and of all of them (``k + 1`` of each)."""
    classes, k = state[1], state[3].shape[1] + 1
    block, where, w, fold = _rows_by_class(state, X, y, weight)
    moments, totals = [], np.zeros((k + 1, len(classes)))
    for f in range(k + 1):
        rows = fold != f  # f = k: every row
        R = one_hot(where[rows], w[rows], len(classes))
        moments.append(Moments.of(block[rows], R))
        totals[f] = R.sum(axis=0)
    return (Each(tuple(moments)), totals), None


def fold_briers(state: Any, X: Any, y: Any, weight: Any) -> Any:
    """The check's scoring round on a part: the Brier sums of its rows, each fold's rows
    scored by the mixtures and the GaussianNB fitted without them."""
    classes, mixtures, naives, exponent = state[1], state[4], state[5], state[6]
    block, where, w, fold = _rows_by_class(state, X, y, weight)
    w = np.ldexp(w, -exponent)
    sums = BrierSums()
    for f in range(len(mixtures)):
        rows = fold == f
        sums += brier_sums(mixtures[f], naives[f], block[rows], where[rows], w[rows], classes)
    return (sums,), None


# ---------------------------------------------------------------------------- on the client
@dataclass
class _Run:
    c: int  # class index
    k: int  # components
    run: EMRun


def check_init_sample(value: Any) -> int:
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer))
        or not 1 <= int(value) <= INIT_SAMPLE_LIMIT
    ):
        raise ParameterError(
            f"init_sample={value!r} is not accepted; use an integer from 1 to "
            f"{INIT_SAMPLE_LIMIT} (rows per class EM's start is drawn from)"
        )
    return int(value)


def mixture_rounds(
    estimator: Any, *, partial: bool, init_sample: int = INIT_SAMPLE, drop: Any = None
) -> Rounds:
    """The rounds that fit a GaussianMixtureClassifier (see the module docstring); ``drop``
    ``(k, f, seed)``: on the rows outside the check's fold ``f`` of ``k`` (a fit of the
    check, :mod:`bayeskit.mixture._check`)."""
    if partial:
        raise MergeError(
            "a GaussianMixtureClassifier cannot add rows to a fitted model (no partial_fit): EM "
            "is not additive within a class; fit it on all the rows (bayeskit.dask.fit)"
        )
    family: GaussianMixtureFamily = estimator.configured_families()[0]
    family.check()  # the settings, before any work
    limit = check_init_sample(init_sample)
    tol, max_iter, _ = check_em_settings(tol=family.tol, max_iter=family.max_iter)
    seed = seed_of(family)
    folds = check_folds(getattr(estimator, "check_folds", None))
    total: Total = yield Round((clone(estimator), limit, seed, drop), first_pass)
    counts, sample = total.values
    trial = _fresh(estimator, _FITTED)
    assert total.schema is not None
    _set_schema(trial, total.schema)
    if not counts.class_count.any():
        raise DataError(
            "every sample_weight is zero; at least one row needs a positive weight to learn from"
        )
    labels = counts.classes
    names = labels.tolist()  # plain Python values, for dicts and messages
    family.check_keys(names)
    template = copy.copy(trial)

    # The starts, drawn as in memory: class by class, candidate by candidate, start by start.
    runs: list[_Run] = []
    plans: dict[int, list[int]] = {}
    chosen_by_bic: set[int] = set()
    models: dict[int, Any] = {}  # each class's EM model (its prior, if any, from its rows)
    # the variance floor from the classes' samples of rows (all of them while a class has at
    # most ``init_sample`` rows: then the in-memory floor)
    # and what reg_covar is relative to, from each class's one-component statistic of all
    # its rows (as in memory)
    kept = [r.X for r in sample.rows.values() if r is not None and r.one is not None]
    ones = [sample.rows.get(label) for label in names]
    scales = family.scales_of([None if r is None or r.one is None else r.one.stats for r in ones])
    floors = family.floor_of(np.vstack(kept), scales) if kept else None
    if scales is None:
        # a column an absolute reg_covar swamps is named as in memory (from the classes'
        # samples of rows)
        warn_swamped(
            *_sample_moments(sample, names, int(trial.n_features_in_)),
            float(family.reg_covar),  # (checked by family.check() above)
            list(trial.feature_names()),
            names,
        )
    for c, label in enumerate(names):
        rows = sample.rows.get(label)
        if rows is None or rows.one is None:
            continue  # no row of positive weight: no components (as in memory)
        candidates, means = family.plan_class(
            label, rows.X, rows.n_rows, float(np.sum(rows.one.weight))
        )
        plans[c] = candidates
        if family.chooses(candidates, means):
            chosen_by_bic.add(c)
        random_state = family._random_state()
        model = models[c] = family.class_model(rows.one, *_of_class(floors, scales, c))
        for k in candidates:
            one = rows.one
            for stats, params in family.starts(
                rows.X, rows.weight, k, means, random_state, label, lambda one=one: one, model
            ):
                run = EMRun(model, params, tol=tol, max_iter=max_iter, stats=stats)
                runs.append(_Run(c, k, run))

    # EM: one round per iteration, for every run still going.
    while active := [r for r in runs if not r.run.done]:
        state = (template, labels, tuple((r.c, r.run.params) for r in active), drop)
        total = yield Round(state, em_steps)
        for r, step in zip(active, total.values[0].values, strict=True):
            assert step is not None  # the class has rows of positive weight in some part
            with family.singular_named(names[r.c], r.k):
                r.run.advance(step)

    fits: dict[int, dict[int, Any]] = {}
    for c, candidates in plans.items():
        fits[c] = {
            k: family.best_start(
                [r.run.result() for r in runs if r.c == c and r.k == k], names[c], models[c]
            )
            for k in candidates
        }
    bic: dict[int, dict[int, float]] = {c: {} for c in plans}
    wanted = [(c, k) for c, candidates in plans.items() if c in chosen_by_bic for k in candidates]
    if wanted:
        state = (template, labels, tuple((c, fits[c][k].params) for c, k in wanted), drop)
        total = yield Round(state, final_log_likelihoods)
        d = int(trial.n_features_in_)
        for (c, k), (log_likelihood, weight) in zip(wanted, total.values[0], strict=True):
            if family.supported(fits[c][k], float(weight), d):
                bic[c][k] = family.bic(float(log_likelihood), float(weight), k, d)

    parts = [MixtureStats.empty(len(labels), family._zero_components(trial.n_features_in_))]
    for c, candidates in plans.items():
        fit: ClassFit = family.choose(
            names[c], candidates, fits[c], bic[c], *_of_class(floors, scales, c)
        )
        parts.append(fit.statistic(c, len(labels)))
    mixture = sum(parts[1:], parts[0])
    if drop is None and applies(family, folds) and len(labels) > 1:
        assert folds is not None
        keys = [sample.rows.get(label) for label in names]
        bounds = np.stack(
            [
                class_bounds(None, 0, folds)
                if rows is None or rows.one is None
                else class_bounds(rows.keys, rows.n_rows, folds)
                for rows in keys
            ]
        )
        mixture = yield from _checked(estimator, template, labels, mixture, limit, bounds)
    trial.fit_summary(Summary(labels, counts.class_count, (mixture,)))
    trial.check_fit()
    return _commit(estimator, trial)


def _of_class(
    floors: np.ndarray | None, scales: np.ndarray | None, c: int
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Class index ``c``'s variance floor and ridge scale (None where there are none)."""
    return (None if floors is None else floors[c], None if scales is None else scales[c])


def _sample_moments(sample: Any, names: list[Any], d: int) -> tuple[np.ndarray, np.ndarray]:
    """Each class's (variance, mean) of every column over its sample of rows (all of them
    while it has at most ``init_sample``; NaN for a class with no row of positive weight)."""
    variance, mean = np.full((len(names), d), np.nan), np.full((len(names), d), np.nan)
    for c, label in enumerate(names):
        rows = sample.rows.get(label)
        if rows is None or rows.one is None:
            continue
        with np.errstate(over="ignore", invalid="ignore"):  # (weights near 1e308)
            moments = Moments.of(rows.X, rows.weight[:, None])
            variance[c], mean[c] = moments.variance[0], moments.mean[0]
    return variance, mean


def _checked(
    estimator: Any,
    template: Any,
    labels: np.ndarray,
    mixture: MixtureStats,
    limit: int,
    bounds: np.ndarray,
) -> Generator[Round, Total, MixtureStats]:
    """The check's rounds (:mod:`bayeskit.mixture._check`, as ``checked`` in memory): the fit
    without each fold's rows, each class's moments without them, the Brier sums of the held-out
    rows; ``mixture`` (BIC's choice) or the GaussianNB of every row."""
    seed = seed_of(estimator.configured_families()[0])
    k = bounds.shape[1] + 1
    settings = clone(estimator)
    settings.set_params(check_folds=None)
    fits = [
        mixture_rounds(
            clone(settings), partial=False, init_sample=limit, drop=(f, seed, bounds, labels)
        )
        for f in range(k)
    ]
    with warnings.catch_warnings():
        ignore_fold_warnings()
        try:
            mixtures = yield from together(fits)  # the folds' fits side by side
        except BayeskitError:
            return mixture  # a fold's fit failed where the whole fit did not: BIC's choice
    total = yield Round((template, labels, seed, bounds), fold_moments)
    moments, totals = total.values[0].values, total.values[1]
    naives = tuple(naive_model(settings, labels, moments[f], totals[f]) for f in range(k))
    exponent = brier_exponent(totals[k])
    state = (template, labels, seed, bounds, tuple(mixtures), naives, exponent)
    total = yield Round(state, fold_briers)
    if total.values[0].keeps_mixtures():
        return mixture
    return naive_statistic(
        moments[k], totals[k], float(estimator.reg_covar), mixture.bic, relative_ridge(estimator)
    )
