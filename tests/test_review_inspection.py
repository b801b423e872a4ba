"""explain's terms are the model's own numbers: the prior is the classes' prior, a Bernoulli
model's missing value contributes nothing (no NaN), and the two classes compared differ."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import BayeskitError, ParameterError
from bayeskit.inspection import explain

RNG = np.random.default_rng(3)
COUNTS = RNG.poisson([1.0, 3.0, 1.0, 2.0], size=(90, 4)).astype(float)
Y = np.array(["ham", "spam", "other"] * 30)
COUNTS[Y == "spam", 0] += 3
COUNTS[Y == "ham", 2] = 0


def _check(model, row):
    """log_odds is the model's, the terms add up to it, and the prior is its prior."""
    e = explain(model, row)
    jll = model.predict_joint_log_proba(np.atleast_2d(np.asarray(row, dtype=float)))[0]
    a, c = (int(np.flatnonzero(model.classes_ == k)[0]) for k in (e.label, e.versus))
    assert np.isfinite([e.log_odds, e.prior, e.intercept]).all()
    assert e.log_odds == pytest.approx(jll[a] - jll[c], rel=1e-12, abs=1e-12)
    terms = e.prior + e.intercept + sum(t.weight for t in e.contributions)
    assert terms == pytest.approx(e.log_odds, rel=1e-10, abs=1e-10)
    assert e.label == model.classes_[np.argmax(jll)]
    prior = model.class_log_prior_
    assert e.prior == pytest.approx(prior[a] - prior[c], abs=1e-12)
    return e, a, c


@pytest.mark.parametrize(
    "row", [[2, np.nan, 0, 1], [np.nan, np.nan, np.nan, 1], [0, 0, 0, 0], [5, 1, 0, np.nan]]
)
def test_bernoulli_missing_values_add_up(row):
    model = bk.BernoulliNB().fit(COUNTS, Y)
    e, a, c = _check(model, row)
    # the intercept is the log-odds of every observed feature absent (McCallum & Nigam 1998)
    neg = np.log1p(-np.exp(model.feature_log_prob_))
    observed = ~np.isnan(row)
    assert e.intercept == pytest.approx((neg[a] - neg[c])[observed].sum(), abs=1e-10)
    assert all(np.isfinite(t.weight) for t in e.contributions)
    assert {t.feature for t in e.contributions} <= {f"x{j}" for j in np.flatnonzero(observed)}


@pytest.mark.parametrize(
    "model",
    [bk.MultinomialNB(), bk.CategoricalNB(), bk.PoissonNB(), bk.ComplementNB()],
    ids=lambda m: type(m).__name__,
)
def test_prior_is_the_class_prior(model):
    model.fit(COUNTS, Y)
    if isinstance(model, bk.ComplementNB):  # its scores leave the prior out (Rennie 2003)
        e = explain(model, COUNTS[0])
        assert e.prior == 0.0
        return
    e, _, _ = _check(model, COUNTS[1])
    if not isinstance(model, bk.PoissonNB):  # Poisson's bias holds −Σ λ as well
        assert e.intercept == 0.0


def test_lda_intercept_is_fishers_constant():
    X = RNG.normal(size=(120, 3)) + np.repeat(np.eye(3), 40, axis=0)
    y = np.repeat(["a", "b", "c"], 40)
    model = bk.LinearDiscriminantAnalysis().fit(X, y[np.argsort(RNG.random(120))])
    e, a, c = _check(model, X[0])
    inv = np.linalg.inv(model.covariance_)
    mu = model.means_
    fisher = -0.5 * (mu[a] @ inv @ mu[a] - mu[c] @ inv @ mu[c])
    assert e.intercept == pytest.approx(fisher, rel=1e-8)


@pytest.mark.parametrize("which", ["linear", "network"])
def test_same_class_twice_is_refused(which):
    X = COUNTS.astype(int)
    model = (bk.MultinomialNB() if which == "linear" else bk.TANClassifier()).fit(X, Y)
    with pytest.raises(ParameterError, match="both 'spam'"):
        explain(model, X[1], label="spam", versus="spam")
    # versus alone: the label is the most likely other class, never versus itself
    jll = model.predict_joint_log_proba(X[1:2])[0]
    top = model.classes_[np.argmax(jll)]
    e = explain(model, X[1], versus=top)
    assert e.label != top
    assert e.versus == top
    others = [k for k in range(3) if model.classes_[k] != top]
    assert e.label == model.classes_[max(others, key=lambda k: jll[k])]


def test_not_a_model_is_refused():
    with pytest.raises(BayeskitError, match="a str has neither a linear form"):
        explain("a model", [1, 2])
    y = np.array(["ham", "spam", None] * 30, dtype=object)
    semi = bk.SemiSupervisedNB(bk.MultinomialNB()).fit(COUNTS, y)
    with pytest.raises(BayeskitError, match=r"explain model.fitted_estimator\(\)"):
        explain(semi, COUNTS[0])
    _check(semi.fitted_estimator(), COUNTS[0])


@pytest.mark.parametrize("row", [[np.nan, 4, 1, 0], [2, np.nan, np.nan, 1], [3, 0, 1, 1]])
def test_poisson_missing_value_is_no_evidence(row):
    """A missing value's indicator column (``x0=<missing>``) was listed as a term of its own,
    though it only cancels that column's share of the bias: a missing value is no evidence."""
    model = bk.PoissonNB().fit(COUNTS, Y)
    e, a, c = _check(model, row)
    assert not [t for t in e.contributions if "<missing>" in t.feature and t.weight != 0]
    observed = ~np.isnan(row)
    rate = model.feature_rate_
    assert e.intercept == pytest.approx(-(rate[a] - rate[c])[observed].sum(), abs=1e-10)
    # each observed feature's term with the intercept's share is its own log-likelihood ratio
    log_rate = model.feature_log_rate_
    for t in e.contributions:
        if t.feature.startswith("x") and "=" not in t.feature:
            j = int(t.feature[1:])
            assert t.weight == pytest.approx(row[j] * (log_rate[a, j] - log_rate[c, j]))
