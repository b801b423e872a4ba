"""One class's mixture, fitted by EM: the numbers of components to try, EM's starts, the
best of them, BIC and the choice (:class:`ClassFitting`), shared by the fit in one process
(:meth:`~bayeskit.mixture._family.GaussianMixtureFamily.summarize_classes`) and on a cluster
(one reduction per EM iteration, :mod:`._rounds`); and a class's fit (:class:`ClassFit`).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np

from ..errors import BayeskitWarning, DataError, ParameterError, SingularCovarianceError
from ..stats import MixtureStats, Statistic
from ..stats.moments import rounding_variance
from ._components import (
    Components,
    ComponentStats,
    check_reg_param,
    least_support,
    n_parameters,
    zero_variance,
)
from ._em import EMResult, check_em_settings, warn_not_converged
from ._init import initial_responsibilities

#: The words of the component family's singular-covariance message (which counts
#: components as classes) and those of a mixture's.
_COMPONENT_WORDS = (
    ("covariance matrix of class", "covariance matrix of component"),
    ("covariance matrix shared by the classes", "covariance matrix shared by the components"),
    ("within the class", "within the component"),
    ("within every class", "within every component"),
    ("between classes", "between components"),
)


#: The relative margin by which a component's rows must exceed :func:`least_support`.
SUPPORT_ROUNDING = 1e-6


class FewRowsWarning(UserWarning):
    """A class has fewer distinct rows than the components asked for: it gets fewer."""


class SwampedColumnWarning(BayeskitWarning):
    """``reg_covar`` exceeds a column's variance within a class: added to every variance, it
    swamps that column, which then hardly counts (with ``var_floor=None`` ``reg_covar`` is
    absolute, as in scikit-learn's GaussianMixture; the default is relative to each column's
    variance and cannot swamp it)."""


def warn_swamped(
    variance: np.ndarray,
    mean: np.ndarray | None,
    reg_covar: float,
    names: Sequence[str],
    labels: Sequence[Any],
) -> None:
    """Warn (:class:`SwampedColumnWarning`) naming the columns and classes whose within-class
    ``variance`` (n_classes, n_features) is positive but below ``reg_covar``: the added
    ``reg_covar`` more than doubles it, and the column's evidence is lost (on iris with its
    petal columns in units 1e10 times larger, 5-fold accuracy fell from 0.967 to 0.793). A
    column constant in a class (variance 0) is what ``reg_covar`` is for: not warned of, nor
    one whose variance is only the rounding of its ``mean`` (a constant column's centred
    values are then about ``eps · |mean|``: sklearn's estimator checks' 1.2e-32). Only an
    absolute ``reg_covar`` (``var_floor=None``) is checked: the caller asks for it."""
    variance = np.asarray(variance, dtype=np.float64)
    if reg_covar <= 0 or variance.size == 0:
        return
    rounding = 0.0 if mean is None else rounding_variance(mean)
    hit = (variance > rounding) & (variance < reg_covar)
    columns = np.flatnonzero(hit.any(axis=0))
    if not len(columns):
        return
    j = int(columns[0])
    c = int(np.flatnonzero(hit[:, j])[0])
    more = (
        f" and {len(columns) - 1} more column{'s' if len(columns) > 2 else ''}"
        if (len(columns) > 1)
        else ""
    )
    warnings.warn(
        f"reg_covar={reg_covar:g} is larger than the variance of column {names[j]!r} within "
        f"class {labels[c]!r} ({variance[c, j]:.3g}){more}: added to every variance, it swamps "
        "the column, which then hardly counts (with var_floor=None reg_covar is absolute, as in "
        "scikit-learn's GaussianMixture; mclust's prior scales with the data, Fraley & Raftery "
        "2007); keep the default var_floor='resolution' (reg_covar relative to each column's "
        "variance), rescale the column (e.g. to unit variance) or set reg_covar below its "
        "variance",
        SwampedColumnWarning,
        stacklevel=5,
    )


@dataclass(frozen=True)
class ClassFit:
    """One class's chosen mixture and, for "bic", the BIC of k = 1, 2, … components (NaN
    where k was not tried)."""

    stats: ComponentStats
    result: EMResult
    bic: np.ndarray
    floor: np.ndarray | None = None
    scale: np.ndarray | None = None

    def scaled(self, exponent: int) -> ClassFit:
        """The fit with its statistics' weights times ``2**exponent``."""
        if not exponent:
            return self
        inner = self.stats.stats
        mean = getattr(inner, "mean", None)  # a location, not a weight: it stays
        with np.errstate(over="ignore"):  # an overflow is refused by name (_check_statistics)
            arrays = tuple(a if a is mean else np.ldexp(a, exponent) for a in inner.weights())
            stats = ComponentStats(
                np.ldexp(self.stats.weight, exponent), inner.with_weights(arrays)
            )
        return ClassFit(stats, self.result, self.bic, self.floor, self.scale)

    def statistic(self, c: int, n_classes: int) -> MixtureStats:
        """The mixture statistic of class index ``c`` among ``n_classes``."""
        one = MixtureStats.of_class(
            self.stats.weight,
            self.stats.stats,
            converged=self.result.converged,
            n_iter=self.result.n_iter,
            lower_bound=self.result.lower_bound,
            bic=self.bic,
            var_floor=self.floor,
            ridge_scale=self.scale,
        )
        return one.embed_classes(np.array([c]), n_classes)


class ClassFitting(ABC):
    """The pieces of one class's fit under a Gaussian mixture family's settings (see
    :class:`~bayeskit.mixture._family.GaussianMixtureFamily` for them): which numbers of
    components, the starts, the best start, the BIC and the choice."""

    n_components: Any
    covariance_type: str
    max_components: int
    reg_param: float
    prior: str | None
    tol: float
    max_iter: int
    n_init: int
    init_params: str
    means_init: Any

    @abstractmethod
    def _reg_covar(self) -> float:
        """``reg_covar``, checked."""

    @abstractmethod
    def _components(
        self,
        owner: np.ndarray | None = None,
        class_data: Statistic | None = None,
        floor: np.ndarray | None = None,
        scale: np.ndarray | None = None,
    ) -> Components:
        """The EM model of the components (see the family)."""

    def check_keys(self, labels: list[Any]) -> None:
        """Refuse a key of the dict settings (``n_components``, ``means_init``) that can name
        no class of this fit: text where the labels are numbers, or a number where they are
        text (``{"0": ...}`` for the label ``0``, as a dict read from JSON has). Such an entry
        would be ignored without a word. A key of the labels' kind that is no class here is
        kept: models of other classes, fitted with the same settings, merge with this one."""
        if not labels:
            return
        text = isinstance(labels[0], str)
        for name in ("n_components", "means_init"):
            table = getattr(self, name)
            if not isinstance(table, Mapping):
                continue
            for key in table:
                if isinstance(key, str) != text:
                    kind = "text" if text else "numbers"
                    raise ParameterError(
                        f"{name} has the key {key!r}, which names no class: the class labels "
                        f"are {kind} ({', '.join(map(repr, labels[:10]))}"
                        f"{', ...' if len(labels) > 10 else ''}); key the dict by the labels "
                        "themselves"
                    )

    def plan_class(
        self, label: Any, X: np.ndarray, n_rows: int, weight: float | None = None
    ) -> tuple[list[int], np.ndarray | None]:
        """The numbers of components to try for class ``label`` (``n_rows`` rows of total
        weight ``weight``, by default ``n_rows``; ``X``: all of them, or a sample) and its
        ``means_init`` (or None). "bic" tries k > 1 only where k components can each hold
        more than :func:`least_support` of the weight (:meth:`supported`)."""
        n = self.n_components
        if isinstance(n, Mapping):
            if label not in n:
                raise ParameterError(
                    f"n_components has no entry for class {label!r}; give one for every class "
                    f"(it has {sorted(map(repr, n))})"
                )
            n = n[label]
        wanted = int(self.max_components) if isinstance(n, str) else int(n)
        # Counting distinct rows sorts them: only where there may be too few (and only when
        # all the class's rows are at hand).
        whole = X.shape[0] == n_rows
        distinct = _distinct_rows(X) if whole and n_rows < 20 * wanted else n_rows
        if isinstance(n, str):  # "bic"
            least = least_support(str(self.covariance_type), X.shape[1])
            total = float(n_rows if weight is None else weight)
            candidates = [
                k
                for k in range(1, min(int(self.max_components), distinct) + 1)
                if k == 1 or total > k * least
            ]
        else:
            k = int(n)
            if k > distinct:
                warnings.warn(
                    f"class {label!r} has {distinct} distinct rows, fewer than n_components={k}: "
                    f"it gets {distinct} component{'s' if distinct > 1 else ''}",
                    FewRowsWarning,
                    stacklevel=5,
                )
                k = distinct
            candidates = [k]
        means = self._means_init(label, X.shape[1])
        if means is not None and len(candidates) > 1:
            candidates = [len(means)]
        return candidates, means

    def starts(
        self,
        X: np.ndarray,
        w: np.ndarray,
        k: int,
        means: np.ndarray | None,
        random_state: np.random.RandomState,
        label: Any,
        whole: Any,
        model: Components,
    ) -> list[tuple[ComponentStats, Any]]:
        """The ``n_init`` starts (statistics, parameters) of a ``k``-component mixture, drawn
        from ``X`` (the class's rows, or a sample of them) in order from ``random_state``;
        ``whole()``: the one-component statistics of all the class's rows; ``model``: the
        class's EM model (:meth:`class_model`)."""
        _, _, n_init = check_em_settings(tol=self.tol, max_iter=self.max_iter, n_init=self.n_init)
        if means is not None and len(means) != k:
            raise ParameterError(
                f"means_init[{label!r}] has {len(means)} rows; class {label!r} has {k} components"
            )
        out = []
        for _ in range(n_init if k > 1 or means is not None else 1):
            if k == 1 and means is None:
                # One component: every row is its own, there is no start to draw.
                start = whole()
            else:
                rows, R0 = initial_responsibilities(X, w, k, str(self.init_params), random_state)
                start = model.summarize(X[rows], R0)
            if means is not None:
                start = ComponentStats(start.weight, replace(cast(Any, start.stats), mean=means))
            out.append((start, self._finalize_checked(model, start, label)))
        return out

    def _means_init(self, label: Any, d: int) -> np.ndarray | None:
        if self.means_init is None or label not in self.means_init:
            return None
        means = np.asarray(self.means_init[label], dtype=np.float64)
        if means.ndim != 2 or means.shape[1] != d or not np.isfinite(means).all():
            raise ParameterError(
                f"means_init[{label!r}] must be a finite array of shape (n_components, {d}); "
                f"got shape {means.shape}"
            )
        return means

    @contextlib.contextmanager
    def singular_named(self, label: Any, k: int) -> Any:
        """A singular covariance reached by EM, refused naming the class."""
        try:
            yield
        except SingularCovarianceError as exc:
            # the component family counts the mixture's components as its "classes"
            inner = str(exc)
            for theirs, ours in _COMPONENT_WORDS:
                inner = inner.replace(theirs, ours)
            raise SingularCovarianceError(
                f"EM for class {label!r} ({k} component{'s' if k > 1 else ''}) reached a "
                f"singular component covariance ({inner}); set reg_covar > 0 (default 1e-6) or "
                "reg_param > 0, or use fewer components"
            ) from None

    def class_model(
        self,
        whole: ComponentStats | None,
        floor: np.ndarray | None = None,
        scale: np.ndarray | None = None,
    ) -> Components:
        """The EM model of one class; with a prior, the prior is set from the class's own rows
        (``whole``: their one-component statistics, needed only then); ``floor``: the class's
        variance floor (:meth:`floor_of`); ``scale``: what its ``reg_covar`` is relative to
        (:meth:`scales_of`; None: absolute)."""
        if self.prior is None:
            return self._components(floor=floor, scale=scale)
        assert whole is not None
        return self._components(class_data=whole.stats, floor=floor, scale=scale)

    def best_start(self, runs: list[EMResult], label: Any, model: Components) -> EMResult:
        """The run with the largest lower bound (the first of equals; the last where none has
        one, ``max_iter=0``, as scikit-learn's GaussianMixture)."""
        best: EMResult | None = None
        for result in runs:
            self._check_spread(result.stats.stats, label, model)
            if best is None or result.lower_bound > best.lower_bound or best.lower_bound == -np.inf:
                best = result
        assert best is not None
        return best

    def chooses(self, candidates: list[int], means: np.ndarray | None) -> bool:
        """Whether the class's number of components is chosen by BIC (``n_components="bic"``
        without ``means_init``; its BIC table then holds one component at least, even where
        no more are supported)."""
        n = self.n_components
        return (isinstance(n, str) and means is None) or len(candidates) > 1

    def choose(
        self,
        label: Any,
        candidates: list[int],
        fits: dict[int, EMResult],
        bic: dict[int, float],
        floor: np.ndarray | None = None,
        scale: np.ndarray | None = None,
    ) -> ClassFit:
        """The class's mixture: its one candidate, or the one of smallest BIC among those
        ``bic`` holds (the :meth:`supported` fits; one component always is)."""
        table = np.full(max(candidates) if bic else 0, np.nan)
        for k, value in bic.items():
            table[k - 1] = value
        best = int(np.nanargmin(table)) + 1 if bic else candidates[0]
        result = fits[best]
        # max_iter=0 asks for the start itself (scikit-learn's reading too): nothing to warn of
        if not result.converged and result.n_iter > 0:
            warn_not_converged(f"class {label!r} ({best} components)", result.n_iter, self.tol)
        return ClassFit(result.stats, result, table, floor, scale)

    def _finalize_checked(self, model: Components, stats: ComponentStats, label: Any) -> Any:
        self._check_spread(stats.stats, label, model)
        return model.finalize(stats)

    def _check_spread(self, stats: Statistic, label: Any, model: Components) -> None:
        if self._reg_covar() > 0 or check_reg_param(self.reg_param) > 0:
            # Every variance is at least reg_covar, or reg_param (QDA's shrinkage).
            return
        if self.prior is not None:
            # The prior's mode spreads a component of one row like its class: only a
            # feature constant in the whole class leaves it without variance.
            stats = model.regularize(stats)
        k = zero_variance(str(self.covariance_type), stats)
        if k is not None:
            raise DataError(
                f"component {k} of class {label!r} has a covariance with zero variance (it "
                "holds a single row or a constant feature) and reg_covar=reg_param=0; set "
                "reg_covar > 0 (default 1e-6) or reg_param > 0, or use fewer components"
            )

    def supported(self, result: EMResult, weight: float, d: int) -> bool:
        """Whether every component of a fitted mixture holds more of the class's rows (weight
        ``weight``) than :func:`~bayeskit.mixture._components.least_support` (a quarter of
        a component's free parameters).

        "bic" chooses among such fits only, and one component always is one. A component
        with fewer rows sits where the likelihood is unbounded (its variances shrink onto
        its rows) and BIC, a large-sample approximation, rewards it without limit: on about
        ten rows a class in eight columns it chose five components of one or two rows each.
        Figueiredo & Jain's minimum-message-length criterion (IEEE TPAMI 24(3), 2002)
        annihilates such components for the same reason.
        """
        share = np.asarray(result.stats.weight, dtype=np.float64)
        total = float(share.sum())
        if len(share) <= 1 or total <= 0:
            return True
        least = least_support(str(self.covariance_type), d)
        # "more than" by more than rounding: a component on one row, whose other rows'
        # responsibilities are ~1e-10, holds one row, not more
        return bool(np.min(share) / total * weight > least * (1.0 + SUPPORT_ROUNDING))

    def bic(self, log_likelihood: float, weight: float, k: int, d: int) -> float:
        """``−2 ln L + p ln n`` of a ``k``-component mixture over ``d`` features (``n``: the
        weight of the class's rows)."""
        p = n_parameters(str(self.covariance_type), k, d)
        return -2.0 * log_likelihood + p * math.log(max(weight, 1.0))


def _distinct_rows(X: np.ndarray) -> int:
    """Number of distinct rows (NaN counted as a value)."""
    if X.shape[0] <= 1:
        return X.shape[0]
    keys = np.ascontiguousarray(np.where(np.isnan(X), np.inf, X)).view(
        np.dtype((np.void, X.dtype.itemsize * max(X.shape[1], 1)))
    )
    return len(np.unique(keys.ravel()))
