"""Python's ``explain`` splits the decisions of naive Bayes models that are not linear in their
features (the default GaussianNB, KernelNB, MixedNB), as ``bayeskit explain`` does: each value's
term is the log-odds less the log-odds with that value missing. It refused them ("a linear
discriminant exists for shared_variance=True … only"), the default GaussianNB included."""

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy.stats import norm
from sklearn.datasets import load_iris

import bayeskit as bk
from bayeskit.errors import ParameterError
from bayeskit.inspection import explain

X, Y = load_iris(return_X_y=True)


def _sum(e):
    return e.prior + e.intercept + sum(c.weight for c in e.contributions)


def _log_odds(model, row, e):
    jll = model.predict_joint_log_proba(row)[0]
    classes = list(model.classes_)
    return jll[classes.index(e.label)] - jll[classes.index(e.versus)]


@pytest.mark.parametrize("make", [bk.GaussianNB, bk.KernelNB, bk.MixedNB])
def test_the_terms_add_up_to_the_models_log_odds(make):
    model = make().fit(X, Y)
    for i in (0, 60, 70, 120, 133):
        e = explain(model, X[i])
        assert e.log_odds == pytest.approx(_log_odds(model, X[i : i + 1], e), abs=1e-9)
        assert _sum(e) == pytest.approx(e.log_odds, abs=1e-9)
        assert e.prior == pytest.approx(
            model.class_log_prior_[list(model.classes_).index(e.label)]
            - model.class_log_prior_[list(model.classes_).index(e.versus)],
            abs=1e-12,
        )


def test_a_gaussian_term_is_the_difference_of_the_two_classes_log_densities():
    model = bk.GaussianNB().fit(X, Y)
    e = explain(model, X[70], label=1, versus=2)
    a, c = 1, 2
    for term in e.contributions:
        j = int(term.feature[1:])
        sd = np.sqrt(model.var_)
        expected = norm.logpdf(X[70, j], model.theta_[a, j], sd[a, j]) - norm.logpdf(
            X[70, j], model.theta_[c, j], sd[c, j]
        )
        assert term.weight == pytest.approx(expected, abs=1e-9)
        assert term.value == X[70, j]
    weights = [abs(t.weight) for t in e.contributions]
    assert weights == sorted(weights, reverse=True)


def test_frames_of_either_kind_and_missing_values():
    frame = pd.DataFrame(
        {"colour": ["red", "blue", "red", "green"] * 10, "size": np.arange(40.0) % 7}
    )
    y = np.array(["a", "b"] * 20)
    model = bk.MixedNB().fit(frame, y)
    row = frame.iloc[[3]]
    from_pandas = explain(model, row)
    from_polars = explain(model, pl.from_pandas(row))
    assert from_pandas == from_polars
    assert [c.feature for c in from_pandas.contributions] == ["colour", "size"]
    assert from_pandas.contributions[0].value == "green"
    assert _sum(from_pandas) == pytest.approx(_log_odds(model, row, from_pandas), abs=1e-9)
    gap = explain(model, row.assign(size=np.nan))  # a missing value: no term, no share
    assert [c.feature for c in gap.contributions] == ["colour"]
    assert gap.contributions[0].weight == pytest.approx(from_pandas.contributions[0].weight)
    assert "(x = 'green')" in str(gap)


def test_a_model_whose_features_interact_and_take_no_missing_values_is_still_refused():
    model = bk.QuadraticDiscriminantAnalysis().fit(X, Y)
    with pytest.raises(ParameterError):
        explain(model, X[0])
