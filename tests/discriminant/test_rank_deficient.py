"""Linear discriminant analysis on rank-deficient data: the default solver works in the span of
the data (as scikit-learn's svd solver and R's MASS::lda), lsqr and eigen refuse it by name."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import discriminant_analysis as sk
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.errors import CollinearColumnsWarning, SingularCovarianceError


@pytest.fixture(scope="module")
def prices() -> tuple[np.ndarray, np.ndarray]:
    """The wine table (178 real wines) with a difference of two columns stored beside them,
    as a price difference is stored beside both prices."""
    X, y = load_wine(return_X_y=True)
    return np.column_stack([X, X[:, 0] - X[:, 3]]), y


def _quiet_fit(model: bk.LinearDiscriminantAnalysis, X: np.ndarray, y: np.ndarray) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CollinearColumnsWarning)
        return model.fit(X, y)


def test_svd_fits_in_the_span_and_names_the_columns(prices):
    X, y = prices
    with pytest.warns(CollinearColumnsWarning, match=r"'x0', 'x3', 'x13' are collinear.*1 dir"):
        ours = bk.LinearDiscriminantAnalysis().fit(X, y)
    theirs = sk.LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    # The model on the span is the model on a basis of it (the columns without the copy).
    basis = bk.LinearDiscriminantAnalysis().fit(X[:, :-1], y)
    np.testing.assert_allclose(
        ours.predict_log_proba(X), basis.predict_log_proba(X[:, :-1]), rtol=1e-8, atol=1e-9
    )
    np.testing.assert_allclose(ours.transform(X), basis.transform(X[:, :-1]), rtol=1e-6)
    np.testing.assert_array_equal(ours.means_, np.array([X[y == c].mean(0) for c in range(3)]))


@pytest.mark.parametrize("solver", ["lsqr", "eigen"])
def test_lsqr_and_eigen_refuse_naming_the_fix(prices, solver):
    X, y = prices
    model = bk.LinearDiscriminantAnalysis(solver=solver)
    with pytest.raises(SingularCovarianceError, match=r"singular.*use solver='svd'"):
        model.fit(X, y)
    assert not hasattr(model, "stats_")  # a refused fit leaves the model unfitted


def test_qda_and_rda_messages_are_unchanged(prices):
    X, y = prices
    with pytest.raises(SingularCovarianceError, match=r"set reg_param > 0") as qda:
        bk.QuadraticDiscriminantAnalysis().fit(X, y)
    assert "svd" not in str(qda.value)
    with pytest.raises(SingularCovarianceError, match=r"set gamma > 0") as rda:
        bk.RegularizedDiscriminantAnalysis().fit(X, y)
    assert "svd" not in str(rda.value)


def test_statistics_stay_additive(prices):
    """partial_fit in batches and merging two halves give the fitted model: the span is found
    from the summed statistics."""
    X, y = prices
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    whole = _quiet_fit(bk.LinearDiscriminantAnalysis(), X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CollinearColumnsWarning)
        streamed = bk.LinearDiscriminantAnalysis()
        for lo in range(0, len(y), 40):
            streamed.partial_fit(X[lo : lo + 40], y[lo : lo + 40])
        half = len(y) // 2
        merged = _quiet_fit(bk.LinearDiscriminantAnalysis(), X[:half], y[:half]) + _quiet_fit(
            bk.LinearDiscriminantAnalysis(), X[half:], y[half:]
        )
        for model in (streamed, merged):
            np.testing.assert_allclose(
                model.predict_proba(X), whole.predict_proba(X), rtol=1e-7, atol=1e-10
            )


def test_full_rank_data_is_not_touched():
    X, y = load_wine(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CollinearColumnsWarning)
        svd = bk.LinearDiscriminantAnalysis().fit(X, y)
    lsqr = bk.LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_array_equal(svd.predict_log_proba(X), lsqr.predict_log_proba(X))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_base=st.integers(1, 5),
    n_copies=st.integers(1, 3),
    n_classes=st.integers(2, 4),
    scale=st.sampled_from([1e-3, 1.0, 1e4]),
)
def test_copies_of_combinations_change_nothing(seed, n_base, n_copies, n_classes, scale):
    """Appending linear combinations of the columns gives the posterior of the base columns,
    and predictions scikit-learn's svd solver makes."""
    rng = np.random.default_rng(seed)
    n = 30 * n_classes + 10 * n_base
    y = np.arange(n) % n_classes
    base = rng.normal(size=(n, n_base)) * scale + y[:, None] * rng.normal(size=n_base) * scale
    mix = rng.normal(size=(n_base, n_copies))
    X = np.column_stack([base, base @ mix])[:, rng.permutation(n_base + n_copies)]
    ours = _quiet_fit(bk.LinearDiscriminantAnalysis(), X, y)
    basis = bk.LinearDiscriminantAnalysis().fit(base, y)
    np.testing.assert_allclose(
        ours.predict_proba(X), basis.predict_proba(base), rtol=1e-6, atol=1e-8
    )
    theirs = sk.LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-6)


def test_priors_not_summing_to_one_are_renormalised():
    X, y = load_wine(return_X_y=True)
    with pytest.warns(UserWarning, match=r"sum to 2, not 1; renormalising"):
        ours = bk.LinearDiscriminantAnalysis(priors=[0.4, 0.6, 1.0]).fit(X, y)
    with pytest.warns(UserWarning, match="Renormalizing"):
        theirs = sk.LinearDiscriminantAnalysis(solver="lsqr", priors=[0.4, 0.6, 1.0]).fit(X, y)
    np.testing.assert_allclose(ours.priors_, [0.2, 0.3, 0.5])
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    with pytest.raises(bk.errors.ParameterError, match="probabilities >= 0"):
        bk.LinearDiscriminantAnalysis(priors=[-0.5, 0.5, 1.0]).fit(X, y)
