"""smoothing="corpus": a Dirichlet prior centred on the pooled distribution of all classes,
tempered by ``corpus_power`` (γ: the mean is ``N_j^γ / Σ_k N_k^γ``).

The laws (fit ≡ partial_fits, merge, unlearn, save/load) run in the common grid
(tests/_grid.py, the "-corpus" cases); here: the formula, the default staying scikit-learn's,
the edge cases (unseen features, no data, per-feature alpha) and the refusals.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import ComplementNB as SkComplementNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import bayeskit as bk
from bayeskit.errors import ParameterError
from bayeskit.families._dirichlet import corpus_pseudo_count


def data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.poisson(rng.uniform(0.1, 3.0, size=12), size=(40, 12)).astype(float)
    y = rng.integers(0, 3, size=40)
    X[y == 1, :3] += rng.poisson(2.0, size=(int(np.sum(y == 1)), 3))
    return X, y


def by_hand(X: np.ndarray, y: np.ndarray, alpha: float, power: float = 1.0) -> np.ndarray:
    """ln θ_cj = ln (N_cj + αD q_j) − ln (N_c + αD), q_j = N_j^γ / Σ_k N_k^γ."""
    classes = np.unique(y)
    N = np.stack([X[y == c].sum(axis=0) for c in classes])
    q = N.sum(axis=0) ** power / np.sum(N.sum(axis=0) ** power)
    D = X.shape[1]
    return np.log(N + alpha * D * q) - np.log(N.sum(axis=1, keepdims=True) + alpha * D)


@pytest.mark.parametrize("power", [0.0, 0.25, 0.5, 1.0])
@pytest.mark.parametrize("alpha", [0.1, 1.0, 5.0])
def test_multinomial_corpus_formula(alpha, power):
    X, y = data()
    model = bk.MultinomialNB(alpha=alpha, smoothing="corpus", corpus_power=power).fit(X, y)
    np.testing.assert_allclose(model.feature_log_prob_, by_hand(X, y, alpha, power), rtol=1e-12)
    # Sparse input gives the same model.
    sparse = bk.MultinomialNB(alpha=alpha, smoothing="corpus", corpus_power=power)
    sparse.fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.feature_log_prob_, model.feature_log_prob_, rtol=1e-12)
    # The class prior is unchanged: only the word distributions are smoothed differently.
    uniform = bk.MultinomialNB(alpha=alpha).fit(X, y)
    np.testing.assert_allclose(model.class_log_prior_, uniform.class_log_prior_)


@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("power", [0.5, 1.0])
def test_complement_corpus_formula(norm, power):
    X, y = data(1)
    alpha, D = 0.5, X.shape[1]
    classes = np.unique(y)
    N = np.stack([X[y == c].sum(axis=0) for c in classes])
    q = N.sum(axis=0) ** power / np.sum(N.sum(axis=0) ** power)
    comp = N.sum(axis=0) - N + alpha * D * q
    logged = np.log(comp) - np.log(comp.sum(axis=1, keepdims=True))
    expected = logged / logged.sum(axis=1, keepdims=True) if norm else -logged
    model = bk.ComplementNB(alpha=alpha, smoothing="corpus", norm=norm, corpus_power=power)
    model.fit(X, y)
    np.testing.assert_allclose(model.feature_log_prob_, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (bk.MultinomialNB, SkMultinomialNB),
        (bk.ComplementNB, SkComplementNB),
    ],
)
def test_the_default_stays_scikit_learns(ours, theirs):
    X, y = data(2)
    assert ours().smoothing == "uniform"
    a = ours(alpha=0.3).fit(X, y)
    b = theirs(alpha=0.3).fit(X, y)
    np.testing.assert_allclose(a.feature_log_prob_, b.feature_log_prob_, rtol=1e-12)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10)


def test_a_common_word_loses_less_than_a_rare_one_when_a_class_has_not_seen_it():
    # Class "a" never saw either word; the corpus prior gives the common one (seen 50 times in
    # "b") more probability in "a" than the rare one (seen once), uniform smoothing the same.
    X = np.array([[5, 0, 0], [4, 0, 0], [0, 25, 1], [0, 25, 0]], dtype=float)
    y = np.array(["a", "a", "b", "b"])
    for power in (0.5, 1.0):
        model = bk.MultinomialNB(alpha=0.1, smoothing="corpus", corpus_power=power)
        corpus = model.fit(X, y).feature_log_prob_
        assert corpus[0, 1] > corpus[0, 2] + 1.0
    uniform = bk.MultinomialNB(alpha=0.1).fit(X, y).feature_log_prob_
    assert uniform[0, 1] == uniform[0, 2]


def one_class_words(power: float, alpha: float = 0.2) -> np.ndarray:
    """The log-odds spam : ham of words seen in spam only, 1, 3, 10, 30, 100 and 300 times
    (one ham word to give ham some counts)."""
    seen = np.array([1, 3, 10, 30, 100, 300], dtype=float)
    X = np.zeros((2, len(seen) + 1))
    X[0, -1] = 50.0  # ham
    X[1, :-1] = seen  # spam
    flp = bk.MultinomialNB(alpha=alpha, smoothing="corpus", corpus_power=power)
    flp = flp.fit(X, ["ham", "spam"]).feature_log_prob_
    return flp[1, :-1] - flp[0, :-1]


def test_zhai_laffertys_prior_weighs_a_one_class_word_the_same_however_often_it_was_seen():
    # γ = 1: θ_spam/θ_ham of a word only spam has does not depend on its count (the flaw: one
    # spam's one-off word weighs in a ham e-mail as much as a word every spam uses).
    log_odds = one_class_words(1.0)
    np.testing.assert_allclose(log_odds, log_odds[0], rtol=1e-12)


@pytest.mark.parametrize("power", [0.0, 0.25, 0.5, 0.75])
def test_a_tempered_prior_weighs_a_one_class_word_by_how_often_it_was_seen(power):
    # γ < 1: the log-odds is ln(1 + c n^(1−γ)) + const, growing with the count n; once the
    # count dominates its pseudo-count, by (1 − γ) ln n (tenfold count: (1 − γ) ln 10 more).
    log_odds = one_class_words(power)
    assert np.all(np.diff(log_odds) > 0)
    n = np.array([1, 3, 10, 30, 100, 300], dtype=float)
    pooled = np.append(n, 50.0) ** power
    c = 1.0 / (0.2 * 7 * pooled[:-1] / pooled.sum())  # 1 / pseudo-count of each word
    spam_total, ham_total = n.sum() + 0.2 * 7, 50.0 + 0.2 * 7
    expected = np.log1p(c * n) - np.log(spam_total) + np.log(ham_total)
    np.testing.assert_allclose(log_odds, expected, rtol=1e-12)
    if power <= 0.5:  # the count dominates from the start: close to (1 − γ) ln 10 per tenfold
        np.testing.assert_allclose(log_odds[4] - log_odds[2], (1 - power) * np.log(10), rtol=0.1)


def test_a_word_seen_in_both_classes_still_falls_back_on_how_common_it_is():
    # Tempering keeps what the corpus prior is for: a class that never saw a word gives it more
    # probability the more common the word is elsewhere.
    X = np.array([[5, 0, 0], [0, 40, 1]], dtype=float)
    flp = bk.MultinomialNB(alpha=0.1, smoothing="corpus", corpus_power=0.5)
    flp = flp.fit(X, ["a", "b"]).feature_log_prob_
    assert flp[0, 1] - flp[0, 2] == pytest.approx(0.5 * np.log(40), rel=1e-12)


def test_power_zero_is_the_uniform_prior():
    X, y = data(6)
    X[:, 0] += 1  # every feature seen: the tempered mean at γ = 0 is 1/D
    tempered = bk.MultinomialNB(alpha=0.4, smoothing="corpus", corpus_power=0.0).fit(X, y)
    uniform = bk.MultinomialNB(alpha=0.4).fit(X, y)
    np.testing.assert_allclose(tempered.feature_log_prob_, uniform.feature_log_prob_, rtol=1e-12)


def test_a_feature_no_class_has_seen_gets_alpha_and_finite_probabilities():
    X = np.array([[2, 1, 0], [3, 0, 0], [0, 4, 0]], dtype=float)
    y = np.array([0, 0, 1])
    for cls in (bk.MultinomialNB, bk.ComplementNB):
        model = cls(alpha=0.5, smoothing="corpus").fit(X, y)
        assert np.all(np.isfinite(model.feature_log_prob_))
        proba = model.predict_proba([[0, 0, 7], [1, 0, 3]])
        assert np.all(np.isfinite(proba))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # The unseen feature tells the classes nothing: a document of it alone gets the prior.
    model = bk.MultinomialNB(alpha=0.5, smoothing="corpus", corpus_power=1.0).fit(X, y)
    N_c = np.array([6.0, 4.0])
    pseudo = 0.5 * 3 / 10 * np.array([5.0, 5.0])
    expected = np.log(0.5) - np.log(N_c + pseudo.sum() + 0.5)
    np.testing.assert_allclose(model.feature_log_prob_[:, 2], expected, rtol=1e-12)


def test_per_feature_alpha():
    X, y = data(3)
    alpha = np.linspace(0.1, 2.0, X.shape[1])
    model = bk.MultinomialNB(alpha=alpha, smoothing="corpus", corpus_power=1.0).fit(X, y)
    classes = np.unique(y)
    N = np.stack([X[y == c].sum(axis=0) for c in classes])
    num = N + alpha * X.shape[1] * N.sum(axis=0) / N.sum()
    expected = np.log(num) - np.log(num.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(model.feature_log_prob_, expected, rtol=1e-12)


def test_partial_fit_with_an_empty_class_so_far():
    # partial_fit declares a class it has no rows of yet: that class gets the prior's mean.
    X, y = data(4)
    model = bk.MultinomialNB(smoothing="corpus").partial_fit(X, y, classes=[0, 1, 2, 3])
    p = np.sqrt(X.sum(axis=0)) / np.sqrt(X.sum(axis=0)).sum()  # corpus_power 0.5
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[3]), p, rtol=1e-12)


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.ComplementNB])
def test_refusals_leave_the_model_unfitted_and_name_the_rule(cls):
    X, y = data()
    with pytest.raises(ParameterError, match="smoothing='laplace' is not one of"):
        cls(smoothing="laplace").fit(X, y)
    with pytest.raises(ParameterError, match="needs estimate='mean'"):
        cls(alpha=2.0, estimate="map", smoothing="corpus").fit(X, y)
    for power in (-0.1, 1.5, "half", True, np.nan):
        with pytest.raises(ParameterError, match=r"corpus_power must be a number in \[0, 1\]"):
            cls(smoothing="corpus", corpus_power=power).fit(X, y)
    model = cls(smoothing="corpus").fit(X, y)
    before = model.predict_proba(X)
    with pytest.raises(ParameterError):
        model.set_params(estimate="map").predict(X)
    with pytest.raises(ParameterError, match="corpus_power"):
        model.set_params(estimate="mean", corpus_power=1.5).predict(X)
    model.set_params(estimate="mean", corpus_power=0.5)
    np.testing.assert_allclose(model.predict_proba(X), before)


def test_a_new_smoothing_resmooths_without_a_refit():
    X, y = data(5)
    model = bk.MultinomialNB(alpha=0.7).fit(X, y)
    model.set_params(smoothing="corpus")
    fresh = bk.MultinomialNB(alpha=0.7, smoothing="corpus").fit(X, y)
    np.testing.assert_allclose(model.feature_log_prob_, fresh.feature_log_prob_, rtol=1e-12)
    model.set_params(corpus_power=0.8)
    fresh = bk.MultinomialNB(alpha=0.7, smoothing="corpus", corpus_power=0.8).fit(X, y)
    np.testing.assert_allclose(model.feature_log_prob_, fresh.feature_log_prob_, rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 400),
    power=st.sampled_from([0.0, 0.25, 0.5, 0.75, 0.9, 1.0]),
    kind=st.sampled_from(["words", "fractions", "large"]),
)
def test_the_pseudo_counts_are_the_formulas_exactly(seed, n, power, kind):
    """corpus_pseudo_count looks the powers of whole counts below a quarter of the number of
    categories up in a table of N^γ: the same numbers, to the last digit, as N^γ of every
    count; other counts (fractions, large ones) take the powers one by one."""
    rng = np.random.default_rng(seed)
    pooled = rng.integers(0, max(n // 6, 1), n).astype(float)
    pooled[rng.random(n) < 0.3] = 0.0
    if kind == "fractions":
        pooled *= 0.5
    elif kind == "large":
        pooled *= n
    seen = pooled > 0
    tempered = np.power(pooled, power, where=seen, out=np.zeros(n))
    expected = np.where(seen, 0.3 * (n / tempered.sum()) * tempered, 0.3) if seen.any() else None
    got = corpus_pseudo_count(0.3, pooled, power)
    if expected is None:
        np.testing.assert_array_equal(got, np.full(n, 0.3))
    else:
        np.testing.assert_array_equal(got, expected)
