"""The EM engine: one iteration is a sum over parts of the data (the distributed seam), the
log-likelihood never decreases, rows can be tied to some components."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bayeskit.errors import DataError, ParameterError
from bayeskit.mixture import Part, Step, e_step, iterate, run_em
from bayeskit.mixture._components import Components, component_family, regularizer


def _data(seed: int, n: int = 300, d: int = 3):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, size=(3, d))
    return centres[rng.integers(0, 3, n)] + rng.normal(size=(n, d)) * rng.uniform(0.5, 2, d)


def _model(cov: str = "diag", reg: float = 1e-6) -> Components:
    return Components(component_family(cov, reg), regularizer(cov, reg))


def _start(model: Components, X: np.ndarray, k: int, seed: int):
    rng = np.random.default_rng(seed)
    R = rng.random((len(X), k))
    R /= R.sum(axis=1, keepdims=True)
    return model.finalize(model.summarize(X, R))


def test_an_iteration_over_parts_equals_one_over_all_rows():
    X = _data(0)
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(X))
    model = _model()
    params = _start(model, X, 3, 0)
    whole = iterate(model, params, [Part(X, w)])
    cuts = [0, 50, 51, 200, len(X)]
    parts = [Part(X[a:b], w[a:b]) for a, b in itertools.pairwise(cuts)]
    split = iterate(model, params, parts)
    assert split.log_likelihood == pytest.approx(whole.log_likelihood, rel=1e-12)
    assert split.weight == pytest.approx(whole.weight, rel=1e-12)
    for a, b in zip(split.stats.stats.weights(), whole.stats.stats.weights(), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-11)
    # ... so whole EM runs agree, whatever the split
    run_whole = run_em(model, [Part(X, w)], params, tol=1e-10, max_iter=200)
    run_split = run_em(model, parts, params, tol=1e-10, max_iter=200)
    assert run_split.n_iter == run_whole.n_iter
    np.testing.assert_allclose(run_split.params.params.theta, run_whole.params.params.theta)
    np.testing.assert_allclose(run_split.lower_bounds, run_whole.lower_bounds, rtol=1e-10)


def test_one_map_and_one_reduce_per_iteration():
    X = _data(2)
    parts = [Part(X[:150], np.ones(150)), Part(X[150:], np.ones(150))]
    model = _model()
    calls: list[int] = []

    def mapper(function, items):
        items = list(items)
        calls.append(len(items))
        return [function(p) for p in items]  # stands in for a cluster's map

    result = run_em(model, parts, _start(model, X, 3, 1), tol=1e-6, max_iter=50, mapper=mapper)
    assert calls == [2] * result.n_iter
    steps = [e_step(model, result.params, p) for p in parts]
    assert isinstance(sum(steps), Step)


def test_rows_restricted_to_some_components():
    X = _data(3, n=60)
    model = _model()
    params = _start(model, X, 3, 2)
    allowed = np.zeros((60, 3), dtype=bool)
    allowed[:, 1] = True  # every row belongs to component 1: like a labelled row
    step = e_step(model, params, Part(X, np.ones(60), allowed))
    np.testing.assert_allclose(step.stats.weight, [0, 60, 0])
    free = e_step(model, params, Part(X, np.ones(60)))
    assert free.log_likelihood > step.log_likelihood


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    k=st.integers(2, 5),
    cov=st.sampled_from(["diag", "spherical", "full", "tied"]),
    n=st.integers(60, 300),
)
def test_log_likelihood_never_decreases(seed, k, cov, n):
    X = _data(seed, n=n)
    model = _model(cov, reg=0.0)
    params = _start(model, X, k, seed)
    w = np.random.default_rng(seed).uniform(0.2, 3.0, n)
    try:
        result = run_em(model, [Part(X, w)], params, tol=0.0, max_iter=60)
    except (ParameterError, DataError):  # a component shrank onto a point or a line:
        # the likelihood is unbounded there
        assume(False)
    spread = result.stats.stats
    if hasattr(spread, "variance"):
        smallest = spread.variance.min()
    else:
        smallest = np.linalg.eigvalsh(spread.covariance).min()
    # A component that shrank onto a row or a line without raising (a variance of 1e-98 with
    # reg=0): the likelihood is unbounded there too, and its values are rounding noise.
    assume(smallest > 1e-12 * X.var(axis=0).max())
    bounds = np.array(result.lower_bounds)
    assert np.all(np.diff(bounds) >= -1e-9 * np.abs(bounds[1:])), bounds
