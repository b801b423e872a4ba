"""Structures and super-parents that rounding cannot choose: the same weighted rows in any
order, or reached by an unlearn, give the same network and the same probabilities."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk


def test_features_independent_of_the_class_tie_whatever_the_row_order():
    """Every I(X_i; Y) is 0 (class q weighs three times class p in every cell): the values
    compared were rounding residue (5e-18 against 4e-17 or 0 after a permutation), 1e-9 of
    the largest of them a tolerance of 1e-26, so the rows' order chose TAN's root and KDB's
    order, and the probabilities moved by 0.009."""
    X = np.array([["a", "u"], ["a", "v"], ["b", "u"], ["b", "u"]] * 2, dtype=object)
    y = np.array(["p"] * 4 + ["q"] * 4)
    w = np.array([2.0, 0.9, 0.2, 0.1, 6.0, 2.7, 0.6, 0.3])
    perm = [6, 2, 7, 4, 5, 1, 0, 3]
    Xt = np.array([["b", "v"], ["a", "u"]], dtype=object)
    for model in (bk.TANClassifier, bk.KDBClassifier):
        a = model().fit(X, y, sample_weight=w)
        b = model().fit(X[perm], y[perm], sample_weight=w[perm])
        assert a.parents_ == b.parents_ == {"x0": (), "x1": ("x0",)}  # the lowest-numbered root
        np.testing.assert_allclose(a.predict_proba(Xt), b.predict_proba(Xt), rtol=1e-12)
        assert (a.class_information_ >= 0).all()  # (rounding left -1e-16 once)


def test_a_value_weighing_m_is_a_super_parent_in_any_order_and_after_an_unlearn():
    """AODE's frequency limit compared a weighted count with m exactly: 0.1 + 0.2 + 0.7 is 1
    and 0.7 + 0.2 + 0.1 is 0.9999999999999999, so the value "a" was a super-parent or not by
    the rows' order (probabilities 0.529 against 0.491)."""
    X = np.array(
        [["a", "u"], ["a", "v"], ["a", "u"], ["b", "v"], ["b", "u"], ["b", "v"]], dtype=object
    )
    y = np.array(["p", "p", "p", "q", "q", "q"])
    w = np.array([0.1, 0.2, 0.7, 1.0, 1.0, 1.0])
    Xt = np.array([["a", "u"]], dtype=object)
    a = bk.AODEClassifier().fit(X, y, sample_weight=w)
    p = [2, 1, 0, 3, 4, 5]
    b = bk.AODEClassifier().fit(X[p], y[p], sample_weight=w[p])
    extra = bk.AODEClassifier().fit(np.r_[X, X[:1]], np.r_[y, y[:1]], sample_weight=np.r_[w, 0.4])
    u = extra.unlearn(X[:1], y[:1], sample_weight=[0.4])
    np.testing.assert_allclose(b.predict_proba(Xt), a.predict_proba(Xt), rtol=1e-12)
    np.testing.assert_allclose(u.predict_proba(Xt), a.predict_proba(Xt), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["tan", "kdb", "aode"]))
def test_fractional_weights_in_any_order_give_one_model(seed, kind):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(4, 30)), int(rng.integers(2, 5))
    X = rng.integers(0, 3, size=(n, d)).astype(str).astype(object)
    y = rng.integers(0, 2, size=n)
    if len(set(y)) < 2:
        y[0], y[-1] = 0, 1
    w = rng.integers(1, 10, size=n) / 10.0
    make = {
        "tan": bk.TANClassifier,
        "kdb": lambda: bk.KDBClassifier(k=2),
        "aode": bk.AODEClassifier,
    }
    perm = rng.permutation(n)
    a = make[kind]().fit(X, y, sample_weight=w)
    b = make[kind]().fit(X[perm], y[perm], sample_weight=w[perm])
    if kind != "aode":
        assert a.parents_ == b.parents_
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-9, atol=1e-12)
