"""GaussianMixtureClassifier on 0/1 and other few-valued columns: each variance floored at the
resolution of the column's values (``h²/12``), so no component sits on one value of a one-hot
column and the mixture does not fall below GaussianNB; a fixed default seed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import OneHotEncoder

import bayeskit as bk
from bayeskit.datasets.shared import load_uci_table
from bayeskit.errors import ModelFileError, ParameterError
from bayeskit.mixture import resolution_floor
from bayeskit.mixture._resolution import binding_floor
from bayeskit.stats import MixtureStats


def test_resolution_floor_is_the_rounding_variance_of_each_column():
    X = np.array(
        [
            [0.0, 1.0, 2.5, 7.0, np.nan],
            [1.0, 1.0, 3.0, 7.0, 0.25],
            [1.0, 1.0, 4.0, 7.0, np.nan],
            [0.0, 1.0, 5.5, 7.0, 0.75],
        ]
    )
    # 0/1: step 1; constant: no floor; smallest gap 0.5; missing values left out
    expected = np.array([1.0, 0.0, 0.25, 0.0, 0.25]) / 12
    np.testing.assert_allclose(resolution_floor(X), expected, rtol=1e-15)
    assert resolution_floor(X[:1]).tolist() == [0.0] * 5


@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.sampled_from([1.0, 0.5, 0.01, 20.0]))
def test_resolution_floor_property(seed, k, step):
    """Values on a lattice of step h: the floor is h²/12 whenever two lattice neighbours occur
    (and never more)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, k + 1, size=(30, 3)) * step + 1000.0
    floor = resolution_floor(X)
    for j in range(3):
        values = np.unique(X[:, j])
        gaps = np.diff(values)
        expected = gaps.min() ** 2 / 12 if len(values) > 1 else 0.0
        assert floor[j] == pytest.approx(expected, rel=1e-9)


def _gaps_by_sorting(X):
    """The definition, by numpy's comparison sort (NaN sorts last and its gaps drop out)."""
    with np.errstate(invalid="ignore"):  # inf − inf
        gaps = np.diff(np.sort(X, axis=0), axis=0)
    h = np.where(gaps > 0, gaps, np.inf).min(axis=0)
    return np.where(np.isfinite(h), h * h / 12, 0.0)


_EDGE_VALUES = [0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e-300, -1e150, 1.0, -1.0]


@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 300),
    st.sampled_from(["normal", "lattice", "edges", "tiny", "wide"]),
)
def test_resolution_floor_orders_the_bits_as_the_floats(seed, n_rows, kind):
    """The radix sort of the bit patterns gives the comparison sort's smallest gaps, bit for
    bit: signs, signed zeros, subnormals, infinities, NaN and values of many scales (up to
    1e150: a larger gap's square overflows)."""
    rng = np.random.default_rng(seed)
    shape = (n_rows, 4)
    X = {
        "normal": lambda: rng.normal(size=shape),
        "lattice": lambda: rng.integers(-3, 4, size=shape) * 0.1,
        "edges": lambda: rng.choice(_EDGE_VALUES, size=shape),
        "tiny": lambda: rng.normal(size=shape) * 1e-310,
        "wide": lambda: rng.normal(size=shape) * 10.0 ** rng.integers(-300, 150, size=shape),
    }[kind]()
    X[rng.random(shape) < 0.1] = np.nan
    np.testing.assert_array_equal(resolution_floor(X), _gaps_by_sorting(X))
    # any memory layout: a column of a C-ordered matrix is strided
    np.testing.assert_array_equal(resolution_floor(np.asfortranarray(X)), _gaps_by_sorting(X))


def test_resolution_floor_on_many_rows_matches_the_definition():
    """Past the sizes where every digit of the radix sort is exercised (10⁵ rows of values
    whose bit patterns differ in every digit)."""
    X = np.random.default_rng(3).normal(size=(100_000, 3)) * [1.0, 1e-5, 1e8]
    np.testing.assert_array_equal(resolution_floor(X), _gaps_by_sorting(X))


def _kept(floor, reg_covar=1e-6):
    """The floors a mixture keeps: those above reg_covar (the default's)."""
    return np.where(floor > reg_covar, floor, 0.0)


@given(st.integers(0, 2**32 - 1), st.sampled_from([0.0, 1e-6, 1e-3]))
def test_binding_floor_is_the_resolution_floor_where_it_can_bind(seed, reg_covar):
    """Past the size where a sample of rows decides which columns are fine: the result is
    the definition, whatever the sample saw — columns fine everywhere, coarse everywhere,
    coarse in the sampled rows only (their fine values elsewhere), fine only in one row
    pair, constant, or with missing values."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4097, 20_000))
    step = n // 2048
    fine_unsampled = rng.integers(0, 3, n).astype(np.float64)
    fine_unsampled[1::step] += 1e-5 * np.arange(len(fine_unsampled[1::step]))
    one_close_pair = rng.integers(0, 50, n) * 0.5
    one_close_pair[-1] = one_close_pair[-2] + 2e-2
    X = np.column_stack(
        [
            rng.normal(size=n),
            rng.integers(0, 2, n),
            rng.integers(0, 1000, n) * 0.01,
            fine_unsampled,
            one_close_pair,
            np.full(n, 3.0),
            np.where(rng.random(n) < 0.3, np.nan, rng.integers(0, 5, n)),
        ]
    )
    np.testing.assert_array_equal(
        binding_floor(X, reg_covar), _kept(resolution_floor(X), reg_covar)
    )


def test_components_no_longer_sit_on_a_one_hot_column():
    """Every component variance is at least the column's floor (1/12 on a 0/1 column), so a
    row with the other value costs a bounded amount instead of ~1e6 nats."""
    X, y = _one_hot("voting")
    # the mixtures themselves (the check against GaussianNB may replace them by it)
    model = bk.GaussianMixtureClassifier(check_folds=None).fit(X, y)
    collapsed = bk.GaussianMixtureClassifier(var_floor=None, check_folds=None).fit(X, y)
    for label in model.classes_:
        assert model.covariances_[label].min() >= 1 / 12 - 1e-15
    assert min(v.min() for v in collapsed.covariances_.values()) < 1e-5  # what it fixes


def _one_hot(name: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        X, y = load_uci_table(name)
    except FileNotFoundError:
        pytest.skip("shared data folder not found (set BAYESKIT_DATA)")
    encoder = OneHotEncoder(sparse_output=False, handle_unknown="ignore")
    return encoder.fit_transform(X).astype(np.float64), y


def _cv_accuracy(make, X, y, folds=5):
    correct = 0
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=0).split(X, y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence notes of a few classes
            model = make().fit(X[train], y[train])
        correct += int((model.predict(X[test]) == y[test]).sum())
    return correct / len(y)


@pytest.mark.parametrize("name", ["voting", "car"])
def test_one_hot_uci_tables_at_least_gaussian_nb(name):
    """On one-hot tables the default mixture was 2.3 points below GaussianNB (voting: 0.920
    vs 0.943, components collapsed onto 0/1 columns); with the floor it is above."""
    X, y = _one_hot(name)
    gmm = _cv_accuracy(bk.GaussianMixtureClassifier, X, y)
    gnb = _cv_accuracy(bk.GaussianNB, X, y)
    assert gmm >= gnb


@pytest.mark.parametrize("load", [load_wine, load_breast_cancer])
def test_real_valued_tables_at_least_gaussian_nb(load):
    X, y = load(return_X_y=True)
    assert _cv_accuracy(bk.GaussianMixtureClassifier, X, y) >= _cv_accuracy(bk.GaussianNB, X, y)


def _mixed_table(seed: int, n: int = 600) -> tuple[np.ndarray, np.ndarray]:
    """0/1 columns (some constant within a class), a one-hot categorical column and real
    columns on scales from 0.01 to 1000, features independent given the class."""
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(2, 4))
    n_bin, n_real, k = int(rng.integers(3, 15)), int(rng.integers(1, 5)), int(rng.integers(2, 6))
    y = rng.integers(0, n_classes, n)
    p = rng.choice([0.0, 0.05, 0.1, 0.2, 0.3, 0.5], size=(n_classes, n_bin))
    binary = (rng.random((n, n_bin)) < p[y]).astype(np.float64)
    shares = rng.dirichlet(np.ones(k) * 3, size=n_classes)
    categories = (rng.random(n)[:, None] > np.cumsum(shares[y], axis=1)).sum(axis=1)
    one_hot = np.eye(k)[np.minimum(categories, k - 1)]
    mean = rng.normal(0, 0.5, size=(n_classes, n_real))
    sd = rng.uniform(0.5, 2, size=(n_classes, n_real))
    real = rng.normal(mean[y], sd[y]) * 10.0 ** rng.integers(-2, 4, n_real)
    return np.hstack([binary, one_hot, real]), y


@pytest.mark.parametrize("seed", range(40))
def test_generated_mixed_tables_do_not_fall_below_gaussian_nb(seed):
    """Held-out accuracy on generated 0/1 + one-hot + real tables: the mixture stays within 5
    points of GaussianNB (these tables are naive Bayes's own model, GaussianNB's best case);
    without the floor it fell up to 18 points below on the same generator.

    Forty fixed tables, not hypothesis's random draws: the claim does not hold for every
    table — hypothesis found one (seed 42882: BIC keeps 4 and 2 components, 0.647 against
    GaussianNB's 0.703), the mixture's remaining gap on some tables — so a random draw would
    make the suite fail by chance. On these forty the gap ranges from −2.7 to +21.7 points."""
    X, y = _mixed_table(seed)
    train, test = slice(0, 300), slice(300, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gmm = bk.GaussianMixtureClassifier().fit(X[train], y[train])
    gnb = bk.GaussianNB().fit(X[train], y[train])
    accuracy = np.mean(gmm.predict(X[test]) == y[test])
    assert accuracy >= np.mean(gnb.predict(X[test]) == y[test]) - 0.05


def test_two_default_fits_are_identical():
    X, y = _mixed_table(3)
    assert bk.GaussianMixtureClassifier().get_params()["random_state"] == 0
    a = bk.GaussianMixtureClassifier().fit(X, y)
    b = bk.GaussianMixtureClassifier().fit(X, y)
    for x, z in zip(
        a.stats_.blocks[0].to_arrays()[0].values(),
        b.stats_.blocks[0].to_arrays()[0].values(),
        strict=True,
    ):
        np.testing.assert_array_equal(x, z)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not a.__sklearn_tags__().non_deterministic


def test_floor_is_stored_with_the_model_and_old_files_have_none(tmp_path):
    X, y = _mixed_table(5)
    model = bk.GaussianMixtureClassifier(n_components=2).fit(X, y)
    stats = model.stats_.blocks[0]
    n_classes = len(model.classes_)
    np.testing.assert_array_equal(
        stats.var_floor, np.vstack([_kept(resolution_floor(X))] * n_classes)
    )
    path = tmp_path / "gmm.bkm"
    bk.save(model, path)
    np.testing.assert_array_equal(bk.load(path).predict_proba(X), model.predict_proba(X))
    # statistics written before the floor existed: no var_floor array, no floor
    arrays, meta = stats.to_arrays()
    del arrays["var_floor"]
    old = MixtureStats.from_arrays(arrays, meta)
    assert old.var_floor.shape == (n_classes, 0)
    assert not old.floors.any()
    arrays["var_floor"] = -stats.var_floor
    with pytest.raises(ModelFileError, match="var_floor"):
        MixtureStats.from_arrays(arrays, meta)


def test_classes_fitted_apart_keep_their_floors():
    X, y = _mixed_table(7)
    settings = dict(n_components=2)
    a = bk.GaussianMixtureClassifier(**settings).fit(X[y == 0], y[y == 0])
    b = bk.GaussianMixtureClassifier(**settings).fit(X[y == 1], y[y == 1])
    merged = (a + b).stats_.blocks[0]
    for c, part in enumerate((a, b)):
        # the floors above each class's ridge, reg_covar times its own columns' variances
        own = part.stats_.blocks[0].ridge_scale[0]
        np.testing.assert_array_equal(merged.ridge_scale[c], own)
        floor = _kept(resolution_floor(X[y == c]), 1e-6 * own)
        np.testing.assert_array_equal(merged.floors[c], floor)


@pytest.mark.parametrize("bad", ["sheppard", True, 0.1])
def test_unknown_var_floor_is_named(bad):
    X, y = _mixed_table(1)
    with pytest.raises(ParameterError, match=r"var_floor=.* is not accepted; use 'resolution'"):
        bk.GaussianMixtureClassifier(var_floor=bad).fit(X, y)
