"""Hostile review of ParzenWindowClassifier: rows far from the data, data at tiny scales."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from scipy.special import logsumexp

import bayeskit as bk


def _two_blobs(d=2, n=20, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(0, 1, (n, d)), rng.normal(3, 1, (n, d))]
    return X, np.repeat(["a", "b"], n)


def _gaussian_joint(X_train, y_train, Q, h):
    """ln P(y) + ln of the gaussian window's density, from cdist and logsumexp."""
    d = X_train.shape[1]
    out = []
    for c in np.unique(y_train):
        A = X_train[y_train == c]
        terms = -0.5 * (cdist(Q, A) / h) ** 2
        log_p = logsumexp(terms, axis=1) - np.log(len(A)) - 0.5 * d * np.log(2 * np.pi * h * h)
        out.append(log_p + np.log(len(A) / len(y_train)))
    return np.stack(out, axis=1)


@pytest.mark.parametrize("offset", [1e9, 1e12])
def test_far_from_the_data_the_nearest_window_decides(offset):
    """Far from every training row (a gaussian term below about −2e17) the kernel sum left out
    its own largest term, compared with ``largest − 50`` which rounds to the largest: every
    class got −inf and the prior decided, not the nearest window."""
    X, y = _two_blobs()
    model = bk.ParzenWindowClassifier(bandwidth=1.0).fit(X, y)
    Q = np.array([[offset, offset], [-offset, -offset], [offset + 3, offset + 3]])
    jll = model.predict_joint_log_proba(Q)
    assert np.isfinite(jll).all()
    np.testing.assert_allclose(jll, _gaussian_joint(X, y, Q, 1.0), rtol=1e-12)
    # up and to the right is class b's side, down and to the left class a's
    assert model.predict(Q).tolist() == ["b", "a", "b"]
    assert np.isfinite(model.predict_log_proba(Q)).all()


@pytest.mark.parametrize("kernel", ["gaussian", "exponential"])
def test_a_narrow_window_still_ranks_the_classes_off_the_rows(kernel):
    """A width of 1e-100: a row 1e-3 from a training row of class a has a finite density
    under a (about −1e194 in log) and a smaller one under b; it was −inf for both."""
    X, y = _two_blobs()
    model = bk.ParzenWindowClassifier(bandwidth=1e-100, kernel=kernel).fit(X, y)
    Q = X[[0, 1, 25, 30]] + 1e-3
    jll = model.predict_joint_log_proba(Q)
    assert np.isfinite(jll).all()
    assert model.predict(Q).tolist() == ["a", "a", "b", "b"]


SETTINGS = [
    {},
    {"metric": "manhattan"},
    {"metric": "mahalanobis"},
    {"metric": "cosine"},
    {"metric": "minkowski", "p": 3.0},
    {"kernel": "epanechnikov", "metric": "chebyshev"},
    {"bandwidth": "cv-accuracy", "adaptive": 3},
]


@pytest.mark.parametrize("scale", [1e-160, 1e-250, 1e-305])
@pytest.mark.parametrize("settings", SETTINGS, ids=str)
def test_tiny_columns_are_the_same_model_rescaled(settings, scale):
    """Columns at 1e-155 and below: squared differences (and variances) underflowed, the
    gaussian's 1/(2h²) overflowed, every class got −inf (or every row the width 1 of
    coinciding rows) and the prior decided every row: accuracy 0.5 on two separated blobs.
    Now the window of ``s X`` is the window of X moved: the same posteriors and widths (in
    the distance's units), each density divided by s^d."""
    X, y = _two_blobs(d=3)
    Q = np.random.default_rng(1).normal(1.5, 2, (10, 3))
    plain = bk.ParzenWindowClassifier(**settings).fit(X, y)
    tiny = bk.ParzenWindowClassifier(**settings).fit(X * scale, y)
    unitless = settings.get("metric") in ("mahalanobis", "cosine")
    np.testing.assert_allclose(tiny.predict_proba(Q * scale), plain.predict_proba(Q), atol=1e-11)
    np.testing.assert_allclose(
        tiny.bandwidth_ / (1.0 if unitless else scale), plain.bandwidth_, rtol=1e-13
    )
    shift = 0.0 if settings.get("metric") == "cosine" else 3 * np.log(scale)
    np.testing.assert_allclose(
        tiny.predict_joint_log_proba(Q * scale) + shift,
        plain.predict_joint_log_proba(Q),
        rtol=1e-11,
    )
    assert (tiny.predict(X * scale) == plain.predict(X)).all()


def test_a_width_float64_cannot_evaluate_is_refused_by_name():
    """bandwidth=1e-160 on data of unit scale: 1/(2h²) overflowed, each term was NaN or −inf
    and the prior decided every row (the training rows themselves misclassified)."""
    X, y = _two_blobs()
    model = bk.ParzenWindowClassifier(bandwidth=0.5).fit(X, y)
    before = model.predict_proba(X)
    with pytest.raises(bk.errors.ParameterError, match=r"bandwidth=1e-160.*at least 1\.49"):
        model.set_params(bandwidth=1e-160)
    # a refused call leaves the model as it was
    assert model.get_params()["bandwidth"] == 0.5
    np.testing.assert_array_equal(model.predict_proba(X), before)
    with pytest.raises(bk.errors.ParameterError, match=r"bandwidth=1e-160.*at least 1\.49"):
        bk.ParzenWindowClassifier(bandwidth=1e-160).fit(X, y)
    # the narrowest accepted width scores the training rows as their own classes
    narrow = bk.ParzenWindowClassifier(bandwidth=1e-150).fit(X, y)
    assert (narrow.predict(X) == y).all()
    # so do tiny data with a width in their units
    tiny = bk.ParzenWindowClassifier(bandwidth=1e-161).fit(X * 1e-160, y)
    assert (tiny.predict(X * 1e-160) == y).all()


def test_tiny_searched_windows_load_back_identical(tmp_path):
    X, y = _two_blobs()
    model = bk.ParzenWindowClassifier(bandwidth="loo-likelihood", adaptive=2).fit(X * 1e-200, y)
    bk.save(model, tmp_path / "m.bk")
    loaded = bk.load(tmp_path / "m.bk")
    np.testing.assert_array_equal(loaded.predict_proba(X * 1e-200), model.predict_proba(X * 1e-200))
    assert loaded.bandwidth_ == model.bandwidth_


def _adaptive_cosine_class0(X, y, Q):
    """Class 0's log-density at ``Q`` under a fixed width (its own rows decide it alone)."""
    m = bk.ParzenWindowClassifier(metric="cosine", bandwidth=0.3, adaptive=3).fit(X, y)
    return m.predict_joint_log_proba(Q)[:, 0] - np.log(m.class_prior_[0])


def test_adaptive_cosine_densities_do_not_depend_on_the_other_classes():
    """Over 64 distinct widths the cosine normaliser was interpolated linearly on a grid
    spanning every class's widths: off by up to 1e-4 here (3e-3 in the normaliser), and by
    an amount that moved when another class gained rows."""
    from scipy import integrate

    rng = np.random.default_rng(0)
    X0 = rng.normal(size=(30, 3)) + np.array([3, 0, 0])
    X1 = rng.normal(size=(50, 3)) + np.array([0, 3, 0])
    Q = rng.normal(size=(4, 3)) + np.array([2, 1, 0])
    many = _adaptive_cosine_class0(np.r_[X0, X1], np.repeat([0, 1], [30, 50]), Q)
    few = _adaptive_cosine_class0(np.r_[X0, X1[:2]], np.repeat([0, 1], [30, 2]), Q)
    # the adaptive cosine density on the sphere S², each width's normaliser by quadrature
    U = X0 / np.linalg.norm(X0, axis=1, keepdims=True)
    D = np.maximum(1 - U @ U.T, 0)
    np.fill_diagonal(D, np.inf)
    dk = np.sort(D, axis=1)[:, 2]
    widths = 0.3 * dk / np.exp(np.log(dk).mean())
    volume = np.array([
        2 * np.pi * integrate.quad(
            lambda t, w=w: np.exp(-0.5 * (t / w) ** 2), 0, 2, epsabs=0, epsrel=1e-12
        )[0]
        for w in widths
    ])  # fmt: skip
    Uq = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    exact = logsumexp(-0.5 * ((1 - Uq @ U.T) / widths) ** 2 - np.log(volume), axis=1) - np.log(
        len(U)
    )
    np.testing.assert_allclose(many, exact, rtol=0, atol=1e-9)
    np.testing.assert_allclose(few, exact, rtol=0, atol=1e-9)


@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov", "exponential", "tophat"])
@pytest.mark.parametrize("d", [2, 3, 6])
def test_many_cosine_normalisers_agree_with_their_quadrature(kernel, d):
    """Widths on both sides of 2, where a compact kernel's support passes the far end of the
    sphere (the normaliser bends there)."""
    from bayeskit.families import _parzen_kernels as pk

    widths = np.geomspace(0.02, 3.0, 400)
    many = pk.log_kernel_norm(kernel, "cosine", d, widths)
    probe = widths[::13]
    one_by_one = np.array(
        [pk.log_kernel_norm(kernel, "cosine", d, np.array([w]))[0] for w in probe]
    )
    np.testing.assert_allclose(many[::13], one_by_one, rtol=0, atol=1e-9)


@pytest.mark.parametrize("kernel", ["gaussian", "exponential", "tophat", "epanechnikov"])
def test_the_circles_normaliser_holds_from_tiny_to_huge_widths(kernel):
    """On the circle (d = 2) the normaliser grows as √h for small widths (the cosine distance
    is θ²/2 near a row) and reaches the circle's length 2π for large ones. (A substitution
    that left a spike of width h^½ to the quadrature gave 0, and a math domain error, for
    widths of 1e-12.)"""
    from bayeskit.families import _parzen_kernels as pk

    tiny = np.array([pk._log_cosine_norm(kernel, 2, h) for h in (1e-14, 1e-10)])
    assert np.isfinite(tiny).all()
    assert tiny[1] - tiny[0] == pytest.approx(0.5 * np.log(1e4), abs=1e-9)
    assert pk._log_cosine_norm(kernel, 2, 1e8) == pytest.approx(np.log(2 * np.pi), abs=1e-6)
