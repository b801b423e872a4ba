"""``n_components="bic"`` chooses among mixtures whose every component holds more than a
quarter of its free parameters in rows (Figueiredo & Jain's annihilation rule at half their
constant); one component is always a candidate, so a class of few rows falls back to it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split

import bayeskit as bk
from bayeskit.mixture._components import component_parameters, least_support

COVARIANCES = ["diag", "spherical", "full", "tied"]


def chosen_sizes(model: bk.GaussianMixtureClassifier) -> dict:
    """{label: the rows' weight each chosen component holds}."""
    return {
        label: model.weights_[label] * model.class_count_[c]
        for c, label in enumerate(model.classes_.tolist())
    }


@pytest.mark.parametrize(
    ("cov", "d", "n"),
    [("diag", 8, 16), ("spherical", 8, 9), ("full", 3, 9), ("tied", 8, 8)],
)
def test_the_threshold_is_a_quarter_of_a_components_parameters(cov, d, n):
    # diag: a mean and a variance per feature; spherical: one variance; full: the mean and
    # d(d + 1)/2 covariances; tied: only the mean is the component's own
    assert component_parameters(cov, d) == n
    assert least_support(cov, d) == n / 4


def test_a_class_of_few_rows_gets_one_component():
    """Seven rows in eight finely recorded columns: three components of two or three rows
    each give the training rows an unbounded likelihood (the variances shrink onto them)
    and held-out rows of the class almost none; two components would need more than four
    rows each to pay for their sixteen parameters, so the class keeps one."""
    rng = np.random.default_rng(0)
    spread = rng.uniform(10, 1000, size=8)
    few = rng.normal(0, spread, size=(7, 8)).round(1)
    many = rng.normal(0, 1000, size=(200, 8)).round(1)
    X, y = np.vstack([few, many]), np.array(["few"] * 7 + ["many"] * 200)
    model = bk.GaussianMixtureClassifier().fit(X, y)
    assert model.n_components_[0] == 1
    assert model.bic_["few"].keys() == {1}
    forced = bk.GaussianMixtureClassifier(n_components={"few": 3, "many": 1}).fit(X, y)
    assert chosen_sizes(forced)["few"].min() < least_support("diag", 8)
    new = rng.normal(0, spread, size=(100, 8)).round(1)  # held out: more rows of the class

    def held_out(m: bk.GaussianMixtureClassifier) -> float:
        return float(m.predict_joint_log_proba(new)[:, 0].mean())

    # (reg_covar relative to each column's variance keeps the forced components' variances
    # from shrinking quite as far: 5.5 nats a row, 100 with the absolute 1e-6)
    assert held_out(model) > held_out(forced) + 5


def test_a_bimodal_class_with_enough_rows_still_gets_two():
    rng = np.random.default_rng(1)
    a = np.vstack([rng.normal([0, 0], 0.5, (60, 2)), rng.normal([5, 5], 0.5, (60, 2))])
    b = rng.normal([0, 5], 0.5, (120, 2))
    # BIC's choice (the check against GaussianNB, tests/mixture/test_check.py, would keep
    # GaussianNB here: it classifies these classes as well)
    model = bk.GaussianMixtureClassifier(check_folds=None).fit(
        np.vstack([a, b]), np.repeat([0, 1], 120)
    )
    assert model.n_components_.tolist() == [2, 1]
    np.testing.assert_allclose(np.sort(model.weights_[0]), [0.5, 0.5], atol=0.01)


def test_a_class_of_one_row_keeps_its_bic():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [4.0, 1.0], [3.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = bk.GaussianMixtureClassifier().fit(X, [0, 1, 1, 1, 1])
    assert model.n_components_[0] == 1
    assert model.bic_[0].keys() == {1}
    assert np.isfinite(model.bic_[0][1])


def test_sample_weights_count_as_rows():
    """A row of weight 2 is two rows: the candidates of duplicated rows and of doubled
    weights are the same."""
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(0, 1, (7, 3)), rng.normal(6, 1, (7, 3))])
    y = np.zeros(14, dtype=int)
    y[-1] = 1  # a second class of one row
    doubled = bk.GaussianMixtureClassifier().fit(X, y, sample_weight=np.full(14, 2.0))
    duplicated = bk.GaussianMixtureClassifier().fit(np.vstack([X, X]), np.concatenate([y, y]))
    once = bk.GaussianMixtureClassifier().fit(X, y)
    assert doubled.bic_[0].keys() == duplicated.bic_[0].keys()
    assert doubled.n_components_.tolist() == duplicated.n_components_.tolist()
    # 13 rows, least_support(diag, 3) = 1.5: k components are tried while 13 > 1.5 k
    family = bk.mixture.GaussianMixtureFamily("bic", max_components=10)
    rows = X[y == 0]
    assert family.plan_class(0, rows, 13, 13.0)[0] == list(range(1, 9))
    assert family.plan_class(0, rows, 13, 26.0)[0] == list(range(1, 11))
    assert family.plan_class(0, rows, 13)[0] == list(range(1, 9))  # weight: the row count
    assert once.n_components_[1] == 1


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(COVARIANCES),
    st.integers(1, 6),
    st.integers(3, 60),
)
def test_no_chosen_component_holds_fewer_rows_than_the_rule_allows(seed, cov, d, n):
    rng = np.random.default_rng(seed)
    groups = rng.integers(1, 4)
    X = np.vstack(
        [rng.normal(rng.normal(0, 5, d), 1, size=(n // groups + 1, d)) for _ in range(groups)]
    )
    y = rng.integers(0, 2, size=len(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few distinct rows / not converged: not the point
        model = bk.GaussianMixtureClassifier(
            covariance_type=cov,
            max_iter=30,
            check_folds=None,  # BIC's choice itself
        ).fit(X, y)
    least = least_support(cov, d)
    for c, (label, sizes) in enumerate(chosen_sizes(model).items()):
        assert 1 in model.bic_[label]
        assert model.n_components_[c] == len(sizes)
        if len(sizes) > 1:
            assert sizes.min() > least
            assert model.class_count_[c] > len(sizes) * least
        # the chosen number has the smallest BIC among those recorded
        table = model.bic_[label]
        assert min(table, key=table.get) == len(sizes)


def test_wine_with_few_rows_a_class_keeps_one_component_and_beats_the_forced_mixture():
    """Real data: twelve training rows a class in wine's thirteen columns."""
    X, y = load_wine(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=36, stratify=y, random_state=0)
    model = bk.GaussianMixtureClassifier().fit(Xtr, ytr)
    assert model.n_components_.tolist() == [1, 1, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forced = bk.GaussianMixtureClassifier(n_components=3).fit(Xtr, ytr)
    gnb = bk.GaussianNB().fit(Xtr, ytr)
    accuracy = np.mean(model.predict(Xte) == yte)
    assert accuracy > np.mean(forced.predict(Xte) == yte)
    assert accuracy >= np.mean(gnb.predict(Xte) == yte) - 0.02
