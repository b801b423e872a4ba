"""The behaviours scikit-learn 1.9's own sklearn/tests/test_naive_bayes.py checks, run with
bayeskit's classes where bayeskit claims scikit-learn's numbers (issue 10 §4): each test puts
the same data through both libraries and compares, rather than copying scikit-learn's expected
numbers. Where bayeskit differs on purpose it is said, and the difference is tested."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn import naive_bayes as sk
from sklearn.datasets import load_digits, load_iris
from sklearn.model_selection import cross_val_score, train_test_split

import bayeskit as bk
from bayeskit.errors import DataError, ParameterError

X6 = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1]])
Y6 = np.array([1, 1, 1, 2, 2, 2])
DISCRETE = ["BernoulliNB", "CategoricalNB", "ComplementNB", "MultinomialNB"]
ALL = [*DISCRETE, "GaussianNB"]


def pair(name: str, **params):
    return getattr(bk, name)(**params), getattr(sk, name)(**params)


def integer_three_classes(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(seed)
    return rng.randint(5, size=(6, 100)), np.array([1, 1, 2, 2, 3, 3])


def assert_same_numbers(ours, theirs, X, rtol=1e-10):
    np.testing.assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=rtol)
    np.testing.assert_allclose(
        ours.predict_proba(X), theirs.predict_proba(X), rtol=rtol, atol=1e-14
    )
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


# ---------------------------------------------------------------------------------- GaussianNB
def test_gnb_toy_data_and_log_proba():
    ours, theirs = pair("GaussianNB")
    ours.fit(X6, Y6), theirs.fit(X6, Y6)
    assert_same_numbers(ours, theirs, X6)
    np.testing.assert_allclose(ours.class_prior_, [0.5, 0.5])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gnb_sample_weight(seed):
    rng = np.random.RandomState(seed)
    sw = rng.rand(6)
    ours, theirs = pair("GaussianNB")
    ours.fit(X6, Y6, sample_weight=sw), theirs.fit(X6, Y6, sample_weight=sw)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    # On purpose, the variance floor differs: scikit-learn takes var_smoothing times the
    # largest *unweighted* variance of X, bayeskit the weighted one (a weight of 2 is then
    # two rows, for the floor too). The variances themselves agree.
    np.testing.assert_allclose(
        ours.var_ - ours.epsilon_, theirs.var_ - theirs.epsilon_, rtol=1e-9, atol=1e-15
    )
    halves = bk.GaussianNB().partial_fit(X6, Y6, sample_weight=sw / 2)
    halves.partial_fit(X6, Y6, sample_weight=sw / 2)
    np.testing.assert_allclose(halves.theta_, ours.theta_, rtol=1e-12)
    np.testing.assert_allclose(halves.var_, ours.var_, rtol=1e-12)
    # Duplicated rows and the matching integer weights give the same model.
    ind = rng.randint(0, 6, 20)
    weights = np.bincount(ind, minlength=6)
    dup = bk.GaussianNB().fit(X6[ind], Y6[ind])
    np.testing.assert_allclose(dup.var_, bk.GaussianNB().fit(X6, Y6, weights).var_, rtol=1e-12)
    # gh-24140: a single class left by the weights.
    bk.GaussianNB().fit(X6, Y6, sample_weight=(Y6 == 1).astype(float))


@pytest.mark.parametrize(
    ("priors", "words"),
    [
        ([-1.0, 2.0], "probabilities >= 0"),
        ([0.25, 0.25, 0.25, 0.25], "4 values but the model has 2 classes"),
        ([2.0, 1.0], "must sum to 1"),
    ],
)
def test_gnb_bad_priors(priors, words):
    with pytest.raises(ParameterError, match=words):
        bk.GaussianNB(priors=np.array(priors)).fit(X6, Y6)


def test_gnb_priors():
    ours, theirs = pair("GaussianNB", priors=np.array([0.3, 0.7]))
    ours.fit(X6, Y6), theirs.fit(X6, Y6)
    assert_same_numbers(ours, theirs, [[-0.1, -0.1]])
    np.testing.assert_allclose(ours.class_prior_, [0.3, 0.7])
    assert bk.GaussianNB(priors=[0.01, 0.99]).fit(X6, Y6).predict([[-0.1, -0.1]]) == 2
    X = np.array([[-1, -1], [-2, -1], [-3, -2], [-4, -5], [-5, -4], [1, 1], [2, 1], [3, 2],
                  [4, 4], [5, 5]])  # fmt: skip
    priors = np.array([0.08, 0.14, 0.03, 0.16, 0.11, 0.16, 0.07, 0.14, 0.11, 0.0])
    bk.GaussianNB(priors=priors).fit(X, np.arange(1, 11))  # issue #9633: sums to 1 in rounding


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gnb_partial_fit_keeps_the_dtype(dtype):
    X = X6.astype(dtype)
    whole = bk.GaussianNB().fit(X, Y6)
    batches = bk.GaussianNB().partial_fit(X[0::2], Y6[0::2], np.unique(Y6))
    batches.partial_fit(X[1::2], Y6[1::2])
    theirs = sk.GaussianNB().fit(X, Y6)
    for attr in ("class_prior_", "theta_", "var_"):
        assert getattr(whole, attr).dtype == getattr(batches, attr).dtype == dtype
        assert getattr(theirs, attr).dtype == dtype
        np.testing.assert_allclose(getattr(whole, attr), getattr(batches, attr), rtol=1e-6)
        np.testing.assert_allclose(getattr(whole, attr), getattr(theirs, attr), rtol=1e-6)


def test_gnb_float32_survives_save_and_merge(tmp_path):
    X = X6.astype(np.float32)
    model = bk.GaussianNB().fit(X, Y6)
    bk.save(model, tmp_path / "m.bkm")
    assert bk.load(tmp_path / "m.bkm").theta_.dtype == np.float32
    assert bk.merge(model, bk.GaussianNB().fit(X, Y6)).var_.dtype == np.float32
    # Probabilities are computed in float64 from float64 statistics (more accurate than
    # scikit-learn's float32 arithmetic); they agree to float32 precision.
    np.testing.assert_allclose(
        model.predict_proba(X), sk.GaussianNB().fit(X, Y6).predict_proba(X), rtol=1e-5
    )


def test_gnb_scale_invariance():
    X, y = load_iris(return_X_y=True)
    labels = [bk.GaussianNB().fit(f * X, y).predict(f * X) for f in [1e-10, 1, 1e10]]
    np.testing.assert_array_equal(labels[0], labels[1])
    np.testing.assert_array_equal(labels[1], labels[2])


# ---------------------------------------------------------------------------------- discrete
@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("seed", [0, 1])
def test_discrete_prior(name, seed):
    X, y = integer_three_classes(seed)
    np.testing.assert_allclose(getattr(bk, name)().fit(X, y).class_log_prior_, np.log([1 / 3] * 3))


@pytest.mark.parametrize("name", DISCRETE)
def test_discrete_partial_fit(name):
    X, y = [[0, 1], [1, 0], [1, 1]], [0, 1, 1]
    whole = getattr(bk, name)().fit(X, y)
    once = getattr(bk, name)().partial_fit(X, y, classes=[0, 1])
    rows = getattr(bk, name)().partial_fit([[0, 1]], [0], classes=[0, 1])
    rows.partial_fit([[1, 0]], [1]).partial_fit([[1, 1]], [1])
    theirs = getattr(sk, name)().fit(X, y)
    for model in (once, rows):
        np.testing.assert_array_equal(model.class_count_, whole.class_count_)
    counts = "category_count_" if name == "CategoricalNB" else "feature_count_"
    for model in (whole, once, rows):  # categories are sorted values: batches agree exactly
        np.testing.assert_array_equal(
            np.asarray(getattr(model, counts)), np.asarray(getattr(theirs, counts))
        )


def test_discrete_predict_proba_shapes():
    X_bernoulli = [[1, 100, 0], [0, 1, 0], [0, 100, 1]]
    X_multinomial = [[0, 1], [1, 3], [4, 0]]
    for name, X in (("BernoulliNB", X_bernoulli), ("MultinomialNB", X_multinomial)):
        for y in ([0, 0, 2], [0, 1, 2]):
            ours, theirs = pair(name)
            ours.fit(X, y), theirs.fit(X, y)
            assert ours.predict(X[-1:]) == theirs.predict(X[-1:])
            assert ours.predict_proba([X[0]]).shape == (1, len(set(y)))
            assert_same_numbers(ours, theirs, X)


@pytest.mark.parametrize("name", DISCRETE)
def test_discrete_uniform_and_given_priors(name):
    X, y = [[0], [0], [1]], [0, 0, 1]
    uniform = getattr(bk, name)(fit_prior=False).fit(X, y)
    np.testing.assert_allclose(np.exp(uniform.class_log_prior_), [0.5, 0.5])
    given = getattr(bk, name)(class_prior=[0.5, 0.5]).fit(X, y)
    np.testing.assert_allclose(np.exp(given.class_log_prior_), [0.5, 0.5])
    with pytest.raises(ParameterError, match="class_prior has 2 values but the model has 3"):
        getattr(bk, name)(class_prior=[0.5, 0.5]).fit([[0], [1], [2]], [0, 1, 2])


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("prior", [None, [0.3, 0.3, 0.4]])
def test_discrete_prior_with_partial_fit(name, prior):
    X, y = load_iris(return_X_y=True)
    X1, X2, y1, y2 = train_test_split(X, y, test_size=0.4, random_state=415)
    full = getattr(bk, name)(class_prior=prior).fit(X, y)
    partial = getattr(bk, name)(class_prior=prior).partial_fit(X1, y1, classes=[0, 1, 2])
    partial.partial_fit(X2, y2)
    np.testing.assert_allclose(full.class_log_prior_, partial.class_log_prior_, rtol=1e-12)


@pytest.mark.parametrize("name", DISCRETE)
def test_discrete_sample_weight_multiclass(name):
    X = [[0, 0, 1], [0, 1, 1], [0, 1, 1], [1, 0, 0]]
    y = [0, 0, 1, 2]
    sw = np.array([1, 1, 2, 2], dtype=np.float64) / 6
    ours, theirs = pair(name)
    ours.fit(X, y, sample_weight=sw), theirs.fit(X, y, sample_weight=sw)
    assert_same_numbers(ours, theirs, X)
    batches = getattr(bk, name)()
    batches.partial_fit(X[:2], y[:2], classes=[0, 1, 2], sample_weight=sw[:2])
    batches.partial_fit(X[2:3], y[2:3], sample_weight=sw[2:3])
    batches.partial_fit(X[3:], y[3:], sample_weight=sw[3:])
    np.testing.assert_array_equal(batches.predict(X), [0, 1, 1, 2])


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("partial", [False, True])
@pytest.mark.parametrize("one_class", [False, True])
def test_discrete_degenerate_one_class(name, partial, one_class):
    X, y = [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [1, 1, 2]
    if one_class:
        X, y = X[:-1], y[:-1]
    model = getattr(bk, name)()
    model.partial_fit(X, y, classes=sorted(set(y))) if partial else model.fit(X, y)
    assert model.predict(X[:1]) == y[0]
    k = len(set(y))
    for attr in ("classes_", "class_count_", "class_log_prior_", "feature_count_"):
        if hasattr(model, attr):
            assert getattr(model, attr).shape[0] == k
    if name == "CategoricalNB":  # one array per feature
        assert all(part.shape[0] == k for part in model.feature_log_prob_)
    else:
        assert model.feature_log_prob_.shape[0] == k


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_multinomial_on_random_integers(sparse, seed):
    X, y = integer_three_classes(seed)
    X = sp.csr_matrix(X) if sparse else X
    with pytest.raises(DataError, match="Negative values in data passed to"):
        bk.MultinomialNB().fit(-X, y)
    ours, theirs = pair("MultinomialNB")
    ours.fit(X, y), theirs.fit(X, y)
    assert_same_numbers(ours, theirs, X)
    batches = bk.MultinomialNB().partial_fit(X[:2], y[:2], classes=np.unique(y))
    batches.partial_fit(X[2:5], y[2:5]).partial_fit(X[5:], y[5:])
    np.testing.assert_allclose(batches.predict_proba(X), ours.predict_proba(X), rtol=1e-12)


def test_multinomial_prior_of_unobserved_targets():
    model = bk.MultinomialNB().partial_fit([[0, 1], [1, 0]], [0, 1], classes=[0, 1, 2])
    assert model.predict([[0, 1]]) == 0
    assert model.predict([[1, 0]]) == 1
    assert model.predict([[1, 1]]) == 0
    model.partial_fit([[1, 1]], [2])
    assert model.predict([[1, 1]]) == 2


def test_bernoulli_and_complement_on_manning_raghavan_schuetze():
    X = np.array([[1, 1, 0, 0, 0, 0], [0, 1, 0, 0, 1, 0], [0, 1, 0, 1, 0, 0], [0, 1, 1, 0, 0, 1]])
    Y = np.array([0, 0, 0, 1])
    test = np.array([[0, 1, 1, 0, 0, 1]])
    for name, params in (
        ("BernoulliNB", {}),
        ("ComplementNB", {}),
        ("ComplementNB", {"norm": True}),
    ):
        ours, theirs = pair(name, alpha=1.0, **params)
        ours.fit(X, Y), theirs.fit(X, Y)
        np.testing.assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=1e-12)
        np.testing.assert_array_equal(ours.feature_count_, theirs.feature_count_)
        np.testing.assert_array_equal(ours.class_count_, theirs.class_count_)
        assert_same_numbers(ours, theirs, np.vstack([X, test]))


def test_bernoulli_feature_log_prob_formula():
    X = np.array([[0, 0, 0], [1, 1, 0], [0, 1, 0], [1, 0, 1], [0, 1, 0]])
    Y = np.array([0, 0, 1, 2, 2])
    model = bk.BernoulliNB(alpha=1.0).fit(X, Y)
    expected = np.log(model.feature_count_ + 1.0) - np.log(model.class_count_ + 2.0)[:, None]
    np.testing.assert_allclose(model.feature_log_prob_, expected, rtol=1e-12)


# ---------------------------------------------------------------------------------- categorical
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_categorical_on_random_codes(seed):
    X, y = integer_three_classes(seed)
    ours, theirs = pair("CategoricalNB")
    ours.fit(X, y), theirs.fit(X, y)
    assert_same_numbers(ours, theirs, X)
    np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)


def test_categorical_counts_codes_up_to_the_largest():
    X3, y3 = np.array([[1, 4], [2, 5]]), np.array([1, 2])
    ours, theirs = pair("CategoricalNB", alpha=1, fit_prior=False)
    ours.fit(X3, y3), theirs.fit(X3, y3)
    np.testing.assert_array_equal(ours.n_categories_, [3, 6])  # codes 0..2 and 0..5
    assert_same_numbers(ours, theirs, np.array([[2, 5], [0, 0], [1, 3]]))
    for a, b in zip(ours.category_count_, theirs.category_count_, strict=True):
        np.testing.assert_array_equal(a, b)
    # On purpose: bayeskit takes values as they are, so -1 is a category here (a code
    # beyond those seen is an unseen value), where scikit-learn refuses negative codes.
    assert bk.CategoricalNB().fit([[0, -1], [1, 2]], [1, 2]).categories_[1].tolist() == [-1, 2]


@pytest.mark.parametrize("factor", [1.0, 0.3, 5, 0.0001])
def test_categorical_sample_weight(factor):
    X = np.array([[0, 0], [0, 1], [0, 0], [1, 1]])
    y = np.array([1, 1, 2, 2])
    sw = np.array([1, 1, 10, 0.1]) * factor
    ours, theirs = pair("CategoricalNB", alpha=1, fit_prior=False)
    ours.fit(X, y, sample_weight=sw), theirs.fit(X, y, sample_weight=sw)
    assert_same_numbers(ours, theirs, X)
    np.testing.assert_array_equal(ours.n_categories_, [2, 2])


@pytest.mark.parametrize(
    ("min_categories", "X1_count", "X2_count", "new_X", "n_categories"),
    [
        (3, [[2, 0, 0], [1, 1, 0]], [[1, 1, 0], [1, 1, 0]], [[0, 2]], [3, 3]),
        ([3, 4], [[2, 0, 0], [1, 1, 0]], [[1, 1, 0, 0], [1, 1, 0, 0]], [[0, 3]], [3, 4]),
        ([1, 1], [[2, 0], [1, 1]], [[1, 1], [1, 1]], [[0, 1]], [2, 2]),
    ],
)
def test_categorical_min_categories_pads_counts_and_probabilities(
    min_categories, X1_count, X2_count, new_X, n_categories
):
    X = np.array([[0, 0], [0, 1], [0, 0], [1, 1]])
    y = np.array([1, 1, 2, 2])
    ours, theirs = pair("CategoricalNB", alpha=1, fit_prior=False, min_categories=min_categories)
    ours.fit(X, y), theirs.fit(X, y)
    np.testing.assert_array_equal(ours.category_count_[0], X1_count)
    np.testing.assert_array_equal(ours.category_count_[1], X2_count)
    np.testing.assert_array_equal(ours.n_categories_, n_categories)
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert_same_numbers(ours, theirs, np.array(new_X))


def test_categorical_min_categories_of_the_wrong_shape():
    X, y = np.array([[0, 0], [0, 1], [0, 0], [1, 1]]), np.array([1, 1, 2, 2])
    with pytest.raises(ParameterError, match="'min_categories' should have shape"):
        bk.CategoricalNB(min_categories=[[3, 2], [2, 4]]).fit(X, y)


def test_categorical_codes_of_digits_with_absent_codes():
    """The issue's case: digits // 4 has codes absent from some training features, where
    counting distinct values gave probabilities 6.9e-5 away from scikit-learn's."""
    X, y = load_digits(return_X_y=True)
    X = X // 4
    train, test = X[:1000], np.minimum(X[1000:], X[:1000].max(axis=0))
    for params in ({}, {"alpha": 0.3}, {"min_categories": 6}):
        ours, theirs = pair("CategoricalNB", **params)
        ours.fit(train, y[:1000]), theirs.fit(train, y[:1000])
        assert_same_numbers(ours, theirs, test, rtol=1e-9)
        np.testing.assert_array_equal(ours.n_categories_, theirs.n_categories_)


# ---------------------------------------------------------------------------------- alpha
def test_alpha_zero_without_force():
    X, y = np.array([[1, 0], [1, 1]]), np.array([0, 1])
    msg = "alpha too small will result in numeric errors, setting alpha = 1.0e-10"
    for name, sparse in (("BernoulliNB", False), ("MultinomialNB", False), ("BernoulliNB", True),
                         ("MultinomialNB", True), ("CategoricalNB", False)):  # fmt: skip
        data = sp.csr_matrix(X) if sparse else X
        ours, theirs = pair(name, alpha=0.0, force_alpha=False)
        with pytest.warns(UserWarning, match=msg):
            ours.fit(data, y)
        with pytest.warns(UserWarning, match=msg):
            theirs.fit(data, y)
        assert_same_numbers(ours, theirs, data, rtol=1e-9)


def test_alpha_vector():
    X, y = np.array([[1, 0], [1, 1]]), np.array([0, 1])
    ours, theirs = pair("MultinomialNB", alpha=np.array([1, 2]), force_alpha=False)
    ours.partial_fit(X, y, classes=[0, 1]), theirs.partial_fit(X, y, classes=[0, 1])
    np.testing.assert_allclose(ours.feature_log_prob_, np.log([[1 / 2, 1 / 2], [2 / 5, 3 / 5]]))
    assert_same_numbers(ours, theirs, X)
    with pytest.raises(ParameterError, match="alpha must be >= 0"):
        bk.MultinomialNB(alpha=np.array([1.0, -0.1])).fit(X, y)
    with pytest.raises(ParameterError, match="one value for each of the 2 features"):
        bk.MultinomialNB(alpha=np.array([1.0, 2.0, 3.0])).fit(X, y)
    tiny = np.array([1e-10 / 2, 0.5])
    ours, theirs = pair("MultinomialNB", alpha=tiny, force_alpha=False)
    with pytest.warns(UserWarning, match="alpha too small"):
        ours.fit(X, y)
    with pytest.warns(UserWarning, match="alpha too small"):
        theirs.fit(X, y)
    assert_same_numbers(ours, theirs, X)


def test_accuracy_on_digits():
    X, y = load_digits(return_X_y=True)
    three_eight = (y == 3) | (y == 8)
    for model, data, target, floor in (
        (bk.MultinomialNB(alpha=10), X, y, 0.86),
        (bk.MultinomialNB(alpha=10), X[three_eight], y[three_eight], 0.94),
        (bk.BernoulliNB(alpha=10), X > 4, y, 0.83),
        (bk.GaussianNB(), X, y, 0.77),
        (bk.GaussianNB(var_smoothing=0.1), X, y, 0.89),
        (bk.GaussianNB(), X[three_eight], y[three_eight], 0.86),
    ):
        assert cross_val_score(model, data, target, cv=10).mean() > floor


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("seed", [0, 1])
def test_predict_joint_log_proba(name, seed):
    X, y = integer_three_classes(seed)
    model = getattr(bk, name)().fit(X, y)
    jll = model.predict_joint_log_proba(X)
    expected = jll - logsumexp(jll, axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_log_proba(X), expected, atol=1e-12)
    ours, theirs = pair(name)
    ours.fit(X, y), theirs.fit(X, y)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=1e-10
    )


@pytest.mark.parametrize("name", ALL)
def test_categorical_input_tag(name):
    assert getattr(bk, name)().__sklearn_tags__().input_tags.categorical == (
        name == "CategoricalNB"
    )


# ---------------------------------------------------------------------------------- tooling
def test_usefulness_selector_keeps_dataframe_column_names():
    pd = pytest.importorskip("pandas")
    from sklearn import config_context

    from bayeskit.inspection import UsefulnessSelector

    X = pd.DataFrame([[3, 1, 0], [2, 1, 0], [0, 1, 2], [0, 1, 3]], columns=["free", "the", "meet"])
    selector = UsefulnessSelector(k=2).fit(X, [0, 0, 1, 1])
    assert selector.get_feature_names_out().tolist() == ["free", "meet"]
    with config_context(transform_output="pandas"):
        assert selector.transform(X).columns.tolist() == ["free", "meet"]
    refit = selector.fit(X.to_numpy(), [0, 0, 1, 1])  # no names: x0… again
    assert refit.get_feature_names_out().tolist() == ["x0", "x2"]
