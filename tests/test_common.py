"""The common grid: every estimator goes through the same checks."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import re

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.utils import estimator_checks
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayeskit as bk
from bayeskit.contract import contract_of
from bayeskit.errors import (
    BayeskitError,
    DataError,
    MergeError,
    NotFittedError,
    SingularCovarianceError,
)

from ._grid import (
    CASES,
    CHECKED,
    Case,
    _arrays,
    assert_same_model,
    dataset,
    fit_part,
    law_cases,
    registry,
)

# scikit-learn's check feeds make_blobs data (negative values) to every estimator that has a
# class_weight parameter, ignoring the estimator's own positive_only tag; count models refuse
# negative counts by design.
_NEGATIVE_BLOBS = {
    "check_class_weight_classifiers": "feeds negative values to a count model (positive_only)"
}


# These checks build their own float data (rng.rand, make_blobs) without the estimator's
# tags; the tagged checks feed rounded non-negative codes, which n_trials=20 covers.
_FLOAT_DATA = "feeds fractional or negative values; a binomial model takes whole counts 0..k"
_NOT_COUNTS_OUT_OF_K = {
    "check_class_weight_classifiers": _FLOAT_DATA,
    "check_classifiers_one_label_sample_weights": _FLOAT_DATA,
    "check_sample_weight_equivalence_on_dense_data": _FLOAT_DATA,
    "check_sample_weight_equivalence_on_sparse_data": _FLOAT_DATA,
}


# EM starts from rows drawn at random (k-means++), in the order of the rows: the check's
# weighted table is shuffled and its repeated one is not, so the two fits start from other
# rows and may reach other local optima. Not the model's doing and not forced by a refusal:
# forced by the start alone, which test_expected_failures_are_forced_by_scikit_learn proves by
# passing the same check with the start fixed (means_init). Only the grid's mixtures whose
# random starts do reach other optima on the check's table are listed (the others pass it).
_EM_START_REASON = "EM's random start draws other rows from shuffled weighted rows"
_EM_START = {
    "check_sample_weight_equivalence_on_dense_data": _EM_START_REASON,
    "check_sample_weight_equivalence_on_sparse_data": _EM_START_REASON,
}


def _em_start_checks(estimator):
    """The checks whose random start leads a grid mixture to another optimum."""
    params = estimator.get_params()
    if params["covariance_type"] == "spherical":
        return _EM_START
    # full, 2 components: with each variance floored at the resolution of the check's values
    # (rng.rand on 15 rows: steps of ~0.004) its starts reach other optima too
    if params["covariance_type"] == "full" and params["n_components"] == 2:
        return _EM_START
    return {}


# These checks fit tiny tables whose columns are constant within a class (or that have fewer
# rows than features): without regularisation every covariance is singular, and discriminant
# analysis refuses the fit by name instead of predicting wrongly.
_SINGULAR = "a column constant within a class: singular covariance, refused by name"
_SINGULAR_DATA = {
    "check_sample_weights_shape": _SINGULAR,
    "check_sample_weights_not_overwritten": _SINGULAR,
    "check_sample_weight_equivalence_on_dense_data": _SINGULAR,
    "check_sample_weight_equivalence_on_sparse_data": _SINGULAR,
}


def _singular_checks(estimator):
    """The checks whose data leaves a discriminant model with a singular covariance."""
    params = estimator.get_params()
    if isinstance(estimator, bk.RegularizedDiscriminantAnalysis):
        return _SINGULAR_DATA if params["gamma"] == 0 else {}
    if not isinstance(estimator, (bk.LinearDiscriminantAnalysis, bk.QuadraticDiscriminantAnalysis)):
        return {}
    if params.get("reg_param", 0) > 0 or isinstance(params["shrinkage"], float):
        return {}
    if isinstance(estimator, bk.LinearDiscriminantAnalysis) and params["solver"] == "svd":
        return {}  # the default solver works in the span of the data, as scikit-learn's
    if params["shrinkage"] is None:
        return _SINGULAR_DATA
    # Ledoit-Wolf gives no shrinkage to 2 distinct rows per class (check_sample_weights_shape)
    return {"check_sample_weights_shape": _SINGULAR}


def _expected_failures(estimator):
    if isinstance(estimator, bk.GaussianMixtureClassifier):
        return _em_start_checks(estimator)
    if _singular_checks(estimator):
        return _singular_checks(estimator)
    if isinstance(estimator, bk.BinomialNB):
        return _NOT_COUNTS_OUT_OF_K
    if isinstance(estimator, (bk.MultinomialNB, bk.PoissonNB)):
        return _NEGATIVE_BLOBS
    return {}


@parametrize_with_checks(CHECKED, expected_failed_checks=_expected_failures)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize(
    ("estimator", "check_name"),
    [(e, name) for e in CHECKED for name in _expected_failures(e)],
    ids=lambda v: v if isinstance(v, str) else type(v).__name__,
)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_expected_failures_are_forced_by_scikit_learn(estimator, check_name):
    """Every expected failure above is scikit-learn's doing: its check builds data that no
    count model may accept (make_blobs' negative values, rng.rand's fractions), ignoring the
    estimator's positive_only tag, or tables whose covariances are singular. Running the check
    must raise exactly the model's refusal of such data, nothing else; if scikit-learn starts
    honouring the tags, the check passes and this test fails, telling us to drop the xfail.
    EM's random start (_EM_START) is the one failure that is not a refusal: the check must fail
    on its equivalence assertion and pass with the start fixed."""
    check = getattr(estimator_checks, check_name)
    if _expected_failures(estimator)[check_name] == _EM_START_REASON:
        with pytest.raises(AssertionError, match="sample_weight` is not equivalent"):
            check(type(estimator).__name__, clone(estimator))
        # The same EM from fixed means (the check's 30 columns, classes 0, 1, 2): the
        # weighted and the repeated fits agree, so the random start alone made them differ.
        rng = np.random.default_rng(0)
        k = estimator.get_params()["n_components"]
        means = {c: rng.random((k, 30)) for c in (1, 2)}  # class 0 has a single distinct row
        check(type(estimator).__name__, clone(estimator).set_params(means_init=means))
        return
    with pytest.raises(Exception) as info:  # noqa: PT011 - the cause is checked below
        check(type(estimator).__name__, clone(estimator))
    # Some checks wrap the model's error in an AssertionError of their own: look down the
    # chain of causes for the refusal.
    error: BaseException | None = info.value
    while error is not None and not isinstance(error, DataError):
        error = error.__cause__ or error.__context__
    assert error is not None, info.value
    if _expected_failures(estimator)[check_name] == _SINGULAR:
        assert isinstance(error, SingularCovarianceError), error
    else:
        assert re.search("Negative values in data|whole-number counts", str(error)), error


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_api_and_probabilities(case: Case):
    X, y = dataset(case, seed=1)
    model = case.make()
    assert model.fit(X, y) is model
    proba = model.predict_proba(X)
    assert proba.shape == (len(y), len(model.classes_))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert np.all(np.isfinite(model.predict_log_proba(X)))
    np.testing.assert_allclose(np.exp(model.predict_log_proba(X)), proba, rtol=1e-12)
    pred = model.predict(X)
    np.testing.assert_array_equal(pred, model.classes_[np.argmax(proba, axis=1)])
    assert 0.0 <= model.score(X, y) <= 1.0


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_inputs_not_mutated(case: Case):
    X, y = dataset(case, seed=2)
    X0, y0 = copy.deepcopy(X), y.copy()
    model = case.make().fit(X, y)
    if contract_of(model).incremental:
        model.partial_fit(X, y)
    model.predict_proba(X)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_predict_before_fit(case: Case):
    X, _ = dataset(case, seed=3)
    with pytest.raises(NotFittedError, match="not fitted"):
        case.make().predict(X)
    with pytest.raises(NotFittedError):
        case.make().predict_proba(X)


@pytest.mark.parametrize("case", law_cases(statistics=True))
def test_weight_equals_repetition(case: Case):
    X, y = dataset(case, seed=4, n=30)
    weights = np.random.default_rng(0).integers(0, 4, size=len(y))
    weights[:3] = 1  # every class keeps a row
    weighted = case.make().fit(X, y, sample_weight=weights)
    repeated = case.make().fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    assert_same_model(weighted, repeated, X)


split_points = st.lists(st.integers(min_value=1, max_value=59), max_size=4, unique=True)


@pytest.mark.parametrize("case", law_cases("incremental", statistics=True))
@given(seed=st.integers(0, 10_000), cuts=split_points)
def test_fit_equals_partial_fits(case: Case, seed: int, cuts: list[int]):
    X, y = dataset(case, seed=seed)
    whole = case.make().fit(X, y)
    streamed = case.make()
    bounds = [0, *sorted(cuts), len(y)]
    for lo, hi in itertools.pairwise(bounds):
        streamed.partial_fit(X[lo:hi], y[lo:hi])
    assert_same_model(whole, streamed, X)


@pytest.mark.parametrize("case", law_cases("mergeable", statistics=True))
@given(seed=st.integers(0, 10_000), cut_a=st.integers(1, 58), cut_b=st.integers(1, 58))
def test_merge_laws(case: Case, seed: int, cut_a: int, cut_b: int):
    X, y = dataset(case, seed=seed)
    lo, hi = min(cut_a, cut_b), max(cut_a, cut_b) + 1
    parts = [(X[:lo], y[:lo]), (X[lo:hi], y[lo:hi]), (X[hi:], y[hi:])]
    a, b, c = (fit_part(case, Xp, yp) for Xp, yp in parts)
    whole = case.make().fit(X, y)
    assert_same_model(a + b + c, whole, X)  # merge = fit on the union
    assert_same_model(a + b, b + a, X)  # commutative
    assert_same_model((a + b) + c, a + (b + c), X)  # associative
    assert_same_model(bk.merge(a, b, c), whole, X)
    assert_same_model(sum([a, b, c]), whole, X)


@pytest.mark.parametrize("case", law_cases("mergeable", statistics=True))
def test_summaries_add_like_data(case: Case):
    X, y = dataset(case, seed=5)
    model = case.make()
    total = sum(model.summarize(X[i : i + 15], y[i : i + 15]) for i in range(0, len(y), 15))
    if case.name == "MixedNB":
        # MixedNB's first summarize chooses its column layout (as fit does); a summary holds
        # no layout, so the model that summarized fits it and a fresh one refuses by name.
        with pytest.raises(DataError, match="no column layout yet; call fit"):
            case.make().fit_summary(total)
        assert_same_model(model.fit_summary(total), case.make().fit(X, y), X)
        return
    assert_same_model(case.make().fit_summary(total), case.make().fit(X, y), X)


def test_new_classes_in_later_batches():
    X = np.array([[1, 0], [0, 1], [2, 0], [0, 3], [1, 1], [4, 0]], dtype=float)
    y = np.array(["a", "a", "b", "b", "c", "c"])
    model = bk.MultinomialNB()
    model.partial_fit(X[:2], y[:2])
    assert model.classes_.tolist() == ["a"]
    model.partial_fit(X[2:4], y[2:4])
    model.partial_fit(X[4:], y[4:])
    assert model.classes_.tolist() == ["a", "b", "c"]
    np.testing.assert_allclose(model.class_count_, [2, 2, 2])
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [1 / 3] * 3)
    assert_same_model(model, bk.MultinomialNB().fit(X, y), X)


def test_declared_classes_start_empty():
    model = bk.MultinomialNB().partial_fit([[1, 2]], ["x"], classes=["x", "y", "z"])
    assert model.classes_.tolist() == ["x", "y", "z"]
    np.testing.assert_allclose(model.class_count_, [1, 0, 0])
    assert np.all(np.isfinite(model.predict_log_proba([[1, 1]])[:, 0]))


def test_merge_refuses_different_models():
    X, y = np.array([[1, 0], [0, 1]]), np.array([0, 1])
    with pytest.raises(MergeError, match="different settings: alpha"):
        bk.MultinomialNB(alpha=1).fit(X, y) + bk.MultinomialNB(alpha=2).fit(X, y)
    with pytest.raises(MergeError, match="MultinomialNB with a BernoulliNB"):
        bk.merge(bk.MultinomialNB().fit(X, y), bk.BernoulliNB().fit(X, y))
    with pytest.raises(MergeError, match="features"):
        bk.MultinomialNB().fit(X, y) + bk.MultinomialNB().fit(np.ones((2, 3)), y)
    with pytest.raises(NotFittedError):
        bk.MultinomialNB().fit(X, y) + bk.MultinomialNB()


def test_a_model_merged_with_itself_is_refused():
    # The union of a model's rows with themselves is the model itself; adding its statistics
    # twice doubled every count.
    X, y = np.array([[1, 0], [0, 1], [2, 2]]), np.array([0, 1, 1])
    a, b = bk.MultinomialNB().fit(X, y), bk.MultinomialNB().fit(X[:2], y[:2])
    for merged in (lambda: a + a, lambda: bk.merge(a, a), lambda: bk.merge(a, b, a)):
        with pytest.raises(MergeError, match=r"with itself: the union .* sample_weight"):
            merged()
    assert a.class_count_.tolist() == [1.0, 2.0]
    assert (a + copy.deepcopy(a)).class_count_.tolist() == [2.0, 4.0]  # (another object)


def test_merge_refusal_names_the_column_whose_name_differs():
    pd = pytest.importorskip("pandas")
    X, y = np.array([[1, 0, 2], [0, 1, 1]]), np.array([0, 1])
    a = bk.MultinomialNB().fit(pd.DataFrame(X, columns=["x", "y", "z"]), y)
    b = bk.MultinomialNB().fit(pd.DataFrame(X, columns=["x", "w", "z"]), y)
    with pytest.raises(MergeError, match=r"column 1 is 'y' in the first and 'w' in the second"):
        a + b
    with pytest.raises(MergeError, match=r"the first was fitted on named columns"):
        a + bk.MultinomialNB().fit(X, y)
    with pytest.raises(MergeError, match=r"the second was fitted on named columns"):
        bk.MultinomialNB().fit(X, y) + a


def test_merge_leaves_inputs_alone():
    X, y = np.array([[1, 0], [0, 1]]), np.array([0, 1])
    a, b = bk.MultinomialNB().fit(X, y), bk.MultinomialNB().fit(X[:1], y[:1])
    before = a.class_count_.copy()
    merged = a + b
    np.testing.assert_array_equal(a.class_count_, before)
    assert merged is not a
    assert merged.class_count_.tolist() == [2.0, 1.0]


@pytest.mark.parametrize("estimator", CHECKED, ids=repr)
def test_clone_keeps_parameters(estimator):
    model = clone(estimator).set_params(class_weight="balanced", loss=[[0, 1], [3, 0]])
    assert clone(model).get_params() == model.get_params()


def test_errors_are_builtin_exceptions_too():
    assert issubclass(BayeskitError, Exception)
    with pytest.raises(ValueError, match="alpha"):
        bk.MultinomialNB(alpha=-1).fit([[1]], [0])


@pytest.mark.parametrize("case", law_cases(statistics=True))
def test_set_params_after_fit_resmooths_without_refit(case: Case):
    X, y = dataset(case, seed=6)
    model = case.make().fit(X, y)
    if case.resmooth is not None:
        model.set_params(**case.resmooth)
    else:
        model.set_params(alpha=0.37 if case.make().get_params()["estimate"] != "map" else 3.0)
    refit = clone(model).fit(X, y)
    assert_same_model(model, refit, X)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_save_load_round_trip(case: Case, tmp_path):
    X, y = dataset(case, seed=7)
    model = case.make().fit(X, y)
    bk.save(model, tmp_path / "model.bkm")
    loaded = bk.load(tmp_path / "model.bkm")
    assert type(loaded) is type(model)
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    declared = contract_of(model)
    if declared.state == "generative":
        assert_same_model(loaded, model, X)
    if declared.incremental:  # the loaded model goes on learning as the saved one would
        assert_same_model(loaded.partial_fit(X, y), model.partial_fit(X, y), X)


@pytest.mark.parametrize("case", law_cases("unlearnable", statistics=True))
@given(seed=st.integers(0, 10_000), cut=st.integers(5, 55))
@example(seed=5513, cut=5)
def test_unlearn_is_the_inverse_of_learning(case: Case, seed: int, cut: int):
    X, y = dataset(case, seed=seed)
    kept, removed = (X[:cut], y[:cut]), (X[cut:], y[cut:])
    model = case.make().fit(X, y)
    combined = max(
        float(np.max(np.abs(np.asarray(v, dtype=np.float64)), initial=0.0))
        for block in model.stats_.blocks
        for v in _arrays(block)[0].values()
    )
    try:
        model.unlearn(*removed)
    except SingularCovarianceError:
        # Too few rows left for a covariance (discriminant analysis): the kept rows' own
        # model is refused alike, and the refusal is no disagreement.
        with pytest.raises(SingularCovarianceError):
            fit_part(case, *kept)._check_usable()
        return
    # A covariance from few rows per column is ill-conditioned: statistics equal to 1e-12 then
    # give scores that differ by the condition number times that. With barely more rows than
    # columns only the statistics (the law itself) are compared; otherwise scores to 1e-6.
    score_rtol: float | None = 1e-9
    if model._min_classes > 1:
        score_rtol = None if cut < 4 * X.shape[1] else 1e-6
    assert_same_model(
        model, fit_part(case, *kept), kept[0], score_rtol=score_rtol, combined=combined
    )


@pytest.mark.parametrize("case", law_cases("merges_classes", statistics=True))
def test_models_of_different_classes_merge(case: Case):
    """Models fitted on different classes add up to the model of all of them: declared by
    every estimator here, the Gaussian mixture included (its EM runs within each class)."""
    X, y = dataset(case, seed=8)
    if case.make().get_params().get("var_floor") == "resolution":
        # The mixture's resolution floor is taken from the rows of every class it is fitted
        # on, and a merged model keeps each part's floor (test_classes_fitted_apart_keep_
        # their_floors): the law is the one of the statistics without that floor.
        unfloored = case.make
        case = dataclasses.replace(case, make=lambda: unfloored().set_params(var_floor=None))
    parts = [fit_part(case, X[y == c], y[y == c]) for c in np.unique(y)]
    assert_same_model(bk.merge(*parts), case.make().fit(X, y), X)


def test_every_registered_estimator_is_in_the_grid():
    """A new estimator joins the grid, where each law is checked or skipped by its own
    declaration (a test fails until it does)."""
    in_grid = {type(case.make()) for case in CASES}
    missing = sorted(name for name, cls in registry().items() if cls not in in_grid)
    assert not missing, f"add a Case to tests/_grid.py for {missing}"


def test_every_skipped_law_is_one_a_declaration_disclaims():
    """A law is skipped only for a case whose estimator's declaration says it does not hold,
    and the skip quotes it (the reasons are built from the declaration, checked here)."""
    for capability in ("incremental", "mergeable", "unlearnable", "merges_classes"):
        for param in law_cases(capability):
            declared = contract_of(param.values[0].make())
            skipped = [m.kwargs["reason"] for m in param.marks]
            assert bool(skipped) == (not getattr(declared, capability))
            assert all(f"declares {capability}=False" in r for r in skipped)


def test_unlearn_refuses_data_never_learned():
    X = np.array([[1, 0], [0, 2]], dtype=float)
    model = bk.MultinomialNB().fit(X, ["a", "b"])
    with pytest.raises(MergeError, match=r"classes the model never saw: \['c'\]"):
        model.unlearn(X[:1], ["c"])
    with pytest.raises(MergeError, match="was not trained on"):
        model.unlearn(np.array([[5, 0]]), ["a"])
    model.unlearn(X[:1], ["a"])
    assert model.classes_.tolist() == ["b"]  # a class left without data disappears
