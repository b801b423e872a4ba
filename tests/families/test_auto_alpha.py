"""``alpha="auto"``: a categorical (or Bernoulli) block's pseudo-count chosen by the
leave-one-out log-likelihood of the class, exactly from the counts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.families import Bernoulli, Categorical
from bayeskit.families._dirichlet import AUTO_ALPHAS, choose_alpha


def _loo_by_refitting(X: np.ndarray, y: np.ndarray, alpha: float) -> float:
    """Σ_j Σ_i log P(y_i | x_ij) with row i left out: counted again without the row, column by
    column (posterior-mean estimates, add-one class prior over the column's observed rows)."""
    classes = np.unique(y)
    total = 0.0
    for j in range(X.shape[1]):
        values = np.unique([v for v in X[:, j] if v is not None])
        k = len(values)
        for i in range(len(y)):
            if X[i, j] is None:
                continue
            keep = np.arange(len(y)) != i
            observed = keep & np.array([v is not None for v in X[:, j]])
            terms = []
            for c in classes:
                rows = observed & (y == c)
                n_c = rows.sum()
                n_cv = np.sum(X[rows, j] == X[i, j])
                terms.append(np.log(n_c + 1.0) + np.log((n_cv + alpha) / (n_c + k * alpha)))
            joint = np.asarray(terms)
            own = int(np.searchsorted(classes, y[i]))
            total += joint[own] - np.logaddexp.reduce(joint)
    return total


def _counts(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    classes = np.unique(y)
    columns, feature, sizes = [], [], []
    for j in range(X.shape[1]):
        values = np.unique([v for v in X[:, j] if v is not None])
        sizes.append(len(values))
        for v in values:
            columns.append([np.sum((X[:, j] == v) & (y == c)) for c in classes])
            feature.append(j)
    return np.asarray(columns, float).T, np.asarray(feature), np.asarray(sizes)


tables = st.integers(6, 30).flatmap(
    lambda n: st.tuples(
        st.lists(
            st.lists(st.sampled_from(["a", "b", "c", None]), min_size=2, max_size=2),
            min_size=n,
            max_size=n,
        ),
        st.lists(st.sampled_from([0, 1, 2]), min_size=n, max_size=n),
    )
)


@settings(max_examples=30, deadline=None)
@given(tables)
# one category in every column: every α scores the same, up to rounding (the larger chosen)
@example(table=([["a", "a"]] * 6, [0, 0, 1, 1, 2, 2]))
def test_scores_are_leave_one_out_by_refitting(table: tuple[list, list]) -> None:
    """The score of every candidate is the leave-one-out log-likelihood of the class that
    refitting without each row gives (law, on random tables with missing values)."""
    X = np.asarray(table[0], dtype=object)
    y = np.asarray(table[1])
    counts, feature, sizes = _counts(X, y)
    chosen, scores = choose_alpha(counts, feature, sizes)
    expected = [_loo_by_refitting(X, y, a) for a in AUTO_ALPHAS]
    np.testing.assert_allclose(scores, expected, rtol=1e-9, atol=1e-9)
    # the best, a tie (within rounding) going to the larger pseudo-count
    top = max(expected)
    assert chosen == next(
        a
        for a, e in zip(AUTO_ALPHAS, expected, strict=True)
        if e >= top - 1e-9 * max(1.0, abs(top))
    )


def test_a_deterministic_column_gets_a_small_pseudo_count_and_noise_a_large_one() -> None:
    """A value that names its class in many rows: smoothing only blurs it (α = 1/100, near
    R's e1071 frequencies); a few rows of a column unrelated to the class: the strongest
    smoothing of the candidates (Laplace's α = 1)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=600)
    names = np.array(["red", "green", "blue"], dtype=object)
    sharp = bk.CategoricalNB(alpha="auto").fit(names[y][:, None], y)
    assert sharp._fitted().params[0].alpha.tolist() == [0.01]
    y = rng.integers(0, 2, size=12)
    noise = names[rng.integers(0, 3, size=12)][:, None]
    blurred = bk.CategoricalNB(alpha="auto").fit(noise, y)
    assert blurred._fitted().params[0].alpha.tolist() == [1.0]


def test_batches_order_and_merging_choose_the_same() -> None:
    """The counts add: ``partial_fit`` in batches, a shuffled order and a merged model choose
    the same pseudo-count and give the same numbers as ``fit``."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, size=200)
    X = np.column_stack(
        [np.where(rng.random(200) < 0.8, y, 1 - y), rng.integers(0, 4, size=200)]
    ).astype(object)
    whole = bk.MixedNB().fit(X, y)
    batches = bk.MixedNB()
    for part in np.array_split(np.arange(200), 4):
        batches.partial_fit(X[part], y[part], classes=[0, 1])
    order = rng.permutation(200)
    shuffled = bk.MixedNB().fit(X[order], y[order])
    merged = bk.merge(bk.MixedNB().fit(X[:90], y[:90]), bk.MixedNB().fit(X[90:], y[90:]))
    for other in (batches, shuffled, merged):
        assert other.category_alpha_ == whole.category_alpha_
        np.testing.assert_allclose(other.predict_proba(X), whole.predict_proba(X), rtol=1e-12)


def test_bernoulli_chooses_as_the_categorical_model_of_two_values() -> None:
    """A Bernoulli column is a category of two values (absence, presence): the same counts
    give the same choice and the same model."""
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, size=80)
    X = (rng.random((80, 3)) < np.where(y[:, None] == 1, 0.7, 0.3)).astype(float)
    bernoulli = bk.BernoulliNB(alpha="auto").fit(X, y)
    categorical = bk.CategoricalNB(alpha="auto").fit(X.astype(int), y)
    chosen = bernoulli._fitted().params[0].alpha
    assert chosen == categorical._fitted().params[0].alpha[0]
    np.testing.assert_allclose(
        bernoulli.predict_joint_log_proba(X),
        categorical.predict_joint_log_proba(X.astype(int)),
        rtol=1e-12,
    )


@pytest.mark.parametrize("family", [Categorical, Bernoulli])
def test_auto_needs_the_posterior_mean(family: type) -> None:
    """The choice scores the posterior mean: with another estimate it is refused by name."""
    with pytest.raises(bk.errors.ParameterError, match=r"alpha='auto'.*estimate='map'"):
        bk.MixedNB(families={0: family(alpha="auto", estimate="map")}).fit(
            np.array([[1], [0], [1]], dtype=object), [0, 1, 1]
        )
