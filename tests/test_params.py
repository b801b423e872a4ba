"""The estimator base without scikit-learn (:mod:`bayeskit._params`, :mod:`bayeskit._folds`):
what it does without importing scikit-learn is what scikit-learn does — the same display,
clones, folds and checks of the columns."""

from __future__ import annotations

import pickle
import warnings
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator
from sklearn.base import clone as sklearn_clone
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import validate_data

import bayeskit as bk
from bayeskit import _folds
from bayeskit._params import ParamNamesOnce, clone, one_line_repr
from bayeskit._validation import check_features
from bayeskit.errors import ConvergenceWarning, NotFittedError, convergence_warning
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

from ._grid import CASES, CHECKED

ESTIMATORS = [
    *CHECKED,
    *(case.make() for case in CASES),
    bk.SemiSupervisedNB(bk.MultinomialNB(alpha=0.5)),
    bk.MultinomialNB(alpha=float("nan")),
    bk.MultinomialNB(class_prior=[0.3, 0.7]),
    SpamFilter(),
    SpamFilter(model=bk.MultinomialNB(alpha=0.3)),
    TextClassifier.sklearn_defaults(),
    TextVectorizer(ngram_range=(1, 2)),
]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_own_display_is_sklearns(estimator):
    """Without scikit-learn imported, a short display is bayeskit's own: the text
    scikit-learn prints (with its default settings); the others are scikit-learn's."""
    ours = one_line_repr(estimator)
    assert ours is None or ours == repr(estimator)
    assert isinstance(estimator, BaseEstimator)  # scikit-learn is imported here


def test_display_of_long_and_nested_settings_is_sklearns():
    """Displays beyond one line of plain settings are scikit-learn's printer's: nested
    estimators indented under their parameter, long lists cut short."""
    model = bk.SemiSupervisedNB(bk.MultinomialNB(alpha=0.5, class_prior=[0.25, 0.75]))
    assert one_line_repr(model) is None
    assert repr(model) == (
        "SemiSupervisedNB(estimator=MultinomialNB(alpha=0.5, class_prior=[0.25, 0.75]))"
    )
    deeper = bk.SemiSupervisedNB(SpamFilter(model=bk.MultinomialNB(class_prior=[0.1, 0.9])))
    assert repr(deeper).splitlines()[1].strip() == "0.9])))"
    long = bk.MultinomialNB(class_prior=[1 / 40] * 40)
    assert "..." in repr(long)
    assert "GaussianNB(var_smoothing=0.001)" in repr(
        make_pipeline(StandardScaler(), bk.GaussianNB(var_smoothing=1e-3))
    )


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_own_clone_is_sklearns(estimator):
    ours, theirs = clone(estimator), sklearn_clone(estimator)
    assert type(ours) is type(theirs) is type(estimator)
    assert repr(ours.get_params()) == repr(theirs.get_params())
    assert ours is not estimator
    assert pickle.loads(pickle.dumps(estimator)).get_params().keys() == ours.get_params().keys()


def test_nested_params_and_sklearn_meta_estimators():
    spam = SpamFilter()
    spam.set_params(model__alpha=0.7)
    assert spam.get_params()["model__alpha"] == 0.7
    with pytest.raises(ValueError, match="Invalid parameter 'nope' for estimator"):
        spam.set_params(nope=1)
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 5, (60, 4)), np.arange(60) % 2
    search = GridSearchCV(bk.MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, y)
    assert search.best_estimator_.alpha in (0.1, 1.0)
    assert sklearn.base.is_classifier(bk.TANClassifier())
    assert "<style>" in bk.GaussianNB()._repr_html_()


def test_metadata_routing_goes_through():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(60, 3)), np.arange(60) % 2
    with sklearn.config_context(enable_metadata_routing=True):
        model = bk.GaussianNB()
        assert model.set_fit_request(sample_weight=True) is model
        assert model.get_metadata_routing().fit.requests == {"sample_weight": True}
        assert not hasattr(model, "set_predict_request")  # predict takes no metadata
        scaler = StandardScaler().set_fit_request(sample_weight=False)
        pipe = make_pipeline(scaler, clone(model)).fit(X, y, sample_weight=np.ones(60))
        assert pipe.score(X, y) > 0.3


@settings(max_examples=60, deadline=None)
@given(
    labels=st.lists(st.sampled_from(["spam", "ham", "x", "y"]), min_size=2, max_size=80),
    folds=st.integers(2, 6),
    seed=st.one_of(st.none(), st.integers(0, 2**31)),
)
def test_folds_are_sklearns(labels, folds, seed):
    y = np.array(labels)
    shuffle = seed is not None
    pairs = [
        (_folds.KFold(folds, shuffle=shuffle, random_state=seed),
         KFold(folds, shuffle=shuffle, random_state=seed)),
        (_folds.StratifiedKFold(folds, shuffle=shuffle, random_state=seed),
         StratifiedKFold(folds, shuffle=shuffle, random_state=seed)),
    ]  # fmt: skip
    for ours, theirs in pairs:
        with warnings.catch_warnings(record=True) as our_warnings:
            warnings.simplefilter("always")
            try:
                got = list(ours.split(y, y))
            except ValueError as exc:
                with pytest.raises(ValueError, match=str(exc).split("=")[0]):
                    list(theirs.split(y, y))
                continue
        with warnings.catch_warnings(record=True) as their_warnings:
            warnings.simplefilter("always")
            expected = list(theirs.split(y, y))
        assert [str(w.message) for w in our_warnings] == [str(w.message) for w in their_warnings]
        assert len(got) == len(expected)
        for (train, test), (train0, test0) in zip(got, expected, strict=True):
            np.testing.assert_array_equal(train, train0)
            np.testing.assert_array_equal(test, test0)


class _Columns(ParamNamesOnce):
    pass


@pytest.mark.parametrize(
    ("first", "then"),
    [
        (np.ones((3, 4)), np.ones((2, 4))),
        (np.ones((3, 4)), np.ones((2, 5))),
        (np.ones((3, 4)), np.ones(4)),
        (np.ones(3), np.ones((2, 4))),
    ],
)
def test_column_checks_are_sklearns(first, then):
    """The number of columns recorded and checked as scikit-learn's ``validate_data``
    records and checks it (the same attribute, the same refusal)."""
    ours, theirs = _Columns(), _Columns()
    check_features(ours, first, reset=True)
    validate_data(theirs, first, skip_check_array=True, reset=True)
    assert vars(ours) == vars(theirs)
    try:
        validate_data(theirs, then, skip_check_array=True, reset=False)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)):
            check_features(ours, then, reset=False)
    else:
        check_features(ours, then, reset=False)


def _frame(kind: str, names: list[Any], rows: int = 2) -> Any:
    data = {name: np.arange(rows, dtype=np.float64) + i for i, name in enumerate(names)}
    if kind == "pandas":
        return pd.DataFrame(data)
    return pl.DataFrame({str(k): v for k, v in data.items()})


ABC = ["a", "b", "c"]
LONG = [f"f{i}" for i in range(8)]


def _outcome(check: Any, estimator: Any, X: Any, reset: bool) -> tuple[Any, ...]:
    """What a check did: its warnings' messages, its error's type and message, and the
    fitted attributes it left."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            check(estimator, X, reset=reset)
            error = None
        except (ValueError, TypeError) as exc:
            error = (type(exc), str(exc))
    state = {
        k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in vars(estimator).items()
    }
    return [str(w.message) for w in caught], error, state


@pytest.mark.parametrize("kind", ["pandas", "polars"])
@pytest.mark.parametrize(
    ("first", "then"),
    [
        (ABC, ABC),
        (ABC, ["c", "a", "b"]),  # the same names in another order
        (ABC, ["a", "b", "x"]),  # one unseen, one missing
        (LONG, [f"g{i}" for i in range(8)]),  # more than five of each: the list cut short
        (ABC, ["a", "b"]),  # one missing, and one column fewer
        (None, ABC),  # fitted on an array, then a frame
        (ABC, None),  # fitted on a frame, then an array
        ([0, 1, 2], [0, 1, 2]),  # names that are not strings are no names
        ([0, 1, 2], ABC),
        (ABC, [0, 1, 2, 3]),
        (["a", 1, "c"], ABC),  # some strings: scikit-learn's TypeError
    ],
    ids=str,
)
def test_frame_checks_are_sklearns(kind, first, then):
    """A pandas or polars DataFrame's names and columns are recorded and checked as
    scikit-learn's ``validate_data`` checks them (the same warnings, errors and fitted
    attributes), without importing it; polars' names are always strings."""
    if kind == "polars" and any(not isinstance(n, str) for n in [*(first or []), *(then or [])]):
        pytest.skip("polars column names are strings")

    def data(names: list[Any] | None) -> Any:
        return np.ones((2, 3)) if names is None else _frame(kind, names)

    ours, theirs = _Columns(), _Columns()

    def sklearns(estimator: Any, X: Any, *, reset: bool) -> None:
        validate_data(estimator, X, skip_check_array=True, reset=reset)

    first_ours = _outcome(check_features, ours, data(first), True)
    assert first_ours == _outcome(sklearns, theirs, data(first), True)
    if first_ours[1] is None:
        assert _outcome(check_features, ours, data(then), False) == _outcome(
            sklearns, theirs, data(then), False
        )


def test_warnings_and_errors_are_sklearns_when_it_is_imported():
    from sklearn.exceptions import ConvergenceWarning as TheirWarning
    from sklearn.exceptions import NotFittedError as TheirError

    warning = convergence_warning("EM did not converge")
    assert isinstance(warning, ConvergenceWarning)
    assert isinstance(warning, TheirWarning)
    with pytest.warns(TheirWarning, match="did not converge"):
        warnings.warn(warning, stacklevel=1)
    error = NotFittedError("not fitted")
    assert isinstance(error, TheirError)
    assert type(error).__name__ == "NotFittedError"
    assert type(pickle.loads(pickle.dumps(error))) is type(error)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_a_keyword_no_estimator_takes_is_refused_naming_its_settings(estimator):
    """``MultinomialNB(alfa=1)`` was Python's bare "unexpected keyword argument 'alfa'": the
    refusal names the class's settings and the closest one, and is still a TypeError."""
    cls = type(estimator)
    names = sorted(estimator.get_params(deep=False))
    with pytest.raises(TypeError, match=r"\(" + r", ".join(names) + r"\)") as caught:
        cls(**estimator.get_params(deep=False), zz_not_a_setting=1)
    assert isinstance(caught.value, bk.errors.UnknownSettingError)
    assert caught.value.args[0].startswith(f"{cls.__name__}() got zz_not_a_setting=")
    if names:
        misspelt = names[0] + "x"
        with pytest.raises(TypeError, match=rf"did you mean {names[0]}=\?|vectorizer"):
            cls(**{misspelt: 1})
    sklearn_clone(estimator)  # the settings it has still pass


def test_a_setting_of_the_words_given_to_a_text_model_says_where_it_goes():
    """``TextClassifier(min_df=2)``: min_df is the vectorizer's."""
    for cls in (TextClassifier, SpamFilter):
        with pytest.raises(
            bk.errors.UnknownSettingError,
            match=rf"min_df is a setting of the vectorizer: {cls.__name__}\(vectorizer="
            r"TextVectorizer\(min_df=2\), model=\.\.\.\)",
        ):
            cls(min_df=2)
