"""Missing values (NaN) in the count families: the feature drops out of the product."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import bayeskit as bk

rng = np.random.default_rng(7)
X = rng.poisson(1.2, size=(80, 6)).astype(np.float64)
Y = np.array(["a", "b", "c"])[rng.integers(0, 3, size=80)]
HOLES = rng.random(X.shape) < 0.15
X_MISSING = np.where(HOLES, np.nan, X)


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.ComplementNB])
def test_a_missing_count_is_no_event(cls):
    zero_filled = np.where(HOLES, 0.0, X)
    ours = cls().fit(X_MISSING, Y)
    filled = cls().fit(zero_filled, Y)
    np.testing.assert_allclose(ours.feature_log_prob_, filled.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X_MISSING),
        filled.predict_joint_log_proba(zero_filled),
        rtol=1e-12,
    )


@pytest.mark.parametrize("sparse", [False, True])
def test_bernoulli_missing_feature_is_neither_present_nor_absent(sparse):
    binary = (X > 1).astype(np.float64)
    data = np.where(HOLES, np.nan, binary)
    model = bk.BernoulliNB(alpha=0.5).fit(sp.csr_matrix(data) if sparse else data, Y)
    j = 2
    seen = ~HOLES[:, j]
    # Feature j is estimated from the rows where it is observed, each class on its own rows.
    alone = bk.BernoulliNB(alpha=0.5).fit(binary[seen][:, [j]], Y[seen])
    np.testing.assert_allclose(model.feature_log_prob_[:, j], alone.feature_log_prob_[:, 0])

    # At prediction a missing feature adds nothing: the row scores as the model restricted to
    # the observed features.
    row = data[:1].copy()
    row[0, j] = np.nan
    others = [k for k in range(6) if k != j]
    restricted = model.predict_joint_log_proba(row)
    p = np.exp(model.feature_log_prob_)
    x = row[0, others]
    expected = model.class_log_prior_ + (
        x * np.log(p[:, others]) + (1 - x) * np.log1p(-p[:, others])
    ).sum(axis=1)
    np.testing.assert_allclose(restricted[0], expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("make", "data"),
    [
        (bk.MultinomialNB, X_MISSING),
        (bk.ComplementNB, X_MISSING),
        (bk.BernoulliNB, np.where(HOLES, np.nan, (X > 1).astype(float))),
    ],
)
def test_a_row_with_every_feature_missing_gets_the_prior(make, data):
    model = make().fit(data, Y)
    proba = model.predict_proba(np.full((1, 6), np.nan))
    if make is bk.ComplementNB:
        # ComplementNB scores without the prior (Rennie et al.): every class ties.
        np.testing.assert_allclose(proba[0], np.full(3, 1 / 3))
    else:
        np.testing.assert_allclose(proba[0], np.exp(model.class_log_prior_))


def test_missing_values_merge_and_unlearn_exactly():
    data = np.where(HOLES, np.nan, (X > 1).astype(float))
    whole = bk.BernoulliNB().fit(data, Y)
    parts = bk.BernoulliNB().fit(data[:30], Y[:30]) + bk.BernoulliNB().fit(data[30:], Y[30:])
    np.testing.assert_allclose(
        whole.predict_joint_log_proba(data), parts.predict_joint_log_proba(data), rtol=1e-12
    )
    parts.unlearn(data[30:], Y[30:])
    first = bk.BernoulliNB().fit(data[:30], Y[:30])
    np.testing.assert_allclose(
        parts.predict_joint_log_proba(data), first.predict_joint_log_proba(data), rtol=1e-12
    )


def test_bernoulli_with_missing_round_trips_through_a_model_file(tmp_path):
    data = np.where(HOLES, np.nan, (X > 1).astype(float))
    model = bk.BernoulliNB().fit(data, Y)
    bk.save(model, tmp_path / "m.bk")
    again = bk.load(tmp_path / "m.bk")
    np.testing.assert_array_equal(
        model.predict_joint_log_proba(data), again.predict_joint_log_proba(data)
    )
