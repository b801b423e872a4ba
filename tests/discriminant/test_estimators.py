"""QDA, LDA and RDA beyond parity: the special cases that tie them together (and to
GaussianNB), what scikit-learn's users ask for and do not get (partial_fit, sample_weight,
sparse input, merging, unlearning), and degenerate data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.errors import CollinearColumnsWarning, NotFittedError, SingularCovarianceError
from bayeskit.inspection import explain, top_features

from .._grid import assert_same_model


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X, np.array(["barolo", "grignolino", "barbera"])[y]


def factorial(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three classes, each every combination of a few values per feature: the class
    covariances are exactly diagonal, so a full-covariance model is a naive one."""
    rng = np.random.default_rng(seed)
    rows, labels = [], []
    for c in range(3):
        levels = [rng.normal(c, 1.0 + c, size=size) for size in (3, 4, 5)]
        grid = np.array(list(itertools.product(*levels)))
        rows.append(grid)
        labels += [c] * len(grid)
    return np.vstack(rows), np.array(labels)


def test_rda_corners_are_qda_and_lda(wine):
    X, y = wine
    qda = bk.QuadraticDiscriminantAnalysis().fit(X, y)
    rda = bk.RegularizedDiscriminantAnalysis(lam=0.0, gamma=0.0).fit(X, y)
    np.testing.assert_allclose(rda.predict_proba(X), qda.predict_proba(X), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(rda.covariance_, qda.covariance_, rtol=1e-13)
    lda = bk.LinearDiscriminantAnalysis().fit(X, y)
    rda.set_params(lam=1.0)
    np.testing.assert_allclose(rda.predict_proba(X), lda.predict_proba(X), rtol=1e-10, atol=1e-300)
    for cov in rda.covariance_:
        np.testing.assert_allclose(cov, lda.covariance_, rtol=1e-13)


def test_gaussian_nb_is_discriminant_analysis_with_diagonal_covariances():
    X, y = factorial()
    rng = np.random.default_rng(1)
    probe = rng.normal(1.0, 2.0, size=(50, 3))
    gnb = bk.GaussianNB(var_smoothing=0.0).fit(X, y)
    qda = bk.QuadraticDiscriminantAnalysis().fit(X, y)
    rda = bk.RegularizedDiscriminantAnalysis(lam=0.0, gamma=0.0).fit(X, y)
    for model in (qda, rda):
        np.testing.assert_allclose(
            model.predict_log_proba(probe), gnb.predict_log_proba(probe), rtol=1e-10, atol=1e-10
        )
    shared = bk.GaussianNB(var_smoothing=0.0, shared_variance=True).fit(X, y)
    lda = bk.LinearDiscriminantAnalysis().fit(X, y)
    rda1 = bk.RegularizedDiscriminantAnalysis(lam=1.0, gamma=0.0).fit(X, y)
    for model in (lda, rda1):
        np.testing.assert_allclose(
            model.predict_log_proba(probe), shared.predict_log_proba(probe), rtol=1e-10, atol=1e-10
        )
    W_lda, b_lda = lda.linear_discriminant()
    W_nb, b_nb = shared.linear_discriminant()
    np.testing.assert_allclose(W_lda, W_nb, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b_lda, b_nb, rtol=1e-10)


# ------------------------------------------------------------------ what users ask for
MODELS = [
    bk.LinearDiscriminantAnalysis,
    lambda: bk.QuadraticDiscriminantAnalysis(reg_param=0.01),
    bk.RegularizedDiscriminantAnalysis,
    lambda: bk.LinearDiscriminantAnalysis(shrinkage="auto"),
]
IDS = ["lda", "qda", "rda", "lda-auto"]


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_partial_fit_streams_from_single_class_batches(wine, make):
    X, y = wine
    order = np.argsort(y, kind="stable")  # the classes arrive one after the other
    streamed = make()
    for part in np.array_split(order, 7):
        streamed.partial_fit(X[part], y[part])
    assert_same_model(streamed, make().fit(X, y), X)


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_sample_weight(wine, make):
    X, y = wine
    w = np.random.default_rng(0).integers(1, 4, size=len(y))
    weighted = make().fit(X, y, sample_weight=w)
    assert_same_model(weighted, make().fit(np.repeat(X, w, axis=0), np.repeat(y, w)), X)
    halved = make().fit(X, y, sample_weight=w / 2)
    if halved.get_params().get("shrinkage") != "auto":  # Ledoit-Wolf depends on the weight
        # Maximum likelihood depends on relative weights only.
        np.testing.assert_allclose(halved.predict_proba(X), weighted.predict_proba(X), rtol=1e-9)


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_sparse_input_equals_dense(make):
    rng = np.random.default_rng(2)
    X = sp.random(400, 12, density=0.3, random_state=3, format="csr") * 10
    X = X + sp.csr_matrix(np.eye(400, 12))  # no column empty within a class
    y = rng.integers(0, 3, size=400)
    sparse, dense = make().fit(X, y), make().fit(X.toarray(), y)
    assert_same_model(sparse, dense, X.toarray())
    np.testing.assert_allclose(
        sparse.predict_proba(X), dense.predict_proba(X.toarray()), rtol=1e-10
    )


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_models_trained_on_different_data_merge(wine, make):
    X, y = wine
    rng = np.random.default_rng(4)
    part = rng.integers(0, 3, size=len(y))
    models = [make().fit(X[part == p], y[part == p]) for p in range(3)]
    assert_same_model(bk.merge(*models), make().fit(X, y), X)
    assert_same_model(models[0] + models[1], make().fit(X[part < 2], y[part < 2]), X)


@pytest.mark.parametrize("make", MODELS, ids=IDS)
def test_unlearn(wine, make):
    X, y = wine
    model = make().fit(X, y).unlearn(X[::5], y[::5])
    keep = np.ones(len(y), dtype=bool)
    keep[::5] = False
    assert_same_model(model, make().fit(X[keep], y[keep]), X)


# ------------------------------------------------------------------ degenerate data
def test_a_class_with_one_row():
    X, y = factorial()
    X, y = np.vstack([X, [[9.0, 9.0, 9.0]]]), np.append(y, 3)
    with pytest.raises(
        SingularCovarianceError, match=r"class 3 is singular: column 0 .* reg_param"
    ):
        bk.QuadraticDiscriminantAnalysis().fit(X, y)
    model = bk.QuadraticDiscriminantAnalysis(reg_param=0.1).fit(X, y)
    proba = model.predict_proba(np.vstack([X, [[9.0, 9.0, 9.1]]]))
    assert np.isfinite(proba).all()
    assert proba[-1, 3] > 0.99  # the lone row's neighbourhood is its class's
    assert np.isfinite(bk.LinearDiscriminantAnalysis().fit(X, y).predict_log_proba(X)).all()
    assert np.isfinite(bk.RegularizedDiscriminantAnalysis().fit(X, y).predict_log_proba(X)).all()


def test_fewer_rows_than_features():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 8))
    y = np.repeat(["big", "small"], [55, 5])  # "small": 5 rows for 8 features
    with pytest.raises(SingularCovarianceError, match=r"class 'small' is singular: .* 8 features"):
        bk.QuadraticDiscriminantAnalysis().fit(X, y)
    for model in (
        bk.QuadraticDiscriminantAnalysis(reg_param=0.2),
        bk.QuadraticDiscriminantAnalysis(shrinkage="auto"),
        bk.RegularizedDiscriminantAnalysis(lam=0.3, gamma=0.0),
        bk.LinearDiscriminantAnalysis(),
    ):
        log_proba = model.fit(X, y).predict_log_proba(X)
        assert np.isfinite(log_proba).all()
        np.testing.assert_allclose(np.exp(log_proba).sum(axis=1), 1.0)


def test_collinear_columns_are_named_or_regularised(wine):
    X, y = wine
    X = np.column_stack([X, X[:, 0] + 2.0 * X[:, 3]])
    for solver in ("lsqr", "eigen"):
        with pytest.raises(
            SingularCovarianceError,
            match=r"shared by the classes is singular: .* use solver='svd' .* shrinkage",
        ):
            bk.LinearDiscriminantAnalysis(solver=solver).fit(X, y)
    # The default solver works in the span, naming the columns of the dropped direction.
    with pytest.warns(CollinearColumnsWarning, match=r"'x0', 'x3', 'x13' are collinear"):
        spanned = bk.LinearDiscriminantAnalysis().fit(X, y)
    alone = bk.LinearDiscriminantAnalysis().fit(X[:, :-1], y)
    np.testing.assert_allclose(
        spanned.predict_proba(X), alone.predict_proba(X[:, :-1]), rtol=1e-7, atol=1e-10
    )
    with pytest.raises(SingularCovarianceError, match="class 'barbera' is singular"):
        bk.QuadraticDiscriminantAnalysis().fit(X, y)
    with pytest.raises(SingularCovarianceError, match="set gamma > 0"):
        bk.RegularizedDiscriminantAnalysis(gamma=0.0).fit(X, y)
    for model in (
        bk.LinearDiscriminantAnalysis(shrinkage="auto"),
        bk.QuadraticDiscriminantAnalysis(reg_param=0.1),
        bk.RegularizedDiscriminantAnalysis(gamma=0.05),
    ):
        assert np.isfinite(model.fit(X, y).predict_log_proba(X)).all()


def test_constant_and_scaled_columns(wine):
    X, y = wine
    X = np.column_stack([X * np.r_[1e6, np.ones(11), 1e-6], np.full(len(y), 3.0)])
    for model in (
        bk.LinearDiscriminantAnalysis(),
        bk.QuadraticDiscriminantAnalysis(),
        # (γ > 0 shrinks towards tr(Σ)/d · I, which mixes the units of the columns)
        bk.RegularizedDiscriminantAnalysis(gamma=0.0),
    ):
        reference = type(model)(**model.get_params()).fit(X[:, :-1], y)
        log_proba = model.fit(X, y).predict_log_proba(X)
        # The constant column is left out; the scale of the others changes nothing.
        np.testing.assert_allclose(
            log_proba, reference.predict_log_proba(X[:, :-1]), rtol=1e-9, atol=1e-9
        )
        assert not np.isnan(log_proba).any()


def test_a_perfect_separator_is_named(wine):
    X, y = wine
    X = np.column_stack([X, (y == "barolo").astype(float)])
    with pytest.raises(
        SingularCovarianceError,
        match=r"column 13 \('x13'\) has no variance within every class but differs.*'svd'",
    ):
        bk.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    # svd drops the direction without within-class variance, as scikit-learn's svd solver.
    with pytest.warns(CollinearColumnsWarning, match="'x13' are collinear"):
        spanned = bk.LinearDiscriminantAnalysis().fit(X, y)
    alone = bk.LinearDiscriminantAnalysis().fit(X[:, :-1], y)
    np.testing.assert_allclose(
        spanned.predict_proba(X), alone.predict_proba(X[:, :-1]), rtol=1e-7, atol=1e-10
    )
    regularised = bk.LinearDiscriminantAnalysis(shrinkage="auto").fit(X, y)
    assert np.isfinite(regularised.predict_log_proba(X)).all()
    assert regularised.score(X, y) > 0.99


def test_streaming_through_a_singular_state():
    X, y = factorial()
    order = np.r_[0, 59, 1:59, 60 : len(y)]  # class 0's first and last rows differ everywhere
    X, y = X[order], y[order]
    model = bk.QuadraticDiscriminantAnalysis()
    model.partial_fit(X[:2], y[:2])  # one class, two rows: nothing to predict with yet
    with pytest.raises(SingularCovarianceError, match="class 0 is singular"):
        model.predict(X)
    for lo in range(2, len(y), 20):
        model.partial_fit(X[lo : lo + 20], y[lo : lo + 20])
    assert_same_model(model, bk.QuadraticDiscriminantAnalysis().fit(X, y), X)


def test_a_refused_fit_leaves_the_model_unfitted():
    X, y = factorial()
    model = bk.QuadraticDiscriminantAnalysis()
    with pytest.raises(SingularCovarianceError, match="class 1 is singular"):
        model.fit(X[:61], y[:61])  # class 1 has one row
    with pytest.raises(NotFittedError):
        model.predict(X)


# ------------------------------------------------------------------ LDA's linear view
def test_lda_explains_decisions_exactly(wine):
    X, y = wine
    model = bk.LinearDiscriminantAnalysis().fit(X, y)
    e = explain(model, X[7])
    log_proba = model.predict_log_proba(X[7:8])[0]
    a, b = (int(np.flatnonzero(model.classes_ == c)[0]) for c in (e.label, e.versus))
    assert e.log_odds == pytest.approx(log_proba[a] - log_proba[b], rel=1e-10)
    terms = e.prior + e.intercept + sum(c.weight for c in e.contributions)
    assert e.log_odds == pytest.approx(terms, rel=1e-10)
    top = top_features(model, 3)
    assert set(top) == set(model.classes_)
    assert all(len(v) == 3 for v in top.values())


def test_lda_transform(wine):
    X, y = wine
    model = bk.LinearDiscriminantAnalysis(n_components=1).fit(X, y)
    Z = model.transform(X)
    assert Z.shape == (len(y), 1)
    assert model.get_feature_names_out().tolist() == ["lineardiscriminantanalysis0"]
    full = bk.LinearDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(full.transform(X)[:, :1], Z)
    np.testing.assert_allclose(full.explained_variance_ratio_.sum(), 1.0)
    # The axes whiten the within-class scatter: unit variance within the classes.
    Zf = full.transform(X)
    within = sum(np.cov(Zf[y == c].T, bias=True) * np.sum(y == c) for c in np.unique(y)) / len(y)
    np.testing.assert_allclose(within, np.eye(2), atol=1e-10)
    np.testing.assert_allclose(full.fit_transform(X, y), Zf)
