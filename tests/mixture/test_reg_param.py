"""GaussianMixtureClassifier(reg_param=ρ): each component's covariance shrunk as scikit-learn's
QDA shrinks a class's, ``(1 − ρ) Σ_k + ρ I``, in every M-step."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_wine

import bayeskit as bk
from bayeskit.errors import DataError, ParameterError


@pytest.fixture(scope="module")
def wine():
    return load_wine(return_X_y=True)


@pytest.mark.parametrize("load", [load_wine, load_digits])
@pytest.mark.parametrize("r", [0.01, 0.3, 1.0])
def test_one_full_component_is_qda_with_the_same_reg_param(load, r):
    X, y = load(return_X_y=True)
    qda = bk.QuadraticDiscriminantAnalysis(reg_param=r).fit(X, y)
    gmm = bk.GaussianMixtureClassifier(
        n_components=1, covariance_type="full", reg_covar=0.0, reg_param=r, var_floor=None
    ).fit(X, y)
    np.testing.assert_allclose(
        gmm.predict_joint_log_proba(X), qda.predict_joint_log_proba(X), rtol=1e-9
    )
    np.testing.assert_allclose(gmm.predict_log_proba(X), qda.predict_log_proba(X), atol=1e-9)
    for c, label in enumerate(gmm.classes_):
        np.testing.assert_allclose(gmm.means_[label][0], qda.means_[c], rtol=1e-9)
        np.testing.assert_allclose(gmm.covariances_[label][0], qda.covariance_[c], atol=1e-9)
    # digits has pixels constant within a class: QDA without reg_param refuses them, and so
    # would the mixture without reg_covar; reg_param alone makes every matrix regular.
    assert np.isfinite(gmm.predict_log_proba(X)).all()


@pytest.mark.parametrize("cov", ["diag", "spherical"])
def test_diagonal_variances_are_shrunk_towards_one(wine, cov):
    """k = 1: σ²_j ← (1 − ρ) σ²_j + ρ, then + reg_covar · v_j (v_j: the column's variance in
    the class); spherical: their mean."""
    X, y = wine
    r, reg = 0.2, 1e-3
    model = bk.GaussianMixtureClassifier(
        n_components=1, covariance_type=cov, reg_param=r, reg_covar=reg
    ).fit(X, y)
    for label in np.unique(y):
        v = X[y == label].var(axis=0)
        expected = (1 - r) * v + r + reg * v
        if cov == "spherical":
            expected = np.array([expected.mean()])
        np.testing.assert_allclose(model.covariances_[label].ravel(), expected, rtol=1e-12)


def test_one_tied_component_is_the_full_one(wine):
    X, y = wine
    settings = dict(n_components=1, reg_param=0.1, reg_covar=1e-4)
    tied = bk.GaussianMixtureClassifier(covariance_type="tied", **settings).fit(X, y)
    full = bk.GaussianMixtureClassifier(covariance_type="full", **settings).fit(X, y)
    for label in np.unique(y):
        np.testing.assert_allclose(tied.covariances_[label], full.covariances_[label][0])


@pytest.mark.parametrize("cov", ["full", "tied"])
def test_every_component_is_shrunk_in_the_m_step(wine, cov):
    """k = 2 by hand from the components' own (stored, unshrunk) statistics."""
    X, y = wine
    rows = X[y == 1]
    r, reg = 0.05, 1e-6
    model = bk.GaussianMixtureClassifier(
        n_components=2, covariance_type=cov, reg_param=r, random_state=0
    ).fit(rows, np.zeros(len(rows)))
    stats = model.stats_.blocks[0].components
    n, S = stats.weight, stats.scatter
    pooled = np.broadcast_to(S.sum(axis=0) / n.sum(), S.shape)
    S = pooled if cov == "tied" else S / n[:, None, None]
    ridge = reg * np.diag(rows.var(axis=0))  # reg_covar times each column's class variance
    expected = (1 - r) * S + r * np.eye(X.shape[1]) + ridge
    want = expected if cov == "full" else expected[0]  # tied: one (d, d) matrix
    np.testing.assert_allclose(model.covariances_[0], want, rtol=1e-10, atol=1e-12)
    assert len(np.unique(model.predict_components(rows)[1])) == 2  # both components hold rows


def test_reg_param_shrinks_the_conjugate_posterior_mode(wine):
    """k = 1 under the prior: Σ = (1 − ρ) C (n + 1)/(n + 2d + 4) + ρ I + reg_covar diag(C)."""
    X, y = wine
    r, reg = 0.1, 1e-6
    model = bk.GaussianMixtureClassifier(
        n_components=1, covariance_type="full", prior="conjugate", reg_param=r, reg_covar=reg
    ).fit(X, y)
    d = X.shape[1]
    for label in np.unique(y):
        rows = X[y == label]
        n = len(rows)
        C = np.cov(rows.T, bias=True)
        mode = C * (n + 1) / (n + 2 * d + 4)
        expected = (1 - r) * mode + r * np.eye(d) + reg * np.diag(np.diag(C))
        np.testing.assert_allclose(model.covariances_[label][0], expected, rtol=1e-9)


def test_reg_param_replaces_reg_covar_for_constant_features():
    """Two components per digit with reg_covar=0: constant pixels give zero variances, named;
    reg_param > 0 gives every variance at least reg_param."""
    X, y = load_digits(return_X_y=True)
    keep = np.isin(y, [0, 1])
    X, y = X[keep], y[keep]
    settings = dict(n_components=2, covariance_type="full", reg_covar=0.0, random_state=0)
    with pytest.raises(DataError, match=r"zero variance .* reg_param > 0"):
        bk.GaussianMixtureClassifier(**settings).fit(X, y)
    model = bk.GaussianMixtureClassifier(reg_param=0.1, **settings).fit(X, y)
    for label in (0, 1):
        variances = np.diagonal(model.covariances_[label], axis1=1, axis2=2)
        assert variances.min() >= 0.1 - 1e-12
    assert model.score(X, y) > 0.95


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf"), "0.1", True, None, [0.1]])
def test_bad_reg_param_is_named_and_the_model_stays_as_it_was(wine, bad):
    X, y = wine
    model = bk.GaussianMixtureClassifier(n_components=1, covariance_type="full").fit(X, y)
    before = model.predict_proba(X)
    with pytest.raises(ParameterError, match=r"reg_param=.* is not accepted; use a number from 0"):
        model.set_params(reg_param=bad).fit(X, y)
    with pytest.raises(ParameterError, match=r"reg_param="):
        bk.GaussianMixtureClassifier(reg_param=bad, covariance_type="diag").fit(X, y)
    np.testing.assert_array_equal(model.set_params(reg_param=0.0).predict_proba(X), before)
