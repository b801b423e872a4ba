"""The structures do not depend on rounding: the Bayesian edge weight's lnΓ (Python's
``math.lgamma``, not SciPy's ``gammaln``, which would cost 0.3 s of import) and the tie rule
that makes another lnΓ, or another summation order, give the same trees."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import bayeskit as bk
from bayeskit.bayesnet import _structure

from . import _direct as direct


def test_the_tie_rule_is_the_documented_one():
    assert _structure.TIE_RTOL == direct.TIE_RTOL == 1e-9
    w = np.array([3.0, -5.0, 3.0 - 4e-9, 3.0 - 6e-9])
    assert _structure.tie_tolerance(w) == pytest.approx(5e-9)
    assert _structure.tie_tolerance(w, scale=100.0) == pytest.approx(1e-7)
    assert _structure.tie_tolerance(w, scale=1.0) == pytest.approx(5e-9)
    # 3 − 4e-9 ties with 3, 3 − 6e-9 does not (but does with 3 − 4e-9 once 3 is taken)
    assert _structure.first_of_max(w[::-1], _structure.tie_tolerance(w)) == 1
    assert _structure.tied_order(w).tolist() == [0, 2, 3, 1]
    # weights of nats, all truly 0: rounding residue within 1e-9 nats ties (see TIE_FLOOR)
    assert _structure.tie_tolerance(np.zeros(3)) == pytest.approx(1e-9)
    assert _structure.tie_tolerance(np.array([5e-18, 4e-17])) == pytest.approx(1e-9)
    assert _structure.first_of_max(np.array([5e-18, 4e-17]), 1e-9) == 0


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.int64, st.integers(1, 300), elements=st.integers(0, 400)),
    st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.5, 20.0, 1e-3]), min_size=1, max_size=4),
    st.sampled_from([1.0, 0.25, 0.3]),
)
def test_log_gamma_is_pythons_lgamma_of_each_value(whole, pseudo, weight):
    """Bitwise ``math.lgamma`` of every ``count + pseudo``, whether the counts are whole (a
    table of the keys present) or weighted (the values sorted), and whichever path a table's
    size takes."""
    pseudo = np.unique(np.array(pseudo))
    codes = np.arange(len(whole)) % len(pseudo)
    counts = (whole * weight).astype(np.float64)
    expected = np.array([math.lgamma(c + pseudo[k]) for c, k in zip(counts, codes, strict=True)])
    got = _structure.log_gamma_of_counts(counts, codes, pseudo)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(_structure.log_gamma(counts + pseudo[codes]), expected)
    # a count far beyond the table's bound takes the sorting path: the same values
    big = np.append(counts, 1e7)
    big_codes = np.append(codes, 0)
    np.testing.assert_array_equal(
        _structure.log_gamma_of_counts(big, big_codes, pseudo),
        np.append(expected, math.lgamma(1e7 + pseudo[0])),
    )


def test_log_gamma_agrees_with_scipy_to_rounding():
    special = pytest.importorskip("scipy.special")
    x = np.concatenate([np.arange(1, 5000) + 0.5, np.arange(1, 5000) + 1.0, [1e-3, 7.5e5]])
    np.testing.assert_allclose(_structure.log_gamma(x), special.gammaln(x), rtol=1e-13, atol=0)


def _fit(
    X: np.ndarray, y: np.ndarray, alpha: float, lgamma: Any, weights: np.ndarray | None = None
) -> tuple[bk.TANClassifier, np.ndarray, dict]:
    """A TAN model, its Bayesian edge weights and its tree, with ``lgamma`` as the lnΓ (read
    while it is: the structure is learned when the parameters are first needed)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_structure, "log_gamma", lgamma)
        model = bk.TANClassifier(alpha=alpha).fit(X, y, sample_weight=weights)
        return model, model.edge_weights_, model.parents_


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The least populated class:UserWarning")
@pytest.mark.parametrize("name", ["car", "nursery", "voting", "mushroom"])
def test_trees_are_the_same_with_scipys_log_gamma_on_the_shared_tables(shared_data, name):
    """10 folds × 3 priors of each table: the weights differ in their last digits (where
    mathematically tied edges used to be told apart by them: mushroom), the trees do not."""
    special = pytest.importorskip("scipy.special")
    from sklearn.model_selection import StratifiedKFold

    from bayeskit.datasets.shared import load_uci_table

    X, y = load_uci_table(name, shared_data)
    if (X == "?").any():
        X = X.astype(object)
        X[X == "?"] = None
    rounding = 0.0
    for train, _ in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
        for alpha in (0.5, 1.0, 2.0):
            _, ours, tree = _fit(X[train], y[train], alpha, _structure.log_gamma)
            _, theirs, their_tree = _fit(X[train], y[train], alpha, special.gammaln)
            assert tree == their_tree
            np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12 * np.abs(theirs).max())
            rounding = max(rounding, float(np.abs(ours - theirs).max()))
    assert rounding > 0  # the two lnΓ do differ: the test is about something


@st.composite
def symmetric_tables(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Tables whose edges tie mathematically: a few base columns, each repeated under a
    relabeling of its values (a copy's counts are the original's, permuted: the same weights
    summed in another order), columns shuffled; whole or fractional row weights."""
    n = draw(st.integers(6, 60))
    base = draw(st.integers(1, 3))
    values = draw(st.integers(2, 4))
    X0 = draw(arrays(np.int64, (n, base), elements=st.integers(0, values - 1)))
    columns = []
    for j in range(base):
        for _ in range(draw(st.integers(1, 3))):
            relabel = np.array(draw(st.permutations(range(values))))
            columns.append(relabel[X0[:, j]])
    perm = draw(st.permutations(range(len(columns))))
    X = np.column_stack([columns[k] for k in perm])
    y = draw(arrays(np.int64, n, elements=st.integers(0, draw(st.integers(1, 2)))))
    weights = draw(
        st.none() | arrays(np.float64, n, elements=st.sampled_from([0.5, 1.0, 1.5, 2.25, 3.0]))
    )
    return X, y, weights


@settings(max_examples=80, deadline=None)
@given(symmetric_tables(), st.sampled_from([0.5, 1.0, 2.0]))
def test_trees_are_the_same_with_scipys_log_gamma_on_tied_tables(data, alpha):
    special = pytest.importorskip("scipy.special")
    X, y, weights = data
    trees = []
    for lgamma in (_structure.log_gamma, special.gammaln):
        model, weight, tree = _fit(X, y, alpha, lgamma, weights)
        trees.append(tree)
        index = {f"x{j}": j for j in range(X.shape[1])}
        parents = {index[k]: index[v[0]] for k, v in tree.items() if v}
        root = direct.root(model.class_information_)
        tol = direct.gain_tolerance(X, weight, weights)
        assert parents == direct.chow_liu_tree(weight, root, tol)
        stats = model.stats_.blocks[0]
        scale = _structure.gain_scale(stats.counts, stats.layout)
        assert _structure.tie_tolerance(weight, scale) == pytest.approx(tol, rel=1e-12)
    assert trees[0] == trees[1]


@st.composite
def tied_weights(draw: st.DrawFn) -> np.ndarray:
    """Symmetric weight matrices drawn from a few values (many exact ties)."""
    d = draw(st.integers(2, 7))
    levels = draw(st.lists(st.sampled_from([0.0, 0.1, 1.0, 2.5, -3.0, 700.0]), min_size=1))
    upper = draw(arrays(np.float64, (d, d), elements=st.sampled_from(levels)))
    W = np.triu(upper, 1)
    return W + W.T


@settings(max_examples=200, deadline=None)
@given(tied_weights(), st.data())
def test_structures_do_not_move_with_rounding(W, data):
    """Chow–Liu trees, the root and KDB's parents of weights with exact ties are those of the
    documented rule, and stay so when every weight moves by a few ulps (1e-13 relative:
    another lnΓ or summation order)."""
    d = W.shape[0]
    noise = data.draw(arrays(np.float64, (d, d), elements=st.floats(-1e-13, 1e-13)))
    moved = W * (1 + np.triu(noise, 1) + np.triu(noise, 1).T)
    levels = st.sampled_from([0.0, 0.05, 0.3, 1.2])
    ci = np.array(data.draw(st.lists(levels, min_size=d, max_size=d)))
    ci_moved = ci * (1 + np.diag(noise))
    root = data.draw(st.integers(0, d - 1))
    expected = direct.chow_liu_tree(W, root)
    for weights in (W, moved):
        parents = _structure.chow_liu(weights, root)
        assert {i: int(p) for i, p in enumerate(parents) if p >= 0} == expected
    assert direct.root(ci) == _structure.first_of_max(ci_moved, _structure.tie_tolerance(ci))
    for k in (1, 2, 3):
        expected_k = direct.kdb_parents(ci, np.abs(W), k)
        for c, w in ((ci, np.abs(W)), (ci_moved, np.abs(moved))):
            got = _structure.kdb_parents(c, w, k)
            assert {i: tuple(int(p) for p in row if p >= 0) for i, row in enumerate(got)} == (
                expected_k
            )
