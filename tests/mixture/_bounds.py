"""The bound each EM run reports, iteration by iteration, for the laws that it never falls."""

from __future__ import annotations

import warnings
from unittest import mock

import numpy as np

import bayeskit as bk
from bayeskit.errors import BayeskitError
from bayeskit.mixture import _em


def random_table(seed: int, rows: tuple[int, int], columns: tuple[int, int], rounded: bool):
    """Rows of columns on scales from 0.1 to 10 about means up to ±15 (rounded: ties)."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(*rows)), int(rng.integers(*columns))
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, size=d) + rng.normal(0, 5, size=d)
    return np.round(X) if rounded else X


def bounds_of_runs(model: bk.GaussianMixtureClassifier, X: np.ndarray) -> list[list[float]]:
    """The bound of every iteration of every EM run of ``model`` fitted to ``X`` as one class
    ([] when the fit is refused by name: too few distinct rows for the start)."""
    bounds: list[list[float]] = []
    advance = _em.EMRun.advance

    def recording(self, total):
        advance(self, total)
        if self.n_iter == 1:
            bounds.append([])
        bounds[-1].append(self.lower)

    with mock.patch.object(_em.EMRun, "advance", recording), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model.fit(X, np.zeros(len(X), dtype=int))
        except BayeskitError:
            return []
    assert bounds
    return bounds


def assert_never_falls(bounds: list[list[float]], slack: float = 0.0) -> None:
    """Each run's bound per row never falls by more than rounding (and ``slack``)."""
    for run in bounds:
        steps = np.diff(run)
        assert (steps >= -1e-9 * np.maximum(1.0, np.abs(run[1:])) - slack).all(), run
