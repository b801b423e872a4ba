"""A hostile review of discriminant analysis: columns whose values spread over less than float64's
squares can hold, Fisher's axes on rank-deficient data (scikit-learn's svd solver's numbers),
training data without a varying column, and posterior probabilities against R's MASS::lda and
MASS::qda (Venables & Ripley 2002, §12.1) on real tables."""

from __future__ import annotations

import io
import pickle
import shutil
import subprocess
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import discriminant_analysis as sk
from sklearn.datasets import load_iris, load_wine

import bayeskit as bk
from bayeskit.errors import BayeskitError, CollinearColumnsWarning, DataError

ALL = [
    bk.LinearDiscriminantAnalysis,
    bk.QuadraticDiscriminantAnalysis,
    bk.RegularizedDiscriminantAnalysis,
]
IRIS = load_iris(return_X_y=True)
WINE = load_wine(return_X_y=True)


def _quiet(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CollinearColumnsWarning)
        return model.fit(X, y)


# ---------------------------------------------------------------- values spread over < 1e-150


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("scale", [1e-160, 1e-165, 1e-200, 1e-300])
def test_a_column_spread_over_less_than_1e_150_is_refused_by_name(cls, scale):
    """Squares of deviations below 1e-300 underflow: at a scale of 1e-160 the posteriors were
    0.01 off the unscaled model's, from 1e-165 on every posterior was the prior (0.67 off),
    and at 1e-162 fit failed with 'the scatter statistic ... is not a scatter matrix'."""
    X, y = IRIS
    tiny = X.copy()
    tiny[:, 2] *= scale
    with pytest.raises(DataError, match=r"column 2 \('x2'\) spreads over only .*at least 1e-150"):
        cls().fit(tiny, y)
    with pytest.raises(DataError, match=r"column 2 \('x2'\) spreads over only"):
        cls().partial_fit(tiny, y)
    with pytest.raises(DataError, match=r"column 2 \('x2'\) spreads over only"):
        cls().fit(sp.csr_matrix(tiny), y)


@pytest.mark.parametrize("cls", ALL)
def test_a_refused_narrow_column_leaves_a_fitted_model_as_it_was(cls):
    X, y = IRIS
    model = cls().fit(X, y)
    before = pickle.dumps(model)
    with pytest.raises(BayeskitError, match="spreads over only"):
        model.partial_fit(X * 1e-200, y)
    with pytest.raises(BayeskitError, match="spreads over only"):
        model.fit(X * 1e-200, y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("cls", ALL)
def test_columns_at_the_limits_are_the_model_on_unscaled_columns(cls):
    """Scale matters to none of the three models: with columns spread over just above 1e-150
    (the limit) or over 1e140, a column of one value, and a column of tiny values beside
    ordinary ones, the posteriors are those of the unscaled data."""
    X, y = WINE
    reference = cls().fit(X, y).predict_proba(X)
    for spread in (1.5e-150, 1e140):
        scaled = X * (spread / np.ptp(X, axis=0))  # every column spread so
        np.testing.assert_allclose(
            cls().fit(scaled, y).predict_proba(scaled), reference, rtol=0, atol=1e-9
        )
    # a constant tiny column is left out; tiny values beside ordinary ones are fine
    flat = np.column_stack([X, np.full(len(X), 1e-200)])
    np.testing.assert_allclose(cls().fit(flat, y).predict_proba(flat), reference, atol=1e-9)
    mixed = X.copy()
    mixed[::7, 0] = 1e-200
    cls().fit(mixed, y).predict_proba(mixed)


# ---------------------------------------------------------------- Fisher's axes in the span


@pytest.mark.parametrize("data", [IRIS, WINE], ids=["iris", "wine"])
@pytest.mark.parametrize("kind", ["difference", "class constant"])
def test_explained_variance_and_transform_on_rank_deficient_data_are_svd_solvers(data, kind):
    """The default solver fits rank-deficient data in its span; its axes were those of the
    completed matrix: the null direction got an axis of its own, and explained_variance_ratio_
    counted it (iris with a difference column: [1.023, 0.009], summing over 1; wine
    [0.744, 0.338]; scikit-learn's svd solver: [0.991, 0.009] and [0.687, 0.313])."""
    X, y = data
    if kind == "difference":
        X = np.column_stack([X, X[:, 0] - X[:, 1]])
    else:
        X = X.copy()
        X[:, 1] = np.arange(3.0)[y]  # constant within each class, differs between them
    ours = _quiet(bk.LinearDiscriminantAnalysis(), X, y)
    theirs = sk.LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    np.testing.assert_allclose(
        ours.explained_variance_ratio_, theirs.explained_variance_ratio_, rtol=1e-9
    )
    assert ours.explained_variance_ratio_.sum() <= 1 + 1e-12
    # scikit-learn's svd solver centres and scales its axes otherwise: the same axes, up to
    # an affine map of each (correlation 1)
    ours_x, theirs_x = ours.transform(X), theirs.transform(X)
    assert ours_x.shape == theirs_x.shape == (len(X), 2)
    for j in range(2):
        assert abs(np.corrcoef(ours_x[:, j], theirs_x[:, j])[0, 1]) > 1 - 1e-10
    # the axes are orthonormal in the within-class metric, one per dimension of the span
    S = ours.scalings_
    assert S.shape == (X.shape[1], X.shape[1] - 1)
    np.testing.assert_allclose(S.T @ ours.covariance_ @ S, np.eye(S.shape[1]), atol=1e-9)


def test_transform_gives_as_many_axes_as_the_span_has():
    X, y = IRIS
    doubled = np.column_stack([X[:, 0], 2 * X[:, 0]])  # a span of one dimension, 3 classes
    model = _quiet(bk.LinearDiscriminantAnalysis(), doubled, y)
    assert model.transform(doubled).shape == (len(X), 1)
    assert len(model.get_feature_names_out()) == 1
    np.testing.assert_allclose(model.explained_variance_ratio_, [1.0])
    one = bk.LinearDiscriminantAnalysis().fit(X[:, :1], y)
    np.testing.assert_allclose(np.abs(model.transform(doubled)), np.abs(one.transform(X[:, :1])))


def test_axes_of_training_data_without_a_varying_column_are_refused_by_name():
    """Every column constant: the model predicts the priors, and transform raised numpy's
    'attempt to get argmax of an empty sequence'."""
    X, y = IRIS
    model = bk.LinearDiscriminantAnalysis().fit(np.ones((len(y), 4)), y)
    np.testing.assert_allclose(model.predict_proba(X[:2]), np.full((2, 3), 1 / 3))
    for use in (
        lambda: model.transform(X),
        lambda: model.scalings_,
        lambda: model.explained_variance_ratio_,
    ):
        with pytest.raises(DataError, match=r"every column had one value .* no discriminant axis"):
            use()


# ---------------------------------------------------------------- R's MASS on real tables

# MASS 7.3 (R 4): predict(lda(X, y, method="mle"), X)$posterior (and qda) at the four rows of
# each table whose posteriors are the least certain, printed with 17 digits.
R_POSTERIORS = {
    ("iris", "lda"): (
        [70, 77, 119, 133],
        [
            [2.0942270071288133e-28, 0.24907733395274512, 0.7509226660472549],
            [1.6635276129271883e-27, 0.6926839366861914, 0.3073160633138086],
            [3.4598562931430613e-34, 0.2164031829008114, 0.7835968170991886],
            [3.5032547218725594e-29, 0.7333635677090254, 0.26663643229097467],
        ],
    ),
    ("iris", "qda"): (
        [68, 70, 72, 133],
        [
            [5.514686849920083e-92, 0.8146259193028491, 0.18537408069715092],
            [8.144832004442576e-106, 0.3284513343009159, 0.6715486656990842],
            [4.1345512324735286e-107, 0.698762374346697, 0.30123762565330303],
            [2.5061784219113755e-113, 0.6022879816361053, 0.39771201836389475],
        ],
    ),
    ("wine", "lda"): (
        [4, 43, 83, 96],
        [
            [0.928260958714087, 0.07173887300781194, 1.6827810119472222e-07],
            [0.8158202213550267, 0.18417843488903396, 1.343755939254138e-06],
            [3.53123450585645e-07, 0.9000447096898129, 0.09995493718673665],
            [7.225630727436978e-07, 0.8467938013036211, 0.1532054761333061],
        ],
    ),
    ("wine", "qda"): (
        [43, 65, 81, 102],
        [
            [0.9923643518204832, 0.007635648179516931, 1.6340597479395365e-60],
            [0.02203976682045281, 0.9779602331795472, 1.9868249648883854e-53],
            [0.6586383506279733, 0.3413616493720267, 3.013915393255105e-69],
            [0.01712662892671822, 0.9828733710732819, 4.46581115513969e-43],
        ],
    ),
}
MODELS = {"lda": bk.LinearDiscriminantAnalysis, "qda": bk.QuadraticDiscriminantAnalysis}
TABLES = {"iris": IRIS, "wine": WINE}


@pytest.mark.parametrize(("table", "kind"), list(R_POSTERIORS))
def test_posteriors_are_mass_at_its_least_certain_rows(table, kind):
    X, y = TABLES[table]
    rows, expected = R_POSTERIORS[table, kind]
    ours = MODELS[kind]().fit(X, y).predict_proba(X[rows])
    np.testing.assert_allclose(ours, expected, rtol=1e-9, atol=1e-15)


def _mass(code: str, X: np.ndarray, y: np.ndarray, tmp_path) -> np.ndarray:
    path = tmp_path / "table.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt="%.17g")
    script = (
        "suppressMessages(library(MASS)); "
        f"d <- as.matrix(read.csv('{path}', header=FALSE)); "
        "X <- d[, -ncol(d)]; y <- factor(d[, ncol(d)]); "
        f"p <- {code}; write.table(format(p, digits=17), stdout(), sep=',', "
        "row.names=FALSE, col.names=FALSE, quote=FALSE)"
    )
    done = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"R's MASS is not usable here: {done.stderr.strip()[:200]}")
    return np.loadtxt(io.StringIO(done.stdout), delimiter=",")


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R is not installed")
@pytest.mark.parametrize("table", list(TABLES))
def test_every_posterior_is_mass(table, tmp_path):
    """Every row: LDA (MASS's method="mle", the maximum-likelihood covariance scikit-learn's
    LDA uses too), QDA with and without priors, and LDA on a table with a difference of two
    columns beside them (MASS fits it in the span, as the default solver here does)."""
    X, y = TABLES[table]
    np.testing.assert_allclose(
        bk.LinearDiscriminantAnalysis().fit(X, y).predict_proba(X),
        _mass("predict(lda(X, y, method='mle'), X)$posterior", X, y, tmp_path),
        rtol=1e-9,
        atol=1e-13,
    )
    np.testing.assert_allclose(
        bk.QuadraticDiscriminantAnalysis(priors=[0.5, 0.3, 0.2]).fit(X, y).predict_proba(X),
        _mass(
            "predict(qda(X, y, method='mle', prior=c(0.5, 0.3, 0.2)), X)$posterior",
            X,
            y,
            tmp_path,
        ),
        rtol=1e-9,
        atol=1e-13,
    )
    collinear = np.column_stack([X, X[:, 0] - X[:, 1]])
    np.testing.assert_allclose(
        _quiet(bk.LinearDiscriminantAnalysis(), collinear, y).predict_proba(collinear),
        _mass("predict(lda(X, y, method='mle'), X)$posterior", collinear, y, tmp_path),
        rtol=1e-9,
        atol=1e-13,
    )


# ---------------------------------------------------------------- rows far from every class


@pytest.mark.parametrize(
    "cls", [bk.QuadraticDiscriminantAnalysis, bk.RegularizedDiscriminantAnalysis]
)
def test_a_row_whose_distance_to_every_class_overflows_goes_to_the_nearest_class(cls):
    """Sepal length in units of 1e140 (spread ~1e-140) and a row holding 1e150 there: every
    squared Mahalanobis distance overflowed float64, every class scored −inf and the posterior
    fell back on the prior (1/3 each). Far along that column the distance is dominated by
    ``x0² (Σ_k⁻¹)_00``, so the class with the smallest ``(Σ_k⁻¹)_00`` is the exact model's
    answer (versicolor, class 1, for both models)."""
    X, y = IRIS
    narrow = X.copy()
    narrow[:, 0] *= 1e-140
    model = cls().fit(narrow, y)
    nearest = int(np.argmin([np.linalg.inv(c)[0, 0] for c in cls().fit(X, y).covariance_]))
    assert nearest == 1
    far = np.random.default_rng(0).uniform(-10, 10, size=(6, 4))
    far[:, 0] = [1e150, -1e150, 5e149, -3e149, 1e150, 2e149]
    proba = model.predict_proba(far)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(proba.argmax(axis=1), nearest)
    np.testing.assert_array_equal(model.predict(far), nearest)
    np.testing.assert_array_equal(model.predict(sp.csr_matrix(far)), nearest)
    # rows within reach are scored as before, beside the far ones
    both = np.vstack([narrow[:5], far])
    np.testing.assert_allclose(model.predict_proba(both)[:5], model.predict_proba(narrow[:5]))


# ---------------------------------------------------------------- priors not summing to 1


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("priors", [[0.3333, 0.3333, 0.3333], [2.0, 1.0, 1.0]])
def test_priors_not_summing_to_one_are_renormalised_by_every_model(cls, priors):
    """LDA renormalised them with a warning, QDA and RDA refused them ('priors must sum to
    1': three priors of 1/3 written to four digits), where scikit-learn's QDA takes them."""
    X, y = WINE
    with pytest.warns(bk.errors.BayeskitWarning, match=r"not 1; renormalising them"):
        ours = cls(priors=priors).fit(X, y)
    np.testing.assert_allclose(ours.priors_, np.asarray(priors) / np.sum(priors))
    expected = cls(priors=np.asarray(priors) / np.sum(priors)).fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), expected.predict_proba(X), rtol=1e-12)
    if cls is bk.QuadraticDiscriminantAnalysis:
        theirs = sk.QuadraticDiscriminantAnalysis(priors=priors).fit(X, y)
        np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)


# ---------------------------------------------------------------- what a refusal tells to do


@pytest.mark.parametrize(
    ("model", "told", "not_told"),
    [
        (
            bk.QuadraticDiscriminantAnalysis(shrinkage="auto"),
            r"cannot help a class whose rows are all alike .* set reg_param > 0",
            "shrinkage='auto'",
        ),
        (
            bk.QuadraticDiscriminantAnalysis(shrinkage=0.5),
            r"cannot help a class whose rows are all alike .* set reg_param > 0",
            "shrinkage='auto'",
        ),
        (
            bk.RegularizedDiscriminantAnalysis(lam=0.0, gamma=0.5),
            r"cannot help a class whose rows are all alike .* set lam > 0",
            "set gamma > 0",
        ),
    ],
)
def test_a_class_of_one_row_is_not_told_to_set_what_is_set(model, told, not_told):
    """A class of one row has no variance in any column: shrinkage towards its average
    variance (shrinkage, RDA's gamma) leaves it singular, and the refusal told the user to set
    shrinkage='auto' or gamma > 0 — the settings that had just failed."""
    X, y = IRIS
    X1, y1 = np.vstack([X, X[:1] + 1.0]), np.append(y, 3)
    with pytest.raises(bk.errors.SingularCovarianceError, match=told) as refused:
        model.fit(X1, y1)
    assert not_told not in str(refused.value)
    # what it tells does fit
    fix = {"reg_param": 0.1} if "reg_param" in told else {"lam": 0.5}
    model.set_params(**fix).fit(X1, y1).predict_proba(X1)
    # other singular matrices are told what they were before
    with pytest.raises(bk.errors.SingularCovarianceError, match=r"set reg_param > 0 .*'auto'"):
        bk.QuadraticDiscriminantAnalysis().fit(X1, y1)
