"""The statistics of a mixture per class: each class's components, as the statistics the EM
algorithm ended with (the component family's own statistic, one row per component).

EM is not additive within a class — the components of two batches of the same class do not
correspond — so two mixture statistics add only when no class has components on both sides
(classes fitted separately, on different machines, merge exactly). Adding data to a class
that already has components is refused with a :class:`~bayeskit.errors.MergeError` that says
why; so is removing it (``unlearn``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import MergeError, ModelFileError
from ._base import STATISTIC_KINDS, Statistic, Tolerance, overflow_of

#: Largest number of components a model file may declare.
MAX_COMPONENTS = 1_000_000


@dataclass(frozen=True, eq=False)
class MixtureStats(Statistic):
    """Per-class mixture components: their weights, their statistics and how EM ended.

    Parameters
    ----------
    weight : ndarray of shape (n_components,)
        Total responsibility of each component (``Σ_i w_i g_ik``).
    owner : ndarray of int, shape (n_components,)
        Class index of each component, non-decreasing (a class's components are contiguous).
    components : Statistic
        The component family's statistic with the component axis first (:class:`Moments`
        for diagonal and spherical covariances, the scatter statistic for full and tied).
    converged, n_iter, lower_bound : ndarray of shape (n_classes,)
        How each class's EM run ended (lower bound: the mean log-likelihood per row; -inf
        when no EM iteration ran, as in scikit-learn's ``lower_bound_``: ``max_iter=0``,
        which keeps the start, or a class with no row of positive weight).
    bic : ndarray of shape (n_classes, m)
        The BIC of each class's mixture with 1, 2, … m components when the number was
        chosen by BIC (NaN where not tried).
    var_floor : ndarray of shape (n_classes, n_features) or (n_classes, 0)
        The smallest variance each class's components may have in each feature (the
        resolution of the class's values, :func:`bayeskit.mixture.resolution_floor`, where it
        exceeds the class's ``reg_covar`` ridge, 0 where it cannot bind); width 0: no floor
        (models fitted with ``var_floor=None``, and files written before it existed).
    ridge_scale : ndarray of shape (n_classes, n_features) or (n_classes, 0)
        The variance ``reg_covar`` is relative to in each class and feature: the ridge added
        to every variance of a class's components is ``reg_covar · ridge_scale`` (the
        column's variance over the class's rows, :mod:`bayeskit.mixture._ridge`);
        width 0: ``reg_covar`` itself, absolute (models fitted with ``var_floor=None``, as
        scikit-learn's GaussianMixture, and files written before the scale existed, which
        so predict as they were fitted).

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit.stats import Moments
    >>> one = MixtureStats.of_class(
    ...     np.array([2.0, 1.0]), Moments(np.ones((2, 1)), np.array([[0.0], [5.0]]),
    ...     np.zeros((2, 1))), converged=True, n_iter=3, lower_bound=-1.5)
    >>> two = one.embed_classes(np.array([0]), 2) + one.embed_classes(np.array([1]), 2)
    >>> two.owner.tolist(), two.n_classes
    ([0, 0, 1, 1], 2)
    >>> two + two  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayeskit.errors.MergeError: cannot add mixture statistics that both have components of ...
    """

    weight: np.ndarray
    owner: np.ndarray
    components: Statistic
    converged: np.ndarray
    n_iter: np.ndarray
    lower_bound: np.ndarray
    bic: np.ndarray
    var_floor: np.ndarray
    ridge_scale: np.ndarray

    kind = "mixture"
    #: log-likelihoods; a BIC of NaN marks a number of components that was not tried
    signed_arrays = frozenset({"lower_bound", "bic"})
    missing_arrays = frozenset({"bic"})

    @classmethod
    def of_class(
        cls,
        weight: np.ndarray,
        components: Statistic,
        *,
        converged: bool,
        n_iter: int,
        lower_bound: float,
        bic: np.ndarray | None = None,
        var_floor: np.ndarray | None = None,
        ridge_scale: np.ndarray | None = None,
    ) -> MixtureStats:
        """The statistic of one class's mixture (a class axis of length 1)."""
        return cls(
            np.asarray(weight, dtype=np.float64),
            np.zeros(len(weight), dtype=np.int64),
            components,
            np.array([bool(converged)]),
            np.array([int(n_iter)], dtype=np.int64),
            np.array([float(lower_bound)]),
            np.zeros((1, 0)) if bic is None else np.asarray(bic, dtype=np.float64)[None, :],
            _row(var_floor),
            _row(ridge_scale),
        )

    @classmethod
    def empty(cls, n_classes: int, components: Statistic) -> MixtureStats:
        """No components for any of ``n_classes`` classes (``components``: a zero-row
        statistic of the component kind, giving the feature count)."""
        return cls(
            np.zeros(0),
            np.zeros(0, dtype=np.int64),
            components,
            np.zeros(n_classes, dtype=bool),
            np.zeros(n_classes, dtype=np.int64),
            np.full(n_classes, -np.inf),
            np.zeros((n_classes, 0)),
            np.zeros((n_classes, 0)),
            np.zeros((n_classes, 0)),
        )

    # ------------------------------------------------------------------ views
    @property
    def n_classes(self) -> int:
        return int(self.converged.shape[0])

    @property
    def n_features(self) -> int:
        return self.components.n_features

    @property
    def n_components(self) -> np.ndarray:
        """Number of components of each class, (n_classes,)."""
        return np.bincount(self.owner, minlength=self.n_classes)

    @property
    def starts(self) -> np.ndarray:
        """Where each class's components begin, (n_classes + 1,)."""
        return np.concatenate([[0], np.cumsum(self.n_components)])

    @property
    def floors(self) -> np.ndarray:
        """The variance floor of each class, (n_classes, n_features) (zeros where none)."""
        if self.var_floor.shape == (self.n_classes, self.n_features):
            return self.var_floor
        return np.zeros((self.n_classes, self.n_features))

    @property
    def ridge_scales(self) -> np.ndarray | None:
        """The variance ``reg_covar`` is relative to in each class and feature, (n_classes,
        n_features); None: ``reg_covar`` is absolute for every class."""
        if self.ridge_scale.shape[1]:
            return self.ridge_scale
        return None

    def class_components(self, c: int) -> slice:
        """The components of class index ``c``."""
        starts = self.starts
        return slice(int(starts[c]), int(starts[c + 1]))

    # ------------------------------------------------------------------ algebra
    def class_weight_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        # a row's responsibilities add up to its weight: its class's components' weights
        # add up to the class's
        total = np.bincount(self.owner, weights=self.weight, minlength=self.n_classes)
        return total, total

    def weights(self) -> tuple[np.ndarray, ...]:
        return (self.weight, *self.components.weights())

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> MixtureStats:
        weight, *rest = arrays
        return MixtureStats(
            weight,
            self.owner,
            self.components.with_weights(tuple(rest)),
            self.converged,
            self.n_iter,
            self.lower_bound,
            self.bic,
            self.var_floor,
            self.ridge_scale,
        )

    def _add(self, other: MixtureStats) -> MixtureStats:
        if other.n_features != self.n_features or type(other.components) is not type(
            self.components
        ):
            raise MergeError(
                f"cannot add mixtures of {self.components.kind} over {self.n_features} features "
                f"and of {other.components.kind} over {other.n_features} features"
            )
        both = np.flatnonzero((self.n_components > 0) & (other.n_components > 0))
        if len(both):
            raise MergeError(
                "cannot add mixture statistics that both have components of class index "
                f"{int(both[0])}: EM is not additive within a class (the components fitted to "
                "two batches do not correspond). Fit each class's rows together; models whose "
                "classes differ merge exactly, and unlearning rows of a mixture is not possible"
            )
        owner = np.concatenate([self.owner, other.owner])
        order = np.argsort(owner, kind="stable")
        pick = self.components.weights(), other.components.weights()
        stacked = tuple(np.concatenate([a, b])[order] for a, b in zip(*pick, strict=True))
        mine = self.n_components > 0
        width = max(self.bic.shape[1], other.bic.shape[1])
        bic = np.where(mine[:, None], _widen(self.bic, width), _widen(other.bic, width))
        if self.var_floor.shape[1] or other.var_floor.shape[1]:
            floor = np.where(mine[:, None], self.floors, other.floors)
        else:
            floor = np.zeros((self.n_classes, 0))
        if self.ridge_scale.shape[1] or other.ridge_scale.shape[1]:
            # a class without a scale (a file written before it existed) keeps its absolute
            # reg_covar: a scale of 1
            scale = np.where(mine[:, None], _scales(self), _scales(other))
        else:
            scale = np.zeros((self.n_classes, 0))
        return MixtureStats(
            np.concatenate([self.weight, other.weight])[order],
            owner[order],
            self.components.with_weights(stacked),
            np.where(mine, self.converged, other.converged),
            np.where(mine, self.n_iter, other.n_iter),
            np.where(mine, self.lower_bound, other.lower_bound),
            bic,
            floor,
            scale,
        )

    def __neg__(self) -> MixtureStats:
        return MixtureStats(
            -self.weight,
            self.owner,
            -self.components,
            self.converged,
            self.n_iter,
            self.lower_bound,
            self.bic,
            self.var_floor,
            self.ridge_scale,
        )

    def min_weight(self) -> float:
        return float(self.weight.min(initial=0.0))

    def embed_classes(self, index: np.ndarray, n_classes: int) -> MixtureStats:
        def spread(values: np.ndarray, fill: Any) -> np.ndarray:
            out = np.full((n_classes, *values.shape[1:]), fill, dtype=values.dtype)
            out[index] = values
            return out

        return MixtureStats(
            self.weight,
            np.asarray(index, dtype=np.int64)[self.owner],
            self.components,
            spread(self.converged, False),
            spread(self.n_iter, 0),
            spread(self.lower_bound, -np.inf),
            spread(self.bic, np.nan),
            spread(self.var_floor, 0.0),
            spread(self.ridge_scale, 1.0),
        )

    def cleaned(self, keep: np.ndarray, tolerance: Tolerance) -> MixtureStats:
        keep = np.asarray(keep, dtype=np.int64)
        renumber = np.full(self.n_classes, -1, dtype=np.int64)
        renumber[keep] = np.arange(len(keep))
        kept = renumber[self.owner] >= 0
        return MixtureStats(
            self.weight[kept],
            renumber[self.owner[kept]],
            self.components.with_weights(tuple(w[kept] for w in self.components.weights())),
            self.converged[keep],
            self.n_iter[keep],
            self.lower_bound[keep],
            self.bic[keep],
            self.var_floor[keep],
            self.ridge_scale[keep],
        )

    # ------------------------------------------------------------------ checks
    def overflow(self) -> tuple[str, tuple[int, ...], float] | None:
        # The components' statistic judges its own arrays: it knows which are signed.
        bad = self.components.overflow()
        if bad is not None:
            return f"component_{bad[0]}", bad[1], bad[2]
        arrays = self.to_arrays()[0]
        own = {k: v for k, v in arrays.items() if not k.startswith("component_")}
        # A lower bound of -inf is no overflow: no EM iteration ran for that class (max_iter=0
        # keeps the start, a class of zero weight has no components), nothing was summed.
        own["lower_bound"] = np.where(own["lower_bound"] == -np.inf, 0.0, own["lower_bound"])
        return overflow_of(own, self.signed_arrays, self.missing_arrays)

    def invalid(self) -> tuple[str, int, str] | None:
        """The first component statistic no data could give (a component's scatter matrix
        that is not one), reported at its class."""
        bad = self.components.invalid()
        if bad is None:
            return None
        name, k, why = bad
        return f"component_{name}", int(self.owner[k]), f"(component {k}) {why}"

    # ------------------------------------------------------------------ model files
    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        inner, inner_meta = self.components.to_arrays()
        arrays = {
            "weight": self.weight,
            "owner": self.owner,
            "converged": self.converged.astype(np.int64),
            "n_iter": self.n_iter,
            "lower_bound": self.lower_bound,
            "bic": self.bic,
            "var_floor": self.var_floor,
            "ridge_scale": self.ridge_scale,
            **{f"component_{key}": value for key, value in inner.items()},
        }
        return arrays, {"component_kind": self.components.kind, "component_meta": inner_meta}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> MixtureStats:
        kind = meta.get("component_kind")
        inner_cls = STATISTIC_KINDS.get(kind) if isinstance(kind, str) else None
        if (
            inner_cls is None
            or inner_cls is cls
            or not isinstance(meta.get("component_meta"), dict)
        ):
            raise ModelFileError(f"a mixture statistic cannot hold components of kind {kind!r}")
        needed = ("weight", "owner", "converged", "n_iter", "lower_bound", "bic")
        if any(key not in arrays for key in needed):
            raise ModelFileError(f"a mixture statistic needs the arrays {', '.join(needed)}")
        weight = np.asarray(arrays["weight"], dtype=np.float64)
        owner, n_iter, converged = (
            np.asarray(arrays[key]) for key in ("owner", "n_iter", "converged")
        )
        lower = np.asarray(arrays["lower_bound"], dtype=np.float64)
        bic = np.asarray(arrays["bic"], dtype=np.float64)
        # Absent from files written before the floor existed: no floor, as they were fitted.
        floor = np.asarray(arrays.get("var_floor", np.zeros((len(lower), 0))), dtype=np.float64)
        # Absent from files written before it existed: reg_covar absolute, as they were fitted.
        scale = np.asarray(arrays.get("ridge_scale", np.zeros((len(lower), 0))), dtype=np.float64)
        if owner.dtype.kind not in "iu" or n_iter.dtype.kind not in "iu":
            raise ModelFileError("mixture arrays 'owner' and 'n_iter' must hold integers")
        k = converged.shape[0] if converged.ndim == 1 else -1
        if (
            weight.ndim != 1
            or owner.shape != weight.shape
            or len(weight) > MAX_COMPONENTS
            or k < 0
            or n_iter.shape != (k,)
            or lower.shape != (k,)
            or bic.ndim != 2
            or bic.shape[0] != k
            or bic.shape[1] > MAX_COMPONENTS
            or floor.ndim != 2
            or floor.shape[0] != k
            or scale.ndim != 2
            or scale.shape[0] != k
        ):
            raise ModelFileError("mixture arrays have inconsistent shapes")
        if len(owner) and (owner.min() < 0 or owner.max() >= k or (np.diff(owner) < 0).any()):
            raise ModelFileError("mixture 'owner' must hold sorted class indices below n_classes")
        if not np.isfinite(weight).all() or (weight < 0).any() or np.isnan(lower).any():
            raise ModelFileError("mixture weights must be finite and >= 0")
        inner = inner_cls.from_arrays(
            {
                key.removeprefix("component_"): value
                for key, value in arrays.items()
                if key.startswith("component_")
            },
            meta["component_meta"],
        )
        if inner.n_classes != len(weight):
            raise ModelFileError("the mixture's component statistic has the wrong length")
        if floor.shape[1] not in (0, inner.n_features) or not (
            np.isfinite(floor).all() and (floor >= 0).all()
        ):
            raise ModelFileError(
                "mixture 'var_floor' must hold a finite variance >= 0 per class and feature"
            )
        if scale.shape[1] not in (0, inner.n_features) or not (
            np.isfinite(scale).all() and (scale >= 0).all()
        ):
            raise ModelFileError(
                "mixture 'ridge_scale' must hold a finite variance >= 0 per class and feature"
            )
        return cls(
            weight,
            owner.astype(np.int64),
            inner,
            converged.astype(bool),
            n_iter.astype(np.int64),
            lower,
            bic,
            floor,
            scale,
        )


def _row(values: np.ndarray | None) -> np.ndarray:
    """One class's per-feature array as a class axis of length 1 (width 0 for None)."""
    if values is None:
        return np.zeros((1, 0))
    return np.asarray(values, dtype=np.float64)[None, :]


def _scales(stats: MixtureStats) -> np.ndarray:
    """Each class's ridge scale, (n_classes, n_features): 1 (``reg_covar`` absolute) where
    the statistic has none."""
    scales = stats.ridge_scales
    return np.ones((stats.n_classes, stats.n_features)) if scales is None else scales


def _widen(bic: np.ndarray, width: int) -> np.ndarray:
    """A BIC table padded with NaN to ``width`` columns."""
    out = np.full((bic.shape[0], width), np.nan)
    out[:, : bic.shape[1]] = bic
    return out
