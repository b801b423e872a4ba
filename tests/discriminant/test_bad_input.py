"""Every bad input the discriminant analysis issue names gets a BayeskitError that says what is
wrong and what is accepted, and leaves the model as it was."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.errors import (
    DataError,
    ParameterError,
    ShapeError,
    SingularCovarianceError,
)

X, Y = load_wine(return_X_y=True)
ALL = [
    bk.LinearDiscriminantAnalysis,
    bk.QuadraticDiscriminantAnalysis,
    bk.RegularizedDiscriminantAnalysis,
]


@pytest.mark.parametrize("cls", ALL)
def test_fewer_than_two_classes(cls):
    with pytest.raises(DataError, match=r"needs at least two classes .* holds one class: 0"):
        cls().fit(X[Y == 0], Y[Y == 0])
    weights = (Y == 1).astype(float)  # every other class weighs nothing
    with pytest.raises(DataError, match="one class: 1"):
        cls().fit(X, Y, sample_weight=weights)
    model = cls().partial_fit(X[Y == 0], Y[Y == 0])  # a stream may start with one class
    assert model.classes_.tolist() == [0]


def test_a_class_with_a_single_row():
    Xs, ys = np.vstack([X, X[:1] + 1.0]), np.append(Y, 7)
    with pytest.raises(SingularCovarianceError, match=r"class 7 is singular: .* set reg_param > 0"):
        bk.QuadraticDiscriminantAnalysis().fit(Xs, ys)
    assert np.isfinite(
        bk.QuadraticDiscriminantAnalysis(reg_param=0.1).fit(Xs, ys).predict_log_proba(Xs)
    ).all()


@pytest.mark.parametrize(
    ("cls", "name"),
    [
        (bk.QuadraticDiscriminantAnalysis, "reg_param"),
        (bk.QuadraticDiscriminantAnalysis, "shrinkage"),
        (bk.LinearDiscriminantAnalysis, "shrinkage"),
        (bk.RegularizedDiscriminantAnalysis, "lam"),
        (bk.RegularizedDiscriminantAnalysis, "gamma"),
    ],
)
@pytest.mark.parametrize("value", [-0.1, 1.5, np.nan, "0.5"])
def test_fractions_outside_zero_one(cls, name, value):
    shown = "lam" if name == "lam" else name
    model = cls(**{name: value})
    with pytest.raises(ParameterError, match=shown):
        model.fit(X, Y)
    with pytest.raises(ParameterError, match=shown):  # also when set on a fitted model
        cls().fit(X, Y).set_params(**{name: value}).predict(X)


def test_unknown_shrinkage_and_solver():
    with pytest.raises(
        ParameterError, match=r"shrinkage='lw'; accepted: None, a number in \[0, 1\], 'auto'"
    ):
        bk.LinearDiscriminantAnalysis(shrinkage="lw").fit(X, Y)
    with pytest.raises(ParameterError, match="solver='cholesky'; accepted: svd, lsqr, eigen"):
        bk.LinearDiscriminantAnalysis(solver="cholesky").fit(X, Y)
    with pytest.raises(ParameterError, match="solver='lsqr'; accepted: svd, eigen"):
        bk.QuadraticDiscriminantAnalysis(solver="lsqr").fit(X, Y)


@pytest.mark.parametrize("n", [3, 14, 0, 1.5])
def test_n_components(n):
    with pytest.raises(ParameterError, match="n_components"):
        bk.LinearDiscriminantAnalysis(n_components=n).fit(X, Y)
    small = X[:, :1]  # one feature: at most one axis however many classes
    with pytest.raises(ParameterError, match=r"min\(n_features, n_classes - 1\) = 1"):
        bk.LinearDiscriminantAnalysis(n_components=2).fit(small, Y)
    assert bk.LinearDiscriminantAnalysis(n_components=2).fit(X, Y).transform(X).shape == (178, 2)


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_nan_and_inf_named_by_column(cls, value):
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(13)])
    bad = frame.copy()
    bad.iloc[5, 3] = value
    with pytest.raises(DataError, match=r"row 5, column 3 \('c3'\)") as refused:
        cls().fit(bad, Y)
    assert "NaN marks a missing value" not in str(refused.value)  # NaN is refused too
    model = cls().fit(frame, Y)
    before = model.predict_proba(frame)
    for call in (model.predict, model.predict_proba):
        with pytest.raises(DataError, match=r"row 5, column 3 \('c3'\)"):
            call(bad)
    with pytest.raises(DataError, match="row 5, column 3"):
        model.partial_fit(bad, Y)
    with pytest.raises(DataError, match="row 5, column 3"):
        model.predict(sp.csr_matrix(bad.to_numpy()))
    np.testing.assert_array_equal(model.predict_proba(frame), before)  # nothing changed


@pytest.mark.parametrize("cls", ALL)
def test_predict_with_another_number_of_columns(cls):
    model = cls().fit(X, Y)
    with pytest.raises(ShapeError, match=r"X has 12 features, but .* is expecting 13 features"):
        model.predict(X[:, :12])
    if cls is bk.LinearDiscriminantAnalysis:
        with pytest.raises(ShapeError, match="expecting 13 features"):
            model.transform(X[:, :12])


@pytest.mark.parametrize(
    "cls",
    [*ALL, bk.GaussianMixtureClassifier, bk.ParzenWindowClassifier],
)
def test_a_text_column_is_named_with_its_row_and_value(cls):
    # A table with one text column among numbers: the refusal says which column (by name),
    # which row and which value, and what the model takes, in fit and in predict.
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "height": rng.normal(size=40),
            "weight": rng.normal(size=40),
            "colour": rng.choice(["red", "blue"], 40),
        }
    )
    labels = np.repeat([0, 1], 20)
    model = cls()
    with pytest.raises(
        bk.errors.InputTypeError,
        match=rf"X\[0, 2\] = '{frame['colour'][0]}' \(column 2 \('colour'\)\) is not a number "
        r"\(could not convert string to float: .*\); "
        rf"{cls.__name__} takes numbers only: .*OneHotEncoder.*MixedNB",
    ):
        model.fit(frame, labels)
    assert not hasattr(model, "classes_")
    model.fit(frame[["height", "weight"]], labels)
    bad = frame[["height", "weight"]].astype(object)
    bad.loc[7, "weight"] = "n/a"
    bad.loc[9, "height"] = None  # a missing value is not the cell at fault
    with pytest.raises(
        bk.errors.InputTypeError, match=r"X\[7, 1\] = 'n/a' \(column 1 \('weight'\)\)"
    ):
        model.predict(bad)


@pytest.mark.parametrize(
    "cls",
    [*ALL, bk.GaussianMixtureClassifier, bk.ParzenWindowClassifier, bk.GaussianNB],
)
@pytest.mark.parametrize(
    ("priors", "match"),
    [
        ([[0.2, 0.3, 0.5]], r"^priors must be a flat list of 3 probabilities, .*shape \(1, 3\)"),
        ([0.5], r"^priors has 1 value but the model has 3 classes"),
        ([0.25, 0.25, 0.25, 0.25], r"^priors has 4 values but the model has 3 classes"),
        ([-0.5, 1.0, 0.5], r"^priors must hold probabilities >= 0"),
        (["a", "b", "c"], r"^priors must be one probability per class"),
    ],
)
def test_bad_priors_are_named_as_priors(cls, priors, match):
    # The setting is `priors` (scikit-learn's name), not the template's class_prior; a wrong
    # shape or count is refused as such, with no warning first about renormalising them.
    model = cls()
    model.set_params(priors=priors)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParameterError, match=match):
            model.fit(X, Y)
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize("cls", [bk.LinearDiscriminantAnalysis, bk.QuadraticDiscriminantAnalysis])
@pytest.mark.parametrize("shrinkage", ["auto", "ledoit-wolf"])
def test_ledoit_wolf_refuses_values_whose_fourth_powers_float64_cannot_sum(cls, shrinkage):
    # Ledoit-Wolf's intensity is computed from sums of fourth powers: at a scale of 1e-100
    # they underflowed to 0 (a silently different model, 0.22 of probability away from
    # scikit-learn's), at 1e80 they overflowed (refused as the 'm4' statistic overflowing,
    # though values up to 1e150 pass the value check). Both are refused naming the column
    # and the accepted range; within it the model is scikit-learn's at any scale.
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA

    rng = np.random.default_rng(0)
    data = rng.normal(size=(40, 3))
    labels = np.repeat([0, 1], 20)
    data[20:] += 1
    frame = pd.DataFrame(data * 1e-100, columns=["a", "b", "c"])
    with pytest.raises(
        DataError, match=r"column 0 \('a'\) spreads over only 4\.91e-100; .*1e\+70.*1e-70"
    ):
        cls(shrinkage=shrinkage).fit(frame, labels)
    with pytest.raises(DataError, match=r"X contains 1\.2573e\+79 at row 0, column 0 \('x0'\)"):
        cls(shrinkage=shrinkage).fit(data * 1e80, labels)
    model = cls(shrinkage=shrinkage).fit(data, labels)
    model.predict(data * 1e-100)  # predictions sum no fourth powers
    model.predict(data * 1e80)
    if cls is bk.LinearDiscriminantAnalysis and shrinkage == "auto":
        for scale in (1e-60, 1e60):
            ours = cls(shrinkage="auto").fit(data * scale, labels)
            theirs = SkLDA(solver="lsqr", shrinkage="auto").fit(data * scale, labels)
            np.testing.assert_allclose(
                ours.predict_proba(data * scale), theirs.predict_proba(data * scale), atol=1e-12
            )


def test_a_covariance_past_float64_is_refused_by_name_not_by_numpy():
    # OAS shrinkage of values near 1e80 squares them past float64: numpy's "Eigenvalues did
    # not converge" came through
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 3)) * 1e80, np.repeat([0, 1], 30)
    model = bk.LinearDiscriminantAnalysis(shrinkage="oas")
    with pytest.raises(DataError, match="the pooled covariance matrix is beyond float64's range"):
        model.fit(X, y)
    assert not hasattr(model, "stats_")
