"""The covariance floor of full and tied mixtures (``bayeskit.mixture._floor``) is the most
likely matrix under ``Σ ⪰ diag(f)``: above the floor in every direction, the matrix itself
where it already is, and no matrix above the floor is more likely."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.mixture._floor import floored_covariances


def log_likelihood(sigma: np.ndarray, S: np.ndarray) -> float:
    """``−log|Σ| − tr(Σ⁻¹ S)``: twice the Gaussian log-likelihood per row, up to a constant."""
    L = np.linalg.cholesky(sigma)
    inside = np.linalg.solve(L, np.linalg.solve(L, S).T)
    return float(-2 * np.log(np.diag(L)).sum() - np.trace(inside))


def sample(seed: int, d: int, free: int):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(d, d)) * rng.uniform(0.01, 3, size=d)
    S = A @ A.T / d + np.diag(rng.uniform(0, 1e-3, size=d))
    floor = rng.uniform(0.01, 1.5, size=d) * np.diag(S)
    floor[rng.permutation(d)[:free]] = 0.0  # features without a floor
    return rng, S, floor


def bound_holds(sigma: np.ndarray, floor: np.ndarray) -> bool:
    """``Σ ⪰ diag(floor)``, to rounding."""
    eig = np.linalg.eigvalsh(sigma - np.diag(floor))
    return bool(eig.min() >= -1e-12 * np.abs(sigma).max())


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 6), data=st.data())
def test_the_floored_matrix_is_the_most_likely_above_the_floor(seed, d, data):
    free = data.draw(st.integers(0, d - 1))
    rng, S, floor = sample(seed, d, free)
    out = floored_covariances(S[None], floor)[0]
    assert bound_holds(out, floor)
    np.testing.assert_allclose(out, out.T, rtol=0, atol=1e-12 * np.abs(out).max())
    best = log_likelihood(out, S)
    root = np.sqrt(floor)
    for _ in range(20):  # matrices above the floor: diag(f)½ (I + R Rᵀ) diag(f)½ + the free part
        R = rng.normal(size=(d, d)) * rng.uniform(0, 2)
        other = root[:, None] * (np.eye(d) + R @ R.T) * root[None, :]
        free_part = np.diag((floor == 0) * rng.uniform(0.01, 2, size=d) * np.diag(S))
        candidate = other + free_part
        assert log_likelihood(candidate, S) <= best + 1e-9 * abs(best)
    # and small moves from the optimum that stay above the floor lower it too
    for _ in range(20):
        v = rng.normal(size=d)
        moved = out + 1e-3 * np.outer(v, v) * np.abs(out).max()
        assert log_likelihood(moved, S) <= best + 1e-9 * abs(best)


def test_a_matrix_above_its_floor_is_returned_as_it_is():
    _, S, floor = sample(1, 4, 1)
    small = floor * 1e-6
    stack = np.stack([S, 2 * S])
    assert floored_covariances(stack, small) is stack
    assert floored_covariances(stack, np.zeros(4)) is stack


def test_a_diagonal_matrix_gets_its_diagonal_raised():
    S = np.diag([1.0, 0.01, 3.0])[None]
    out = floored_covariances(S, np.array([0.5, 0.5, 0.0]))
    np.testing.assert_allclose(out[0], np.diag([1.0, 0.5, 3.0]), rtol=1e-15, atol=1e-15)


def test_only_the_components_the_floor_binds_on_change():
    S = np.stack([np.eye(2), np.array([[1.0, 0.999], [0.999, 1.0]]), 4 * np.eye(2)])
    out = floored_covariances(S, np.array([[0.1, 0.1], [0.1, 0.1], [0.0, 0.0]]))
    np.testing.assert_array_equal(out[[0, 2]], S[[0, 2]])
    np.testing.assert_allclose(np.linalg.eigvalsh(out[1]), [0.1, 1.999], rtol=1e-12)
