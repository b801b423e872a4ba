"""Semi-supervised Naive Bayes on a cluster: bayeskit.dask.fit runs SemiSupervisedNB's EM as
one reduction per iteration, and the model is the in-memory one."""

from __future__ import annotations

import itertools
import warnings

import dask.array as da
import dask.bag as db
import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import bayeskit as bk
import bayeskit.dask as bkd
from bayeskit.datasets import load_sms_spam
from bayeskit.errors import DataError, MergeError, ParameterError
from bayeskit.text import TextClassifier, TextVectorizer

from .._grid import assert_same_model

pytestmark = pytest.mark.xdist_group("dask")


def counts(seed: int = 0, n: int = 240, labelled: float = 0.1):
    """Word counts of three topics; about ``labelled`` of the rows keep their label."""
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, 3, size=n)
    rates = np.array([[6, 1, 1, 2, 0.5], [1, 6, 1, 2, 0.5], [1, 1, 6, 2, 0.5]])
    X = rng.poisson(rates[topic]).astype(float)
    names = np.array(["sport", "tech", "arts"], dtype=object)
    y = np.where(rng.random(n) < labelled, names[topic], None)
    y[:3] = names  # every class has a labelled row
    return X, y


def assert_same_semi(got, want, rtol=1e-10):
    np.testing.assert_array_equal(got.classes_, want.classes_)
    assert got.n_iter_ == want.n_iter_
    assert got.converged_ == want.converged_
    np.testing.assert_allclose(got.lower_bounds_, want.lower_bounds_, rtol=rtol)
    np.testing.assert_array_equal(got.transduction_, want.transduction_)
    np.testing.assert_allclose(
        got.label_distributions_, want.label_distributions_, rtol=rtol, atol=1e-13
    )
    assert_same_model(got.estimator_, want.estimator_, np.zeros((1, got.n_features_in_)))


@pytest.mark.parametrize(
    "make",
    [
        lambda: bk.SemiSupervisedNB(bk.MultinomialNB(), unlabeled_weight=0.5),
        lambda: bk.SemiSupervisedNB(bk.GaussianNB(), max_iter=8),
        lambda: bk.SemiSupervisedNB(bk.BernoulliNB(binarize=1.0)),
    ],
    ids=["multinomial", "gaussian", "bernoulli"],
)
def test_semi_supervised_em_on_the_cluster_is_em_in_memory(make, on_cluster):
    X, y = counts()
    chunks = (60, 0, 45, 100, 35)  # an empty partition; labelled rows in only some
    weight = np.random.default_rng(1).uniform(0.5, 2, size=len(y))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        want = make().fit(X, y, sample_weight=weight)
        in_memory = len(caught)
        got = bkd.fit(
            make(),
            da.from_array(X, chunks=(chunks, X.shape[1])),
            da.from_array(y, chunks=(chunks,)),
            sample_weight=weight,
        )
    assert len(caught) == 2 * in_memory  # the same ConvergenceWarning, or none
    assert in_memory == (not want.converged_)
    assert got.n_iter_ > 2
    assert_same_semi(got, want)
    np.testing.assert_allclose(
        bkd.predict_proba(got, da.from_array(X, chunks=50)).compute(),
        want.predict_proba(X),
        rtol=1e-9,
    )


def test_one_partition_is_the_in_memory_model_bit_for_bit(on_threads):
    X, y = counts(seed=2)
    y = np.where(y == None, -1, np.searchsorted(["arts", "sport", "tech"], y.astype(str)))  # noqa: E711
    want = bk.SemiSupervisedNB(bk.MultinomialNB()).fit(X, y)
    got = bkd.fit(bk.SemiSupervisedNB(bk.MultinomialNB()), da.from_array(X, chunks=-1), y)
    assert_same_semi(got, want, rtol=0)


def test_what_the_cluster_cannot_run_is_refused_by_name(on_threads):
    X, y = counts()
    Xd, yd = da.from_array(X, chunks=50), da.from_array(y, chunks=50)
    with pytest.raises(ParameterError, match=r"n_components=2\) does not run on a cluster"):
        bkd.fit(bk.SemiSupervisedNB(n_components=2), Xd, yd)
    with pytest.raises(DataError, match="all 240 rows are unlabelled"):
        bkd.fit(bk.SemiSupervisedNB(), Xd, np.full(len(y), None, dtype=object))
    weight = np.where(y == None, 1.0, 0.0)  # noqa: E711
    with pytest.raises(DataError, match="every labelled row has weight 0"):
        bkd.fit(bk.SemiSupervisedNB(), Xd, yd, sample_weight=weight)
    model = bk.SemiSupervisedNB().fit(X, y)
    before = model.estimator_
    with pytest.raises(MergeError, match="no partial_fit"):
        bkd.partial_fit(model, Xd, yd)
    with pytest.raises(ParameterError, match="unlabeled_weight"):
        bkd.fit(model.set_params(unlabeled_weight=-1.0), Xd, yd)
    assert model.estimator_ is before


SIZES = (150, 0, 200, 250)  # an empty partition; the third holds no labelled document


def sms(n: int = 600):
    """The first ``n`` SMS messages, about a tenth of them labelled (strings; None: unlabelled),
    none in the third partition of SIZES."""
    texts, labels = load_sms_spam()
    labels = np.asarray(labels[:n], dtype=object)
    rng = np.random.default_rng(3)
    y = np.where(rng.random(n) < 0.1, labels, None)
    y[150:350] = None
    spam = np.flatnonzero(labels[:150] == "spam")[0]
    y[[0, spam]] = labels[[0, spam]]  # both classes labelled in the first partition
    return texts[:n], y


def bag(values):
    """A dask.bag of ``values`` split into partitions of SIZES."""
    import dask

    bounds = np.cumsum((0, *SIZES))
    parts = [list(values[a:b]) for a, b in itertools.pairwise(bounds)]
    return db.from_delayed([dask.delayed(list)(part) for part in parts])


@pytest.mark.parametrize(
    ("make", "y_as_bag"),
    [
        (lambda: bk.SemiSupervisedNB(TextClassifier(), unlabeled_weight=0.3), True),
        (
            lambda: bk.SemiSupervisedNB(
                TextClassifier(vectorizer=TextVectorizer(min_df=2)), max_iter=6
            ),
            False,
        ),
        (
            lambda: bk.SemiSupervisedNB(TextClassifier(vectorizer=TextVectorizer(output="tfidf"))),
            True,
        ),
        (
            lambda: bk.SemiSupervisedNB(
                TextClassifier(vectorizer=TextVectorizer(output="hashed", n_features=2**12))
            ),
            False,
        ),
    ],
    ids=["default-per-term", "min_df-in-memory-y", "tfidf-fixed-vectorizer", "hashed"],
)
def test_semi_supervised_text_on_the_cluster_is_text_in_memory(make, y_as_bag, on_cluster):
    texts, y = sms()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # max_iter=6 runs out, both sides
        want = make().fit(texts, y)
        got = bkd.fit(make(), bag(texts), bag(y) if y_as_bag else y)
    assert want.n_iter_ > 2
    assert got.n_iter_ == want.n_iter_
    assert got.converged_ == want.converged_
    np.testing.assert_array_equal(got.classes_, ["ham", "spam"])
    np.testing.assert_array_equal(got.transduction_, want.transduction_)
    np.testing.assert_allclose(got.lower_bounds_, want.lower_bounds_, rtol=1e-10)
    np.testing.assert_allclose(
        got.label_distributions_, want.label_distributions_, rtol=1e-9, atol=1e-12
    )
    (got_vec, got_model), (want_vec, want_model) = (
        got.estimator_.fitted_parts(),
        want.estimator_.fitted_parts(),
    )
    if got_vec.output != "hashed":
        np.testing.assert_array_equal(got_vec.terms_, want_vec.terms_)
    for attr in ("feature_log_prob_", "class_log_prior_"):
        np.testing.assert_allclose(getattr(got_model, attr), getattr(want_model, attr), rtol=1e-10)
    np.testing.assert_array_equal(got.predict(texts[:100]), want.predict(texts[:100]))


def test_semi_supervised_text_refusals_on_the_cluster(on_threads):
    texts, y = sms(200)
    with pytest.raises(DataError, match="all 200 rows are unlabelled"):
        bkd.fit(bk.SemiSupervisedNB(TextClassifier()), bag(texts), np.full(200, None))
    with pytest.raises(ParameterError, match=r"n_components=2\) does not run on a cluster"):
        bkd.fit(bk.SemiSupervisedNB(TextClassifier(), n_components=2), bag(texts), y)


def test_text_counts_are_kept_between_rounds_within_a_bound(on_threads, monkeypatch):
    from bayeskit.semi_supervised import _cache

    texts, y = sms(400)
    want = bk.SemiSupervisedNB(TextClassifier()).fit(texts, y)
    _cache.clear()
    got = bkd.fit(bk.SemiSupervisedNB(TextClassifier()), bag(texts), y)
    assert len(_cache._kept) == 3  # the three non-empty partitions, counted once each
    np.testing.assert_array_equal(got.transduction_, want.transduction_)
    other = TextClassifier(vectorizer=TextVectorizer(ngram_range=(1, 2)))
    changed = bkd.fit(bk.SemiSupervisedNB(other), bag(texts), y)  # other settings, other key
    assert len(_cache._kept) == 6
    np.testing.assert_allclose(
        changed.lower_bounds_, bk.SemiSupervisedNB(other).fit(texts, y).lower_bounds_, rtol=1e-10
    )
    monkeypatch.setattr(_cache, "CACHE_BYTES", 1)  # nothing fits: every round counts again
    _cache.clear()
    again = bkd.fit(bk.SemiSupervisedNB(TextClassifier()), bag(texts), y)
    assert len(_cache._kept) == 0
    np.testing.assert_array_equal(again.lower_bounds_, got.lower_bounds_)
    _cache.clear()
