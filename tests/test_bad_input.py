"""Every bad input named in the issue raises a BayeskitError that says what is wrong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.errors import BayeskitError, DataError, InputTypeError, ShapeError

from ._grid import ESTIMATORS

X = np.array([[1, 0, 2], [0, 3, 1], [2, 2, 0], [0, 1, 4]], dtype=float)
Y = np.array([0, 0, 1, 1])


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.ComplementNB])
@pytest.mark.parametrize("sparse", [False, True])
def test_negative_counts(cls, sparse):
    bad = X.copy()
    bad[2, 1] = -3
    data = sp.csr_matrix(bad) if sparse else bad
    with pytest.raises(DataError, match=r"Negative values in data .* X\[2, 1\] = -3.0"):
        cls().fit(data, Y)
    model = cls().fit(X, Y)
    with pytest.raises(DataError, match=r"X\[2, 1\] = -3.0"):
        model.predict(data)


@pytest.mark.parametrize("cls", [bk.MultinomialNB, bk.ComplementNB, bk.BernoulliNB])
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_infinite_values(cls, value):
    bad = X.copy()
    bad[1, 2] = value
    with pytest.raises(DataError, match=r"inf at row 1, column 2; .* finite numbers"):
        cls().fit(bad, Y)
    with pytest.raises(DataError, match="row 1, column 2"):
        cls().fit(X, Y).predict_proba(bad)


def test_infinite_named_by_dataframe_column():
    frame = pd.DataFrame(X, columns=["free", "money", "now"])
    frame.loc[3, "money"] = np.inf
    with pytest.raises(DataError, match=r"row 3, column 1 \('money'\)"):
        bk.MultinomialNB().fit(frame, Y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_wrong_number_of_columns_at_predict(cls):
    model = cls().fit(X, Y)
    with pytest.raises(ShapeError, match=r"X has 2 features, but .* is expecting 3 features"):
        model.predict(X[:, :2])


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_empty_X(cls):
    with pytest.raises(ShapeError, match="0 sample"):
        cls().fit(np.empty((0, 3)), [])
    with pytest.raises(ShapeError, match="0 feature"):
        cls().fit(np.empty((4, 0)), Y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_X_and_y_of_different_lengths(cls):
    with pytest.raises(ShapeError, match="X has 4 rows but y has 3 entries"):
        cls().fit(X, Y[:3])
    with pytest.raises(ShapeError, match="X has 4 rows but y has 5 entries"):
        cls().partial_fit(X, np.arange(5))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_bad_sample_weight(cls):
    with pytest.raises(DataError, match="sample_weight has shape"):
        cls().fit(X, Y, sample_weight=[1, 2])
    with pytest.raises(DataError, match=r"sample_weight\[1\] = -1.0"):
        cls().fit(X, Y, sample_weight=[1, -1, 1, 1])
    with pytest.raises(DataError, match="every sample_weight is zero"):
        cls().fit(X, Y, sample_weight=np.zeros(4))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_missing_or_continuous_labels(cls):
    with pytest.raises(DataError, match="requires y"):
        cls().fit(X, None)
    fractional = (
        r"y is continuous, numbers with a fractional part \(0.5, 1.5, 2.5, …; 4 distinct values\)"
    )
    with pytest.raises(DataError, match=fractional):
        cls().fit(X, [0.5, 1.5, 2.5, 3.1])
    with pytest.raises(DataError, match=r"missing label .* at row 2"):
        cls().fit(X, np.array(["a", "b", None, "a"], dtype=object))


def test_text_where_numbers_are_needed():
    with pytest.raises(InputTypeError, match="takes numbers"):
        bk.MultinomialNB().fit([["a", "b"], ["c", "d"]], [0, 1])


def test_bernoulli_without_binarize_refuses_counts():
    with pytest.raises(DataError, match=r"binarize=None needs 0/1 features, but X\[0, 2\] = 2.0"):
        bk.BernoulliNB(binarize=None).fit(X, Y)


def test_sparse_input_to_categorical():
    with pytest.raises(InputTypeError, match="not a sparse matrix"):
        bk.CategoricalNB().fit(sp.csr_matrix(X), Y)


def test_categorical_refuses_infinity():
    with pytest.raises(DataError, match="a category must be a finite number"):
        bk.CategoricalNB().fit(np.array([[1.0], [np.inf]]), [0, 1])


def test_dataframe_columns_must_match():
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = bk.MultinomialNB().fit(frame, Y)
    with pytest.raises(BayeskitError, match="feature names"):
        model.predict(frame.rename(columns={"c": "z"}))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_one_dimensional_X(cls):
    with pytest.raises(ShapeError, match="Reshape your data"):
        cls().fit(np.array([1, 2, 3, 4]), Y)


# ---------------------------------------------------------------- labels, one path for all
def _score_models():
    from bayeskit.semi_supervised import SemiSupervisedNB
    from bayeskit.text import SpamFilter, TextClassifier

    docs = ["cheap pills now", "meeting at noon", "cheap offer", "lunch at noon"] * 3
    counts = np.random.default_rng(0).poisson(2, (12, 3))
    return [
        *((cls().fit(X, Y), X, Y) for cls in ESTIMATORS),
        (SemiSupervisedNB().fit(counts, np.tile([0, 1, -1], 4)), counts, np.tile([0, 1, 0], 4)),
        (TextClassifier().fit(docs, ["s", "h"] * 6), docs, np.array(["s", "h"] * 6)),
        (SpamFilter().fit(docs, ["spam", "ham"] * 6), docs, np.array(["spam", "ham"] * 6)),
    ]


SCORE_MODELS = _score_models()


def _bad_labels(y: np.ndarray) -> list[tuple[str, object, str]]:
    other = (
        np.where(np.arange(len(y)) % 2 == 0, "x", "y") if y.dtype.kind != "U" else np.arange(len(y))
    )
    na = pd.array([str(v) for v in y], dtype="string")
    na[1] = pd.NA
    return [
        ("another type", other, "labels but the model's classes"),
        ("too short", y[:-1], "same length"),
        ("too long", np.concatenate([y, y[:1]]), "same length"),
        ("none", None, "got None"),
        ("bytes", np.array([str(v).encode() for v in y]), "bytes"),
        ("bytes objects", np.array([str(v).encode() for v in y], dtype=object), "bytes"),
        ("pandas NA", na, "missing label"),
        ("a number", 5, "label"),
    ]


@pytest.mark.parametrize(("model", "X", "y"), SCORE_MODELS, ids=lambda v: type(v).__name__)
def test_score_checks_its_labels_as_fit_does(model, X, y):
    for _, bad, words in _bad_labels(np.asarray(y)):
        with pytest.raises(BayeskitError, match=words):
            model.score(X, bad)
    assert 0.0 <= model.score(X, y) <= 1.0


def test_semi_supervised_labels_go_through_fits_label_check():
    from bayeskit.semi_supervised import SemiSupervisedNB

    counts = np.random.default_rng(0).poisson(2, (12, 3))
    labelled = ["a", "b", "a"] * 4
    # pandas NA (and None) mark unlabelled rows, as -1 does for numbers
    with_na = pd.array([*labelled[:8], None, None, None, None], dtype="string")
    model = SemiSupervisedNB().fit(counts, with_na)
    assert model.classes_.tolist() == ["a", "b"]
    assert (model.transduction_[:8] == np.array(labelled[:8], dtype=object)).all()
    for bad, words in [
        (np.array([s.encode() for s in labelled]), "bytes"),
        (np.array([s.encode() for s in labelled], dtype=object), "bytes"),
        (np.array([], dtype=object), "empty"),
        (None, "None"),
        ([[v] * 2 for v in labelled], "one label per row"),
        ([*labelled[:11], object()], "class labels must be"),
    ]:
        with pytest.raises(DataError, match=words):
            SemiSupervisedNB().fit(counts, bad)
        before = model.__dict__.copy()
        with pytest.raises(DataError):
            model.fit(counts, bad)
        assert model.__dict__.keys() == before.keys()
        assert all(model.__dict__[k] is v for k, v in before.items())


@pytest.mark.parametrize("value", [None, 5, 2.5, object(), np.float64(1.0), np.array(3)])
def test_text_models_refuse_what_is_not_documents(value):
    from bayeskit.semi_supervised import SemiSupervisedNB
    from bayeskit.text import SpamFilter, TextClassifier

    docs = ["cheap pills now", "meeting at noon"] * 3
    for model in (TextClassifier(), SpamFilter(), SemiSupervisedNB(TextClassifier())):
        labels = [0, 1] * 3 if isinstance(model, SemiSupervisedNB) else ["spam", "ham"] * 3
        model.fit(docs, labels)
        for call in (model.predict, model.predict_proba):
            with pytest.raises(InputTypeError, match="iterable of documents"):
                call(value)
        with pytest.raises(InputTypeError, match="iterable of documents"):
            model.fit(value, labels)


# ---------------------------------------------------------------- inputs numpy allows
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # numpy's, on np.matrix
@pytest.mark.parametrize("cls", [*ESTIMATORS, bk.GaussianMixtureClassifier])
def test_an_np_matrix_is_read_as_its_rows(cls):
    model = cls().fit(X, Y)
    np.testing.assert_array_equal(
        cls().fit(np.matrix(X), Y).predict_proba(np.matrix(X)), model.predict_proba(X)
    )


@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30))
@settings(max_examples=30, deadline=None)
def test_uint64_identifiers_are_categories(seed, n):
    # Whole numbers from 2**53 are identifiers (hashes), not ordinal codes: the model of
    # uint64 values is the model of the same values as text.
    rng = np.random.default_rng(seed)
    top = np.iinfo(np.uint64).max
    values = np.array([top, top - 1, 2**53, 2**63 + 5], dtype=np.uint64)
    Xu = values[rng.integers(0, 4, size=(n, 2))]
    y = rng.integers(0, 2, n)
    as_text = Xu.astype(str).astype(object)
    P = bk.CategoricalNB().fit(Xu, y).predict_proba(Xu)
    np.testing.assert_allclose(P, bk.CategoricalNB().fit(as_text, y).predict_proba(as_text))


@pytest.mark.parametrize("cls", [bk.CategoricalNB, bk.MixedNB, bk.GaussianNB])
def test_a_bytes_cell_in_a_list_of_rows_is_named(cls):
    rows = [["red", 1.0], [b"\xff\xfe", 2.0], ["blue", 1.0]]
    with pytest.raises(InputTypeError, match=r"row 1|X\[1, 0\]|bytes"):
        cls().fit(rows, [0, 1, 0])
