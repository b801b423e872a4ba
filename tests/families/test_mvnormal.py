"""The multivariate normal family: densities against scipy, covariance estimates against
scikit-learn's estimators and Friedman's formula, degenerate data, sparse input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import multivariate_normal
from sklearn import covariance as skcov
from sklearn.preprocessing import StandardScaler

from bayeskit._labels import class_weights
from bayeskit.errors import ParameterError, SingularCovarianceError
from bayeskit.families import Gaussian, MVNormal


def blobs(seed: int = 0, n: int = 300, d: int = 4, k: int = 3, weights: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, size=n)
    mixing = rng.normal(size=(k, d, d))
    X = np.einsum("nd,nde->ne", rng.normal(size=(n, d)), mixing[y]) + 3.0 * y[:, None]
    w = rng.integers(1, 4, size=n).astype(float) if weights else None
    return X, y, class_weights(y, w, n)[1], w


def fitted(family: MVNormal, X, R):
    return family.finalize(family.summarize(X, R))


@pytest.mark.parametrize("pooling", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("shape", ["full", "diag", "spherical"])
def test_log_prob_is_the_normal_density(pooling, shape):
    X, _y, R, _ = blobs()
    family = MVNormal(pooling, shape=shape)
    params = fitted(family, X, R)
    expected = np.column_stack(
        [
            multivariate_normal(
                params.means[k], params.covariance[0 if params.shared else k]
            ).logpdf(X)
            for k in range(3)
        ]
    )
    np.testing.assert_allclose(family.log_prob(params, X), expected, rtol=1e-11)
    np.testing.assert_allclose(family.log_prob(params, sp.csr_matrix(X)), expected, rtol=1e-11)


def test_maximum_likelihood_matrices():
    X, y, R, _ = blobs()
    per_class = fitted(MVNormal(0.0), X, R).covariance
    for k in range(3):
        np.testing.assert_allclose(per_class[k], np.cov(X[y == k].T, bias=True), rtol=1e-12)
    pooled = fitted(MVNormal(1.0), X, R).covariance[0]
    within = sum(np.cov(X[y == k].T, bias=True) * np.sum(y == k) for k in range(3)) / len(y)
    np.testing.assert_allclose(pooled, within, rtol=1e-12)


def sk_auto(Xk: np.ndarray) -> np.ndarray:
    """scikit-learn's LDA shrinkage='auto' for one class (standardise, Ledoit-Wolf, rescale)."""
    scaler = StandardScaler()
    s = skcov.ledoit_wolf(scaler.fit_transform(Xk))[0]
    return scaler.scale_[:, None] * s * scaler.scale_[None, :]


@pytest.mark.parametrize(
    ("shrinkage", "reference"),
    [
        ("auto", sk_auto),
        ("ledoit-wolf", lambda Xk: skcov.ledoit_wolf(Xk)[0]),
        ("oas", lambda Xk: skcov.oas(Xk)[0]),
        (0.3, lambda Xk: skcov.shrunk_covariance(skcov.empirical_covariance(Xk), 0.3)),
    ],
)
def test_shrinkage_matches_scikit_learn(shrinkage, reference):
    X, y, R, _ = blobs(d=6)
    X[:, 5] = 2.0  # a constant column: standardised by 1, as StandardScaler does
    X[:, 0] *= 1e3  # different scales: "auto" standardises, the others do not
    params = fitted(MVNormal(0.0, shrinkage=shrinkage), X, R)
    for k in range(3):
        np.testing.assert_allclose(
            params.covariance[k], reference(X[y == k]), rtol=1e-10, atol=1e-12
        )


@pytest.mark.parametrize("shrinkage", ["auto", "ledoit-wolf", "oas", 0.2])
def test_integer_weights_are_repeated_rows(shrinkage):
    X, y, R, w = blobs(weights=True)
    family = MVNormal(0.0, shrinkage=shrinkage)
    repeated = np.repeat(np.arange(len(y)), w.astype(int))
    weighted = fitted(family, X, R).covariance
    _, R_rep = class_weights(y[repeated], None, len(repeated))
    np.testing.assert_allclose(weighted, fitted(family, X[repeated], R_rep).covariance, rtol=1e-10)


def friedman(X, y, lam, gamma):
    """Friedman (1989), eq. 16 and 18, written out."""
    d, out = X.shape[1], []
    scatter = [np.cov(X[y == k].T, bias=True) * np.sum(y == k) for k in range(3)]
    total = sum(scatter)
    for k in range(3):
        n_k = np.sum(y == k)
        S = ((1 - lam) * scatter[k] + lam * total) / ((1 - lam) * n_k + lam * len(y))
        out.append((1 - gamma) * S + gamma * np.trace(S) / d * np.eye(d))
    return np.array(out)


@pytest.mark.parametrize(("lam", "gamma"), [(0.0, 0.0), (0.4, 0.0), (0.4, 0.25), (1.0, 0.6)])
def test_friedman_regularisation(lam, gamma):
    X, y, R, _ = blobs()
    params = fitted(MVNormal(lam, gamma=gamma), X, R)
    expected = friedman(X, y, lam, gamma)
    got = np.broadcast_to(params.covariance, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_reg_param_and_ridge():
    X, _y, R, _ = blobs()
    plain = fitted(MVNormal(0.0), X, R).covariance
    eye = np.eye(4)
    np.testing.assert_allclose(
        fitted(MVNormal(0.0, reg_param=0.3), X, R).covariance, 0.7 * plain + 0.3 * eye, rtol=1e-12
    )
    np.testing.assert_allclose(
        fitted(MVNormal(0.0, ridge=0.5), X, R).covariance, plain + 0.5 * eye, rtol=1e-12
    )


def test_diagonal_shape_is_gaussian_naive_bayes():
    X, _y, R, _ = blobs()
    diag = MVNormal(0.0, shape="diag")
    gauss = Gaussian(var_smoothing=0.0)
    np.testing.assert_allclose(
        diag.log_prob(fitted(diag, X, R), X),
        gauss.log_prob(gauss.finalize(gauss.summarize(X, R)), X),
        rtol=1e-12,
    )


def test_shared_covariance_decision_is_linear():
    X, _y, R, _ = blobs()
    family = MVNormal(1.0, shrinkage=0.1)
    params = fitted(family, X, R)
    W, b = family.discriminant(params)
    rest = family.log_prob(params, X) - (X @ W.T + b)
    np.testing.assert_allclose(rest, rest[:, :1].repeat(3, axis=1), rtol=1e-12, atol=1e-9)
    with pytest.raises(ParameterError, match="shared by every class"):
        MVNormal(0.5).discriminant(fitted(MVNormal(0.5), X, R))


def test_fisher_projection_diagonalises_both_scatters():
    X, _y, R, _ = blobs()
    params = fitted(MVNormal(1.0), X, R)
    V, values = params.projection
    within = params.covariance[0]
    np.testing.assert_allclose(V.T @ within @ V, np.eye(4), atol=1e-10)
    np.testing.assert_allclose(V.T @ (params.total - within) @ V, np.diag(values), atol=1e-10)
    assert np.all(np.diff(values) <= 0)
    assert np.sum(values > 1e-10) == 2  # K - 1 discriminant axes


# ------------------------------------------------------------------ degenerate data
def test_fewer_rows_than_features_is_singular_and_named():
    X, y, R, _ = blobs(n=40, d=6)
    keep = (y != 1) | (np.cumsum(y == 1) <= 4)  # class 1 keeps 4 rows for 6 features
    _, R = class_weights(y[keep], None, int(keep.sum()))
    family = MVNormal(0.0)
    params = fitted(family, X[keep], R)
    assert [s.klass for s in params.singular] == [1]
    with pytest.raises(SingularCovarianceError, match=r"class 'b' is singular: .* 6 features"):
        family.check_usable(params, np.array(["a", "b", "c"]), [f"x{j}" for j in range(6)])
    with pytest.raises(SingularCovarianceError):
        family.log_prob(params, X)
    regularised = MVNormal(0.0, reg_param=0.1)
    lp = regularised.log_prob(fitted(regularised, X[keep], R), X)
    assert np.isfinite(lp).all()


def test_constant_columns():
    X, y, R, _ = blobs()
    noise = np.random.default_rng(1).normal(size=len(y))
    X = np.column_stack([X, np.full(len(y), 7.0), np.where(y == 0, 1.0, noise)])
    family = MVNormal(0.0)
    params = fitted(family, X, R)
    assert not params.keep[4]
    assert params.keep[5]
    assert [(s.klass, s.column) for s in params.singular] == [(0, 4)]  # constant in class 0
    with pytest.raises(SingularCovarianceError, match=r"column 5 \('z'\) has no variance within"):
        family.check_usable(params, np.array([0, 1, 2]), ["a", "b", "c", "d", "e", "z"])
    # Leaving the constant column out changes no posterior once the matrices are regular.
    reg = MVNormal(0.0, reg_param=0.2)
    with_constant = reg.log_prob(fitted(reg, X, R), X)
    without = reg.log_prob(fitted(reg, np.delete(X, 4, axis=1), R), np.delete(X, 4, axis=1))
    diff = with_constant - without
    np.testing.assert_allclose(diff, diff[:, :1].repeat(3, axis=1), atol=1e-9)


def test_a_column_constant_within_every_class_is_named_for_a_shared_matrix():
    X, y, R, _ = blobs()
    X = np.column_stack([X, y.astype(float)])  # a perfect separator
    params = fitted(MVNormal(1.0), X, R)
    with pytest.raises(
        SingularCovarianceError, match=r"column 4 .* no variance within every class but differs"
    ):
        MVNormal(1.0).check_usable(params, np.arange(3), [f"x{j}" for j in range(5)])


def test_collinear_columns():
    X, _y, R, _ = blobs()
    X = np.column_stack([X, X[:, 0] - 2 * X[:, 1]])
    params = fitted(MVNormal(1.0), X, R)
    assert params.singular
    assert params.singular[0].column is None
    assert params.singular[0].smallest < 1e-12
    assert np.isfinite(
        MVNormal(1.0, shrinkage="auto").log_prob(fitted(MVNormal(1.0, shrinkage="auto"), X, R), X)
    ).all()


@pytest.mark.parametrize("scale", [1e-6, 1e6])
def test_scaled_columns_stay_finite(scale):
    X, _y, R, _ = blobs()
    units = np.array([1.0, scale, 1.0, scale])
    for family in (MVNormal(0.0), MVNormal(1.0), MVNormal(0.5, gamma=0.1)):
        lp = family.log_prob(fitted(family, X * units, R), X * units)
        assert np.isfinite(lp).all()
        if not family.gamma:  # maximum likelihood: the same model in other units, so the
            # densities differ by the Jacobian -ln|det| only
            diff = lp - family.log_prob(fitted(family, X, R), X)
            np.testing.assert_allclose(diff, -2 * np.log(scale), rtol=1e-9)


def test_empty_classes_score_minus_infinity():
    X, y, R, _ = blobs()
    R = sp.hstack([R, sp.csr_matrix((len(y), 1))], format="csr")
    for family in (MVNormal(0.0), MVNormal(1.0)):
        lp = family.log_prob(fitted(family, X, R), X)
        assert np.isneginf(lp[:, 3]).all()
        assert np.isfinite(lp[:, :3]).all()


# ------------------------------------------------------------------ settings
@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"pooling": 1.5}, r"pooling \(lam\) must be in \[0, 1\]"),
        ({"gamma": -0.1}, r"gamma must be in \[0, 1\]"),
        ({"reg_param": 2}, r"reg_param must be in \[0, 1\]"),
        ({"shrinkage": "lw"}, "shrinkage='lw'; accepted"),
        ({"shrinkage": 1.2}, r"shrinkage must be in \[0, 1\]"),
        ({"shape": "tied"}, "shape='tied'; accepted: full, diag, spherical"),
        ({"ridge": -1.0}, "ridge must be a finite number >= 0"),
        ({"ridge": float("inf")}, "ridge must be a finite number >= 0"),
        ({"tol": "x"}, r"tol must be a number in \[0, 1\)"),
        ({"tol": float("nan")}, r"tol must be a number in \[0, 1\)"),
        ({"tol": 1.0}, r"so tol >= 1 makes every covariance singular"),
        ({"pool_weights": [1.0, 2.0]}, "pool_weights must be 3 finite weights"),
    ],
)
def test_bad_settings(settings, words):
    X, _y, R, _ = blobs()
    family = MVNormal(**settings)
    with pytest.raises(ParameterError, match=words):
        family.finalize(MVNormal().summarize(X, R))


def test_ledoit_wolf_needs_the_fourth_moments():
    X, _y, R, _ = blobs()
    stats = MVNormal().summarize(X, R)
    assert not stats.fourth
    assert MVNormal(shrinkage="auto").summarize(X, R).fourth
    with pytest.raises(
        ParameterError, match=r"fourth moments .* fit it again with shrinkage=.auto."
    ):
        MVNormal(shrinkage="auto").finalize(stats)
    MVNormal(shrinkage="oas").finalize(stats)  # OAS needs the covariance only


def test_nan_is_refused_with_row_and_column():
    X, _y, _R, _ = blobs()
    X[7, 2] = np.nan
    with pytest.raises(ValueError, match=r"nan at row 7, column 2 \('c'\); discriminant analysis"):
        MVNormal().validate(X, ["a", "b", "c", "d"])
    with pytest.raises(ValueError, match=r"row 7, column 2"):
        MVNormal().validate(sp.csr_matrix(X), ["a", "b", "c", "d"])


@pytest.mark.parametrize("pooling", [0.0, 1.0])
def test_singular_rule_is_the_smallest_correlation_eigenvalue(pooling):
    """Matrices whose smallest correlation-scale eigenvalue lies just above or below tol²
    (where the factor's inverse alone cannot settle it) are judged by that eigenvalue."""
    rng = np.random.default_rng(3)
    d, tol = 6, 1e-3
    for low, singular in ((2e-6, False), (0.5e-6, True)):
        # equicorrelation 1 - low: eigenvalue low five times (and 6 - 5 low), so
        # 1 / ||C⁻¹||_F² is about a fifth of the smallest
        corr = np.full((d, d), 1.0 - low) + low * np.eye(d)
        smallest = np.linalg.eigvalsh(corr)[0]
        assert bool(smallest <= tol**2) is singular
        # 1 / ||C⁻¹||_F² is below tol² in both cases: the bound leaves it to the eigenvalue
        C_inv = np.linalg.inv(np.linalg.cholesky(corr))
        assert 1.0 / np.sum(C_inv**2) <= tol**2
        # exact rows of two classes with this covariance (units differ by column)
        units = np.geomspace(1e-3, 1e3, d)
        half = np.linalg.cholesky(corr) * units[:, None]
        Z = rng.normal(size=(400, d))
        Z = (Z - Z.mean(0)) @ np.linalg.inv(np.linalg.cholesky(np.cov(Z.T, bias=True))).T
        X = np.vstack([Z @ half.T, Z @ half.T + 3.0 * units])
        y = np.repeat([0, 1], 400)
        params = fitted(MVNormal(pooling, tol=tol), X, class_weights(y, None, 800)[1])
        assert bool(params.singular) is singular
        if singular:
            assert params.singular[0].smallest == pytest.approx(smallest, rel=1e-6)
        else:
            # the density on the correlation scale by an eigen-decomposition (κ = 3e6)
            cov, mean = params.covariance[0], params.means[0]
            scale = np.sqrt(np.diag(cov))
            values, vectors = np.linalg.eigh(cov / scale[:, None] / scale[None, :])
            Z = ((X - mean) / scale) @ vectors / np.sqrt(values)
            expected = (
                -0.5 * (np.sum(Z**2, axis=1) + np.log(values).sum() + d * np.log(2 * np.pi))
                - np.log(scale).sum()
            )
            np.testing.assert_allclose(
                MVNormal(pooling, tol=tol).log_prob(params, X)[:, 0], expected, rtol=1e-8
            )


@pytest.mark.parametrize("pooling", [0.0, 1.0])
def test_scores_do_not_depend_on_blas_threads(pooling):
    """Thin matrices hold BLAS to one thread whatever the user allows: the same numbers on
    one and two BLAS threads, dense and sparse."""
    from threadpoolctl import threadpool_limits

    X, _y, R, _ = blobs(n=6000, d=40, k=4)
    family = MVNormal(pooling)
    params = fitted(family, X, R)
    with threadpool_limits(limits=1, user_api="blas"):
        one = family.log_prob(params, X)
    with threadpool_limits(limits=2, user_api="blas"):
        two = family.log_prob(params, X)
        sparse = family.log_prob(params, sp.csr_matrix(X))
    np.testing.assert_allclose(two, one, rtol=1e-13)
    np.testing.assert_allclose(sparse, one, rtol=1e-13)
    expected = multivariate_normal(params.means[1], params.covariance[0 if pooling else 1])
    np.testing.assert_allclose(one[:, 1], expected.logpdf(X), rtol=1e-10)


@pytest.mark.parametrize("layout", ["C", "F", "sparse", "constant column"])
def test_class_scores_on_several_threads_are_those_of_one(monkeypatch, layout):
    """The per-class scoring splits rows over threads: every row is scored alone, so the
    numbers are the same to the bit on one thread and on three, for every input layout
    (strided views and sparse rows are made dense a task at a time, columns left out are
    dropped), with an empty class scoring -inf."""
    from bayeskit.families import mvnormal

    X, _y, R, _ = blobs(n=2000, d=6, k=4)
    if layout == "constant column":
        X = np.column_stack([X, np.full(len(X), 2.5)])
    R = sp.csr_matrix(R.toarray() * [1.0, 1.0, 0.0, 1.0])  # class 2 has no weight
    family = MVNormal(0.0, reg_param=0.0 if layout == "constant column" else 0.01)
    params = family.finalize(family.summarize(X, R))
    assert params.keep.all() == (layout != "constant column")
    data = {"C": X, "F": np.asfortranarray(X), "sparse": sp.csr_matrix(X)}.get(layout, X)
    monkeypatch.setattr(mvnormal, "_PARALLEL_MULTIPLY_ADDS", 1000)
    monkeypatch.setattr(mvnormal, "_KERNEL_BLOCK_CELLS", 600)  # blocks of 100 rows or so
    monkeypatch.setattr(mvnormal, "usable_cpus", lambda: 1)
    one = family.log_prob(params, data)
    monkeypatch.setattr(mvnormal, "usable_cpus", lambda: 3)
    monkeypatch.setattr(mvnormal, "blas_threads", lambda: 3)
    three = family.log_prob(params, data)
    np.testing.assert_array_equal(three, one)
    assert np.isneginf(one[:, 2]).all()
    kept = params.keep
    for k in (0, 1, 3):
        expected = multivariate_normal(
            params.means[k, kept], params.covariance[k][np.ix_(kept, kept)]
        ).logpdf(X[:, kept])
        np.testing.assert_allclose(one[:, k], expected, rtol=1e-11)


def test_class_scores_keep_to_the_blas_thread_limit(monkeypatch):
    """The per-class scoring calls BLAS on one thread and splits rows over threads itself:
    no more of them than BLAS may use (one under OPENBLAS_NUM_THREADS=1 or a threadpoolctl
    limit), as many as the CPUs allow otherwise."""
    from threadpoolctl import threadpool_limits

    from bayeskit.families import mvnormal

    X, _y, R, _ = blobs(n=3000, d=6, k=3)
    family = MVNormal(0.0)
    params = family.finalize(family.summarize(X, R))
    used = []

    def recording(n_tasks, n_threads, task):
        used.append(n_threads)
        return mvnormal_in_parallel(n_tasks, n_threads, task)

    mvnormal_in_parallel = mvnormal.in_parallel
    monkeypatch.setattr(mvnormal, "in_parallel", recording)
    monkeypatch.setattr(mvnormal, "_PARALLEL_MULTIPLY_ADDS", 1000)
    monkeypatch.setattr(mvnormal, "_KERNEL_BLOCK_CELLS", 600)  # blocks of 100 rows or so
    monkeypatch.setattr(mvnormal, "usable_cpus", lambda: 2)
    with threadpool_limits(limits=1, user_api="blas"):
        one = family.log_prob(params, X)
    with threadpool_limits(limits=2, user_api="blas"):
        two = family.log_prob(params, X)
    assert used == [1, 2]
    np.testing.assert_array_equal(one, two)
