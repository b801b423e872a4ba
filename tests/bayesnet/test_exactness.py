"""The statistic, the structures and the probabilities against the formulas evaluated
directly from the rows (tests/bayesnet/_direct.py)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import bayeskit as bk

from . import _direct as direct

VALUES = np.array(["a", "b", "c"], dtype=object)


@st.composite
def tables(draw: st.DrawFn, max_features: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Small categorical tables: 3 values and None (missing), two or three classes."""
    n = draw(st.integers(4, 24))
    d = draw(st.integers(1, max_features))
    codes = draw(arrays(np.int64, (n, d), elements=st.integers(-1, 2)))
    X = np.where(codes >= 0, VALUES[np.maximum(codes, 0)], None).astype(object)
    y = draw(arrays(np.int64, n, elements=st.integers(0, draw(st.integers(1, 2)))))
    return X, np.array(["p", "q", "r"])[y]


def _parents(model: bk.GenerativeClassifier, d: int) -> dict[int, tuple[int, ...]]:
    index = {f"x{j}": j for j in range(d)}
    return {index[k]: tuple(index[p] for p in v) for k, v in model.parents_.items()}


@settings(max_examples=40, deadline=None)
@given(tables(), st.sampled_from([0.5, 1.0, 2.0]))
def test_informations_equal_their_definitions(data, alpha):
    X, y = data
    model = bk.TANClassifier(alpha=alpha).fit(X, y)
    d = X.shape[1]
    ci = [direct.class_information(X, y, i) for i in range(d)]
    np.testing.assert_allclose(model.class_information_, ci, atol=1e-12)
    cmi = np.array(
        [[direct.conditional_information(X, y, i, j) if i != j else 0.0 for j in range(d)]
         for i in range(d)]
    )  # fmt: skip
    np.testing.assert_allclose(model.conditional_information_, cmi, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(tables(), st.sampled_from([0.5, 1.0, 2.0]))
def test_bayesian_edge_weights_equal_their_definition(data, alpha):
    X, y = data
    model = bk.TANClassifier(alpha=alpha).fit(X, y)
    d = X.shape[1]
    gain = np.array(
        [[max(direct.bayesian_gain(X, y, i, j, alpha), direct.bayesian_gain(X, y, j, i, alpha))
          if i != j else 0.0 for j in range(d)] for i in range(d)]
    )  # fmt: skip
    np.testing.assert_allclose(model.edge_weights_, gain, atol=1e-9)
    cmi = bk.TANClassifier(alpha=alpha, edge_weight="cmi").fit(X, y)
    np.testing.assert_array_equal(cmi.edge_weights_, cmi.conditional_information_)


@settings(max_examples=40, deadline=None)
@given(tables(max_features=5), st.sampled_from(["bayes", "cmi"]))
def test_tan_tree_is_a_maximum_spanning_tree_rooted_at_the_most_informative_feature(
    data, edge_weight
):
    """The tree is the one the documented rule (Prim's, ties within 1e-9 of the largest
    weight broken by index) picks, evaluated edge by edge, and its weight is the largest of
    all spanning trees (Prüfer enumeration) to within the ties' tolerance."""
    X, y = data
    model = bk.TANClassifier(edge_weight=edge_weight).fit(X, y)
    d = X.shape[1]
    parents = _parents(model, d)
    cmi = model.edge_weights_
    edges = [(i, p[0]) for i, p in parents.items() if p]
    assert len(edges) == d - 1
    roots = [i for i, p in parents.items() if not p]
    assert roots == [direct.root(model.class_information_)]
    tol = direct.gain_tolerance(X, cmi) if edge_weight == "bayes" else direct.tie_tolerance(cmi)
    assert dict(edges) == direct.chow_liu_tree(cmi, roots[0], tol)
    # every feature reaches the root: a tree, not a forest with a cycle
    for i in range(d):
        seen = {i}
        while parents[i]:
            i = parents[i][0]
            assert i not in seen
            seen.add(i)
    weight = sum(cmi[i, j] for i, j in edges)
    slack = 2 * (d - 1) * tol  # each edge is within 2 tolerances of its cut's heaviest
    assert direct.best_tree_weight(cmi) - slack - 1e-12 <= weight
    assert weight <= direct.best_tree_weight(cmi) + 1e-12


@settings(max_examples=30, deadline=None)
@given(tables(), st.sampled_from([0.5, 1.0]))
def test_tan_and_kdb_probabilities_equal_the_network_formula(data, alpha):
    X, y = data
    for model in (bk.TANClassifier(alpha=alpha), bk.KDBClassifier(k=2, alpha=alpha)):
        model.fit(X, y)
        parents = _parents(model, X.shape[1])
        expected = np.array(
            [[direct.network_log_likelihood(X, y, row, c, parents, alpha) for c in model.classes_]
             for row in X]
        ) + model.class_log_prior_  # fmt: skip
        np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-10)
        # the per-feature factors add up to the same
        factors = model.feature_log_factors(X)
        np.testing.assert_allclose(
            factors.sum(axis=1) + model.class_log_prior_, expected, rtol=1e-10
        )


@settings(max_examples=30, deadline=None)
@given(tables(), st.sampled_from([0.0, 1.0, 3.0]), st.sampled_from([0.5, 1.0]))
def test_aode_probabilities_equal_the_averaged_estimators(data, m, alpha):
    X, y = data
    model = bk.AODEClassifier(m=m, alpha=alpha).fit(X, y)
    expected = np.array(
        [[direct.aode_log_likelihood(X, y, row, c, m, alpha) for c in model.classes_]
         for row in X]
    ) + model.class_log_prior_  # fmt: skip
    np.testing.assert_allclose(model.predict_joint_log_proba(X), expected, rtol=1e-10)


def test_kdb_parents_follow_sahamis_order():
    rng = np.random.default_rng(3)
    n = 3000
    y = rng.integers(0, 2, n)
    x0 = (y + (rng.random(n) < 0.1)) % 2  # the most informative
    x1 = (x0 + (rng.random(n) < 0.2)) % 2  # next: copies x0
    x2 = (x1 + y + (rng.random(n) < 0.3)) % 3
    x3 = rng.integers(0, 3, n)  # noise
    X = np.column_stack([x3, x2, x1, x0]).astype(str)
    model = bk.KDBClassifier(k=2).fit(X, y)
    expected = direct.kdb_parents(model.class_information_, model.conditional_information_, 2)
    assert model.parents_ == {f"x{i}": tuple(f"x{p}" for p in v) for i, v in expected.items()}
    assert model.parents_["x3"] == ()  # x0, the most informative, comes first
    assert bk.KDBClassifier(k=0).fit(X, y).parents_ == {f"x{j}": () for j in range(4)}


def test_kdb_without_parents_is_categorical_naive_bayes():
    rng = np.random.default_rng(0)
    X = VALUES[rng.integers(0, 3, (50, 4))]
    y = rng.integers(0, 3, 50)
    nb = bk.CategoricalNB(alpha=0.7).fit(X, y)
    kdb = bk.KDBClassifier(k=0, alpha=0.7).fit(X, y)
    np.testing.assert_allclose(kdb.predict_joint_log_proba(X), nb.predict_joint_log_proba(X))
