"""The weights of a large multinomial or complement model, kept as one weight a term, one a
class and the cells with counts: the same scores as the full array, which is made only when
asked for."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from sklearn import naive_bayes as sk

from bayeskit import ComplementNB, MultinomialNB
from bayeskit.errors import ParameterError
from bayeskit.families import _structured
from bayeskit.families.complement import Complement, ComplementParams
from bayeskit.families.multinomial import Multinomial, MultinomialParams
from bayeskit.stats import _sparse_sums

#: (our estimator, scikit-learn's, our family, its parameters' class)
MODELS = [
    (ComplementNB, sk.ComplementNB, Complement, ComplementParams),
    (MultinomialNB, sk.MultinomialNB, Multinomial, MultinomialParams),
]


@pytest.fixture
def structured(monkeypatch):
    """Every model in the structured form, however small."""
    monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1)


def _close(ours, theirs, scale):
    # Scores are sums of a row's terms' weights: their rounding is relative to the largest
    # term, not to the (possibly tiny) difference between classes.
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12 * max(1.0, scale))


@pytest.mark.parametrize(("ours", "_", "family_type", "__"), MODELS)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(2, 40), st.integers(1, 30), st.integers(2, 5)),
    alpha=st.sampled_from([1.0, 0.5, 0.01, 1e-10]),
    smoothing=st.sampled_from(["uniform", "corpus"]),
    sparse=st.booleans(),
    fill=st.floats(0.05, 1.0),
)
def test_scores_are_those_of_the_full_array(
    ours, _, family_type, __, seed, shape, alpha, smoothing, sparse, fill
):
    n, d, k = shape
    rng = np.random.default_rng(seed)
    X = rng.poisson(3.0, (n, d)) * (rng.random((n, d)) < fill)
    X = X.astype(np.float64)
    y = rng.integers(0, k, n)
    X_test = rng.poisson(2.0, (7, d)).astype(np.float64)
    if sparse:
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    dense = ours(alpha=alpha, smoothing=smoothing).fit(X, y)
    family = family_type(alpha, smoothing=smoothing)
    stats = dense.stats_.blocks[0]
    try:
        _structured.STRUCTURED_CELLS, before = 1, _structured.STRUCTURED_CELLS
        params = family.finalize(stats)
    finally:
        _structured.STRUCTURED_CELLS = before
    assert params.weights is not None  # every smoothed count is positive (alpha > 0)
    W = dense.feature_log_prob_
    scale = float(np.abs(W).max()) * float(abs(X_test).sum(axis=1).max())
    _close(family.log_prob(params, X_test), X_test @ W.T, scale)
    relative = family.log_prob_relative(params, X_test)
    shift = np.asarray(X_test @ W.T) - relative
    _close(shift, shift[:, :1] * np.ones((1, W.shape[0])), scale)  # the same for every class
    # The full array, made on first use, is the one the dense form makes.
    assert "feature_log_prob" not in params.__dict__
    np.testing.assert_array_equal(params.feature_log_prob, W)


@pytest.mark.parametrize(("ours_type", "theirs_type", "_", "params_type"), MODELS)
def test_real_text_scores_like_scikit_learn(
    structured, sms_counts, ours_type, theirs_type, _, params_type
):
    X_train, y_train, X_test, _ = sms_counts
    for alpha in (1.0, 0.01):
        ours = ours_type(alpha=alpha).fit(X_train, y_train)
        theirs = theirs_type(alpha=alpha).fit(X_train, y_train)
        params = ours._fitted()[1][0]
        assert type(params) is params_type
        assert params.dense is None
        jll = theirs.predict_joint_log_proba(X_test)
        scale = float(np.abs(jll).max())
        _close(ours.predict_joint_log_proba(X_test), jll, scale)
        _close(ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), scale)
        np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))
        assert "feature_log_prob" not in params.__dict__  # scored without the full array
        np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-10)


@pytest.mark.parametrize("model", [ComplementNB(), MultinomialNB()])
def test_small_models_keep_the_full_array(sms_counts, model):
    X_train, y_train, _, _ = sms_counts
    model.fit(X_train[:, :100], y_train)
    assert model._fitted()[1][0].dense is not None
    assert _structured.STRUCTURED_CELLS == 1 << 22


def test_weight_normalisation_keeps_the_full_array(structured):
    X = np.array([[2.0, 0, 1], [0, 3, 1], [1, 1, 0]])
    model = ComplementNB(norm=True).fit(X, [0, 1, 1])
    theirs = sk.ComplementNB(norm=True).fit(X, [0, 1, 1])
    assert model._fitted()[1][0].dense is not None
    np.testing.assert_allclose(model.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)


def test_a_zero_complement_count_is_refused_as_before(structured):
    # Term 2 is seen in class 0 only: without smoothing its complement count there is 0.
    X = np.array([[1.0, 1, 4], [2, 1, 0], [1, 3, 0]])
    with pytest.raises(ParameterError, match="feature 2 has no counts outside class index 0"):
        ComplementNB(alpha=0.0, force_alpha=True).fit(X, [0, 1, 1])


def test_unsmoothed_probabilities_keep_the_full_array(structured):
    """Without smoothing a term a class never saw has probability 0 (weight -inf): the full
    array's rules score it, as before."""
    X = np.array([[1.0, 1, 4], [2, 1, 0], [1, 3, 0]])
    model = MultinomialNB(alpha=0.0, force_alpha=True).fit(X, [0, 1, 1])
    theirs = sk.MultinomialNB(alpha=1e-10).fit(X, [0, 1, 1])
    assert model._fitted()[1][0].dense is not None
    np.testing.assert_array_equal(model.predict(X), theirs.predict(X))
    assert np.isneginf(model.feature_log_prob_[1, 2])


@pytest.mark.parametrize("model", [ComplementNB(), MultinomialNB()])
def test_pickled_models_score_the_same(structured, sms_counts, model):
    import pickle

    X_train, y_train, X_test, _ = sms_counts
    model.fit(X_train, y_train)
    before = model.predict_joint_log_proba(X_test)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_joint_log_proba(X_test), before)


@pytest.fixture(scope="module")
def sms_counts(shared_data):
    from sklearn.feature_extraction.text import CountVectorizer

    from bayeskit.datasets.shared import load_sms_collection

    texts, labels = load_sms_collection(shared_data)
    counts = CountVectorizer().fit_transform(texts).astype(np.float64)
    return counts[:4500], labels[:4500], counts[4500:], labels[4500:]


def test_the_compiled_product_sums_as_scipy_does(structured, monkeypatch, sms_counts):
    from bayeskit.families import _sparse_dot

    X_train, y_train, X_test, _ = sms_counts
    correction = ComplementNB(alpha=0.01).fit(X_train, y_train)._fitted()[1][0].weights.correction
    X = sp.csr_matrix(X_test)
    X.sort_indices()
    expected = (X @ correction).toarray()
    monkeypatch.setattr(_sparse_dot, "MIN_WORK", 0)
    np.testing.assert_array_equal(_sparse_dot.dot_by_term(X, correction), expected)
    # Dense rows, and one row, go to scipy's product.
    np.testing.assert_array_equal(_sparse_dot.dot_by_term(X.toarray(), correction), expected)
    np.testing.assert_array_equal(_sparse_dot.dot_by_term(X[3], correction), expected[3:4])


@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(0, 30), st.integers(0, 30)),
    fill=st.floats(0.0, 1.0),
)
def test_the_compiled_search_for_cells_with_counts_is_numpys(seed, shape, fill):
    rng = np.random.default_rng(seed)
    rows = rng.poisson(2.0, shape) * (rng.random(shape) < fill) * 1.0
    rows[rng.random(shape) < 0.02] = np.nan  # a NaN is not zero, for both
    numpy_parts = _sparse_sums.nonzero_cells(rows)
    try:
        _sparse_sums.SMALL_CELLS, before = 0, _sparse_sums.SMALL_CELLS
        compiled = _sparse_sums.nonzero_cells(rows)
    finally:
        _sparse_sums.SMALL_CELLS = before
    for ours, theirs in zip(compiled, numpy_parts, strict=True):
        np.testing.assert_array_equal(ours, theirs)
        assert ours.dtype == theirs.dtype
