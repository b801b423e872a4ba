"""bayeskit.dask.partial_fit gives the model the in-memory partial_fit gives, refusals
included: a text model keeps to its declared classes, a calibrated SpamFilter refits its
probability scale; and bayeskit.dask refuses bad settings and weights by name. On a light real
cluster (one worker thread in this process) where the cluster matters."""

from __future__ import annotations

import copy
import logging
import warnings

import dask.array as da
import dask.bag as db
import distributed
import numpy as np
import pytest

import bayeskit as bk
import bayeskit.dask as bkd
import dask
from bayeskit.datasets import load_sms_spam
from bayeskit.errors import DataError, InputTypeError, ParameterError, UnknownClassError
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

pytestmark = pytest.mark.xdist_group("dask")

DOCS = ["cheap pills now", "meeting at noon", "win money fast", "lunch tomorrow?"] * 5
LABELS = np.array(["spam", "ham"] * 10, dtype=object)
EGGS = LABELS.copy()
EGGS[3] = "eggs"


@pytest.fixture(scope="module")
def light_cluster():
    """A real LocalCluster of one worker thread in this process, its computations the
    module's own."""
    cluster = distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=False,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    client = distributed.Client(cluster, set_as_default=False)
    with dask.config.set(scheduler=client):
        yield client
    client.close()
    cluster.close()


def _bag(docs, n=2):
    return db.from_sequence(list(docs), npartitions=n)


def _same_state(model, before):
    """``model`` holds exactly the attributes (the very objects) of ``before``."""
    assert model.__dict__.keys() == before.keys()
    assert all(model.__dict__[key] is value for key, value in before.items())


OUTPUTS = ["counts", "tfidf"]  # statistics per term; a vocabulary fixed by the first fit


@pytest.mark.parametrize("output", OUTPUTS)
def test_text_partial_fit_keeps_to_classes_declared_before(output, light_cluster):
    model = TextClassifier(vectorizer=TextVectorizer(output=output))
    model.partial_fit(DOCS, LABELS, classes=["ham", "spam"])
    with pytest.raises(UnknownClassError, match=r"y holds \['eggs'\], not in the classes"):
        model.partial_fit(DOCS, EGGS)  # in memory
    before = dict(model.__dict__)
    with pytest.raises(UnknownClassError, match=r"y holds \['eggs'\], not in the classes"):
        bkd.partial_fit(model, _bag(DOCS), list(EGGS))
    _same_state(model, before)
    assert model.classes_.tolist() == ["ham", "spam"]


@pytest.mark.parametrize("output", OUTPUTS)
def test_text_partial_fit_checks_classes_given_in_the_same_call(output, light_cluster):
    make = lambda: TextClassifier(vectorizer=TextVectorizer(output=output))  # noqa: E731
    model = make()
    before = dict(model.__dict__)
    with pytest.raises(UnknownClassError, match=r"y holds \['eggs'\], not in classes"):
        bkd.partial_fit(model, _bag(DOCS), list(EGGS), classes=["ham", "spam"])
    _same_state(model, before)
    assert not model.__sklearn_is_fitted__()
    # a fitted model: a declaration must hold the classes it has
    model = make().fit(DOCS, LABELS)
    before = dict(model.__dict__)
    with pytest.raises(UnknownClassError, match="already has"):
        bkd.partial_fit(model, _bag(DOCS), list(LABELS), classes=["spam"])
    with pytest.raises(UnknownClassError, match=r"y holds \['eggs'\], not in classes"):
        bkd.partial_fit(model, _bag(DOCS), list(EGGS), classes=["ham", "spam"])
    _same_state(model, before)


@pytest.mark.parametrize("output", OUTPUTS)
def test_text_partial_fit_records_declared_classes(output, light_cluster):
    make = lambda: TextClassifier(vectorizer=TextVectorizer(output=output))  # noqa: E731
    model = bkd.partial_fit(make(), _bag(DOCS), list(LABELS), classes=["eggs", "ham", "spam"])
    expected = make().partial_fit(DOCS, LABELS, classes=["eggs", "ham", "spam"])
    assert model.classes_.tolist() == expected.classes_.tolist() == ["eggs", "ham", "spam"]
    np.testing.assert_array_equal(model.class_count_, expected.class_count_)
    assert model.classes_declared()
    assert expected.classes_declared()
    with pytest.raises(UnknownClassError, match="not in the classes declared"):
        bkd.partial_fit(model, _bag(DOCS[:4]), ["spam", "ham", "toast", "ham"])
    with pytest.raises(UnknownClassError, match="not in the classes declared"):
        model.partial_fit(DOCS[:1], ["toast"])
    # without a declaration a new label becomes a class, as in memory
    free = bkd.partial_fit(make().fit(DOCS, LABELS), _bag(DOCS), list(EGGS))
    assert (
        free.classes_.tolist() == make().fit(DOCS, LABELS).partial_fit(DOCS, EGGS).classes_.tolist()
    )


@pytest.fixture(scope="module")
def sms():
    texts, labels = load_sms_spam()
    return list(texts[:900]), np.asarray(labels[:900], dtype=object)


@pytest.mark.parametrize(
    "make",
    [
        SpamFilter,
        lambda: SpamFilter(scoring="fisher", vectorizer=TextVectorizer(output="binary")),
        lambda: SpamFilter(vectorizer=TextVectorizer(output="tfidf")),
        lambda: SpamFilter(calibration_folds=None),
    ],
    ids=["counts", "fisher", "tfidf", "uncalibrated"],
)
def test_spam_filter_partial_fit_refits_its_scale_as_in_memory(make, sms, light_cluster):
    texts, labels = sms
    memory = make().fit(texts[:300], labels[:300])
    cluster = copy.deepcopy(memory)
    memory.partial_fit(texts[300:], labels[300:])
    bkd.partial_fit(cluster, _bag(texts[300:], 3), list(labels[300:]))
    np.testing.assert_array_equal(cluster.score_counts(), memory.score_counts())
    assert cluster.probability_scale() == memory.probability_scale()
    np.testing.assert_allclose(
        cluster.predict_proba(texts), memory.predict_proba(texts), rtol=0, atol=1e-10
    )


def test_spam_filter_first_partial_fit_calibrates_as_fit(sms, light_cluster):
    texts, labels = sms
    first = bkd.partial_fit(SpamFilter(), _bag(texts[:300], 1), list(labels[:300]))
    whole = SpamFilter().partial_fit(texts[:300], labels[:300])
    np.testing.assert_array_equal(first.score_counts(), whole.score_counts())
    assert first.probability_scale() == whole.probability_scale() != (1.0, 0.0)


def test_spam_filter_partial_fit_refused_leaves_the_filter(sms, light_cluster):
    texts, labels = sms
    model = SpamFilter().fit(texts[:300], labels[:300])
    before = dict(model.__dict__)
    bad = labels[300:].copy()
    bad[100] = "eggs"
    with pytest.raises(DataError, match="'eggs'"):
        bkd.partial_fit(model, _bag(texts[300:], 3), list(bad))
    _same_state(model, before)


X = np.random.default_rng(0).normal(size=(100, 3))
Y = np.array(["a", "b"] * 50)


@pytest.mark.parametrize("split_every", [2.5, "8", True, 1, None])
def test_split_every_not_a_count_is_named(split_every, on_threads):
    Xd = da.from_array(X, chunks=30)
    for call in (bkd.fit, bkd.partial_fit):
        model = bk.GaussianNB()
        with pytest.raises(
            ParameterError, match=rf"split_every must be an int >= 2.*got {split_every!r}"
        ):
            call(model, Xd, Y, split_every=split_every)
        assert not model.__sklearn_is_fitted__()


@pytest.mark.parametrize("weight", [{"a": 1}, {1, 2}, b"1"])
def test_a_sample_weight_that_is_no_number_is_named(weight, on_threads):
    with pytest.raises(InputTypeError, match=rf"sample_weight is a {type(weight).__name__} "):
        bkd.fit(bk.GaussianNB(), da.from_array(X, chunks=30), Y, weight)


@pytest.mark.parametrize("weight", [-1.0, np.nan, np.inf, -0.5])
def test_a_scalar_weight_out_of_range_is_named_on_dask(weight, on_threads):
    model = bk.GaussianNB()
    with pytest.raises(DataError, match=rf"sample_weight = {weight}; a weight must be a finite"):
        bkd.fit(model, da.from_array(X, chunks=30), Y, weight)
    fitted = bk.GaussianNB().fit(X, Y)
    before = dict(fitted.__dict__)
    with pytest.raises(DataError, match=rf"sample_weight = {weight}; a weight must be a finite"):
        bkd.partial_fit(fitted, da.from_array(X, chunks=30), Y, weight)
    _same_state(fitted, before)
    # a good one weighs every row alike
    scaled = bkd.fit(bk.GaussianNB(), da.from_array(X, chunks=30), Y, 2.0)
    np.testing.assert_allclose(scaled.class_count_, [100.0, 100.0])


def test_an_overflowing_weight_is_refused_without_numpy_warnings(on_threads):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 6, (40, 3)).astype(float)
    y = rng.integers(0, 3, 40)
    model = bk.BinomialNB(n_trials=5).fit(X, y, sample_weight=np.full(40, 1e306))
    before = dict(model.__dict__)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning of numpy's would raise here
        with pytest.raises(DataError, match="the total sample weight overflows float64"):
            bkd.partial_fit(
                model,
                da.from_array(X, chunks=13),
                da.from_array(y, chunks=13),
                da.from_array(np.full(40, 1e307), chunks=13),
            )
    _same_state(model, before)


@pytest.mark.parametrize("folds", [None, 5])
def test_a_spam_filter_on_dask_learns_its_two_labels_only(folds, sms, light_cluster):
    """Without calibration a third label became a third class on dask (the in-memory fit
    refuses it), and a collection of one class gave a one-class filter (in memory: both)."""
    texts, labels = sms
    docs, eggs = texts[:40], np.array(labels[:40], dtype=object)
    eggs[3] = "eggs"
    model = SpamFilter(calibration_folds=folds)
    with pytest.raises(DataError, match="'eggs'"):
        bkd.fit(model, _bag(docs), list(eggs))
    with pytest.raises(DataError, match="'eggs'"):
        model.fit(docs, eggs)
    hams = [t for t, label in zip(texts, labels, strict=True) if label == "ham"][:30]
    on_dask = bkd.fit(SpamFilter(calibration_folds=folds), _bag(hams), ["ham"] * 30)
    in_memory = SpamFilter(calibration_folds=folds).fit(hams, ["ham"] * 30)
    assert on_dask.classes_.tolist() == in_memory.classes_.tolist() == ["ham", "spam"]
