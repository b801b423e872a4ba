"""GaussianMixtureClassifier: scikit-learn's GaussianMixture per class, GaussianNB and QDA as
one-component cases, the class prior, the RBF view, class-wise merging and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture

import bayeskit as bk
from bayeskit.errors import DataError, MergeError, ParameterError, SingularCovarianceError
from bayeskit.mixture import FewRowsWarning

RTOL = 1e-6


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    return X, y


def _blobs(seed: int = 0, n: int = 60):
    rng = np.random.default_rng(seed)
    centres = {"a": [(0, 0), (5, 5)], "b": [(0, 5), (5, 0), (2.5, 2.5)]}
    X, y = [], []
    for label, cs in centres.items():
        for c in cs:
            X.append(rng.normal(c, 0.5, size=(n, 2)))
            y += [label] * n
    return np.vstack(X), np.array(y)


def assert_same_mixture(ours, label, theirs, cov):
    c = ours.classes_.tolist().index(label)
    np.testing.assert_allclose(ours.weights_[label], theirs.weights_, rtol=RTOL)
    np.testing.assert_allclose(ours.means_[label], theirs.means_, rtol=RTOL)
    np.testing.assert_allclose(ours.covariances_[label], theirs.covariances_, rtol=RTOL)
    assert ours.n_iter_[c] == theirs.n_iter_
    assert ours.converged_[c] == theirs.converged_
    assert ours.lower_bound_[c] == pytest.approx(theirs.lower_bound_, rel=1e-9)


@pytest.mark.parametrize("cov", ["diag", "spherical"])
@pytest.mark.parametrize("init", ["k-means++", "kmeans", "random", "random_from_data"])
def test_each_class_is_sklearn_gaussian_mixture(wine, cov, init):
    X, y = wine
    settings = dict(covariance_type=cov, init_params=init, random_state=3, tol=1e-6)
    ours = bk.GaussianMixtureClassifier(
        n_components=3, max_iter=500, var_floor=None, **settings
    ).fit(X, y)
    for label in ours.classes_:
        theirs = GaussianMixture(3, max_iter=500, **settings).fit(X[y == label])
        assert_same_mixture(ours, label, theirs, cov)


@pytest.mark.parametrize("init", ["k-means++", "kmeans", "random"])
def test_full_covariances_are_sklearn_gaussian_mixture(wine, init):
    X, y = wine
    settings = dict(covariance_type="full", init_params=init, random_state=5, tol=1e-6)
    ours = bk.GaussianMixtureClassifier(
        n_components=2, max_iter=500, var_floor=None, **settings
    ).fit(X, y)
    for label in ours.classes_:
        theirs = GaussianMixture(2, max_iter=500, **settings).fit(X[y == label])
        assert_same_mixture(ours, label, theirs, "full")


# scikit-learn's tied estimate (Σ_i x xᵀ − Σ_k n_k μ_k μ_kᵀ) / Σ_k n_k assumes every row's
# responsibilities sum to 1; its one-row-per-component starts ("k-means++",
# "random_from_data") break that, so its first tied matrix is the whole class's scatter over
# k. Ours is the pooled scatter of the responsibilities (reg_covar for those starts). The
# starts whose rows sum to 1 give the same mixtures.
@pytest.mark.parametrize("init", ["kmeans", "random"])
def test_tied_covariances_are_sklearn_gaussian_mixture(wine, init):
    X, y = wine
    settings = dict(covariance_type="tied", init_params=init, random_state=3, tol=1e-6)
    ours = bk.GaussianMixtureClassifier(
        n_components=3, max_iter=500, var_floor=None, **settings
    ).fit(X, y)
    for label in ours.classes_:
        theirs = GaussianMixture(3, max_iter=500, **settings).fit(X[y == label])
        assert_same_mixture(ours, label, theirs, "tied")
    assert ours.covariances_[0].shape == (13, 13)


@pytest.mark.parametrize("init", ["k-means++", "random_from_data"])
def test_one_row_starts_are_sklearn_s_rows_with_the_documented_differences(wine, init):
    # The same rows start the components; scikit-learn's tied start sums x xᵀ over every
    # row (its first matrix is about the class's scatter over k), ours is the pooled scatter
    # of the start's responsibilities: reg_covar. Its starting weights are n_k / n, ours 1/k.
    X, y = wine
    rows = X[y == 0]
    settings = dict(init_params=init, random_state=3, max_iter=0)
    ours = bk.GaussianMixtureClassifier(
        n_components=3, covariance_type="tied", var_floor=None, **settings
    ).fit(X, y)
    theirs = GaussianMixture(3, covariance_type="tied", **settings).fit(rows)
    np.testing.assert_allclose(ours.means_[0], theirs.means_, rtol=1e-12)
    np.testing.assert_allclose(ours.covariances_[0], 1e-6 * np.eye(13), rtol=1e-9, atol=1e-15)
    scatter = (rows - rows.mean(axis=0)).T @ (rows - rows.mean(axis=0))
    assert np.trace(theirs.covariances_) > 0.1 * np.trace(scatter) / 3
    np.testing.assert_allclose(ours.weights_[0], np.full(3, 1 / 3))
    np.testing.assert_allclose(theirs.weights_, np.full(3, 1 / len(rows)), rtol=1e-12)


def test_same_initial_means_same_mixture(wine):
    X, y = wine
    rng = np.random.default_rng(0)
    means = {c: X[y == c][rng.choice((y == c).sum(), 2, replace=False)] for c in np.unique(y)}
    ours = bk.GaussianMixtureClassifier(
        n_components=2, means_init=means, random_state=1, tol=1e-8, max_iter=1000, var_floor=None
    ).fit(X, y)
    for label in ours.classes_:
        theirs = GaussianMixture(
            2,
            covariance_type="diag",
            means_init=means[label],
            init_params="k-means++",
            random_state=1,
            tol=1e-8,
            max_iter=1000,
        ).fit(X[y == label])
        assert_same_mixture(ours, label, theirs, "diag")


@pytest.mark.parametrize("load", [load_wine, load_digits])
def test_one_diagonal_component_is_gaussian_nb(load):
    X, y = load(return_X_y=True)
    gnb = bk.GaussianNB().fit(X, y)
    gmm = bk.GaussianMixtureClassifier(n_components=1, reg_covar=gnb.epsilon_, var_floor=None)
    gmm.fit(X, y)
    np.testing.assert_allclose(
        gmm.predict_joint_log_proba(X), gnb.predict_joint_log_proba(X), rtol=1e-9
    )
    np.testing.assert_allclose(gmm.predict_proba(X), gnb.predict_proba(X), rtol=1e-9, atol=1e-12)
    for c, label in enumerate(gmm.classes_):
        np.testing.assert_allclose(gmm.means_[label][0], gnb.theta_[c], rtol=1e-12)
        np.testing.assert_allclose(gmm.covariances_[label][0], gnb.var_[c], rtol=1e-9)


@pytest.mark.parametrize("load", [load_wine, load_breast_cancer])
def test_one_full_component_is_qda(load):
    X, y = load(return_X_y=True)
    qda = bk.QuadraticDiscriminantAnalysis().fit(X, y)
    gmm = bk.GaussianMixtureClassifier(n_components=1, covariance_type="full", reg_covar=0.0)
    gmm.fit(X, y)
    np.testing.assert_allclose(
        gmm.predict_joint_log_proba(X), qda.predict_joint_log_proba(X), rtol=1e-9
    )
    np.testing.assert_allclose(gmm.predict_proba(X), qda.predict_proba(X), rtol=1e-9, atol=1e-12)
    for c, label in enumerate(gmm.classes_):
        np.testing.assert_allclose(gmm.covariances_[label][0], qda.covariance_[c], rtol=1e-12)


def test_joint_log_likelihood_is_prior_plus_class_mixture(wine):
    X, y = wine
    priors = np.array([0.5, 0.3, 0.2])
    model = bk.GaussianMixtureClassifier(
        n_components=2, random_state=0, priors=priors, var_floor=None
    )
    model.fit(X, y)
    jll = model.predict_joint_log_proba(X)
    for c, label in enumerate(model.classes_):
        sk = GaussianMixture(2, covariance_type="diag", init_params="k-means++", random_state=0)
        sk.fit(X[y == label])
        np.testing.assert_allclose(jll[:, c], sk.score_samples(X) + np.log(priors[c]), rtol=1e-8)
    # the prior is in predict_proba (scikit-lego's GMMClassifier leaves it out)
    flat = bk.GaussianMixtureClassifier(n_components=2, random_state=0, priors=[1 / 3] * 3)
    assert not np.allclose(flat.fit(X, y).predict_proba(X), model.predict_proba(X))


def test_many_dimensions_give_finite_probabilities():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 300))
    y = np.repeat([0, 1, 2], 80)
    X[y == 1] += 0.3
    model = bk.GaussianMixtureClassifier(n_components=2, random_state=0).fit(X, y)
    proba = model.predict_proba(X + 5.0)  # far from every centre
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.isfinite(model.predict_log_proba(X)).all()
    assert model.score(X, y) > 0.9


def test_bic_finds_the_components_of_each_class():
    X, y = _blobs()
    model = bk.GaussianMixtureClassifier(random_state=0).fit(X, y)
    assert model.n_components_.tolist() == [2, 3]
    assert set(model.bic_["a"]) == {1, 2, 3, 4, 5}
    assert min(model.bic_["a"], key=model.bic_["a"].get) == 2
    centres = np.sort(model.means_["a"].round(0), axis=0)
    np.testing.assert_allclose(centres, [[0, 0], [5, 5]], atol=0.6)
    assert model.score(X, y) > 0.97


def test_per_class_components_and_the_rbf_view():
    X, y = _blobs()
    model = bk.GaussianMixtureClassifier(n_components={"a": 2, "b": 3}, random_state=0)
    model.fit(X, y)
    assert model.n_components_.tolist() == [2, 3]
    assert model.weights_["b"].shape == (3,)
    np.testing.assert_allclose(model.weights_["b"].sum(), 1.0)
    assert model.covariances_["a"].shape == (2, 2)
    labels, components = model.predict_components([[5.1, 4.9], [0.1, 5.2], [2.4, 2.6]])
    assert labels.tolist() == ["a", "b", "b"]
    centres = [model.means_[lab][k] for lab, k in zip(labels, components, strict=True)]
    np.testing.assert_allclose(centres, [[5, 5], [0, 5], [2.5, 2.5]], atol=0.3)


@pytest.mark.parametrize("cov", ["diag", "spherical", "full", "tied"])
def test_covariance_shapes_follow_sklearn(cov):
    X, y = _blobs()
    model = bk.GaussianMixtureClassifier(n_components=2, covariance_type=cov, random_state=0)
    expected = {"diag": (2, 2), "spherical": (2,), "full": (2, 2, 2), "tied": (2, 2)}[cov]
    assert model.fit(X, y).covariances_["a"].shape == expected


def test_fixed_random_state_gives_an_identical_model(wine):
    X, y = wine
    a = bk.GaussianMixtureClassifier(n_components=3, init_params="random", random_state=7)
    b = bk.GaussianMixtureClassifier(n_components=3, init_params="random", random_state=7)
    sa, sb = a.fit(X, y).stats_.blocks[0], b.fit(X, y).stats_.blocks[0]
    for x, z in zip(sa.to_arrays()[0].values(), sb.to_arrays()[0].values(), strict=True):
        np.testing.assert_array_equal(x, z)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


def test_missing_values_with_diagonal_covariances():
    X, y = _blobs()
    holey = X.copy()
    holey[::7, 0] = np.nan
    model = bk.GaussianMixtureClassifier(n_components={"a": 2, "b": 3}, random_state=0)
    assert model.fit(holey, y).score(X, y) > 0.95
    assert np.isfinite(model.predict_proba(holey)).all()


def test_classes_fitted_apart_merge_exactly():
    X, y = _blobs()
    settings = dict(n_components=2, random_state=4)
    whole = bk.GaussianMixtureClassifier(**settings).fit(X, y)
    a = bk.GaussianMixtureClassifier(**settings).fit(X[y == "a"], y[y == "a"])
    b = bk.GaussianMixtureClassifier(**settings).fit(X[y == "b"], y[y == "b"])
    np.testing.assert_allclose((a + b).predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    assert not hasattr(whole, "partial_fit")  # EM is not additive within a class


def test_em_is_not_additive_within_a_class():
    X, y = _blobs()
    model = bk.GaussianMixtureClassifier(n_components=2, random_state=0).fit(X, y)
    before = model.predict_proba(X)
    with pytest.raises(MergeError, match="EM is not additive"):
        model.unlearn(X[:10], y[:10])
    with pytest.raises(MergeError, match="EM is not additive"):
        model + model
    np.testing.assert_array_equal(model.predict_proba(X), before)  # refused calls change nothing


def test_not_converged_warns_naming_the_class(wine):
    X, y = wine
    with pytest.warns(ConvergenceWarning) as record:
        bk.GaussianMixtureClassifier(n_components=3, max_iter=1, random_state=0).fit(X, y)
    messages = sorted(str(w.message) for w in record)
    assert len(messages) == 3
    assert messages[1].startswith("EM did not converge for class 1 (3 components) in 1 iter")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        bk.GaussianMixtureClassifier(n_components=3, random_state=0).fit(X, y)


@pytest.mark.parametrize("n_init", [1, 3])
@pytest.mark.parametrize("cov", ["full", "tied", "diag", "spherical"])
def test_max_iter_zero_keeps_the_start_as_sklearn(wine, cov, n_init):
    # scikit-learn's GaussianMixture(max_iter=0) keeps its start, lower_bound_ -inf and no
    # ConvergenceWarning; each class's mixture here is that start (of several, the last).
    X, y = wine
    settings = dict(covariance_type=cov, init_params="kmeans", random_state=0, n_init=n_init)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = bk.GaussianMixtureClassifier(
            n_components=2, max_iter=0, var_floor=None, **settings
        ).fit(X, y)
    for c, label in enumerate(ours.classes_):
        theirs = GaussianMixture(2, max_iter=0, **settings).fit(X[y == label])
        np.testing.assert_allclose(ours.weights_[label], theirs.weights_, rtol=RTOL)
        np.testing.assert_allclose(ours.means_[label], theirs.means_, rtol=RTOL)
        np.testing.assert_allclose(ours.covariances_[label], theirs.covariances_, rtol=RTOL)
        assert ours.n_iter_[c] == 0
        assert ours.lower_bound_[c] == -np.inf
    assert ours.predict(X).shape == y.shape


def test_a_class_of_zero_weight_is_kept_with_prior_zero():
    # As LDA, QDA and the Parzen window: the class is known, weighs 0, is never predicted.
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 2)), np.repeat([0, 1, 2], 10)
    weights = np.r_[np.zeros(10), np.ones(20)]
    model = bk.GaussianMixtureClassifier(random_state=0).fit(X, y, sample_weight=weights)
    assert model.classes_.tolist() == [0, 1, 2]
    proba = model.predict_proba(X)
    assert (proba[:, 0] == 0).all()
    assert np.allclose(proba.sum(axis=1), 1)
    assert set(model.predict(X)) <= {1, 2}
    assert model.n_iter_[0] == 0
    assert model.lower_bound_[0] == -np.inf


def test_class_with_fewer_rows_than_components():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [5.0, 5.0], [5.0, 5.0], [6.0, 5.0], [5.0, 6.0]])
    y = np.array(["small", "small", "big", "big", "big", "big"])
    with pytest.warns(FewRowsWarning, match="class 'small' has 2 distinct rows"):
        model = bk.GaussianMixtureClassifier(n_components=3, random_state=0).fit(X, y)
    assert model.n_components_.tolist() == [3, 2]  # classes_ = ["big", "small"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewRowsWarning)  # "bic" caps its range quietly
        assert bk.GaussianMixtureClassifier(random_state=0).fit(X, y).n_components_[1] <= 2


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"n_components": 0}, "n_components=0 is not accepted"),
        ({"n_components": -2}, "n_components=-2"),
        ({"n_components": 2.5}, "n_components=2.5"),
        ({"n_components": "many"}, "n_components='many'"),
        ({"n_components": {"a": 0, "b": 1}}, r"n_components\['a'\]=0"),
        ({"covariance_type": "banded"}, "covariance_type='banded'"),
        ({"max_iter": 10**9}, "max_iter=1000000000"),
        ({"n_init": 0}, "n_init=0"),
        ({"tol": -1.0}, "tol=-1.0"),
        ({"reg_covar": -1e-6}, "reg_covar=-1e-06"),
        ({"init_params": "best"}, "init_params='best'"),
        ({"max_components": 0}, "max_components=0"),
        ({"random_state": "seed"}, "random_state='seed'"),
    ],
)
def test_bad_settings_are_named(params, match):
    X, y = _blobs(n=10)
    with pytest.raises(ParameterError, match=match):
        bk.GaussianMixtureClassifier(**params).fit(X, y)


def test_missing_dict_entry_and_bad_means_init():
    X, y = _blobs(n=10)
    with pytest.raises(ParameterError, match="no entry for class 'b'"):
        bk.GaussianMixtureClassifier(n_components={"a": 2}).fit(X, y)
    with pytest.raises(
        ParameterError, match=r"means_init\['a'\] must be .* shape \(n_components, 2\)"
    ):
        bk.GaussianMixtureClassifier(n_components=2, means_init={"a": np.zeros(2)}).fit(X, y)
    with pytest.raises(ParameterError, match=r"means_init\['a'\] has 3 rows"):
        bk.GaussianMixtureClassifier(n_components=2, means_init={"a": np.zeros((3, 2))}).fit(X, y)


def test_zero_variance_without_reg_covar_is_named():
    X = np.array([[0.0, 1.0], [0.0, 2.0], [3.0, 1.0], [4.0, 2.0]])
    y = np.array([0, 0, 1, 1])
    with pytest.raises(
        DataError, match=r"class 0 has a covariance with zero variance .* reg_covar"
    ):
        bk.GaussianMixtureClassifier(n_components=1, reg_covar=0.0).fit(X, y)


def test_singular_full_covariance_without_reg_covar_is_named():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    X[:, 3] = X[:, 0] + X[:, 1]  # collinear
    y = np.repeat([0, 1], 30)
    model = bk.GaussianMixtureClassifier(
        n_components=2,
        covariance_type="full",
        reg_covar=0.0,
        init_params="kmeans",
        random_state=0,
        var_floor=None,
    )
    with pytest.raises(SingularCovarianceError, match=r"EM for class 0 \(2 components\) reached"):
        model.fit(X, y)
    fine = model.set_params(reg_covar=1e-6).fit(X, y)  # a ridge makes every matrix regular
    assert np.isfinite(fine.predict_log_proba(X)).all()
    # so does the resolution floor: the plane of the collinear columns keeps the variance the
    # recorded resolution allows in every direction (the diagonal floor alone did not bind)
    floored = model.set_params(reg_covar=0.0, var_floor="resolution").fit(X, y)
    root = np.sqrt(bk.mixture.resolution_floor(X))
    for covariances in floored.covariances_.values():
        whitened = covariances / (root[:, None] * root[None, :])
        eigenvalues = np.linalg.eigvalsh(whitened)  # Σ ⪰ F, to eigh's rounding
        assert (eigenvalues.min(axis=1) >= 1 - 1e-14 * eigenvalues.max(axis=1)).all()
    assert np.isfinite(floored.predict_log_proba(X)).all()


def test_classes_fitted_apart_merge_exactly_only_where_no_floor_reads_other_classes():
    # The Notes promised a merge of classes fitted apart equal to one fit wherever
    # check_folds=None; the resolution floor reads every class's rows of a fit, so a class
    # recorded to whole units beside one recorded to hundredths is floored otherwise apart.
    rng = np.random.default_rng(0)
    Xa, Xb = np.round(rng.normal(0, 1, (80, 2))), np.round(rng.normal(3, 1, (80, 2)), 2)
    X, y = np.r_[Xa, Xb], np.repeat(["a", "b"], 80)
    T = rng.normal(0, 3, (50, 2))

    def gap(**kw):
        make = lambda: bk.GaussianMixtureClassifier(check_folds=None, n_components=2, **kw)  # noqa: E731
        merged = make().fit(Xa, y[:80]) + make().fit(Xb, y[80:])
        whole = make().fit(X, y)
        return np.abs(merged.predict_joint_log_proba(T) - whole.predict_joint_log_proba(T)).max()

    assert gap(var_floor=None) < 1e-9
    assert gap() > 1e-3
    notes = bk.GaussianMixtureClassifier.__doc__.split("Notes")[1]
    assert 'var_floor="resolution"' in " ".join(notes.split())
    assert "with ``var_floor=None`` (and ``check_folds=None``)" in " ".join(notes.split())
