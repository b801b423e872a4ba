"""Robinson's token probabilities and Fisher's χ² combining (scoring="fisher")."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import gammainc, gammaincc

from bayeskit.datasets import load_sms_spam
from bayeskit.errors import ParameterError
from bayeskit.text import SpamFilter, TextVectorizer, fisher

TEXTS, LABELS = load_sms_spam()


@given(st.floats(0.0, 3000.0), st.integers(1, 2000))
def test_tails_are_the_chi_square_tails(chi_half, n):
    log_q, log_p = fisher.log_tails(chi_half, n)
    q, p = gammaincc(n, chi_half), gammainc(n, chi_half)  # Q(n, m) = χ² survival at 2m, 2n df
    for log_value, value in ((log_q, q), (log_p, p)):
        if value > 1e-300:
            assert math.exp(log_value) == pytest.approx(value, rel=1e-9, abs=1e-300)
        else:  # beyond double precision: still ordered, far below
            assert log_value < math.log(1e-290)


def test_indicator_is_bogofilter_formula():
    fs = [0.99, 0.97, 0.2, 0.9, 0.04]
    telling = [f for f in fs if abs(f - 0.5) >= 0.375]
    n = len(telling)
    h = gammaincc(n, -sum(math.log(f) for f in telling))
    s = gammaincc(n, -sum(math.log(1 - f) for f in telling))
    indicator = (1 + h - s) / 2
    assert fisher.combine(fs, 0.375) == pytest.approx(math.log(indicator / (1 - indicator)))
    assert fisher.combine([0.6, 0.4], 0.375) == 0.0


def test_token_probability_is_robinsons():
    # held by 3 of 10 spam and 1 of 20 ham: p = 0.3 / (0.3 + 0.05)
    p = 0.3 / 0.35
    assert fisher.token_probability(1, 3, 20, 10, 0.5, 0.4) == pytest.approx(
        (0.5 * 0.4 + 4 * p) / 4.5
    )
    assert fisher.token_probability(0, 0, 20, 10, 0.5, 0.4) == 0.4


@pytest.fixture(scope="module")
def fisher_filter():
    return SpamFilter(scoring="fisher", calibration_folds=None).fit(TEXTS[:1500], LABELS[:1500])


def test_batch_scores_are_the_per_message_combining(fisher_filter):
    vec, model = fisher_filter.fitted_parts()
    spam = list(model.classes_).index("spam")
    got = fisher_filter.log_odds(TEXTS[1500:1600])
    for text, score in zip(TEXTS[1500:1600], got, strict=True):
        columns = vec.transform([text]).indices  # the message's known terms
        fs = [
            fisher.token_probability(
                model.feature_count_[1 - spam, j],
                model.feature_count_[spam, j],
                model.class_count_[1 - spam],
                model.class_count_[spam],
                fisher.STRENGTH,
                fisher.PRIOR,
            )
            for j in columns
        ]
        assert score == pytest.approx(fisher.combine(fs, fisher.MIN_DEV), abs=1e-9)


def test_fisher_scores_stay_exact_under_partial_fit_merge_and_unlearn(fisher_filter):
    def params():
        return SpamFilter(scoring="fisher", calibration_folds=None)

    a = params().fit(TEXTS[:700], LABELS[:700])
    b = params().fit(TEXTS[700:1500], LABELS[700:1500])
    probe = TEXTS[1500:1700]
    whole = fisher_filter.log_odds(probe)
    np.testing.assert_array_equal((a + b).log_odds(probe), whole)
    grown = (
        params()
        .partial_fit(TEXTS[:700], LABELS[:700])
        .partial_fit(TEXTS[700:1500], LABELS[700:1500])
    )
    np.testing.assert_array_equal(grown.log_odds(probe), whole)
    grown.unlearn(TEXTS[700:1500], LABELS[700:1500])
    np.testing.assert_allclose(grown.log_odds(probe), a.log_odds(probe), atol=1e-9)


def test_calibrated_fisher_filter_ranks_by_its_score():
    f = SpamFilter(scoring="fisher").fit(TEXTS[:1500], LABELS[:1500])
    assert f.calibration_ != (1.0, 0.0)
    p, z = f.spam_probability(TEXTS[1500:1800]), f.log_odds(TEXTS[1500:1800])
    order = np.argsort(z, kind="stable")
    assert np.all(np.diff(p[order]) >= 0)
    assert (f.predict(TEXTS[1500:1800]) == LABELS[1500:1800]).mean() > 0.9


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"scoring": "robinson"}, "scoring"),
        ({"scoring": "fisher", "token_strength": 0}, "token_strength"),
        ({"scoring": "fisher", "token_prior": 1.0}, "token_prior"),
        ({"scoring": "fisher", "min_dev": 0.5}, "min_dev"),
        ({"scoring": "fisher", "nb_weight": -1}, "nb_weight"),
        ({"scoring": "fisher", "vectorizer": TextVectorizer()}, "output='binary'"),
    ],
)
def test_bad_scoring_parameters_are_named(params, named):
    with pytest.raises(ParameterError, match=named):
        SpamFilter(**params).fit(TEXTS[:50], LABELS[:50])


@pytest.mark.parametrize(
    ("probabilities", "expected"),
    [
        ([1.0], math.inf),  # S = Q(1, inf) = 0, H = Q(1, 0) = 1: I = 1
        ([0.0], -math.inf),  # H = 0, S = 1: I = 0
        ([1.0, 0.0], 0.0),  # H = S = 0: I = 1/2
    ],
)
def test_a_token_probability_of_0_or_1_puts_its_tail_at_its_limit(probabilities, expected):
    assert fisher.combine(probabilities, 0.375) == expected


def test_one_saturated_token_beside_others_gives_a_finite_score():
    score = fisher.combine([1.0, 0.02], 0.375)
    assert math.isfinite(score)
    assert score > 0  # the saturated spam token outweighs the ham one


def test_a_filter_whose_token_probabilities_saturate_scores_without_error():
    texts, labels = load_sms_spam()
    texts, labels = texts[:400], labels[:400]
    for strength in (1e-17, 1e-300):
        model = SpamFilter(scoring="fisher", token_strength=strength).fit(texts, labels)
        scores = model.log_odds(texts[:50])
        assert not np.isnan(scores).any()
        p = model.predict_proba(texts[:50])
        assert np.isfinite(p).all()
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
    # a message weighed as 10^15 messages: its tokens' f rounds to 0 or 1
    weights = np.ones(len(texts))
    weights[0] = 1e15
    model = SpamFilter(scoring="fisher", calibration_folds=None).fit(
        texts, labels, sample_weight=weights
    )
    assert not np.isnan(model.log_odds(texts[:50])).any()


def test_a_token_at_min_dev_is_left_out_as_bogofilter_leaves_it_out():
    # "offer" in 3 of 4 spam and 1 of 4 ham, s = 1, x = 1/2: f = 0.7 exactly (0.2 from 1/2,
    # 0.19999999999999996 in float64); at min_dev = 0.2 it is at the bound: not telling,
    # in the library and in the pure-Python combining the token store uses alike
    texts = ["offer aaa", "offer bbb", "offer ccc", "ddd", "offer eee", "fff", "ggg", "hhh"]
    labels = ["spam"] * 4 + ["ham"] * 4
    settings = {"token_strength": 1, "token_prior": 0.5, "calibration_folds": None}
    at_bound = SpamFilter(scoring="fisher", min_dev=0.2, **settings).fit(texts, labels)
    assert at_bound.log_odds(["offer"])[0] == 0.0
    assert fisher.combine([0.7], 0.2) == 0.0
    assert fisher.combine([0.3], 0.2) == 0.0
    inside = SpamFilter(scoring="fisher", min_dev=0.19, **settings).fit(texts, labels)
    assert inside.log_odds(["offer"])[0] == pytest.approx(fisher.combine([0.7], 0.19))
    assert inside.log_odds(["offer"])[0] > 0
