"""The Scatter statistic: per-class weight, mean and centred scatter matrix (and the mixed
moments Ledoit–Wolf needs), checked against direct formulas, and its algebra (Chan's merge,
exact negation) as properties."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

from bayeskit._labels import class_weights
from bayeskit.errors import MergeError, ModelFileError
from bayeskit.stats import Scatter


def direct(X: np.ndarray, R: np.ndarray) -> dict[str, np.ndarray]:
    """The statistic by its definition, one class at a time, in the plainest numpy."""
    out: dict[str, list] = {"weight": [], "mean": [], "scatter": [], "m3": [], "m4": []}
    for r in R.T:
        W = r.sum()
        mu = r @ X / W if W else np.zeros(X.shape[1])
        A = X - mu
        out["weight"].append(W)
        out["mean"].append(mu)
        out["scatter"].append(np.einsum("i,ij,ik->jk", r, A, A))
        out["m3"].append(np.einsum("i,ij,ij,ik->jk", r, A, A, A))
        out["m4"].append(np.einsum("i,ij,ij,ik,ik->jk", r, A, A, A, A))
    return {k: np.array(v) for k, v in out.items()}


def labelled(seed: int, n: int = 40, d: int = 4, k: int = 3, weights: bool = True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3, size=d) + rng.normal(size=d) * 10
    y = rng.integers(0, k, size=n)
    w = rng.integers(0, 4, size=n).astype(float) if weights else None
    _, R = class_weights(y, w, n)
    return X, R


def assert_stat(s: Scatter, expected: dict[str, np.ndarray], rtol: float = 1e-11) -> None:
    for name in ("weight", "mean", "scatter") + (("m3", "m4") if s.fourth else ()):
        got = getattr(s, name)
        scale = np.abs(expected[name]).max(initial=1.0)
        np.testing.assert_allclose(got, expected[name], rtol=rtol, atol=rtol * scale, err_msg=name)


@pytest.mark.parametrize("fourth", [False, True])
def test_hard_labels_with_weights_match_the_definition(fourth):
    X, R = labelled(0)
    assert_stat(Scatter.of(X, R, fourth=fourth), direct(X, R.toarray()))


@pytest.mark.parametrize("fourth", [False, True])
def test_soft_class_weights_match_the_definition(fourth):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 3)) * 4 + 7
    R = rng.dirichlet(np.ones(4), size=50)
    R[:10, 2] = 0.0  # rows a component does not take at all
    s = Scatter.of(X, R, fourth=fourth)
    assert_stat(s, direct(X, R))
    # Soft weights that happen to be one-hot give the hard-label statistic.
    hard = np.eye(4)[rng.integers(0, 4, size=50)]
    assert_stat(Scatter.of(X, hard, fourth=fourth), direct(X, hard))
    assert_stat(Scatter.of(X, sp.csr_matrix(hard), fourth=fourth), direct(X, hard))


@pytest.mark.parametrize("fourth", [False, True])
@pytest.mark.parametrize("soft", [False, True])
def test_csr_input_gives_the_dense_statistic(fourth, soft):
    rng = np.random.default_rng(2)
    X = rng.poisson(0.3, size=(300, 6)).astype(float)
    X[:, 4] = 1000.0 + rng.normal(size=300)  # a dense column with a large mean: summed centred
    X[:, 5] = 0.0
    y = rng.integers(0, 3, size=300)
    R = rng.dirichlet(np.ones(3), size=300) if soft else class_weights(y, None, 300)[1]
    dense = Scatter.of(X, R, fourth=fourth)
    sparse = Scatter.of(sp.csr_matrix(X), R, fourth=fourth)
    assert_stat(
        sparse,
        {
            k: v
            for k, v in zip(
                ["weight", "mean", "scatter", "m3", "m4"], dense.weights(), strict=False
            )
        },
    )
    assert_stat(dense, direct(X, R if soft else R.toarray()))


def test_sparse_about_zero_keeps_every_digit_it_should():
    # A sparse column (density p) has mean² / variance <= p / (1 - p): summing about 0 loses
    # at most a few digits, and the statistic is checked against the centred one.
    rng = np.random.default_rng(3)
    X = sp.random(2000, 30, density=0.05, random_state=4, format="csr") * 50
    y = rng.integers(0, 2, size=2000)
    _, R = class_weights(y, None, 2000)
    s = Scatter.of(X, R)
    assert_stat(s, direct(X.toarray(), R.toarray()), rtol=1e-12)


def test_a_large_offset_loses_no_digits():
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(1000, 3))
    y = rng.integers(0, 2, size=1000)
    _, R = class_weights(y, None, 1000)
    reference = direct(Z, R.toarray())["scatter"]
    for X in (Z + 1e9, sp.csr_matrix(Z + 1e9)):
        shifted = Scatter.of(X, R)
        np.testing.assert_allclose(shifted.scatter, reference, rtol=1e-6, atol=1e-6 * 1000)


@given(seed=st.integers(0, 10_000), cuts=st.lists(st.integers(1, 39), max_size=4, unique=True))
def test_any_split_adds_up_to_the_whole(seed, cuts):
    X, R = labelled(seed)
    whole = Scatter.of(X, R, fourth=True)
    bounds = [0, *sorted(cuts), 40]
    parts = [Scatter.of(X[a:b], R[a:b], fourth=True) for a, b in itertools.pairwise(bounds)]
    assert_stat(
        sum(parts[1:], parts[0]),
        {n: getattr(whole, n) for n in ("weight", "mean", "scatter", "m3", "m4")},
    )


@given(seed=st.integers(0, 10_000), cut=st.integers(1, 39))
def test_negation_is_the_exact_inverse(seed, cut):
    X, R = labelled(seed, weights=False)
    a, b = Scatter.of(X[:cut], R[:cut], fourth=True), Scatter.of(X[cut:], R[cut:], fourth=True)
    back = (a + b) + (-b)
    assert_stat(
        back, {n: getattr(a, n) for n in ("weight", "mean", "scatter", "m3", "m4")}, rtol=1e-9
    )
    assert_stat(
        a + b, {n: getattr(b + a, n) for n in ("weight", "mean", "scatter", "m3", "m4")}, rtol=1e-13
    )


def test_a_class_left_with_one_row_has_no_scatter():
    X = np.array([[1.0, 2.0], [4.0, -1.0], [2.5, 7.0]]) * 1e3
    R = np.ones((3, 1))
    s = Scatter.of(X, R, fourth=True) + (-Scatter.of(X[1:], R[1:], fourth=True))
    assert s.weight.tolist() == [1.0]
    np.testing.assert_allclose(s.mean, X[:1], rtol=1e-12)
    for moment in (s.scatter, s.m3, s.m4):
        assert not moment.any()


def test_pooled_is_every_row_in_one_class():
    X, R = labelled(6)
    pooled = Scatter.of(X, R, fourth=True).pooled()
    expected = direct(X, np.asarray(R.sum(axis=1)))
    assert_stat(pooled, expected)


def test_merge_refuses_mismatched_statistics():
    X, R = labelled(7)
    with pytest.raises(MergeError, match="fourth moments"):
        Scatter.of(X, R) + Scatter.of(X, R, fourth=True)
    with pytest.raises(MergeError, match="4 and 3 features"):
        Scatter.of(X, R) + Scatter.of(X[:, :3], R)


def test_model_file_arrays_round_trip_and_refuse_what_is_not_a_scatter():
    X, R = labelled(8)
    s = Scatter.of(X, R, fourth=True)
    arrays, meta = s.to_arrays()
    back = Scatter.from_arrays(arrays, meta)
    for x, y in zip(back.weights(), s.weights(), strict=True):
        np.testing.assert_array_equal(x, y)
    # Matrices that are not scatter matrices are named by invalid(), which the loader calls
    # after the family's parameter size is taken from its budget (the check costs O(K d^3)).
    assert back.invalid() is None
    bad = dict(arrays, scatter=arrays["scatter"].copy())
    bad["scatter"][1, 0, 2] += 1.0
    name, c, why = Scatter.from_arrays(bad, meta).invalid() or ("", -1, "")
    assert (name, c) == ("scatter", 1)
    assert "not symmetric" in why
    bad = dict(arrays, scatter=arrays["scatter"].copy())
    bad["scatter"][2] = np.eye(4)
    bad["scatter"][2, 0, 1] = bad["scatter"][2, 1, 0] = 2.0  # symmetric, eigenvalue -1
    name, c, why = Scatter.from_arrays(bad, meta).invalid() or ("", -1, "")
    assert (name, c) == ("scatter", 2)
    assert "not positive semi-definite" in why
    with pytest.raises(ModelFileError, match="inconsistent shapes"):
        Scatter.from_arrays(dict(arrays, mean=arrays["mean"][:, :2]), meta)
    with pytest.raises(ModelFileError, match="m3, m4 together"):
        Scatter.from_arrays({k: v for k, v in arrays.items() if k != "m4"}, meta)
    nan = dict(arrays, weight=np.array([1.0, np.nan, 2.0]))
    with pytest.raises(ModelFileError, match="'weight' holds nan"):
        Scatter.from_arrays(nan, meta)
