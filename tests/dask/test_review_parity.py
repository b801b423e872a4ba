"""Every estimator of the common grid fitted on a real cluster from a dask DataFrame of uneven
partitions (one holding a single class, one empty): the in-memory model, its probabilities
to 1e-10; and the text models on a bag with an empty partition and a one-class one."""

from __future__ import annotations

import itertools

import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
import bayeskit.dask as bkd
import dask
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

from .._grid import CASES, Case, assert_same_model, dataset

pytestmark = pytest.mark.xdist_group("dask")

CUTS = (7, 7, 25, 52)  # partitions of 7 (one class), 0, 18, 27 and the rest


def _pieces(frame, cuts):
    bounds = [0, *cuts, len(frame)]
    return [frame.iloc[a:b] for a, b in itertools.pairwise(bounds)]


def _partitioned(frame):
    """``frame`` as a dask collection of the partitions CUTS gives (known to dask only as
    delayed pieces: their lengths are not known up front)."""
    pieces = [dask.delayed(piece) for piece in _pieces(frame, CUTS)]
    return dd.from_delayed(pieces, meta=frame.iloc[:0], verify_meta=False)


#: run on the cluster (the whole grid runs on threads: the same partitions, no processes)
ON_CLUSTER = {"CategoricalNB", "MixedNB", "LDA", "GaussianMixture-full", "SemiSupervisedNB"}


@pytest.mark.parametrize(
    ("case", "where"),
    [(case, "threads") for case in CASES]
    + [(case, "cluster") for case in CASES if case.name in ON_CLUSTER],
    ids=lambda value: value if isinstance(value, str) else repr(value),
)
def test_a_frame_of_uneven_partitions_gives_the_in_memory_model(case: Case, where, request):
    request.getfixturevalue("on_cluster" if where == "cluster" else "on_threads")
    X, y = dataset(case, seed=21)
    order = np.argsort(y, kind="stable")  # by class: the first partition holds one class
    X, y = X[order], y[order]
    assert len(set(y[: CUTS[0]])) == 1
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    labels = pd.Series(y, name="label")
    with dask.config.set({"dataframe.convert-string": False}):  # MixedNB's object columns
        model = bkd.fit(case.make(), _partitioned(frame), _partitioned(labels))
    whole = case.make().fit(frame, labels)
    assert_same_model(model, whole, frame)
    with dask.config.set({"dataframe.convert-string": False}):
        proba = bkd.predict_proba(model, _partitioned(frame)).compute()
    np.testing.assert_allclose(proba.to_numpy(), whole.predict_proba(frame), rtol=0, atol=1e-10)
    assert proba.columns.tolist() == whole.classes_.tolist()


SMS = [
    ("win cash now", "spam"),
    ("free prize claim now", "spam"),
    ("cash prize waiting", "spam"),
    ("lunch at noon", "ham"),
    ("see you at lunch", "ham"),
    ("meeting moved to noon", "ham"),
    ("call me later", "ham"),
    ("claim your free cash", "spam"),
]


@pytest.mark.parametrize(
    "make",
    [
        lambda: TextClassifier(),
        lambda: TextClassifier(vectorizer=TextVectorizer(output="tfidf")),
        lambda: SpamFilter(
            vectorizer=TextVectorizer(), model=bk.MultinomialNB(alpha=0.5), calibration_folds=None
        ),
    ],
    ids=["TextClassifier", "TextClassifier-tfidf", "SpamFilter"],
)
def test_text_models_on_a_bag_of_uneven_partitions(make, on_cluster):
    pairs = sorted(SMS * 6, key=lambda pair: pair[1])  # ham first
    docs = [doc for doc, _ in pairs]
    labels = [label for _, label in pairs]
    pieces = [pairs[:5], [], pairs[5:30], pairs[30:]]  # one class, empty, the rest
    bag = db.from_delayed([dask.delayed(piece) for piece in pieces])
    model = bkd.fit(make(), bag)
    whole = make().fit(docs, labels)
    probe = [doc for doc, _ in SMS] + ["free lunch", "unseen words"]
    np.testing.assert_allclose(model.predict_proba(probe), whole.predict_proba(probe), atol=1e-10)
    assert model.predict(probe).tolist() == whole.predict(probe).tolist()


def test_a_calibrated_spam_filter_on_a_one_class_partition_keeps_the_statistics(on_cluster):
    """The held-out scores of a partition that holds one class (and of an empty one) are
    counted too: the statistics are the in-memory ones (the scale comes from other folds than
    fit's, see bayeskit.dask.fit)."""
    pairs = sorted(SMS * 6, key=lambda pair: pair[1])
    pieces = [pairs[:5], [], pairs[5:30], pairs[30:]]
    make = lambda: SpamFilter(vectorizer=TextVectorizer(), model=bk.MultinomialNB(alpha=0.5))  # noqa: E731
    model = bkd.fit(make(), db.from_delayed([dask.delayed(piece) for piece in pieces]))
    whole = make().fit([doc for doc, _ in pairs], [label for _, label in pairs])
    np.testing.assert_allclose(
        model.model_.feature_log_prob_, whole.model_.feature_log_prob_, rtol=1e-12
    )
    assert model.score_counts_.sum() == len(pairs)  # every message scored held out once
