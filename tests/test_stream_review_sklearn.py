"""``partial_fit`` against scikit-learn's on real data: the same batches (one row, a class
absent from most batches, the classes declared on the first call, sample weights) give the
same numbers for MultinomialNB, ComplementNB, BernoulliNB and CategoricalNB (whose
``n_categories_`` is scikit-learn's fit's; scikit-learn's own after partial_fit is the last
batch's, its counts covering every category seen all the same). GaussianNB's
means and variances agree too; its variance floor does not, by design (the docstring's first
difference): scikit-learn takes it from the last batch alone, bayeskit from all the data seen,
which is scikit-learn's own ``fit`` floor on all of it."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import naive_bayes as sk
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.preprocessing import OrdinalEncoder

import bayeskit as bk


def _by_class(X, y):
    """Rows in class order: each batch of a stream holds one class or two."""
    order = np.argsort(y, kind="stable")
    return X[order], y[order]


def _stream(model, X, y, size, weights=None):
    classes = np.unique(y)
    for lo in range(0, len(y), size):
        kw = {} if weights is None else {"sample_weight": weights[lo : lo + size]}
        model.partial_fit(X[lo : lo + size], y[lo : lo + size], classes=classes, **kw)
    return model


@pytest.fixture(scope="module")
def sms_counts(shared_data):
    from bayeskit.datasets.shared import load_sms_collection

    texts, labels = load_sms_collection(shared_data)
    X = CountVectorizer().fit_transform(texts[:1200])
    return _by_class(X, np.asarray(labels[:1200]))


@pytest.fixture(scope="module")
def mushroom_codes(shared_data):
    from bayeskit.datasets.shared import load_uci_table

    X, y = load_uci_table("mushroom", shared_data)
    codes = OrdinalEncoder().fit_transform(X[:3000]).astype(np.int64)
    return _by_class(codes, np.asarray(y[:3000]))


@pytest.fixture(scope="module")
def spambase(shared_data):
    from bayeskit.datasets.shared import load_spambase

    X, y, _ = load_spambase(shared_data)
    return _by_class(X[::3], y[::3])


COUNT_MODELS = [
    (bk.MultinomialNB, sk.MultinomialNB),
    (bk.ComplementNB, sk.ComplementNB),
    (bk.BernoulliNB, sk.BernoulliNB),
]


@pytest.mark.parametrize(("ours", "theirs"), COUNT_MODELS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("size", [1, 97, 5000])
@pytest.mark.parametrize("weighted", [False, True])
def test_count_models_stream_as_scikit_learn(sms_counts, ours, theirs, size, weighted):
    X, y = sms_counts
    if size == 1:  # one row at a time: the first 40 rows, then the rest in one batch
        X, y = X[:40], y[:40]
    weights = np.random.default_rng(1).uniform(0.5, 2.0, len(y)) if weighted else None
    a = _stream(ours(), X, y, size, weights)
    b = _stream(theirs(), X, y, size, weights)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=1e-12)
    np.testing.assert_allclose(a.feature_count_, b.feature_count_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(
        a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=1e-11
    )


@pytest.mark.parametrize("size", [1, 97, 5000])
@pytest.mark.parametrize("weighted", [False, True])
def test_categorical_stream_as_scikit_learn(mushroom_codes, size, weighted):
    X, y = mushroom_codes
    if size == 1:
        X, y = X[:60], y[:60]
    weights = np.random.default_rng(2).uniform(0.5, 2.0, len(y)) if weighted else None
    a = _stream(bk.CategoricalNB(), X, y, size, weights)
    b = _stream(sk.CategoricalNB(), X, y, size, weights)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=1e-12)
    # (scikit-learn's n_categories_ after partial_fit is the last batch's; its counts, and
    # so its probabilities, cover every category seen, as its fit's n_categories_ does)
    np.testing.assert_array_equal(a.n_categories_, sk.CategoricalNB().fit(X, y).n_categories_)
    for ours, theirs in zip(a.category_count_, b.category_count_, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=0, atol=1e-10)


@pytest.mark.parametrize("size", [1, 97, 5000])
def test_gaussian_stream_as_scikit_learn_but_for_its_last_batch_floor(spambase, size):
    X, y = spambase
    if size == 1:
        X, y = X[:50], y[:50]
    a = _stream(bk.GaussianNB(), X, y, size)
    b = _stream(sk.GaussianNB(), X, y, size)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=1e-12)
    np.testing.assert_allclose(a.theta_, b.theta_, rtol=1e-9, atol=1e-9)
    # the variances before the floor agree; the floor is scikit-learn's fit's on all the rows
    np.testing.assert_allclose(
        a.var_ - a.epsilon_, b.var_ - b.epsilon_, rtol=1e-9, atol=1e-9 * b.var_.max()
    )
    assert a.epsilon_ == pytest.approx(sk.GaussianNB().fit(X, y).epsilon_, rel=1e-12)
    whole = sk.GaussianNB().fit(X, y)
    np.testing.assert_allclose(a.predict_proba(X), whole.predict_proba(X), rtol=0, atol=1e-9)


def test_gaussian_floor_is_of_the_weighted_rows(spambase):
    """The floor of weighted rows is the floor of the rows repeated (scikit-learn's ignores
    ``sample_weight``: the GaussianNB docstring's first difference)."""
    X, y = spambase
    weights = np.random.default_rng(3).integers(1, 4, len(y))
    ours = bk.GaussianNB().fit(X, y, sample_weight=weights)
    repeated = sk.GaussianNB().fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    assert ours.epsilon_ == pytest.approx(repeated.epsilon_, rel=1e-10)
    np.testing.assert_allclose(ours.var_, repeated.var_, rtol=1e-9)
    assert sk.GaussianNB().fit(X, y, sample_weight=weights).epsilon_ != pytest.approx(
        ours.epsilon_, rel=1e-6
    )
