"""Numbers at the edge of float64 (issue 10 §1): every estimator either computes finite
probabilities that sum to 1 or refuses with a BayeskitError that names what overflowed, and a
refused call leaves the model as it was."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit._decision import normalize_log
from bayeskit.contract import contract_of
from bayeskit.errors import (
    BayeskitError,
    DataError,
    MergeError,
    ParameterError,
    SingularCovarianceError,
)
from bayeskit.text import TextClassifier

from ._grid import CASES, Case, reals

RNG = np.random.default_rng(0)
COUNTS = RNG.poisson(2, size=(30, 4)).astype(np.float64)
REALS = RNG.normal(size=(30, 4))
BINARY = (COUNTS > 1).astype(np.float64)
Y = np.array(["a", "b", "c"])[RNG.integers(0, 3, 30)]


#: the estimators that model real values (the rest take counts, 0/1 or categories)
REAL_VALUED = (
    bk.GaussianNB,
    bk.KernelNB,
    bk.DiscretizedNB,
    bk.MixedNB,
    bk.LinearDiscriminantAnalysis,
    bk.QuadraticDiscriminantAnalysis,
    bk.RegularizedDiscriminantAnalysis,
)


def data_for(model: bk.GenerativeClassifier) -> np.ndarray:
    if isinstance(model, REAL_VALUED):
        return REALS
    if isinstance(model, bk.BernoulliNB):
        return BINARY
    return COUNTS


def assert_probabilities(P: np.ndarray) -> None:
    assert np.isfinite(P).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-9)


ALL = [
    bk.MultinomialNB,
    bk.ComplementNB,
    bk.BernoulliNB,
    bk.CategoricalNB,
    bk.GaussianNB,
    bk.KernelNB,
    bk.DiscretizedNB,
    bk.PoissonNB,
    lambda: bk.BinomialNB(n_trials=20),
    bk.MixedNB,
    bk.LinearDiscriminantAnalysis,
    lambda: bk.LinearDiscriminantAnalysis(shrinkage="auto"),
    bk.QuadraticDiscriminantAnalysis,
    bk.RegularizedDiscriminantAnalysis,
]
# Families whose statistic is a weighted *sum of values*: a row of weight 1e308 with a count of
# 2 makes a total float64 cannot hold, so the fit is refused naming the class and feature.
SUMS_OF_VALUES = (bk.MultinomialNB, bk.ComplementNB, bk.PoissonNB, bk.BinomialNB)


@pytest.mark.parametrize("make", ALL)
def test_a_row_of_weight_1e308(make):
    model = make()
    X = data_for(model)
    w = np.ones(len(Y))
    w[0] = 1e308
    if isinstance(model, SUMS_OF_VALUES):
        with pytest.raises(DataError, match=r"overflow float64.*scale down the sample weights"):
            model.fit(X, Y, sample_weight=w)
        assert not hasattr(model, "stats_")
        return
    if isinstance(model, bk.QuadraticDiscriminantAnalysis):
        # The heavy row is its class: a point mass, whose covariance (the other rows' spread
        # over 1e308) has no variance float64 can tell from 0. Refused by name.
        with pytest.raises(SingularCovarianceError, match=f"class '{Y[0]}' is singular"):
            model.fit(X, Y, sample_weight=w)
        assert not hasattr(model, "stats_")
        return
    model.fit(X, Y, sample_weight=w)
    assert_probabilities(model.predict_proba(X))
    # The heavy row decides its class's statistics (a categorical count, a mean…).
    assert model.predict(X[:1])[0] == Y[0]


@pytest.mark.parametrize("make", ALL)
def test_every_row_of_weight_1e308_overflows_with_a_named_error(make):
    model = make()
    with pytest.raises(DataError, match="overflow"):
        model.fit(data_for(model), Y, sample_weight=np.full(len(Y), 1e308))


@pytest.mark.parametrize("make", ALL)
@pytest.mark.parametrize("weights", [(1e300, 1e-300), (1e-308, 1e-308), (1e150, 1e-150)])
def test_weights_of_very_different_sizes(make, weights):
    model = make()
    X = data_for(model)
    w = np.where(np.arange(len(Y)) % 2 == 0, *weights)
    if isinstance(model, bk.QuadraticDiscriminantAnalysis) and weights[0] / weights[1] > 1e200:
        # The light rows do not count beside the heavy ones: class 'c' has 3 heavy rows for
        # 4 features, a singular covariance, refused by name.
        with pytest.raises(SingularCovarianceError, match="class 'c' is singular"):
            model.fit(X, Y, sample_weight=w)
        return
    model.fit(X, Y, sample_weight=w)
    assert_probabilities(model.predict_proba(X))
    assert not np.isnan(model.predict_log_proba(X)).any()


def test_kernel_nb_mixing_1e300_and_1e_300_weights():
    w = np.where(np.arange(len(Y)) % 3 == 0, 1e300, 1e-300)
    model = bk.KernelNB(bandwidth="cv").fit(REALS, Y, sample_weight=w)
    assert_probabilities(model.predict_proba(REALS))
    # Relative weights are what matters: scaling them all by 2^-100 changes nothing.
    same = bk.KernelNB(bandwidth="cv").fit(REALS, Y, sample_weight=w * 2.0**-100)
    heavy = w > 1
    np.testing.assert_allclose(
        same.predict_proba(REALS[heavy]), model.predict_proba(REALS[heavy]), rtol=1e-6
    )


@pytest.mark.parametrize("weight", [1e-308, 5e-324])
def test_poisson_nb_with_tiny_weights(weight):
    w = np.full(len(Y), weight)
    if weight < 1e-310:
        # rate = (S + alpha) / w: 0.5 / 1e-322 is beyond float64 with beta = 0.
        with pytest.raises(ParameterError, match="beta > 0"):
            bk.PoissonNB().fit(COUNTS, Y, sample_weight=w)
    else:
        assert_probabilities(bk.PoissonNB().fit(COUNTS, Y, sample_weight=w).predict_proba(COUNTS))
    # A proper prior (beta > 0) has finite rates for any weights.
    model = bk.PoissonNB(beta=1.0).fit(COUNTS, Y, sample_weight=w)
    assert_probabilities(model.predict_proba(COUNTS))


@pytest.mark.parametrize(
    "make",
    [
        bk.MultinomialNB,
        bk.ComplementNB,
        bk.PoissonNB,
        lambda: bk.PoissonNB(given_length=True),
        lambda: bk.GaussianNB(estimate="predictive"),
        *REAL_VALUED,
    ],
)
def test_values_beyond_1e150_are_refused_naming_the_cell(make):
    model = make()
    X = data_for(model).copy()
    X[3, 2] = 1e308
    with pytest.raises(DataError, match=r"1e\+308 at row 3, column 2 \('x2'\).*up to 1e\+150"):
        model.fit(X, Y)
    fitted = make().fit(data_for(model), Y)
    with pytest.raises(DataError, match="row 3, column 2"):
        fitted.predict_proba(X)


def test_values_up_to_1e150_give_finite_probabilities_and_a_model_that_loads(tmp_path):
    X = REALS.copy()
    X[::5, 0] *= 1e149
    for model in (bk.GaussianNB(), bk.MixedNB(), bk.KernelNB(), bk.DiscretizedNB()):
        model.fit(X, Y)
        assert_probabilities(model.predict_proba(X))
        path = tmp_path / "model.bkm"
        bk.save(model, path)
        np.testing.assert_array_equal(bk.load(path).predict_proba(X), model.predict_proba(X))


def test_save_writes_only_models_load_reads(tmp_path):
    # A column holding 1e308 used to fit, save, and then be refused by load (an inf M2).
    X = REALS.copy()
    X[0, 0] = 1e308
    for make in (bk.GaussianNB, bk.MixedNB):
        with pytest.raises(DataError, match="1e\\+308"):
            make().fit(X, Y)
    heavy = bk.GaussianNB().fit(REALS, Y, sample_weight=np.r_[1e308, np.ones(len(Y) - 1)])
    bk.save(heavy, tmp_path / "heavy.bkm")
    np.testing.assert_array_equal(
        bk.load(tmp_path / "heavy.bkm").predict_proba(REALS), heavy.predict_proba(REALS)
    )


def test_complement_nb_norm_with_one_feature_is_uniform_not_nan():
    model = bk.ComplementNB(norm=True).fit(COUNTS[:, :1], Y)
    np.testing.assert_array_equal(model.feature_log_prob_, 0.0)
    np.testing.assert_allclose(model.predict_proba(COUNTS[:, :1]), 1 / 3, rtol=1e-12)


def test_posteriors_of_huge_tied_log_likelihoods():
    # max + log Σ exp(·) rounds log 2 away next to 1e150: each class got probability 1.
    jll = np.array([[-1.0986e150, -1.0986e150], [-4.2e10, -4.2e10 + 1.0]])
    P = np.exp(normalize_log(jll, np.log([0.5, 0.5])))
    np.testing.assert_allclose(P[0], [0.5, 0.5], rtol=1e-15)
    np.testing.assert_allclose(P[1], [1 / (1 + np.e), np.e / (1 + np.e)], rtol=1e-12)


# ---------------------------------------------------------------------------------- refusals
UNLEARN_ALL = [
    lambda: bk.GaussianNB(var_smoothing=0),
    lambda: bk.BinomialNB(n_trials=20),
    bk.KernelNB,
    bk.DiscretizedNB,
    lambda: bk.GaussianNB(shared_variance=True),
    bk.MultinomialNB,
    bk.CategoricalNB,
    bk.MixedNB,
    bk.LinearDiscriminantAnalysis,
    bk.QuadraticDiscriminantAnalysis,
    lambda: bk.RegularizedDiscriminantAnalysis(gamma=0.1),
]


@pytest.mark.parametrize("make", UNLEARN_ALL)
def test_unlearning_every_row_is_refused_and_the_model_kept(make):
    model = make()
    X = data_for(model)
    model.fit(X, Y)
    before = model.predict_proba(X)
    with pytest.raises(MergeError, match="cannot remove every row"):
        model.unlearn(X, Y)
    np.testing.assert_array_equal(model.predict_proba(X), before)
    # Removing one class entirely is fine: the class is gone.
    keep = Y != "a"
    model.unlearn(X[~keep], Y[~keep])
    assert model.classes_.tolist() == ["b", "c"]


def test_text_classifier_unlearning_every_document():
    docs = ["free money now", "hello friend", "win cash", "see you soon"]
    labels = ["spam", "ham", "spam", "ham"]
    model = TextClassifier().fit(docs, labels)
    before = model.predict_proba(docs)
    with pytest.raises(MergeError, match="cannot remove every row"):
        model.unlearn(docs, labels)
    np.testing.assert_array_equal(model.predict_proba(docs), before)


def test_unlearning_that_leaves_an_invalid_model_is_refused():
    X = np.array([[1.0], [1.0], [2.0], [5.0], [6.0]])
    y = np.array(["a", "a", "a", "b", "b"])
    model = bk.GaussianNB(var_smoothing=0).fit(X, y)
    before = model.predict_proba(X)
    # Class "a" would keep the two rows of 1.0: variance 0, which var_smoothing=0 refuses.
    with pytest.raises(MergeError, match="variance 0"):
        model.unlearn(X[2:3], y[2:3])
    np.testing.assert_array_equal(model.predict_proba(X), before)


def test_bernoulli_unlearning_rows_it_never_saw():
    model = bk.BernoulliNB().fit([[1], [1], [1], [0], [0]], list("aaaaa"))
    before = model.predict_proba([[1], [0]])
    with pytest.raises(MergeError, match="present 3 times in the 2 rows"):
        model.unlearn([[0], [0], [0]], list("aaa"))
    np.testing.assert_array_equal(model.predict_proba([[1], [0]]), before)


@pytest.mark.parametrize(
    "make",
    [bk.LinearDiscriminantAnalysis, bk.QuadraticDiscriminantAnalysis, bk.GaussianNB],
)
def test_unlearning_more_rows_of_a_class_than_it_has(make):
    model = make().fit(REALS, Y)
    before = model.predict_proba(REALS)
    extra = REALS[Y == "a"][:1] + 1.0
    with pytest.raises(MergeError, match=r"not trained on: a .* weight of class 'a' would become"):
        model.unlearn(np.concatenate([REALS[Y == "a"], extra]), ["a"] * (1 + np.sum(Y == "a")))
    np.testing.assert_array_equal(model.predict_proba(REALS), before)


def test_discriminant_weights_at_the_limits_of_float64(tmp_path):
    """Means are taken with the weights divided by a power of two (1e308 rows do not
    overflow, 5e-324 rows do not vanish); a scatter float64 cannot resolve is refused at fit
    by the check model files make, so what save writes load reads."""
    w = np.where(np.arange(len(Y)) % 2 == 0, 1e300, 1e-300)
    model = bk.QuadraticDiscriminantAnalysis(reg_param=0.1).fit(REALS, Y, sample_weight=w)
    heavy = w > 1
    expected = bk.QuadraticDiscriminantAnalysis(reg_param=0.1).fit(REALS[heavy], Y[heavy])
    np.testing.assert_allclose(model.means_, expected.means_, rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(REALS), expected.predict_proba(REALS), rtol=1e-9)
    tiny = bk.LinearDiscriminantAnalysis().fit(REALS, Y, sample_weight=np.full(len(Y), 1e-300))
    np.testing.assert_allclose(
        tiny.predict_proba(REALS),
        bk.LinearDiscriminantAnalysis().fit(REALS, Y).predict_proba(REALS),
        rtol=1e-9,
    )
    bk.save(tiny, tmp_path / "tiny.bkm")
    np.testing.assert_array_equal(
        bk.load(tmp_path / "tiny.bkm").predict_proba(REALS), tiny.predict_proba(REALS)
    )
    # Scatter not resolved by float64 (weights of 5e-324 spread over correlated columns).
    X = REALS @ np.array([[1.0, 0.9, 0, 0], [0.9, 1.0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    for weight in (5e-324, 1e-320):
        model = bk.RegularizedDiscriminantAnalysis(gamma=0.5)
        try:
            model.fit(X, Y, sample_weight=np.full(len(Y), weight))
        except DataError as exc:
            message = str(exc)
            assert "beyond what float64 resolves" in message or "singular" in message
            assert "stats_" not in model.__dict__
            continue
        bk.save(model, tmp_path / "m.bkm")
        np.testing.assert_array_equal(
            bk.load(tmp_path / "m.bkm").predict_proba(X), model.predict_proba(X)
        )


def test_emptied_class_with_statistics_left_over_is_refused():
    model = bk.BinomialNB(n_trials=2).fit([[2], [2], [0]], list("aab"))
    with pytest.raises(MergeError, match="class 'a' would have no rows left but 4 left"):
        model.unlearn([[0], [0]], list("aa"))
    assert model.class_count_.tolist() == [2.0, 1.0]


def test_unlearning_keeps_classes_of_tiny_weight():
    # The tolerance for rounding residue is each class's own: removing rows of a class of
    # weight 1e300 leaves a class of weight 1e-300 intact.
    X = np.array([[0.0], [1.0], [5.0], [6.0], [7.0]])
    y = np.array(["a", "a", "b", "b", "b"])
    w = np.array([1e-300, 1e-300, 1e300, 1e300, 1e300])
    model = bk.GaussianNB().fit(X, y, sample_weight=w)
    model.unlearn(X[2:3], y[2:3], sample_weight=w[2:3])
    expected = bk.GaussianNB().fit(np.delete(X, 2, 0), np.delete(y, 2), np.delete(w, 2))
    np.testing.assert_allclose(model.class_count_, expected.class_count_, rtol=1e-12)
    np.testing.assert_allclose(model.theta_, expected.theta_, rtol=1e-12)
    assert_probabilities(model.predict_proba(X))


def test_a_refused_fit_keeps_the_model_fitted_before():
    model = bk.MultinomialNB().fit(COUNTS, Y)
    before = model.predict_proba(COUNTS)
    bad = COUNTS.copy()
    bad[0, 0] = -1
    with pytest.raises(DataError):
        model.fit(bad[:, :2], Y)
    assert model.n_features_in_ == 4
    np.testing.assert_array_equal(model.predict_proba(COUNTS), before)
    with pytest.raises(DataError):
        model.partial_fit(bad, Y)
    np.testing.assert_array_equal(model.predict_proba(COUNTS), before)


# ---------------------------------------------------------------------------------- generator
SCALES = [5e-324, 1e-308, 1e-300, 1e-150, 1e-10, 1.0, 1e10, 1e150, 1e300, 1e308]
MIXED_CASE = Case("MixedNB", bk.MixedNB, reals)
#: families whose values may be scaled freely (binomial counts are 0..k, Bernoulli 0/1,
#: categories are labels).
SCALABLE = (
    "Multinomial",
    "Complement",
    "Gaussian",
    "Kernel",
    "Discretized",
    "Poisson",
    "Mixed",
    "LDA",
    "QDA",
    "RDA",
)


@st.composite
def extreme_problems(draw: st.DrawFn) -> tuple[Case, np.ndarray, np.ndarray, Any]:
    """A problem for one estimator of the grid with numbers near float64's limits: sample
    weights spanning 5e-324..1e308 (one scale or a mix), values scaled likewise, degenerate
    shapes (one row, one class, constant or duplicated rows)."""
    case = draw(st.sampled_from([*CASES, MIXED_CASE]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n, d, k = draw(st.integers(1, 16)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    X = case.data(rng, n, d)
    y = np.array(["a", "b", "c"])[rng.integers(0, k, size=n)]
    shape = draw(st.sampled_from(["plain", "constant", "duplicated"]))
    if shape == "constant":
        X[:] = X[:1]
    elif shape == "duplicated":
        X, y = np.concatenate([X, X]), np.concatenate([y, y])
    scalable = case.name.startswith(SCALABLE) and X.dtype.kind == "f"
    if scalable and draw(st.booleans()):
        cells = rng.random(X.shape) < draw(st.sampled_from([0.1, 0.5, 1.0]))
        factors = np.asarray(draw(st.lists(st.sampled_from(SCALES), min_size=1, max_size=3)))
        with np.errstate(over="ignore", under="ignore"):
            X = np.where(cells, X * rng.choice(factors, size=X.shape), X)
    weights = draw(st.sampled_from(["none", "one", "mix"]))
    w: Any = None
    if weights == "one":
        w = np.full(len(y), draw(st.sampled_from(SCALES)))
    elif weights == "mix":
        w = rng.choice(np.asarray(draw(st.lists(st.sampled_from(SCALES), min_size=2))), len(y))
    return case, X, y, w


def check_contract(case: Case, X: np.ndarray, y: np.ndarray, w: Any, tmp: Path) -> str:
    """Fit is refused with a BayeskitError, or the model predicts finite probabilities that
    sum to 1, saves into a file that loads into the same model, merges with it (or refuses),
    refuses to unlearn everything (and stays as it was), and unlearns half its rows or
    refuses to, staying as it was."""
    model = case.make()
    try:
        model.fit(X, y, sample_weight=w)
    except BayeskitError:
        assert "stats_" not in model.__dict__
        return "refused"
    P = model.predict_proba(X)
    assert_probabilities(P)
    assert not np.isnan(model.predict_log_proba(X)).any()
    path = tmp / "model.bkm"
    bk.save(model, path)
    loaded = bk.load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), P)
    try:  # the data twice: every weight doubled, which may overflow
        twice = bk.merge(model, loaded)
    except BayeskitError:
        np.testing.assert_array_equal(model.predict_proba(X), P)
    else:
        assert_probabilities(twice.predict_proba(X))
    if not contract_of(model).unlearnable:  # declared (a model fitted by EM rounds)
        assert getattr(model, "unlearn", None) is None
        return "fitted"
    with pytest.raises(MergeError):
        model.unlearn(X, y, sample_weight=w)
    np.testing.assert_array_equal(model.predict_proba(X), P)
    half = len(y) // 2
    if half:
        try:
            model.unlearn(X[:half], y[:half], None if w is None else w[:half])
        except BayeskitError:
            np.testing.assert_array_equal(model.predict_proba(X), P)
            return "fitted"
        try:
            left = model.predict_proba(X)
        except SingularCovarianceError:
            # Like partial_fit, unlearning keeps statistics a stream may still complete (the
            # rows left may be fewer than the features); prediction refuses them by name.
            return "fitted"
        assert_probabilities(left)
    return "fitted"


@given(problem=extreme_problems())
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_extreme_numbers_never_give_nan(problem, tmp_path):
    check_contract(*problem, tmp_path)


@pytest.mark.slow
@given(problem=extreme_problems())
@settings(
    max_examples=max(1000, settings.default.max_examples),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_extreme_numbers_never_give_nan_thoroughly(problem, tmp_path):
    check_contract(*problem, tmp_path)


def test_student_t_normaliser_for_many_degrees_of_freedom():
    """ln Γ((ν+1)/2) − ln Γ(ν/2) by a difference of gammaln values gave 16.0 instead of
    17.27 at ν = 2e15, and NaN beyond 1e305 (weights near 1e308, found by the generator)."""
    from bayeskit.families._student_t import student_t_terms

    dof = np.array([1.0, 2e15, 1e308])
    norm, power = student_t_terms(dof, np.ones(3))
    half = dof / 2
    # ½ ln h − 1/(8h) + …, the asymptotic series, is exact to float64 for large h.
    expected = (
        0.5 * np.log(half[1:])
        - 0.125 / half[1:]
        - 0.5 * np.log(np.pi * half[1:])
        - 0.5 * np.log(2.0)
    )
    np.testing.assert_allclose(norm[1:], expected, rtol=1e-13)  # ln h − ln h cancels to 1e-14
    np.testing.assert_allclose(norm[0], -np.log(np.pi), rtol=1e-14)  # Cauchy: 1/π
    assert np.isfinite(power).all()
    model = bk.GaussianNB(estimate="predictive").fit([[0.6], [0.44]], ["b", "b"], [1e308, 5e-324])
    assert_probabilities(model.predict_proba([[0.6], [0.44]]))


@settings(max_examples=30, deadline=None)
@example(exponent=1023, covariance_type="diag", seed=0)  # the swamping check's sums overflowed
@example(exponent=1000, covariance_type="full", seed=0)
@given(
    exponent=st.sampled_from([-1022, -700, -300, -1, 1, 300, 700, 1000, 1023]),
    covariance_type=st.sampled_from(["diag", "spherical", "full", "tied"]),
    seed=st.integers(0, 2**16),
)
def test_mixture_weights_scale_out(exponent, covariance_type, seed):
    # EM within a class is the same for weights c·w as for w: weights from 2.2e-308 (the
    # smallest normal float64; subnormal ones have lost their digits) to 1e301 (every
    # class's total within float64) give the model of weight 1; beyond, the total overflows
    # and the fit is refused by name, as every model refuses it.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 2)) + np.repeat([[0.0, 0.0], [3.0, 1.0]], 20, axis=0)
    y = np.repeat(["a", "b"], 20)

    def make():
        return bk.GaussianMixtureClassifier(
            n_components=2, covariance_type=covariance_type, random_state=0
        )

    base = make().fit(X, y).predict_proba(X)
    w = np.full(len(y), 2.0**exponent)
    if exponent > 1015:
        with pytest.raises(DataError, match="overflow"):
            make().fit(X, y, sample_weight=w)
        return
    np.testing.assert_allclose(make().fit(X, y, sample_weight=w).predict_proba(X), base, atol=1e-9)


@pytest.mark.parametrize(
    ("make", "pseudo"),
    [
        (bk.PoissonNB, {"alpha": 0.5, "beta": 1.0}),
        (bk.PoissonNB, {"alpha": 0.5}),
        (bk.MultinomialNB, {"alpha": 1.0}),
        (bk.ComplementNB, {"alpha": 1.0}),
        (bk.BernoulliNB, {"alpha": 1.0}),
        (bk.CategoricalNB, {"alpha": 1.0}),
    ],
)
@pytest.mark.parametrize("scale", [1e-308, 1e-200, 1e100, 1e300])
def test_smoothed_models_weigh_their_prior_in_rows(make, pseudo, scale):
    # A prior's pseudo-counts are rows' worth of weight: with every weight 1e-308 the prior
    # decides (PoissonNB's rates tend to alpha/beta, as MultinomialNB's probabilities tend
    # to uniform). The law: scaling the weights and the pseudo-counts together changes
    # nothing, at any scale float64 holds.
    X = BINARY if make is bk.BernoulliNB else COUNTS
    base = make(**pseudo).fit(X, Y).predict_proba(X)
    scaled = {k: v * scale for k, v in pseudo.items()}
    model = make(**scaled).fit(X, Y, sample_weight=np.full(len(Y), scale))
    np.testing.assert_allclose(model.predict_proba(X), base, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(
    kernel=st.sampled_from(
        ["gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"]
    ),
    metric=st.sampled_from(
        ["euclidean", "manhattan", "chebyshev", "minkowski", "cosine", "mahalanobis"]
    ),
    bandwidth=st.sampled_from(["scott", "silverman", "loo-likelihood", "cv-accuracy", 0.5]),
    adaptive=st.sampled_from([None, 1, 3]),
    rows=st.integers(2, 30),
    scale=st.sampled_from([1e-100, 1e-8, 1.0, 1e9, 1e100]),
    halves=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_parzen_on_rows_that_coincide(
    kernel, metric, bandwidth, adaptive, rows, scale, halves, seed
):
    # Rows of one point or one direction (all identical, or two points on one ray): no
    # spread to set a width from. Every window is refused by name or predicts probabilities.
    rng = np.random.default_rng(seed)
    X = np.tile(rng.normal(size=3) * scale, (rows, 1))
    if halves:
        X[: rows // 2] *= 2.0
    y = np.arange(rows) % 2
    model = bk.ParzenWindowClassifier(
        kernel=kernel, metric=metric, bandwidth=bandwidth, adaptive=adaptive
    )
    try:
        model.fit(X, y)
    except BayeskitError:
        return
    assert_probabilities(model.predict_proba(X))


def test_bayesian_network_gain_of_huge_weights_is_named():
    """lnΓ of a count past ~2.6e305 exceeds float64: the structure search's gain takes it
    as +inf (as scipy's gammaln does) instead of raising OverflowError from math.lgamma, and
    the fit refuses the weights by name or fits."""
    X = np.array([["green", "blue"], ["red", "blue"], ["green", "cyan"]], dtype=object)
    y = np.array(["a", "b", "a"])
    for make in (bk.TANClassifier, bk.AODEClassifier, bk.KDBClassifier):
        for w in (np.array([1e308, 1e308, 1.0]), np.array([1e306, 1.0, 1.0])):
            try:
                model = make().fit(X, y, sample_weight=w)
            except BayeskitError:
                continue
            assert_probabilities(model.predict_proba(X))


@pytest.mark.parametrize(
    ("name", "X", "y", "w"),
    [
        # one row of weight 5e-324 far out: the mixture's variance floor times the class
        # weight 1e300 overflowed into NaN variances (now refused by name)
        ("GaussianMixture", [[9.48, 5.34e10], [9.48, 5.34]], ["a", "a"], [5e-324, 1e300]),
        # weights 5e-324 and 1e-308: an adaptive width underflowed to 0, and its logarithm
        # warned before the fit was refused
        ("Parzen-adaptive-manhattan", [[6.84, 4.37], [8.14, 5.03]], ["b", "b"], [5e-324, 1e-308]),
        # one row of weight 1e308: its leave-one-out log-likelihood times the weight
        # overflowed to +inf in the stored width search, which the model file then refused
        ("Parzen-loo-epanechnikov", [[-2.6026, 1.7365]], ["a"], [1e308]),
    ],
)
def test_extreme_weights_the_thorough_run_found(name, X, y, w, tmp_path):
    case = next(c for c in CASES if c.name == name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        check_contract(case, np.array(X), np.array(y), np.array(w), tmp_path)


def test_a_held_out_density_of_zero_for_every_class_is_no_warning(tmp_path):
    """A column holding a subnormal beside values near 1: the kernel candidate's held-out
    density of a row was 0 for every class, and log 0 warned (an error under the test
    settings) instead of giving -inf (found by a sweep of the test above)."""
    X = np.array(
        [
            [-3.21302881e010, -9.88131292e-324, 3.27367106e000],
            [-9.88131292e-324, -1.66649137e000, 2.32081602e000],
            [-1.37390685e000, -1.95115088e000, -1.01996003e-001],
        ]
    )
    check_contract(MIXED_CASE, X, np.array(["a", "a", "b"]), None, tmp_path)
