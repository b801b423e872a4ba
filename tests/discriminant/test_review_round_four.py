"""Four things a review of discriminant analysis found: refusals that blamed the wrong cause
or named no column, priors near the largest float, and a share of variance scikit-learn
sorts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA

import bayeskit as bk
from bayeskit.errors import BayeskitWarning, MergeError, SingularCovarianceError

X = np.array(
    [[0.1, 1.3], [1.2, 0.4], [2.3, 2.2], [1.1, 3.0], [4.2, 5.1], [5.3, 4.4], [6.1, 6.6], [5.2, 7.5]]
)
y = np.repeat([0, 1], 4)


@pytest.mark.parametrize(
    ("model", "copies"),
    [
        (bk.LinearDiscriminantAnalysis(solver="lsqr"), 1),
        (bk.LinearDiscriminantAnalysis(solver="eigen"), 1),
        (bk.QuadraticDiscriminantAnalysis(), 3),
        (bk.RegularizedDiscriminantAnalysis(), 3),
    ],
)
def test_a_relation_among_every_column_is_named_not_blamed_on_too_few_rows(model, copies):
    """A difference stored beside both prices involves every column: the message said
    "collinear columns, or too few rows: weight 8 for 3 features" and named none."""
    Xc = np.vstack([np.column_stack([X, X[:, 0] - X[:, 1]])] * copies)
    with pytest.raises(SingularCovarianceError) as refusal:
        model.fit(Xc, np.tile(y, copies))
    message = str(refusal.value)
    assert "the columns 'x0', 'x1', 'x2' are collinear there" in message
    assert "too few rows" not in message


def test_too_few_rows_are_still_said_to_be_too_few():
    with pytest.raises(SingularCovarianceError, match="too few rows: weight 2 for 2 features"):
        bk.QuadraticDiscriminantAnalysis().fit(X[[0, 1, 4, 5]], [0, 0, 1, 1])


def test_unlearning_rows_never_learned_says_so():
    """It blamed float64's resolution and asked to rescale the data."""
    model = bk.LinearDiscriminantAnalysis().fit(X, y)
    before = model.predict_proba(X)
    with pytest.raises(MergeError, match="were they learned") as refusal:
        model.unlearn(np.array([[100.0, 100.0]]), [0])
    assert "rescale" not in str(refusal.value)
    np.testing.assert_array_equal(model.predict_proba(X), before)  # the model as it was


@pytest.mark.parametrize(
    "model",
    [
        bk.LinearDiscriminantAnalysis,
        bk.QuadraticDiscriminantAnalysis,
        bk.RegularizedDiscriminantAnalysis,
    ],
)
def test_priors_near_the_largest_float_are_renormalised(model):
    """Their sum overflowed: numpy warned four times and the priors became [0, 0], refused as
    values the user never gave."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(BayeskitWarning, match="renormalising"):
            big = model(priors=[1e308, 1e308]).fit(X, y)
    even = model(priors=[0.5, 0.5]).fit(X, y)
    np.testing.assert_array_equal(big.predict_proba(X), even.predict_proba(X))


def test_explained_variance_ratio_is_sorted_as_scikit_learn_sorts_it():
    """With priors far from the class weights the between-class eigenvalues were both
    negative here, and the share of the first axis (0.49946) was not scikit-learn's
    (0.50054, the largest share)."""
    Z = np.array(
        [[-3.0, 1], [3, -1], [-2, -2.5], [2, 2.5], [0.1, 0], [0, 0.1], [0.2, 0.1], [0.1, 0.2]]
    )
    ours = bk.LinearDiscriminantAnalysis(solver="eigen", priors=[0.9, 0.1]).fit(Z, y)
    theirs = SkLDA(solver="eigen", priors=[0.9, 0.1]).fit(Z, y)
    np.testing.assert_allclose(
        ours.explained_variance_ratio_, theirs.explained_variance_ratio_, rtol=1e-9
    )
