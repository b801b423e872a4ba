"""A hostile review of ``partial_fit``: every estimator that declares ``incremental`` learns a
stream of awkward batches — one row at a time, batches sorted by class (a class absent from
most of them), sample weights, ``classes=`` given late, after ``fit`` — into the model ``fit``
gives on all the rows; a refused batch (wrong width, a label outside the declared classes,
fewer declared classes, a negative weight, an empty batch) names what is wrong and leaves
the model exactly as it was. The text models read documents from the SMS Spam Collection.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.contract import contract_of
from bayeskit.errors import BayeskitError, DataError, ShapeError, UnknownClassError

from ._grid import CASES, assert_same_model, dataset

STREAMING = [c for c in CASES if contract_of(c.make()).incremental]
CLASSES = np.array(["a", "b", "c"])


def _state(model) -> bytes:
    return pickle.dumps(model.__dict__)


def _refused_unchanged(model, X_probe, call) -> BayeskitError:
    """``call(model)`` raises a BayeskitError and leaves the model's state and predictions
    exactly as they were."""
    model.predict_joint_log_proba(X_probe)  # (caches filled before the state is taken)
    state, scores = _state(model), model.predict_joint_log_proba(X_probe)
    with pytest.raises(BayeskitError) as refusal:
        call(model)
    assert _state(model) == state
    np.testing.assert_array_equal(model.predict_joint_log_proba(X_probe), scores)
    return refusal.value


@pytest.mark.parametrize("case", STREAMING, ids=repr)
def test_rows_one_at_a_time_sorted_by_class_are_the_whole_fit(case):
    """Batches of one row, in class order: every batch lacks all classes but one."""
    X, y = dataset(case, seed=21, n=40)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    streamed = case.make()
    for i in range(len(y)):
        streamed.partial_fit(X[i : i + 1], y[i : i + 1])
    assert_same_model(case.make().fit(X, y), streamed, X, score_rtol=1e-10)


@pytest.mark.parametrize("case", STREAMING, ids=repr)
def test_weighted_batches_with_classes_declared_first(case):
    X, y = dataset(case, seed=22)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    w = np.random.default_rng(0).uniform(0.2, 3.0, size=len(y))
    streamed = case.make()
    for lo in range(0, len(y), 13):
        streamed.partial_fit(
            X[lo : lo + 13], y[lo : lo + 13], classes=CLASSES, sample_weight=w[lo : lo + 13]
        )
    whole = case.make().fit(X, y, sample_weight=w)
    assert_same_model(whole, streamed, X, score_rtol=1e-10)
    np.testing.assert_allclose(streamed.predict_proba(X), whole.predict_proba(X), atol=1e-10)


@pytest.mark.parametrize("case", STREAMING, ids=repr)
def test_partial_fit_after_fit_and_fit_after_partial_fit(case):
    X, y = dataset(case, seed=23)
    whole = case.make().fit(X, y)
    assert_same_model(whole, case.make().fit(X[:25], y[:25]).partial_fit(X[25:], y[25:]), X)
    # classes declared late hold the model's: accepted
    late = case.make().partial_fit(X[:25], y[:25]).partial_fit(X[25:], y[25:], classes=CLASSES)
    assert_same_model(whole, late, X)
    # fit starts again: the declaration made before is gone with the old statistics
    refit = case.make().partial_fit(X[:10], y[:10], classes=[*CLASSES, "zz"]).fit(X, y)
    assert_same_model(whole, refit, X)
    refit.partial_fit(X[:2], np.array(["new", "new"]))
    assert "new" in refit.classes_.tolist()


@pytest.mark.parametrize("case", STREAMING, ids=repr)
def test_refused_batches_leave_the_model_as_it_was(case):
    X, y = dataset(case, seed=24)
    model = case.make().partial_fit(X[:30], y[:30], classes=CLASSES)
    rest, labels = X[30:], y[30:]
    wider = np.concatenate([rest, rest[:, :1]], axis=1)
    _refused_unchanged(model, X, lambda m: m.partial_fit(wider, labels))
    stranger = labels.copy().astype(object)
    stranger[7] = "q"
    refusal = _refused_unchanged(model, X, lambda m: m.partial_fit(rest, stranger))
    assert isinstance(refusal, UnknownClassError)
    assert "'q'" in str(refusal)
    refusal = _refused_unchanged(model, X, lambda m: m.partial_fit(rest, labels, classes=["a"]))
    assert isinstance(refusal, UnknownClassError)
    weights = np.ones(len(labels))
    weights[4] = -1.0
    refusal = _refused_unchanged(
        model, X, lambda m: m.partial_fit(rest, labels, sample_weight=weights)
    )
    assert "sample_weight[4]" in str(refusal)
    refusal = _refused_unchanged(model, X, lambda m: m.partial_fit(rest[:0], labels[:0]))
    assert isinstance(refusal, ShapeError)
    undeclared = case.make().partial_fit(X[:30], y[:30])
    numbers = np.arange(len(labels))  # numeric labels beside a model of text classes
    refusal = _refused_unchanged(undeclared, X, lambda m: m.partial_fit(rest, numbers))
    assert "text and numbers" in str(refusal)


# ---------------------------------------------------------------- text models


@pytest.fixture(scope="module")
def sms(shared_data):
    from bayeskit.datasets.shared import load_sms_collection

    texts, labels = load_sms_collection(shared_data)
    return list(texts[:900]), np.asarray(labels[:900])


def _text_models():
    from bayeskit.text import SpamFilter, TextClassifier

    return [
        pytest.param(TextClassifier, id="TextClassifier"),
        pytest.param(lambda: TextClassifier(model=bk.BernoulliNB()), id="TextClassifier-bernoulli"),
        pytest.param(SpamFilter, id="SpamFilter"),
    ]


@pytest.mark.parametrize("make", _text_models())
def test_an_empty_batch_of_documents_is_refused_as_empty(make, sms):
    """An empty batch was refused as 'labels mixing text and numbers' (its empty label array
    is float); it is refused as what it is, and the model is left as it was."""
    texts, labels = sms
    model = make().fit(texts[:300], labels[:300])
    for empty_labels in ([], np.array([], dtype=str)):
        refusal = _refused_unchanged(
            model, texts[:50], lambda m, e=empty_labels: m.partial_fit([], e)
        )
        assert isinstance(refusal, ShapeError)
        assert "empty" in str(refusal)
    with pytest.raises(ShapeError, match="empty"):
        make().fit([], [])
    with pytest.raises(ShapeError, match="empty"):
        make().partial_fit([], [])


@pytest.mark.parametrize("make", _text_models()[:2])
def test_text_classifier_in_batches_is_the_whole_fit(make, sms):
    texts, labels = sms
    whole = make().fit(texts, labels)
    for size in (1, 7, 400):
        streamed = make()
        for lo in range(0, len(texts), size):
            streamed.partial_fit(texts[lo : lo + size], labels[lo : lo + size])
        np.testing.assert_allclose(
            streamed.predict_proba(texts), whole.predict_proba(texts), rtol=0, atol=1e-10
        )


def test_spam_filter_batches_have_the_whole_statistics_but_not_its_scale(sms):
    """SpamFilter's partial_fit is exact in its statistics; its probability scale is fitted on
    each batch's scores by the model before it learned the batch (held-out scores, as fit's
    folds give), so it is not fit's — as the incremental guide says."""
    from bayeskit.text import SpamFilter

    texts, labels = sms
    whole = SpamFilter().fit(texts, labels)
    streamed = SpamFilter()
    for lo in range(0, len(texts), 300):
        streamed.partial_fit(texts[lo : lo + 300], labels[lo : lo + 300])
    np.testing.assert_allclose(streamed.class_count_, whole.class_count_)
    np.testing.assert_allclose(
        streamed.predict_joint_log_proba(texts), whole.predict_joint_log_proba(texts), atol=1e-9
    )
    assert streamed.score_counts_.sum() == len(texts)  # every message scored once, held out
    assert np.abs(streamed.predict_proba(texts) - whole.predict_proba(texts)).max() > 1e-3


def test_refused_document_batches_leave_the_filter_as_it_was(sms):
    from bayeskit.text import SpamFilter

    texts, labels = sms
    model = SpamFilter().fit(texts[:300], labels[:300])
    missing = labels[300:400].astype(object)
    missing[50] = None
    refusal = _refused_unchanged(
        model, texts[:50], lambda m: m.partial_fit(texts[300:400], missing)
    )
    assert "row 50" in str(refusal)
    refusal = _refused_unchanged(
        model, texts[:50], lambda m: m.partial_fit([*texts[300:399], 5], labels[300:400])
    )
    assert "int" in str(refusal)
    refusal = _refused_unchanged(
        model, texts[:50], lambda m: m.partial_fit(texts[300:400], labels[300:400], classes=["ham"])
    )
    assert isinstance(refusal, UnknownClassError)
    assert isinstance(refusal, DataError)
