"""DataFrames (MixedNB's mixed columns and missing values) and bags of documents (text models:
vocabularies and counts identical to the in-memory fit), and a worker that dies mid-fit."""

from __future__ import annotations

import itertools
import os

import dask.array as da
import dask.bag as db
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
import bayeskit.dask as bkd
import dask
from bayeskit.errors import DataError
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

pytestmark = pytest.mark.xdist_group("dask")


def mixed_frame(seed: int, n: int = 120) -> pd.DataFrame:
    """Floats with NaN, nullable booleans, strings with None, nullable integers."""
    rng = np.random.default_rng(seed)

    def holes(values, dtype):
        values = np.asarray(values, dtype=object)
        values[rng.random(n) < 0.15] = None
        return pd.array(values, dtype=dtype)

    return pd.DataFrame(
        {
            "age": np.where(rng.random(n) < 0.15, np.nan, rng.normal(40, 12, n)),
            "owner": holes(rng.random(n) < 0.4, "boolean"),
            "city": holes(rng.choice(["Oslo", "Lyon", "Rome"], n), "string"),
            "kids": holes(rng.integers(0, 4, n), "Int64"),
            "label": rng.choice(["buy", "rent", "share"], n, p=[0.5, 0.3, 0.2]),
        }
    )


def _same_mixed(model, whole, X):
    assert model.feature_families_ == whole.feature_families_
    assert list(model.feature_names_in_) == list(whole.feature_names_in_)
    np.testing.assert_array_equal(model.classes_, whole.classes_)
    np.testing.assert_allclose(model.class_count_, whole.class_count_, rtol=1e-12)
    for column, values in whole.categories_.items():
        np.testing.assert_array_equal(model.categories_[column], values)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), whole.predict_joint_log_proba(X), rtol=1e-12
    )


def test_mixed_frame_on_cluster(on_cluster):
    frame = mixed_frame(seed=1).sort_values("label", kind="stable").reset_index(drop=True)
    ddf = dd.from_pandas(frame, npartitions=4)
    X = frame.drop(columns="label")
    model = bkd.fit(
        bk.MixedNB(integers="poisson", numeric="gaussian"), ddf, "label"
    )  # y: a column of X
    whole = bk.MixedNB(integers="poisson", numeric="gaussian").fit(X, frame["label"])
    assert whole.feature_families_ == {
        "age": "gaussian",
        "owner": "bernoulli",
        "city": "categorical",
        "kids": "poisson",
    }
    _same_mixed(model, whole, X)
    features = ddf.drop(columns="label")
    again = bkd.fit(
        bk.MixedNB(integers="poisson", numeric="gaussian"), features, ddf["label"]
    )  # y: a Series
    _same_mixed(again, whole, X)
    predicted = bkd.predict(model, features)
    proba = bkd.predict_proba(model, features)
    assert isinstance(predicted, dd.Series)
    assert isinstance(proba, dd.DataFrame)
    assert list(proba.columns) == ["buy", "rent", "share"]
    np.testing.assert_array_equal(predicted.compute().to_numpy(), whole.predict(X))
    np.testing.assert_allclose(proba.compute().to_numpy(), whole.predict_proba(X), rtol=1e-12)


# 10 examples in the default run; the loaded profile's own under HYPOTHESIS_PROFILE=thorough
@settings(
    max_examples=10
    if os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci"
    else settings.default.max_examples
)
@given(seed=st.integers(0, 1000), n_parts=st.integers(1, 9), sort=st.booleans())
def test_mixed_frame_over_partitionings(seed, n_parts, sort):
    frame = mixed_frame(seed, n=40)
    if sort:
        frame = frame.sort_values("label", kind="stable").reset_index(drop=True)
    X, y = frame.drop(columns="label"), frame["label"]
    with dask.config.set(scheduler="sync"):
        model = bkd.fit(bk.MixedNB(), dd.from_pandas(frame, npartitions=n_parts), "label")
        more = bkd.partial_fit(
            bk.MixedNB().fit(X.iloc[:7], y.iloc[:7]),
            dd.from_pandas(frame.iloc[7:], npartitions=n_parts),
            "label",
        )
    whole = bk.MixedNB().fit(X, y)
    _same_mixed(model, whole, X)
    _same_mixed(more, whole, X)


_SPAM = "free cash prize win winner lunch noon meeting see you at the"
_HAM = "office today now claim offer call report budget ÉtÉ naïve"
WORDS = np.array(f"{_SPAM} {_HAM}".split(" "))


def documents(seed: int, n: int = 300) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.choice(["ham", "spam"], n)
    docs = [
        " ".join(rng.choice(WORDS[: 12 if label == "spam" else None], rng.integers(0, 9)))
        for label in labels
    ]
    return docs, labels


TEXT_MODELS = [
    TextClassifier,
    lambda: TextClassifier(vectorizer=TextVectorizer(min_df=2, max_features=12)),
    lambda: TextClassifier(
        vectorizer=TextVectorizer(output="binary", ngram_range=(1, 2)), model=bk.BernoulliNB()
    ),
    lambda: TextClassifier(useful_terms=8),
    lambda: SpamFilter(calibration_folds=None),
    TextClassifier.twcnb,  # tf-idf: two rounds (vocabulary statistics, then counts)
    lambda: TextClassifier(vectorizer=TextVectorizer(output="hashed", n_features=64)),
    lambda: TextClassifier(vectorizer=TextVectorizer(vocabulary=["cash", "lunch", "win"])),
]


def _same_text_model(a, b, docs):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    a_vec, b_vec = a.fitted_parts()[0], b.fitted_parts()[0]
    if a_vec.output != "hashed":  # hashed columns have no names
        np.testing.assert_array_equal(a.get_feature_names_out(), b.get_feature_names_out())
    np.testing.assert_array_equal(a_vec.stats_.terms, b_vec.stats_.terms)
    np.testing.assert_array_equal(a_vec.stats_.doc_freq, b_vec.stats_.doc_freq)
    np.testing.assert_array_equal(a_vec.stats_.term_freq, b_vec.stats_.term_freq)
    assert a_vec.stats_.n_docs == b_vec.stats_.n_docs
    np.testing.assert_allclose(
        a.predict_joint_log_proba(docs), b.predict_joint_log_proba(docs), rtol=1e-12
    )


@pytest.mark.parametrize("make", TEXT_MODELS)
def test_text_models_on_a_bag(make, on_cluster):
    docs, labels = documents(seed=2)
    order = np.argsort(labels, kind="stable")  # most partitions hold one class
    docs, labels = [docs[i] for i in order], labels[order]
    pairs = db.from_sequence(list(zip(docs, labels, strict=True)), npartitions=6)
    model = bkd.fit(make(), pairs)
    whole = make().fit(docs, labels)
    _same_text_model(model, whole, docs)
    predicted = bkd.predict(model, db.from_sequence(docs, npartitions=4))
    assert isinstance(predicted, db.Bag)
    assert predicted.compute() == whole.predict(docs).tolist()


def test_text_partial_fit_and_separate_labels(on_cluster):
    docs, labels = documents(seed=3)
    model = TextClassifier().fit(docs[:50], labels[:50])
    bag = db.from_sequence(docs[50:], npartitions=5)
    bkd.partial_fit(model, bag, db.from_sequence(labels[50:].tolist(), npartitions=3))
    _same_text_model(model, TextClassifier().fit(docs, labels), docs)
    tfidf = TextClassifier.twcnb().fit(docs[:50], labels[:50])
    bkd.partial_fit(tfidf, bag, labels[50:])  # adds counts under the fitted vocabulary
    expected = TextClassifier.twcnb().fit(docs[:50], labels[:50])
    expected.partial_fit(docs[50:], labels[50:])
    _same_text_model(tfidf, expected, docs)


def test_text_column_of_a_frame(on_cluster):
    docs, labels = documents(seed=4)
    frame = dd.from_pandas(pd.DataFrame({"text": docs, "label": labels}), npartitions=3)
    model = bkd.fit(SpamFilter(), frame["text"], frame["label"])
    _same_text_model(model, SpamFilter().fit(docs, labels), docs)


COUNTED = {"vectorizer": TextVectorizer(ngram_range=(1, 2)), "model": bk.MultinomialNB(alpha=0.3)}


def test_spam_filter_calibrated_on_the_cluster(on_cluster):
    docs, spam = documents(seed=6)
    # one partition: fit's own held-out counts and scale (count weighting)
    one = bkd.fit(SpamFilter(**COUNTED), db.from_sequence(docs, npartitions=1), spam.tolist())
    whole = SpamFilter(**COUNTED).fit(docs, spam)
    np.testing.assert_array_equal(one.score_counts_, whole.score_counts_)
    assert one.calibration_ == whole.calibration_
    # several partitions: each one's held-out counts, by the fitted filter, added
    bag = db.from_sequence(docs, npartitions=4)
    model = bkd.fit(SpamFilter(), bag, spam.tolist())
    cuts = np.cumsum([0, *bag.map_partitions(lambda part: [len(part)]).compute()])
    by_hand = sum(
        model.held_out_score_counts(docs[a:b], spam[a:b]) for a, b in itertools.pairwise(cuts)
    )
    np.testing.assert_array_equal(model.score_counts_, by_hand)
    assert model.score_counts_.sum() == len(docs)
    plain = SpamFilter(calibration_folds=None).fit(docs, spam)
    plain.set_params(calibration_folds=5).calibrate(by_hand)
    assert model.calibration_ == plain.calibration_
    with pytest.warns(UserWarning, match="keeps the model's own probabilities"):
        idf = bkd.fit(SpamFilter(vectorizer=TextVectorizer(output="tfidf")), bag, spam.tolist())
    assert idf.calibration_ == (1.0, 0.0)


def test_vectorizer_on_a_bag(on_cluster):
    docs, _ = documents(seed=5)
    bag = db.from_sequence(docs, npartitions=5)
    vec = bkd.fit(TextVectorizer(min_df=3), bag)
    whole = TextVectorizer(min_df=3).fit(docs)
    np.testing.assert_array_equal(vec.get_feature_names_out(), whole.get_feature_names_out())
    np.testing.assert_array_equal(vec.stats_.doc_freq, whole.stats_.doc_freq)
    assert (vec.transform(docs) != whole.transform(docs)).nnz == 0
    more = bkd.partial_fit(TextVectorizer().fit(docs[:100]), db.from_sequence(docs[100:], 3))
    whole_counts = TextVectorizer().fit(docs).stats_.term_freq
    np.testing.assert_array_equal(more.stats_.term_freq, whole_counts)
    hashed = bkd.fit(TextVectorizer(output="hashed", n_features=32), bag)
    assert hashed.transform(docs[:3]).shape == (3, 32)


def _block(i: int, marker: str) -> np.ndarray:
    """Rows of block ``i``; the first time block 2 is computed, its worker process dies."""
    if i == 2 and not os.path.exists(marker):
        with open(marker, "w"):
            pass
        os._exit(1)
    rng = np.random.default_rng(i)
    return rng.poisson(2.0, size=(50, 4)).astype(np.float64)


def test_a_worker_dying_mid_fit_is_retried_and_the_model_is_exact(on_cluster, tmp_path):
    marker = str(tmp_path / "died")
    blocks = [
        da.from_delayed(dask.delayed(_block, pure=False)(i, marker), (50, 4), np.float64)
        for i in range(6)
    ]
    X = da.concatenate(blocks)
    y = np.tile(np.array(["a", "b", "c", "a", "b"]), 60)
    model = bkd.fit(bk.MultinomialNB(), X, y)
    assert os.path.exists(marker)  # the worker did die
    rows = np.vstack([_block(i, marker) for i in range(6)])
    whole = bk.MultinomialNB().fit(rows, y)
    np.testing.assert_allclose(model.stats_.blocks[0].total, whole.stats_.blocks[0].total)
    np.testing.assert_allclose(model.class_count_, whole.class_count_)


@pytest.mark.parametrize("npartitions", [1, 4, 300])
def test_text_models_on_a_frame_of_one_text_column(npartitions, on_threads):
    """A Dask DataFrame of a text column and the labels: the documents are the column's
    values, as a pandas frame of one column is in memory (its partitions were iterated,
    giving the column's name: the model learned the one term 'text')."""
    docs, labels = documents(seed=4)
    frame = dd.from_pandas(pd.DataFrame({"text": docs, "label": labels}), npartitions=npartitions)
    model = bkd.fit(TextClassifier(), frame, "label")
    _same_text_model(model, TextClassifier().fit(docs, labels), docs)


def test_numbers_held_as_objects_are_class_labels(on_threads):
    X = np.arange(8.0)[:, None]
    y = np.array([1, 2, 1, 2, 1, 2, 1, 2], dtype=object)
    model = bkd.fit(bk.GaussianNB(), da.from_array(X, chunks=(4, 1)), da.from_array(y, chunks=4))
    np.testing.assert_array_equal(model.classes_, [1, 2])
    np.testing.assert_array_equal(bk.GaussianNB().fit(X, y).classes_, [1, 2])
    mixed = np.array([1, 2, 1, 2, "a", "b", "a", "b"], dtype=object)
    with pytest.raises(DataError, match="mix text and numbers"):
        bkd.fit(bk.GaussianNB(), da.from_array(X, chunks=(4, 1)), da.from_array(mixed, chunks=4))


def test_probability_columns_are_the_classes(on_threads):
    X = np.arange(8.0)[:, None]
    y = np.array([1, 2, 1, 2, 1, 2, 1, 2])
    frame = dd.from_pandas(pd.DataFrame({"x": X[:, 0]}), npartitions=2)
    model = bk.GaussianNB().fit(pd.DataFrame({"x": X[:, 0]}), y)
    proba = bkd.predict_proba(model, frame).compute()
    assert proba.columns.tolist() == [1, 2]
    np.testing.assert_allclose(proba[model.classes_[0]].to_numpy(), model.predict_proba(X)[:, 0])


def test_weights_named_by_a_column_like_the_labels(on_threads):
    rng = np.random.default_rng(5)
    table = pd.DataFrame(
        {"x": rng.normal(size=40), "w": rng.uniform(0.5, 2, 40), "label": rng.integers(0, 2, 40)}
    )
    frame = dd.from_pandas(table, npartitions=3)
    model = bkd.fit(bk.GaussianNB(), frame, "label", sample_weight="w")
    whole = bk.GaussianNB().fit(table[["x"]], table["label"], sample_weight=table["w"])
    np.testing.assert_allclose(model.theta_, whole.theta_, rtol=1e-12)
    np.testing.assert_allclose(model.var_, whole.var_, rtol=1e-10)
    with pytest.raises(DataError, match="sample_weight names the column 'v'"):
        bkd.fit(bk.GaussianNB(), frame, "label", sample_weight="v")
    with pytest.raises(bk.errors.InputTypeError, match="sample_weight='w': a column name"):
        bkd.fit(bk.GaussianNB(), da.from_array(table[["x"]].to_numpy()), table["label"], "w")
