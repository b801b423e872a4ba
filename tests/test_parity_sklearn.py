"""Same numbers as scikit-learn, on real data, wherever scikit-learn has the same model."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.preprocessing import OrdinalEncoder

import bayeskit as bk
from bayeskit.datasets.shared import load_sms_collection, load_uci_table

RTOL = 1e-10


def assert_parity(ours, theirs, X_train, y_train, X_test):
    ours.fit(X_train, y_train)
    theirs.fit(X_train, y_train)
    np.testing.assert_array_equal(ours.classes_, theirs.classes_)
    np.testing.assert_allclose(
        ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), rtol=RTOL, atol=0
    )
    np.testing.assert_allclose(
        ours.predict_proba(X_test), theirs.predict_proba(X_test), rtol=RTOL, atol=1e-300
    )
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))


@pytest.fixture(scope="module")
def sms_counts(shared_data):
    texts, labels = load_sms_collection(shared_data)
    # A plain tokenizer: scikit-learn's default token rule, lowercased.
    counts = CountVectorizer().fit_transform(texts).astype(np.float64)
    return counts[:4500], labels[:4500], counts[4500:], labels[4500:]


TEXT_MODELS = [
    (bk.MultinomialNB(), sk.MultinomialNB()),
    (bk.MultinomialNB(alpha=0.01), sk.MultinomialNB(alpha=0.01)),
    (bk.MultinomialNB(fit_prior=False), sk.MultinomialNB(fit_prior=False)),
    (bk.MultinomialNB(class_prior=[0.3, 0.7]), sk.MultinomialNB(class_prior=[0.3, 0.7])),
    (bk.ComplementNB(), sk.ComplementNB()),
    (bk.ComplementNB(norm=True, alpha=0.3), sk.ComplementNB(norm=True, alpha=0.3)),
    (bk.BernoulliNB(), sk.BernoulliNB()),
    (bk.BernoulliNB(alpha=0.5, binarize=1.0), sk.BernoulliNB(alpha=0.5, binarize=1.0)),
]


@pytest.mark.parametrize(("ours", "theirs"), TEXT_MODELS, ids=lambda m: repr(m))
def test_text_models_on_sms(sms_counts, ours, theirs):
    X_train, y_train, X_test, _ = sms_counts
    assert_parity(ours, theirs, X_train, y_train, X_test)
    # Dense input gives the same numbers as CSR.
    np.testing.assert_allclose(
        ours.predict_log_proba(X_test[:200].toarray()),
        ours.predict_log_proba(X_test[:200]),
        rtol=1e-12,
    )


def test_per_feature_alpha_on_sms(sms_counts):
    X_train, y_train, X_test, _ = sms_counts
    alpha = np.random.default_rng(0).uniform(0.1, 2.0, size=X_train.shape[1])
    assert_parity(
        bk.MultinomialNB(alpha=alpha), sk.MultinomialNB(alpha=alpha), X_train, y_train, X_test
    )
    assert_parity(
        bk.ComplementNB(alpha=alpha), sk.ComplementNB(alpha=alpha), X_train, y_train, X_test
    )


def test_force_alpha_false_on_sms(sms_counts):
    X_train, y_train, X_test, _ = sms_counts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert_parity(
            bk.MultinomialNB(alpha=0.0, force_alpha=False),
            sk.MultinomialNB(alpha=0.0, force_alpha=False),
            X_train,
            y_train,
            X_test,
        )
    with pytest.warns(UserWarning, match="alpha too small"):
        bk.MultinomialNB(alpha=0.0, force_alpha=False).fit(X_train, y_train)


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.BernoulliNB, bk.ComplementNB])
def test_partial_fit_matches_sklearn_partial_fit(sms_counts, cls):
    X_train, y_train, X_test, _ = sms_counts
    ours, theirs = cls(), getattr(sk, cls.__name__)()
    for lo in range(0, X_train.shape[0], 1000):
        part = slice(lo, lo + 1000)
        ours.partial_fit(X_train[part], y_train[part], classes=["ham", "spam"])
        theirs.partial_fit(X_train[part], y_train[part], classes=["ham", "spam"])
    np.testing.assert_allclose(
        ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), rtol=1e-9
    )


def test_fitted_attributes_match(sms_counts):
    X_train, y_train, _, _ = sms_counts
    for ours, theirs in TEXT_MODELS:
        ours.fit(X_train, y_train)
        theirs.fit(X_train, y_train)
        np.testing.assert_allclose(ours.class_count_, theirs.class_count_)
        np.testing.assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=RTOL)
        np.testing.assert_allclose(ours.feature_count_, theirs.feature_count_)
        np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=RTOL)


@pytest.mark.parametrize("name", ["mushroom", "car", "nursery", "voting"])
@pytest.mark.parametrize("alpha", [1.0, 0.3])
def test_categorical_on_uci(shared_data, name, alpha):
    X, y = load_uci_table(name, shared_data)
    codes = OrdinalEncoder(dtype=np.int64).fit_transform(X)
    ours = bk.CategoricalNB(alpha=alpha).fit(X, y)  # raw strings, "?" as a value
    theirs = sk.CategoricalNB(alpha=alpha).fit(codes, y)
    np.testing.assert_allclose(
        ours.predict_log_proba(X), theirs.predict_log_proba(codes), rtol=RTOL
    )
    np.testing.assert_allclose(
        ours.predict_proba(X), theirs.predict_proba(codes), rtol=RTOL, atol=1e-300
    )
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(codes))
    for a, b in zip(ours.category_count_, theirs.category_count_, strict=True):
        np.testing.assert_allclose(a, b)
    # Integer codes go through the lookup-table path and must agree with the string path.
    on_codes = bk.CategoricalNB(alpha=alpha).fit(codes, y)
    np.testing.assert_allclose(
        on_codes.predict_log_proba(codes), ours.predict_log_proba(X), rtol=1e-12
    )


def test_categorical_min_categories_and_priors(shared_data):
    X, y = load_uci_table("car", shared_data)
    codes = OrdinalEncoder(dtype=np.int64).fit_transform(X)
    wanted = np.full(X.shape[1], 6, dtype=np.int64)
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    for kwargs in (
        {"min_categories": wanted},
        {"min_categories": 5},
        {"fit_prior": False},
        {"class_prior": prior},
    ):
        ours = bk.CategoricalNB(**kwargs).fit(codes, y)
        theirs = sk.CategoricalNB(**kwargs).fit(codes, y)
        np.testing.assert_allclose(
            ours.predict_log_proba(codes), theirs.predict_log_proba(codes), rtol=RTOL
        )
        np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)


def test_sparse_and_dense_bernoulli_binarize_agree(sms_counts):
    X_train, y_train, X_test, _ = sms_counts
    model = bk.BernoulliNB(binarize=0.0).fit(X_train, y_train)
    assert sp.issparse(X_test)
    np.testing.assert_allclose(
        model.predict_log_proba(X_test[:300]),
        model.predict_log_proba(X_test[:300].toarray()),
        rtol=1e-12,
    )
