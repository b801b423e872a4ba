"""SpamFilter's probability scale: Platt scaling on held-out scores kept as additive counts."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from bayeskit.datasets import load_sms_spam
from bayeskit.errors import ParameterError
from bayeskit.io.model_file import load, save
from bayeskit.naive_bayes import MultinomialNB
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer
from bayeskit.text import calibration as cal

TEXTS, LABELS = load_sms_spam()


@pytest.fixture(scope="module")
def sms_filter():
    return SpamFilter().fit(TEXTS[:3000], LABELS[:3000])


def test_fit_scale_recovers_a_logistic_map():
    rng = np.random.default_rng(0)
    scores = rng.normal(0.0, 20.0, 200_000)
    is_spam = rng.random(len(scores)) < expit(0.15 * scores - 1.0)
    a, b = cal.fit_scale(cal.score_counts(scores, is_spam))
    assert a == pytest.approx(0.15, rel=0.03)
    assert b == pytest.approx(-1.0, abs=0.05)


def test_scores_of_any_size_are_resolved():
    # Weight-normalised ComplementNB gives log-odds of hundredths: the grid still separates them.
    rng = np.random.default_rng(1)
    scores = rng.normal(0.0, 0.02, 50_000)
    is_spam = rng.random(len(scores)) < expit(150.0 * scores)
    a, b = cal.fit_scale(cal.score_counts(scores, is_spam))
    assert a == pytest.approx(150.0, rel=0.05)
    assert abs(b) < 0.05


def test_one_class_or_no_scores_keep_the_model_probabilities():
    assert cal.fit_scale(cal.empty_counts()) == cal.IDENTITY
    only_ham = cal.score_counts(np.array([-3.0, -2.0]), np.array([False, False]))
    assert cal.fit_scale(only_ham) == cal.IDENTITY


def test_probability_is_the_scaled_log_odds(sms_filter):
    docs = TEXTS[4000:4200]
    joint = sms_filter.predict_joint_log_proba(docs)
    spam = sms_filter.classes_.tolist().index("spam")
    a, b = sms_filter.calibration_
    expected = expit(a * (joint[:, spam] - joint[:, 1 - spam]) + b)
    np.testing.assert_allclose(sms_filter.spam_probability(docs), expected, rtol=1e-12)
    proba = sms_filter.predict_proba(docs)
    np.testing.assert_allclose(proba[:, spam], expected, rtol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.exp(sms_filter.predict_log_proba(docs)), proba, rtol=1e-9)
    assert a > 0  # higher log-odds, more likely spam
    assert sms_filter.score_counts_.sum() == 3000


def test_the_scale_shrinks_overconfident_counts():
    # Overlapping n-grams counted as independent evidence make a count model overconfident:
    # the scale shrinks its log-odds. (The default's unit-length documents give log-odds of a
    # few units: its scale stretches them instead.)
    counts = SpamFilter(
        vectorizer=TextVectorizer(analyzer="auto", ngram_range=(1, 2)),
        model=MultinomialNB(alpha=0.3),
    ).fit(TEXTS[:3000], LABELS[:3000])
    assert 0 < counts.calibration_[0] < 0.5


def test_unsure_band_holds_the_doubtful_messages(sms_filter):
    docs, truth = TEXTS[3000:], LABELS[3000:]
    verdict = sms_filter.classify(docs)
    predicted = sms_filter.predict(docs)
    unsure = verdict == "unsure"
    assert 0.005 < unsure.mean() < 0.1
    error_inside = (predicted[unsure] != truth[unsure]).mean()
    error_outside = (verdict[~unsure] != truth[~unsure]).mean()
    assert error_inside > 5 * error_outside


def test_partial_fit_adds_scores_taken_before_learning(sms_filter):
    f = SpamFilter().fit(TEXTS[:1000], LABELS[:1000])
    before = f.score_counts_.copy()
    joint = f.predict_joint_log_proba(TEXTS[1000:1500])
    spam = f.classes_.tolist().index("spam")
    new = cal.score_counts(joint[:, spam] - joint[:, 1 - spam], LABELS[1000:1500] == "spam")
    f.partial_fit(TEXTS[1000:1500], LABELS[1000:1500])
    np.testing.assert_array_equal(f.score_counts_, before + new)
    assert f.calibration_ == cal.fit_scale(before + new)


def test_train_on_error_adds_every_score():
    f = SpamFilter().fit(TEXTS[:1000], LABELS[:1000])
    before = f.score_counts_.sum()
    f.train_on_error(TEXTS[1000:1400], LABELS[1000:1400])
    assert f.score_counts_.sum() == before + 400


def test_merged_filters_add_their_counts():
    a = SpamFilter().fit(TEXTS[:800], LABELS[:800])
    b = SpamFilter().fit(TEXTS[800:1600], LABELS[800:1600])
    merged = a + b
    np.testing.assert_array_equal(merged.score_counts_, a.score_counts_ + b.score_counts_)
    assert merged.calibration_ == cal.fit_scale(a.score_counts_ + b.score_counts_)


def test_without_calibration_the_model_probabilities_are_kept():
    f = SpamFilter(calibration_folds=None).fit(TEXTS[:800], LABELS[:800])
    assert f.calibration_ == cal.IDENTITY
    np.testing.assert_allclose(
        f.predict_proba(TEXTS[900:950]), TextClassifier.predict_proba(f, TEXTS[900:950]), rtol=1e-9
    )
    assert SpamFilter.sklearn_defaults().calibration_folds is None


def test_model_file_keeps_the_scale(sms_filter, tmp_path):
    path = tmp_path / "sms.bk"
    save(sms_filter, path)
    loaded = load(path)
    assert loaded.calibration_ == sms_filter.calibration_
    np.testing.assert_array_equal(loaded.score_counts_, sms_filter.score_counts_)
    np.testing.assert_array_equal(
        loaded.classify(TEXTS[4000:4300]), sms_filter.classify(TEXTS[4000:4300])
    )


@pytest.mark.parametrize("folds", [0, 1, True, 2.5, "5"])
def test_bad_folds_are_refused_and_nothing_changes(folds):
    f = SpamFilter().fit(TEXTS[:300], LABELS[:300])
    scale = f.calibration_
    with pytest.raises(ParameterError, match="calibration_folds"):
        f.set_params(calibration_folds=folds).fit(TEXTS[300:600], LABELS[300:600])
    assert f.calibration_ == scale


def test_a_separable_few_valued_fit_reaches_platts_minimum():
    """Ham tied at one score and spam at two higher ones (Fisher scoring's zeros do this):
    plain Newton steps diverged to a slope of 1e11 and a step function at 0.005; the line
    search (Lin, Lin & Weng 2007) reaches the minimum of Platt's loss, as scipy's BFGS does."""
    from scipy.optimize import minimize

    s_ham, s_one, s_two = cal.CENTRES[419], cal.CENTRES[537], cal.CENTRES[668]
    scores = np.r_[np.full(64434, s_ham), np.full(503, s_one), np.full(991, s_two)]
    is_spam = np.r_[np.zeros(64434), np.ones(1494)]
    a, b = cal.fit_scale(cal.score_counts(scores, is_spam))
    hi, lo = 1495 / 1496, 1 / 64436
    target = np.where(is_spam == 1, hi, lo)

    def loss(v):
        z = v[0] * scores + v[1]
        return np.sum(target * np.logaddexp(0, -z) + (1 - target) * np.logaddexp(0, z))

    best = minimize(loss, [1.0, 0.0], method="BFGS")
    assert loss([a, b]) <= best.fun * (1 + 1e-9)
    np.testing.assert_allclose([a, b], best.x, rtol=1e-4)


@pytest.mark.parametrize("score", [0.0, 0.02, 3.0, -50.0, 200.0])
def test_scores_all_in_one_bin_are_no_evidence_of_a_slope(score):
    """Every score tied: any slope fits as well as any other, and Newton drifted to one of
    4000 (P 0 or 1 at ±5 for a model that scores everything 0). The model's own scale is
    kept, as for counts of one class."""
    counts = cal.score_counts(np.full(8, score), np.repeat([False, True], 4))
    assert cal.fit_scale(counts) == cal.IDENTITY


def test_random_counts_are_never_fitted_worse_than_a_flat_scale():
    """Weighted counts in a few nearby bins (weights from 1e-3 to 1e9): a fitted scale is
    never worse on Platt's loss than the flat one (slope 0 at the mean target), which bounds
    its minimum; plain Newton steps diverged on 3 % of such draws (losses up to 5e15 against
    minima near 100)."""
    rng = np.random.default_rng(5)
    for _ in range(600):
        counts = cal.empty_counts()
        for row in (0, 1):
            k = rng.integers(1, 6)
            bins = np.clip(rng.integers(0, cal.BINS) + rng.integers(-60, 60, k), 0, cal.BINS - 1)
            counts[row, bins] += 10 ** rng.uniform(-3, 9, k)
        a, b = cal.fit_scale(counts)
        if (a, b) == cal.IDENTITY:
            continue
        ham, spam = counts
        hi, lo = (spam.sum() + 1) / (spam.sum() + 2), 1 / (ham.sum() + 2)

        def loss(a, b, ham=ham, spam=spam, hi=hi, lo=lo):
            z = a * cal.CENTRES + b
            pos, neg = np.logaddexp(0, -z), np.logaddexp(0, z)
            return float(spam @ (hi * pos + (1 - hi) * neg) + ham @ (lo * pos + (1 - lo) * neg))

        mean = (spam.sum() * hi + ham.sum() * lo) / counts.sum()
        flat = loss(0.0, float(np.log(mean / (1 - mean))))
        assert loss(a, b) <= flat * (1 + 1e-9) + 1e-9, (a, b, loss(a, b), flat)
