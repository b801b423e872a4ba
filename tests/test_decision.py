"""The Bayes decision rule: priors, class loss weights λ_y and a full loss matrix."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.errors import ParameterError

X = np.array([[3, 0, 1], [2, 1, 0], [0, 3, 1], [1, 2, 2], [0, 0, 4], [1, 0, 3]], dtype=float)
Y = np.array(["a", "a", "b", "b", "c", "c"])
PROBE = np.random.default_rng(0).poisson(1.5, size=(50, 3)).astype(float)


def test_priors():
    counts = bk.MultinomialNB().fit(X[:5], Y[:5])
    np.testing.assert_allclose(np.exp(counts.class_log_prior_), [2 / 5, 2 / 5, 1 / 5])
    smooth = bk.MultinomialNB(prior_alpha=1.0).fit(X[:5], Y[:5])
    np.testing.assert_allclose(np.exp(smooth.class_log_prior_), [3 / 8, 3 / 8, 2 / 8])
    flat = bk.MultinomialNB(fit_prior=False).fit(X[:5], Y[:5])
    np.testing.assert_allclose(np.exp(flat.class_log_prior_), [1 / 3] * 3)
    fixed = bk.MultinomialNB(class_prior=[0.5, 0.25, 0.25]).fit(X, Y)
    np.testing.assert_allclose(np.exp(fixed.class_log_prior_), [0.5, 0.25, 0.25])


@given(st.lists(st.floats(0.01, 100), min_size=3, max_size=3))
def test_class_weights_are_a_loss_matrix(lam):
    """λ_y weighting equals minimum risk with λ_ij = λ_j for i ≠ j (seed 002 vs 001)."""
    lam = np.asarray(lam)
    loss = np.tile(lam, (3, 1)) * (1 - np.eye(3))
    by_weight = bk.MultinomialNB(class_weight=lam).fit(X, Y)
    by_loss = bk.MultinomialNB(loss=loss).fit(X, Y)
    proba = by_weight.predict_proba(PROBE)
    scores = proba * lam
    clear = np.sort(scores, axis=1)[:, -1] > np.sort(scores, axis=1)[:, -2] * (1 + 1e-9)
    np.testing.assert_array_equal(by_weight.predict(PROBE)[clear], by_loss.predict(PROBE)[clear])
    np.testing.assert_array_equal(
        by_weight.predict(PROBE)[clear], by_weight.classes_[np.argmax(scores, axis=1)][clear]
    )


def test_loss_matrix_minimises_conditional_risk():
    loss = np.array([[0, 1, 10], [5, 0, 1], [1, 1, 0]], dtype=float)
    model = bk.MultinomialNB(loss=loss).fit(X, Y)
    risk = model.predict_proba(PROBE) @ loss.T
    np.testing.assert_allclose(model.predict_risk(PROBE), risk)
    np.testing.assert_array_equal(model.predict(PROBE), model.classes_[np.argmin(risk, axis=1)])
    zero_one = bk.MultinomialNB(loss=1 - np.eye(3)).fit(X, Y)
    np.testing.assert_array_equal(
        zero_one.predict(PROBE), bk.MultinomialNB().fit(X, Y).predict(PROBE)
    )


def test_class_weight_dict_and_balanced():
    model = bk.MultinomialNB(class_weight={"c": 1000.0}).fit(X, Y)
    assert (model.predict(PROBE) == "c").mean() > 0.9
    skewed_y = np.array(["a"] * 5 + ["b"])
    balanced = bk.MultinomialNB(class_weight="balanced").fit(X, skewed_y)
    flat = bk.MultinomialNB(fit_prior=False).fit(X, skewed_y)
    np.testing.assert_array_equal(balanced.predict(PROBE), flat.predict(PROBE))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"class_prior": [0.5, 0.5]}, "class_prior has 2 values but the model has 3 classes"),
        ({"class_prior": [0.5, 0.3, 0.3]}, "class_prior must sum to 1"),
        ({"class_prior": [1.2, -0.1, -0.1]}, "probabilities >= 0"),
        ({"alpha": -0.5}, "alpha must be >= 0"),
        ({"alpha": [1.0, 2.0]}, "one value for each of the 3 features"),
        ({"prior_alpha": -1.0}, "prior_alpha must be >= 0"),
    ],
)
def test_bad_parameters_fail_at_fit(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        bk.MultinomialNB(**kwargs).fit(X, Y)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"loss": np.ones((2, 2))}, r"loss has shape \(2, 2\); it must be \(3, 3\)"),
        ({"loss": [[0, 1, 1], [1, 0, -1], [1, 1, 0]]}, r"loss\[1, 2\] = -1.0; losses must be"),
        ({"class_weight": [1.0, 2.0]}, "one weight per class"),
        ({"class_weight": [0.0, 0.0, 0.0]}, "not all 0"),
        ({"class_weight": "uniform"}, "accepted: None, 'balanced'"),
    ],
)
def test_bad_decision_rules_are_named(kwargs, message):
    # refused by fit, not by every later predict
    with pytest.raises(ParameterError, match=message):
        bk.MultinomialNB(**kwargs).fit(X, Y)
    model = bk.MultinomialNB().fit(X, Y)
    with pytest.raises(ParameterError, match=message):
        model.set_params(**kwargs)
    model.predict(PROBE)  # the model kept its own settings


def test_a_weight_for_a_class_not_learned_yet_applies_once_it_is():
    """A label the model has not learned (yet) is warned about at fit, and weighs nothing
    until a class of that label is learned: every predict used to fail."""
    with pytest.warns(UserWarning, match=r"class_weight names \['z'\], none of the classes"):
        model = bk.MultinomialNB(class_weight={"z": 50.0}).fit(X, Y)
    plain = bk.MultinomialNB().fit(X, Y)
    np.testing.assert_array_equal(model.predict(PROBE), plain.predict(PROBE))


def test_no_underflow_with_fifty_thousand_features():
    rng = np.random.default_rng(1)
    Xw = rng.poisson(0.5, size=(20, 50_000))
    yw = np.repeat([0, 1], 10)
    proba = bk.MultinomialNB().fit(Xw, yw).predict_proba(Xw)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
