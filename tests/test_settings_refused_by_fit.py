"""Settings no model can be made of are refused by fit — and by set_params on a fitted model,
which then keeps its own — not by every later predict."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import ParameterError
from bayeskit.text import TextClassifier

X = np.random.default_rng(0).normal(size=(30, 3))
y = np.array([0, 1, 2] * 10)


@pytest.mark.parametrize(
    ("setting", "match"),
    [
        ({"loss": "zzz"}, "loss must be a square matrix"),
        ({"loss": [[0, 1], [1, 0]]}, r"loss has shape \(2, 2\); it must be \(3, 3\)"),
        ({"loss": [[0, 1, 1], [1, 0, -1], [1, 1, 0]]}, r"loss\[1, 2\] = -1.0"),
        ({"class_weight": {0: -2}}, r"class_weight\[0\] = -2"),
        ({"class_weight": [1, np.nan, 1]}, "finite, >= 0"),
        ({"class_weight": "heavy"}, "class_weight='heavy'"),
    ],
)
@pytest.mark.parametrize("name", ["GaussianNB", "MixedNB", "LinearDiscriminantAnalysis"])
def test_fit_refuses_a_decision_setting(name, setting, match):
    with pytest.raises(ParameterError, match=match):
        getattr(bk, name)(**setting).fit(X, y)
    fitted = getattr(bk, name)().fit(X, y)
    before = fitted.predict_proba(X)
    with pytest.raises(ParameterError, match=match):
        fitted.set_params(**setting)
    assert fitted.get_params()[next(iter(setting))] is None  # kept its own
    np.testing.assert_array_equal(fitted.predict_proba(X), before)


def test_set_params_on_a_fitted_model_keeps_it_whole():
    fitted = bk.MultinomialNB().fit(np.abs(X), y)
    before = fitted.predict_proba(np.abs(X))
    with pytest.raises(ParameterError, match="alpha must be >= 0"):
        fitted.set_params(alpha=-1)
    assert fitted.alpha == 1.0
    np.testing.assert_array_equal(fitted.predict_proba(np.abs(X)), before)
    # an unknown name is refused before any other is set
    with pytest.raises(ParameterError, match="Invalid parameter 'zzz'"):
        fitted.set_params(alpha=2.0, zzz=1)
    assert fitted.alpha == 1.0
    unfitted = bk.MultinomialNB()
    with pytest.raises(ParameterError, match="Invalid parameter 'zzz'"):
        unfitted.set_params(alpha=2.0, zzz=1)
    assert unfitted.alpha == 1.0
    # a nested setting is put back too
    text = TextClassifier().fit(["a b", "c d"] * 3, [0, 1] * 3)
    text.set_params(model__alpha=0.5)
    with pytest.raises(ParameterError, match="alpha must be >= 0"):
        text.set_params(model__alpha=-1)
    assert text.model.alpha == 0.5


def test_a_regularisation_beyond_any_variance_is_refused_by_name():
    # it overflowed the mixtures' BIC: numpy's "All-NaN slice encountered" came through
    with pytest.raises(ParameterError, match=r"reg_covar=1e\+308 .* from 0 to 1e\+300"):
        bk.GaussianMixtureClassifier(reg_covar=1e308).fit(X, y)
    bk.GaussianMixtureClassifier(reg_covar=1e300).fit(X, y)


def test_a_spam_filters_settings_are_refused_by_fit_and_set_params():
    from bayeskit.text import SpamFilter

    docs, labels = ["win money now", "lunch at noon"] * 6, ["spam", "ham"] * 6
    for setting, match in [
        ({"spam_cutoff": 0.1, "ham_cutoff": 0.2}, "cutoffs must satisfy"),
        ({"scoring": "bad"}, "scoring must be"),
        ({"ham_label": "spam"}, "both 'spam'"),
    ]:
        with pytest.raises(ParameterError, match=match):
            SpamFilter(**setting).fit(docs, labels)
    fitted = SpamFilter().fit(docs, labels)
    before = fitted.predict_proba(docs)
    for setting in [
        {"scoring": "bad"},
        {"scoring": "fisher", "token_strength": -1},
        {"ham_label": "nope"},
        {"spam_cutoff": 0.1},
    ]:
        with pytest.raises(bk.errors.BayeskitError):
            fitted.set_params(**setting)
    assert (fitted.scoring, fitted.ham_label, fitted.spam_cutoff) == ("naive_bayes", "ham", 0.9)
    np.testing.assert_array_equal(fitted.predict_proba(docs), before)


def test_an_unknown_nested_name_is_refused_before_anything_is_set():
    text = TextClassifier()
    with pytest.raises(ParameterError, match=r"Invalid parameter 'bogus' .*\(model\)"):
        text.set_params(useful_terms=3, model__bogus=1)
    assert text.useful_terms is None
    assert text.model is None  # the default part made for the nested name is not kept
