"""Every user mistake is a BayeskitError that names it (issue 10 §2): the issue's examples,
one test each, and a generator of malformed inputs run through every estimator."""

from __future__ import annotations

import errno
import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.contract import contract_of
from bayeskit.errors import (
    BayeskitError,
    DataError,
    InputTypeError,
    MergeError,
    ParameterError,
    SaveError,
    ShapeError,
)

from ._grid import CASES, ESTIMATORS, dataset

RNG = np.random.default_rng(0)
CODES = RNG.integers(0, 4, size=(24, 3))
COUNTS = CODES.astype(np.float64)
Y = np.array(["a", "b"] * 12)


def name_of(make) -> str:
    """The class name of an estimator class or of a partial of one."""
    return getattr(make, "func", make).__name__


@pytest.fixture(params=ESTIMATORS, ids=name_of)
def fitted(request):
    return request.param().fit(COUNTS, Y)


def test_score_with_labels_of_another_type(fitted):
    with pytest.raises(DataError, match=r"y holds numeric labels but the model's classes are text"):
        fitted.score(COUNTS, np.arange(len(Y)))


def test_score_without_labels(fitted):
    with pytest.raises(DataError, match="needs the true labels y; got None"):
        fitted.score(COUNTS, None)


def test_score_is_accuracy(fitted):
    pred = fitted.predict(COUNTS)
    assert fitted.score(COUNTS, Y) == np.mean(pred == Y)
    w = np.arange(len(Y), dtype=float)
    expected = np.average(pred == Y, weights=w)
    assert fitted.score(COUNTS, Y, sample_weight=w) == pytest.approx(expected)


def test_predict_none(fitted):
    name = type(fitted).__name__
    with pytest.raises(DataError, match=f"{name} needs X, a 2-D table"):
        fitted.predict(None)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_pandas_string_labels_with_na(cls):
    y = pd.Series(["a", "b", pd.NA] * 8, dtype="string")
    with pytest.raises(DataError, match=r"missing label .* at row 2"):
        cls().fit(COUNTS, y)
    model = cls().fit(COUNTS, pd.Series(["a", "b", "c"] * 8, dtype="string"))
    assert model.classes_.tolist() == ["a", "b", "c"]


@pytest.mark.parametrize(
    "X",
    [
        CODES.astype(np.float16),
        CODES.astype(">f8"),
        CODES.astype(">i4"),
        CODES.astype(np.longdouble),
        CODES.astype(np.int8),
    ],
    ids=["float16", "big-endian float", "big-endian int", "longdouble", "int8"],
)
@pytest.mark.parametrize("cls", [bk.CategoricalNB, bk.GaussianNB, bk.MixedNB])
def test_unusual_numeric_dtypes_give_the_same_model(cls, X):
    expected = cls().fit(CODES, Y).predict_proba(CODES)
    np.testing.assert_allclose(cls().fit(X, Y).predict_proba(X), expected, rtol=1e-12)


def test_longdouble_beyond_float64_is_refused():
    X = CODES.astype(np.longdouble)
    X[2, 1] = np.longdouble("1e400")
    with pytest.raises(DataError, match=r"X\[2, 1\] = .*beyond the range of float64"):
        bk.CategoricalNB().fit(X, Y)


@pytest.mark.parametrize("cls", [bk.CategoricalNB, bk.GaussianNB, bk.MultinomialNB])
def test_masked_entries_are_missing_values(cls):
    mask = RNG.random(CODES.shape) < 0.2
    masked = np.ma.masked_array(CODES, mask=mask)
    with_nan = np.where(mask, np.nan, COUNTS)
    expected = cls().fit(with_nan, Y).predict_proba(with_nan)
    np.testing.assert_allclose(cls().fit(masked, Y).predict_proba(masked), expected, rtol=1e-12)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_ragged_rows(cls):
    with pytest.raises(ShapeError, match="X is ragged: row 1 has 1 values but row 0 has 2"):
        cls().fit([[1, 2], [1]] * 6, ["a", "b"] * 6)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
@pytest.mark.parametrize(
    "X",
    [
        COUNTS + 1j,
        (COUNTS + 1j).tolist(),
        np.full(COUNTS.shape, np.datetime64("2020-01-01")),
    ],
    ids=["complex array", "complex list", "dates"],
)
def test_complex_numbers_and_dates_are_named(cls, X):
    # Complex numbers are a ValueError with scikit-learn's words, which its checks look for.
    error = InputTypeError if np.asarray(X).dtype.kind == "M" else DataError
    with pytest.raises(
        error, match=r"Complex data not supported: .*X.real|cannot use dates"
    ) as info:
        cls().fit(X, Y)
    assert "\n" not in str(info.value)  # one line, not the array


def test_adding_models_with_different_alpha_shapes():
    a = bk.MultinomialNB(alpha=np.ones(3)).fit(COUNTS, Y)
    b = bk.MultinomialNB(alpha=1.0).fit(COUNTS, Y)
    with pytest.raises(MergeError, match="different settings: alpha"):
        a + b
    c = bk.MultinomialNB(alpha=np.ones(2)).fit(COUNTS[:, :2], Y)
    with pytest.raises(MergeError, match="different settings: alpha"):
        a + c


def test_save_into_a_missing_folder_names_the_path(tmp_path):
    model = bk.MultinomialNB().fit(COUNTS, Y)
    target = tmp_path / "no" / "such" / "model.bkm"
    with pytest.raises(SaveError, match=r"folder .* does not exist") as info:
        bk.save(model, target)
    assert info.value.filename == str(target)
    assert isinstance(info.value, OSError)
    assert info.value.errno == errno.ENOENT
    assert ".tmp" not in str(info.value)
    with pytest.raises(SaveError, match="it is a folder"):
        bk.save(model, tmp_path)
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_save_without_permission_names_the_path(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(SaveError, match="no permission") as info:
        bk.save(bk.MultinomialNB().fit(COUNTS, Y), locked / "m.bkm")
    assert info.value.filename == str(locked / "m.bkm")


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"class_prior": ["a", "b"]}, "class_prior must be one probability per class"),
        ({"prior_alpha": "a"}, r"prior_alpha must be >= 0 \(a number"),
        ({"class_weight": ["a", "b"]}, "class_weight must be None, 'balanced'"),
        ({"class_weight": {"a": "x"}}, r"class_weight\['a'\] = 'x'"),
        ({"fit_prior": "no"}, "fit_prior must be True or False"),
    ],
)
def test_hyperparameters_of_the_wrong_type(params, match):
    model = bk.MultinomialNB(**params)
    with pytest.raises(ParameterError, match=match):
        model.fit(COUNTS, Y).predict(COUNTS)


def test_labels_that_are_no_labels():
    lists = np.empty(len(Y), dtype=object)
    lists[:] = [[1]] * len(Y)
    with pytest.raises(DataError, match=r"y\[0\] is a list \(\[1\]\); class labels must"):
        bk.MultinomialNB().fit(COUNTS, lists)
    dates = np.array(["2020-01-01"] * len(Y), dtype="datetime64[D]")
    with pytest.raises(DataError, match="dtype datetime64"):
        bk.MultinomialNB().fit(COUNTS, dates)


def test_sample_weight_of_text():
    with pytest.raises(DataError, match="sample_weight must hold numbers"):
        bk.MultinomialNB().fit(COUNTS, Y, sample_weight=["x"] * len(Y))


# ---------------------------------------------------------------------------------- generator
def _malformed() -> st.SearchStrategy:
    """Inputs a user may pass by mistake: wrong dtypes, shapes, markers and containers."""
    n = len(Y)
    return st.sampled_from(
        [
            None,
            5,
            "text",
            [],
            [[]],
            COUNTS[0],
            COUNTS[:, :, None],
            COUNTS + 1j,
            COUNTS.astype(np.float16),
            COUNTS.astype(">f4"),
            COUNTS.astype(np.longdouble),
            np.ma.masked_array(COUNTS, mask=COUNTS == 0),
            np.full((n, 3), np.datetime64("2021-05-01")),
            np.full((n, 3), np.timedelta64(3, "s")),
            np.zeros((n, 3), dtype=[("a", "i4")]),
            np.array([[1, "a", None]] * n, dtype=object),
            np.array([[{"a": 1}, 1, 2]] * n, dtype=object),
            np.array([[[1], 1, 2]] * n, dtype=object),
            np.full((n, 3), b"x"),
            [[1, 2], [1]] * (n // 2),
            pd.DataFrame(COUNTS, columns=["a", "b", "c"]),
            pd.DataFrame({"a": pd.array([1, None] * (n // 2), dtype="Int64"), "b": 1.0}),
            pd.DataFrame({"a": pd.Series(["x", pd.NA] * (n // 2), dtype="string"), "b": 1.0}),
            pd.DataFrame({"a": pd.date_range("2020", periods=n), "b": 1.0}),
            np.where(COUNTS > 2, np.inf, COUNTS),
            -COUNTS,
            COUNTS.T,
        ]
    )


def _labels() -> st.SearchStrategy:
    n = len(Y)
    return st.sampled_from(
        [
            Y,
            None,
            Y[:3],
            np.arange(n),
            np.arange(n) + 0.5,
            np.full(n, np.nan),
            pd.Series(["a", "b", pd.NA] * (n // 3), dtype="string"),
            pd.Series(["a", "b"] * (n // 2), dtype="category"),
            np.array(["a", 1] * (n // 2), dtype=object),
            Y.reshape(-1, 2),
            [None] * n,
            np.array([b"a", b"b"] * (n // 2)),
        ]
    )


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
@given(X=_malformed(), y=_labels(), predict_X=_malformed())
@settings(max_examples=25)
def test_generated_mistakes_are_named_errors(cls, X, y, predict_X):
    """Whatever the inputs, fit and predict succeed (a finite answer) or raise a
    BayeskitError; a fitted model refusing a call is left as it was."""
    check_mistake(cls, X, y, predict_X)


@pytest.mark.slow
@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
@given(X=_malformed(), y=_labels(), predict_X=_malformed())
@settings(max_examples=max(1000, settings.default.max_examples))
def test_generated_mistakes_are_named_errors_thoroughly(cls, X, y, predict_X):
    check_mistake(cls, X, y, predict_X)


def check_mistake(cls, X, y, predict_X) -> None:
    model = cls()
    try:
        model.fit(X, y)
    except BayeskitError as exc:
        refusal = str(exc)
    else:
        refusal = None
    if refusal is not None:
        assert refusal
        assert "\n" not in refusal  # one line, as the command line prints it
        return
    before = model.predict_proba(model_input(model))
    try:
        P = model.predict_proba(predict_X)
    except BayeskitError:
        np.testing.assert_array_equal(model.predict_proba(model_input(model)), before)
        return
    assert np.isfinite(P).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, atol=1e-9)


def model_input(model: bk.GenerativeClassifier):
    names = getattr(model, "feature_names_in_", None)
    data = np.ones((2, model.n_features_in_))
    return pd.DataFrame(data, columns=list(names)) if names is not None else data


@pytest.mark.parametrize("value", ["x", True, float("nan")])
def test_binarize_that_is_not_a_number(value):
    # Found by the model-file generator: a file whose binarize was text loaded, and every
    # predict then raised numpy's UFuncTypeError.
    with pytest.raises(ParameterError, match="binarize must be None or a number"):
        bk.BernoulliNB(binarize=value).fit(COUNTS, Y)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_merging_models_of_other_settings_is_a_merge_error(case):
    # Settings given as a list on one side and a number (or another list) on the other:
    # a MergeError naming the setting, never a TypeError from comparing them.
    X, y = dataset(case, 0, n=30)  # every column the grid's MixedNB names a family for
    model = case.make().fit(X, y)
    params = model.get_params(deep=False)
    for key, value in params.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value is None:
            continue
        for other_value in ([value] * 3, [value, value, value + 1.0]):
            other = case.make().set_params(**{key: other_value})
            try:
                other.fit(X, y)
            except BayeskitError:
                continue  # a setting that takes no list
            # (a model that declares it does not merge says that, whatever its settings)
            expected = key if contract_of(type(model)).mergeable else "declares mergeable=False"
            for a, b in ((model, other), (other, model)):
                with pytest.raises(MergeError, match=expected):
                    a + b


def _numeric_settings() -> list[tuple[type, str]]:
    """(class, parameter) for every number-valued default of every estimator a user may
    name, the text ones included."""
    from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

    from ._grid import registry

    found = []
    classes = {*registry().values(), SpamFilter, TextClassifier, TextVectorizer}
    for cls in sorted(classes, key=lambda c: c.__name__):
        try:
            defaults = cls().get_params(deep=False)
        except BayeskitError:
            continue
        for name, value in defaults.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                found.append((cls, name))
    return found


@pytest.mark.parametrize(
    ("cls", "name"), _numeric_settings(), ids=lambda v: getattr(v, "__name__", v)
)
@pytest.mark.parametrize("sign", [1, -1], ids=["big", "-big"])
def test_an_int_past_the_largest_float_is_refused_by_name(cls, name, sign):
    """A setting of 10**400 (a Python int no float holds): a named refusal or a fit, never
    Python's OverflowError or numpy's TypeError from converting it."""
    needed = {"n_trials": 4} if cls.__name__ == "BinomialNB" else {}  # CODES are 0..3
    model = cls(**{**needed, name: sign * 10**400})
    docs = ["free cash now", "win money", "see you soon", "lunch today"] * 3
    labels = ["spam", "spam", "ham", "ham"] * 3
    message = ""
    try:
        if cls.__module__.startswith("bayeskit.text"):
            model.fit(docs) if cls.__name__ == "TextVectorizer" else model.fit(docs, labels)
        else:
            model.fit(CODES, Y)
    except BayeskitError as exc:  # a refusal names the setting (or what it empties)
        message = str(exc)
    assert not message or any(word in message for word in (name, "vocabulary"))
