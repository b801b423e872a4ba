"""The Gaussian-mixture family: each class's density is a mixture of Gaussians fitted by EM
(Vorontsov's lectures on EM).

``p(x | y) = Σ_k w_yk N(x; μ_yk, Σ_yk)``. ``summarize`` runs EM on each class's rows (the one
engine, :mod:`._em`, on the component family's own statistics) and returns the components'
statistics (:class:`~bayeskit.stats.MixtureStats`); ``finalize`` turns them into parameters
(the covariance structure and ``reg_covar`` applied there, :mod:`._components`);
``log_prob`` is ``ln Σ_k exp(ln w_yk + ln N(x; μ_yk, Σ_yk))`` by log-sum-exp over each class's
components, computed for all components of all classes in one call of the component family.

The pieces of one class's fit (the numbers of components to try, EM's starts, the best of
them, BIC and the choice), which the fit on a cluster shares, are :mod:`._class_fit`'s.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any, ClassVar

import numpy as np

from .._lazy import sparse as sp
from .._threads import one_blas_thread
from .._validation import as_real, check_random_state
from .._values import one_of
from ..errors import DataError, ParameterError, SingularCovarianceError
from ..families import Family
from ..families._base import hard_labels, real_block, weight_exponent
from ..stats import MixtureStats, Moments, Scatter, Statistic
from ._class_fit import ClassFit, ClassFitting
from ._components import (
    ComponentParams,
    Components,
    DiagonalComponents,
    check_covariance_type,
    check_prior,
    check_reg_param,
    component_family,
    conjugate_log_prior,
    finalize_size,
    regularizer,
)
from ._em import (
    EMResult,
    Part,
    check_em_settings,
    log_likelihoods,
    run_em,
)
from ._init import check_init_params
from ._resolution import binding_floor, check_var_floor
from ._ridge import relative_ridge, ridge_scales

#: Most components one class may have (the bound a model file cannot lift).
MAX_COMPONENTS = 10_000


#: a variance of values up to 1e150 in magnitude (larger ones are refused as data): more
#: would overflow the mixtures' determinants and BIC
_LARGEST_REG_COVAR = 1e300


@dataclass(frozen=True)
class MixtureParams:
    """Fitted mixtures: the component family's parameters for every component of every
    class (classes' components contiguous), each component's log weight within its class,
    its class index and where each class's components start (n_classes + 1)."""

    # the component family's parameters are checked as its own are (NaN or +inf refused)
    wraps: ClassVar[tuple[str, ...]] = ("components",)

    components: Any
    log_weight: np.ndarray
    owner: np.ndarray
    starts: np.ndarray


class GaussianMixtureFamily(ClassFitting, Family):
    """A Gaussian mixture per class, fitted by EM.

    Parameters: see :class:`~bayeskit.GaussianMixtureClassifier` (``n_components``,
    ``covariance_type``, ``max_components``, ``reg_covar``, ``reg_param``, ``prior``, ``tol``,
    ``max_iter``, ``n_init``, ``init_params``, ``means_init``, ``random_state``,
    ``var_floor``). ``n_components`` and ``means_init`` may be dicts keyed by class label;
    they then need :meth:`summarize_classes`, which is told the labels.
    """

    name = "gaussian_mixture"
    never_zero = True
    column_kind = "real"

    def __init__(
        self,
        n_components: Any = 1,
        *,
        covariance_type: str = "diag",
        max_components: int = 5,
        reg_covar: float = 1e-6,
        reg_param: float = 0.0,
        prior: str | None = None,
        tol: float = 1e-3,
        max_iter: int = 100,
        n_init: int = 1,
        init_params: str = "k-means++",
        means_init: Any = None,
        random_state: Any = None,
        var_floor: str | None = None,
    ):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.max_components = max_components
        self.reg_covar = reg_covar
        self.reg_param = reg_param
        self.prior = prior
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.means_init = means_init
        self.random_state = random_state
        self.var_floor = var_floor

    def config(self) -> dict[str, Any]:
        return {
            "n_components": self.n_components,
            "covariance_type": self.covariance_type,
            "max_components": self.max_components,
            "reg_covar": self.reg_covar,
            "reg_param": self.reg_param,
            "prior": self.prior,
            "tol": self.tol,
            "max_iter": self.max_iter,
            "n_init": self.n_init,
            "init_params": self.init_params,
            "means_init": self.means_init,
            "random_state": self.random_state,
            "var_floor": self.var_floor,
        }

    # ------------------------------------------------------------------ settings
    def check(self) -> None:
        """Refuse settings outside their bounds (before any work; also when a model file is
        read, so no file can ask a later fit for an unbounded EM run)."""
        check_covariance_type(self.covariance_type)
        check_em_settings(tol=self.tol, max_iter=self.max_iter, n_init=self.n_init)
        check_init_params(self.init_params)
        self._reg_covar()
        check_reg_param(self.reg_param)
        check_prior(self.prior)
        check_var_floor(self.var_floor)
        _component_count(self.max_components, "max_components")
        n = self.n_components
        if isinstance(n, Mapping):
            for label, value in n.items():
                _component_count(value, f"n_components[{label!r}]")
        elif not (isinstance(n, str) and n == "bic"):
            _component_count(n, "n_components")
        if self.means_init is not None and not isinstance(self.means_init, Mapping):
            raise ParameterError(
                "means_init must be a dict {class label: array of shape (n_components, "
                f"n_features)}}, not {type(self.means_init).__name__}"
            )
        if self.random_state is not None and not isinstance(
            self.random_state, (Integral, np.random.RandomState)
        ):
            raise ParameterError(
                f"random_state={self.random_state!r} is not accepted; use None, an int or a "
                "numpy RandomState"
            )

    def _reg_covar(self) -> float:
        r = self.reg_covar
        if (
            isinstance(r, bool)
            or not isinstance(r, (int, float, np.number))
            or not (math.isfinite(as_real(r)) and 0 <= r <= _LARGEST_REG_COVAR)
        ):
            raise ParameterError(
                f"reg_covar={r!r} is not accepted; it is added to every variance: use a number "
                f"from 0 to {_LARGEST_REG_COVAR:g}"
            )
        return float(r)

    def _components(
        self,
        owner: np.ndarray | None = None,
        class_data: Statistic | None = None,
        floor: np.ndarray | None = None,
        scale: np.ndarray | None = None,
    ) -> Components:
        """The EM model of the components (grouped into classes by ``owner``); the prior, if
        any, is set from ``class_data`` (the class's own statistic while EM runs on it) or
        else from each class's components merged; ``floor``: the variance floor of each
        feature (one class's) or of each component and feature; ``scale``, shaped as
        ``floor``: what ``reg_covar`` is relative to (None: absolute, :mod:`._ridge`)."""
        cov = check_covariance_type(self.covariance_type)
        reg = self._reg_covar()
        kind = DiagonalComponents if cov in ("diag", "spherical") else Components
        prior = check_prior(self.prior)
        shrink = check_reg_param(self.reg_param)
        # MAP-EM raises the log posterior: the objective it reports adds the prior's log density
        log_prior = (
            conjugate_log_prior(cov, class_data)
            if prior == "conjugate" and class_data is not None
            else None
        )
        return kind(
            # a relative ridge is the regularizer's, for every covariance type
            component_family(cov, reg if scale is None else 0.0),
            regularizer(
                cov, reg, owner, prior, class_data, reg_param=shrink, floor=floor, scale=scale
            ),
            log_prior,
        )

    # ------------------------------------------------------------------ fitting
    def validate(self, X: Any, names: Sequence[str]) -> np.ndarray:
        X = real_block(X, names, "the Gaussian mixture")
        if one_of(self.covariance_type, ("full", "tied")) and np.isnan(X).any():
            row, col = (int(v) for v in np.argwhere(np.isnan(X))[0])
            raise DataError(
                f"X has a missing value (NaN) at row {row}, column {col}; covariance_type="
                f"{self.covariance_type!r} needs complete rows ('diag' and 'spherical' take "
                "missing values)"
            )
        return X

    def summarize(self, X: np.ndarray, R: np.ndarray | sp.spmatrix) -> MixtureStats:
        return self.summarize_classes(X, R, np.arange(R.shape[1]))

    def summarize_classes(
        self, X: np.ndarray, R: np.ndarray | sp.spmatrix, classes: np.ndarray
    ) -> MixtureStats:
        """EM on the rows of each class (column of ``R``); ``classes`` are the labels the
        dict settings are keyed by."""
        self.check()
        n_classes = R.shape[1]
        hard = hard_labels(R)
        dense = None
        if hard is None:
            dense = np.asarray(R.toarray() if sp.issparse(R) else R, dtype=np.float64)  # type: ignore[union-attr]
        labels = np.asarray(classes).tolist()  # plain Python values, for dicts and messages
        self.check_keys(labels)
        parts = [MixtureStats.empty(n_classes, self._zero_components(X.shape[1]))]
        members = []
        for c in range(n_classes):
            if hard is not None:
                rows = np.flatnonzero((hard[0] == c) & (hard[1] > 0))
                w = np.asarray(hard[1][rows], dtype=np.float64)
            else:
                assert dense is not None
                rows = np.flatnonzero(dense[:, c] > 0)
                w = dense[rows, c]
            members.append((rows, w))
        scales = self.scales_of([self.class_statistic(X[rows], w) for rows, w in members])
        # rows of zero weight are not data (sample_weight=0 is removing the row)
        floors = self.floor_of(X, scales, lambda: np.asarray(R.sum(axis=1)).ravel() > 0)
        for c, (rows, w) in enumerate(members):
            if len(rows) == 0:
                continue
            with self._threads():
                fit = self._fit_class(
                    X[rows],
                    w,
                    labels[c],
                    self._random_state(),
                    None if floors is None else floors[c],
                    None if scales is None else scales[c],
                )
            parts.append(fit.statistic(c, n_classes))
        return sum(parts[1:], parts[0])

    def _threads(self) -> Any:
        """BLAS limited to one thread while EM runs on diagonal covariances (see
        :mod:`bayeskit._threads`); full and tied covariances keep BLAS's threads for their
        d × d scatter updates."""
        if self.covariance_type in ("diag", "spherical"):
            return one_blas_thread()
        return contextlib.nullcontext()

    def _random_state(self) -> np.random.RandomState:
        # An int gives each class a fresh generator with that seed: each class's mixture is
        # then scikit-learn's GaussianMixture(random_state=seed) on that class, whatever the
        # other classes are (so classes fitted apart merge into the same model).
        return check_random_state(self.random_state)

    def _zero_components(self, d: int) -> Statistic:
        diagonal = check_covariance_type(self.covariance_type) in ("diag", "spherical")
        return (Moments if diagonal else Scatter).zero(0, d)

    def _fit_class(
        self,
        X: np.ndarray,
        w: np.ndarray,
        label: Any,
        random_state: np.random.RandomState,
        floor: np.ndarray | None = None,
        scale: np.ndarray | None = None,
    ) -> ClassFit:
        with np.errstate(over="ignore"):  # a total beyond float64 is refused by name later
            weight = float(w.sum())
        candidates, means = self.plan_class(label, X, X.shape[0], weight)
        tol, max_iter, _ = check_em_settings(
            tol=self.tol, max_iter=self.max_iter, n_init=self.n_init
        )
        # EM without a prior is the same for weights c·w as for w: weights near float64's
        # limits are scaled by a power of two (exactly) so that its sums neither overflow nor
        # lose digits to underflow, and its statistics scaled back. A prior counts rows in
        # the weights' own units, so it keeps them.
        exponent = 0 if self.prior is not None else weight_exponent(w)
        w = np.ldexp(w, -exponent)
        whole = functools.cache(lambda: self._components().summarize(X, w[:, None].copy()))
        model = self.class_model(whole() if self.prior is not None else None, floor, scale)
        parts = [Part(model.prepare(X, w), w)]
        fits: dict[int, EMResult] = {}
        for k in candidates:
            runs = []
            for stats, params in self.starts(X, w, k, means, random_state, label, whole, model):
                with self.singular_named(label, k):
                    result = run_em(model, parts, params, tol=tol, max_iter=max_iter, stats=stats)
                runs.append(result)
            fits[k] = self.best_start(runs, label, model)
        bic = {}
        if self.chooses(candidates, means):
            for k, result in fits.items():
                log_likelihood = float(w @ log_likelihoods(model, result.params, X))
                with np.errstate(over="ignore"):  # an infinite BIC is refused by name
                    log_likelihood = float(np.ldexp(log_likelihood, exponent))
                    total = float(np.ldexp(w.sum(), exponent))
                if self.supported(result, total, X.shape[1]):
                    bic[k] = self.bic(log_likelihood, total, k, X.shape[1])
        return self.choose(label, candidates, fits, bic, floor, scale).scaled(exponent)

    def class_statistic(self, X: np.ndarray, w: np.ndarray) -> Statistic | None:
        """The one-component statistic of a class's rows ``X`` (weights ``w``, brought near 1
        by a power of two: the variances are the same), None without rows: what
        :meth:`scales_of` reads (a fit by rounds gathers it in its first round)."""
        if not len(w):
            return None
        w = np.ldexp(w, -weight_exponent(w))
        return self._components().summarize(X, w[:, None].copy()).stats

    def scales_of(self, classes: Sequence[Statistic | None]) -> np.ndarray | None:
        """What ``reg_covar`` is relative to in each class and feature (:mod:`._ridge`), from
        each class's one-component statistic (None: a class without rows); None where it is
        absolute (``var_floor=None``, scikit-learn's GaussianMixture)."""
        if not relative_ridge(self):
            return None
        d = next((s.n_features for s in classes if s is not None), 0)
        return ridge_scales(classes, d)

    def floor_of(
        self,
        X: np.ndarray,
        scales: np.ndarray | None,
        data: Callable[[], np.ndarray] | None = None,
    ) -> np.ndarray | None:
        """The variance floor of each class and feature given the training rows ``X`` (of
        every class: a column constant in one class is still as coarse there as elsewhere;
        ``data()``: which of them are data, asked only for a floor) and the classes'
        :meth:`scales_of`: the resolution floor where it exceeds the class's ridge
        ``reg_covar · scale`` (below it, it never binds), else 0; None for
        ``var_floor=None``."""
        if not relative_ridge(self) or scales is None:
            return None
        if data is not None:
            keep = data()
            if not keep.all():  # else every row, without a copy of X
                X = X[keep]
        ridge = float(self.reg_covar) * scales
        present = np.isfinite(ridge).all(axis=1)
        if not present.any():
            return np.zeros_like(ridge)
        floor = binding_floor(X, ridge[present].min(axis=0))
        with np.errstate(invalid="ignore"):
            return np.where(floor > ridge, floor, 0.0)

    def check_statistic(self, stats: Statistic) -> str | None:
        """Mixture statistics whose components are of the kind ``covariance_type`` keeps
        (moments for "diag" and "spherical", scatter matrices for "full" and "tied")."""
        wrong = super().check_statistic(stats)
        if wrong is not None or not isinstance(stats, MixtureStats):
            return wrong
        expected = type(self._zero_components(stats.n_features))
        if not isinstance(stats.components, expected):
            return (
                f"covariance_type={self.covariance_type!r} keeps components as "
                f"{expected.__name__} statistics, but the file's are "
                f"{type(stats.components).__name__} ({stats.components.kind!r})"
            )
        return None

    # ------------------------------------------------------------------ parameters
    def parameter_size(self, stats: MixtureStats) -> int:
        cov = check_covariance_type(self.covariance_type)
        return finalize_size(cov, len(stats.weight), stats.n_features)

    def finalize(self, stats: MixtureStats) -> MixtureParams:
        self.check()
        floors = stats.floors[stats.owner] if stats.var_floor.shape[1] else None
        # the stored scale (absent: reg_covar absolute, as files written before it)
        scales = stats.ridge_scales
        model = self._components(
            stats.owner, floor=floors, scale=None if scales is None else scales[stats.owner]
        )
        total = np.bincount(stats.owner, weights=stats.weight, minlength=stats.n_classes)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_weight = np.log(stats.weight) - np.log(total[stats.owner])
        if len(stats.weight):
            self._check_spread(stats.components, "index " + str(int(stats.owner[0])), model)
            params = model.family.finalize(model.regularize(stats.components))
        else:
            params = None
        return MixtureParams(params, log_weight, stats.owner, stats.starts)

    def check_usable(self, params: MixtureParams, classes: np.ndarray, names: Any) -> None:
        """Refuse a singular component covariance (only possible with ``reg_covar=0``),
        naming the class and the component."""
        singular = getattr(params.components, "singular", ())
        if singular and singular[0].klass is not None:
            k = int(singular[0].klass)
            owner = int(params.owner[k])
            label = (
                classes[owner].item() if isinstance(classes[owner], np.generic) else classes[owner]
            )
            raise SingularCovarianceError(
                f"component {k - int(params.starts[owner])} of class {label!r} has a singular "
                "covariance matrix (too few rows for its features, or collinear columns); set "
                "reg_covar > 0 (default 1e-6) or reg_param > 0, or use fewer components"
            )

    def log_prob(self, params: MixtureParams, X: np.ndarray) -> np.ndarray:
        n_classes = len(params.starts) - 1
        out = np.full((X.shape[0], n_classes), -np.inf)
        if params.components is None:
            return out
        model = self._components()
        L = model.log_joint(ComponentParams(params.components, params.log_weight), X)
        return class_log_sum(L, params.starts, out)

    def component_log_prob(self, params: MixtureParams, X: np.ndarray) -> np.ndarray:
        """``ln w_yk + ln N(x; μ_yk, Σ_yk)`` of each row and component, (n, n_components)."""
        if params.components is None:
            return np.zeros((X.shape[0], 0))
        model = self._components()
        return model.log_joint(ComponentParams(params.components, params.log_weight), X)


def class_log_sum(L: np.ndarray, starts: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[:, c] = ln Σ_{k in class c} exp(L[:, k])`` for classes with components (the
    columns of ``L`` grouped by ``starts``); other columns of ``out`` are left as they are."""
    sizes = np.diff(starts)
    live = np.flatnonzero(sizes > 0)
    if not len(live):
        return out
    first = starts[live]
    top = np.maximum.reduceat(L, first, axis=1)
    finite_top = np.where(np.isfinite(top), top, 0.0)
    spread = np.repeat(finite_top, sizes[live], axis=1)
    with np.errstate(divide="ignore"):
        total = np.add.reduceat(np.exp(L - spread), first, axis=1)
        out[:, live] = finite_top + np.log(total)
    return out


def _component_count(value: Any, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Integral):
        raise ParameterError(
            f"{name}={value!r} is not accepted; use an integer from 1 to {MAX_COMPONENTS}"
            + (" or 'bic'" if name == "n_components" else "")
        )
    if not 1 <= int(value) <= MAX_COMPONENTS:
        raise ParameterError(
            f"{name}={value!r} is not accepted; use an integer from 1 to {MAX_COMPONENTS}"
            + (" or 'bic'" if name == "n_components" else "")
        )
    return int(value)
