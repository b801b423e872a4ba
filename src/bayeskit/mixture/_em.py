"""The one EM engine: the Gaussian-mixture classifier and semi-supervised Naive Bayes both
run it (Vorontsov's E-step ``g_yij`` and M-step, DESIGN.md "EM = summarize with
responsibilities").

A model that EM can fit is anything with three operations (:class:`EMModel`):

``log_joint(params, X) -> (n, k)``
    ``ln π_k + ln p(x | k)`` of each row and component;
``summarize(X, R) -> statistic``
    the sufficient statistics of ``X`` under soft weights ``R`` (n × k), values that add;
``finalize(statistic) -> params``
    the parameters (mixing weights included) the statistics give.

One iteration is then

* **E-step**: responsibilities ``g_ik = exp(ln π_k + ln p(x_i|k) − ln Σ_k' …)`` by
  log-sum-exp, times the row's weight (sample weight, or λ for unlabelled rows);
* **M-step**: ``finalize(Σ_parts summarize(X_part, R_part))``.

:func:`e_step` is the whole of the per-part work: its result (:class:`Step`: the statistics
plus the part's log-likelihood and weight) adds, so the data may be split into parts that
live anywhere — a list in memory, blocks of a file, partitions on a cluster — and one
iteration costs one map over the parts and one reduce (``sum``). :func:`iterate` takes the
``mapper`` that does the map (the built-in ``map`` by default; a distributed runner passes
its own).

Convergence (as scikit-learn's GaussianMixture): the lower bound of an iteration is the
weighted mean log-likelihood per row under the parameters the E-step used; EM stops when it
changes by less than ``tol``, or after ``max_iter`` iterations with a
:class:`~bayeskit.errors.ConvergenceWarning` (also scikit-learn's) from the caller
(:func:`warn_not_converged`).
Rows can be restricted to some components (``Part.allowed``: a labelled row of
semi-supervised learning belongs to its class's components only).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .._jit import njit
from .._validation import as_real
from ..errors import DataError, ParameterError, convergence_warning

__all__ = [
    "EMModel",
    "EMResult",
    "EMRun",
    "Part",
    "Step",
    "check_em_settings",
    "e_step",
    "iterate",
    "log_likelihoods",
    "run_em",
    "warn_not_converged",
]

_NO_MASK = np.zeros((0, 0), dtype=np.bool_)

#: Bounds on the EM settings, checked before any work (and by model files: a file cannot ask
#: a later ``fit`` for an unbounded run).
MAX_ITER_LIMIT = 100_000
N_INIT_LIMIT = 1_000


class EMModel(Protocol):
    """What EM needs from a model (see the module docstring). ``log_prior``: the log density
    of a prior on the parameters (None: maximum likelihood), which MAP-EM's bound adds."""

    @property
    def log_prior(self) -> Callable[[Any], float] | None: ...

    def log_joint(self, params: Any, X: Any) -> np.ndarray: ...

    def summarize(self, X: Any, R: np.ndarray) -> Any: ...

    def finalize(self, stats: Any) -> Any: ...


@dataclass(frozen=True)
class Part:
    """A block of rows: the model's input ``X``, each row's weight, and optionally which
    components each row may belong to.

    Attributes
    ----------
    X : the model's input for these rows
    weight : ndarray of shape (n_rows,)
        Non-negative row weights (sample weights; ``λ`` times them for unlabelled rows).
    allowed : ndarray of bool, shape (n_rows, n_components), optional
        ``allowed[i, k]``: row i may belong to component k (None: every component).
    """

    X: Any
    weight: np.ndarray
    allowed: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return int(self.weight.shape[0])


@dataclass(frozen=True)
class Step:
    """One part's share of an EM iteration: the statistics of its rows under the
    responsibilities, its weighted log-likelihood ``Σ_i w_i ln p(x_i)`` and its weight
    ``Σ_i w_i``. Steps of different parts add (``sum(steps)``)."""

    stats: Any
    log_likelihood: float
    weight: float

    def __add__(self, other: object) -> Step:
        if not isinstance(other, Step):
            return NotImplemented
        return Step(
            self.stats + other.stats,
            self.log_likelihood + other.log_likelihood,
            self.weight + other.weight,
        )

    def __radd__(self, other: object) -> Step:
        if isinstance(other, int) and other == 0:
            return self
        return NotImplemented


@njit(nogil=True)
def _responsibilities(
    L: np.ndarray, allowed: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, float]:  # pragma: no cover
    """In place on L (n, k): each row's responsibilities ``exp(L − lse)`` (over the
    components the row may belong to, ``allowed``: empty for all) times its weight. Returns
    the flags of the rows no component explains (every term −∞: given equal shares of what
    they may belong to, left out of the likelihood) and ``Σ_i w_i lse_i`` over the others."""
    n, k = L.shape
    restricted = allowed.shape[0] > 0
    dead = np.zeros(n, dtype=np.bool_)
    total_ll = 0.0
    for i in range(n):
        top = -math.inf
        for c in range(k):
            if restricted and not allowed[i, c]:
                L[i, c] = -math.inf
            elif L[i, c] > top:
                top = L[i, c]
        if top == -math.inf:
            dead[i] = True
            count = 0.0
            for c in range(k):
                ok = (not restricted) or allowed[i, c]
                L[i, c] = 1.0 if ok else 0.0
                count += L[i, c]
            for c in range(k):
                L[i, c] *= w[i] / count
            continue
        total = 0.0
        for c in range(k):
            # exp of a difference below −700 is under 1e-304 (0 beside the largest term,
            # which is 1): set it so, rather than take libm's slow path to a denormal.
            x = L[i, c] - top
            e = math.exp(x) if x > -700.0 else 0.0
            L[i, c] = e
            total += e
        scale = w[i] / total
        for c in range(k):
            L[i, c] *= scale
        if w[i] > 0:
            total_ll += w[i] * (top + math.log(total))
    return dead, total_ll


def e_step(model: EMModel, params: Any, part: Part) -> Step:
    """The E-step on one part and the statistics of its rows under the responsibilities."""
    L = np.array(model.log_joint(params, part.X), dtype=np.float64, order="C")
    allowed = _NO_MASK if part.allowed is None else np.ascontiguousarray(part.allowed)
    w = np.ascontiguousarray(part.weight, dtype=np.float64)
    # A row no component can explain (possible only with unsmoothed estimates) is left out of
    # the likelihood rather than making it −∞ for good; its statistics use equal shares of
    # the components it may belong to.
    _, log_likelihood = _responsibilities(L, allowed, w)
    with np.errstate(over="ignore"):  # weights too large to sum: refused by EMRun.advance
        weight = float(w.sum())
    return Step(model.summarize(part.X, L), float(log_likelihood), weight)


def log_likelihoods(model: EMModel, params: Any, X: Any) -> np.ndarray:
    """``ln p(x_i) = ln Σ_k exp(ln π_k + ln p(x_i | k))`` of each row."""
    L = np.array(model.log_joint(params, X), dtype=np.float64)
    top = L.max(axis=1, keepdims=True)
    finite = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return finite[:, 0] + np.log(np.exp(L - finite).sum(axis=1))


Mapper = Callable[[Callable[[Part], Step], Iterable[Part]], Iterable[Step]]


def iterate(model: EMModel, params: Any, parts: Sequence[Part], mapper: Mapper = map) -> Step:
    """One EM iteration's reduce: ``Σ_parts e_step(part)``. ``finalize`` of its ``stats`` is
    the M-step; its ``log_likelihood / weight`` the lower bound of ``params``."""

    def one(part: Part) -> Step:
        return e_step(model, params, part)

    steps = list(mapper(one, parts))
    if not steps:
        raise ParameterError("EM needs at least one part of data")
    return sum(steps[1:], steps[0])


@dataclass
class EMResult:
    """What one EM run ended with."""

    params: Any
    stats: Any
    converged: bool
    n_iter: int
    lower_bound: float
    lower_bounds: list[float] = field(default_factory=list)


class EMRun:
    """One EM run as a state machine, for a caller that computes each iteration's reduce
    itself (:func:`run_em` in memory; a cluster runs one reduction per iteration): the
    ``params`` to send for the next E-step, and :meth:`advance` with the iteration's total.

    ``max_iter=0`` is done at once, with the starting ``params`` and ``stats``.
    """

    def __init__(self, model: EMModel, params: Any, *, tol: float, max_iter: int, stats: Any):
        self.model, self.params, self.stats = model, params, stats
        self.tol, self.max_iter = tol, max_iter
        self.lower = -math.inf
        self.bounds: list[float] = []
        self.converged = False
        self.n_iter = 0

    @property
    def done(self) -> bool:
        return self.converged or self.n_iter >= self.max_iter

    def advance(self, total: Step) -> None:
        """The M-step of one iteration (``total``: ``Σ_parts e_step`` under ``params``) and
        the convergence test on the lower bound of ``params``."""
        if not math.isfinite(total.weight):  # every weight finite, their sum not
            raise DataError(
                "the total sample weight overflows float64 (the rows' weights, which every EM "
                f"round sums, add up past {np.finfo(np.float64).max:.4g}): the sample weights "
                "are too large; scale them down"
            )
        self.n_iter += 1
        # MAP-EM (a model with a prior on its parameters, ``log_prior``) raises the log
        # posterior, not the log-likelihood (Dempster, Laird & Rubin 1977, §3): the bound is
        # then the log-likelihood plus the prior's log density of the same parameters
        log_prior = self.model.log_prior
        penalty = 0.0 if log_prior is None else float(log_prior(self.params))
        self.stats = total.stats
        self.params = self.model.finalize(total.stats)
        previous = self.lower
        objective = total.log_likelihood + penalty
        self.lower = objective / total.weight if total.weight > 0 else 0.0
        self.bounds.append(self.lower)
        self.converged = abs(self.lower - previous) < self.tol

    def result(self) -> EMResult:
        return EMResult(
            self.params, self.stats, self.converged, self.n_iter, self.lower, self.bounds
        )


def run_em(
    model: EMModel,
    parts: Sequence[Part],
    params: Any,
    *,
    tol: float,
    max_iter: int,
    mapper: Mapper = map,
    stats: Any = None,
) -> EMResult:
    """EM from ``params`` until the lower bound changes by less than ``tol``.

    Returns the parameters after the last M-step, the statistics they were finalized from,
    whether it converged, the number of iterations and the lower bounds (the weighted mean
    log-likelihood per row under each iteration's starting parameters). ``max_iter=0``
    returns ``params`` (and ``stats``) unchanged.
    """
    run = EMRun(model, params, tol=tol, max_iter=max_iter, stats=stats)
    while not run.done:
        run.advance(iterate(model, run.params, parts, mapper))
    return run.result()


def check_em_settings(*, tol: Any, max_iter: Any, n_init: Any = 1) -> tuple[float, int, int]:
    """``tol`` (a finite number >= 0), ``max_iter`` (an int in [0, 100000]) and ``n_init``
    (an int in [1, 1000]), else ParameterError naming the setting."""
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.number)):
        raise ParameterError(f"tol={tol!r} is not accepted; use a finite number >= 0")
    tol_value = as_real(tol)
    if not math.isfinite(tol_value) or tol_value < 0:
        raise ParameterError(f"tol={tol!r} is not accepted; use a finite number >= 0")
    return (
        tol_value,
        _bounded_int("max_iter", max_iter, 0, MAX_ITER_LIMIT),
        _bounded_int("n_init", n_init, 1, N_INIT_LIMIT),
    )


def _bounded_int(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ParameterError(f"{name}={value!r} is not accepted; use an integer in [{low}, {high}]")
    if not low <= int(value) <= high:
        raise ParameterError(f"{name}={value!r} is not accepted; use an integer in [{low}, {high}]")
    return int(value)


def warn_not_converged(what: str, n_iter: int, tol: float) -> None:
    """The warning EM gives when ``max_iter`` ran out before the lower bound settled."""
    warnings.warn(
        convergence_warning(
            f"EM did not converge for {what} in {n_iter} iterations (lower bound still "
            f"changing by >= tol={tol:g}); increase max_iter or tol, or check for degenerate "
            "data"
        ),
        stacklevel=3,
    )
