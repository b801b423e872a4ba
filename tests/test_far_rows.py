"""A row far beyond a class of tiny spread: a Gaussian density is never 0, so a
log-likelihood of -inf under every class is float64's overflow, refused by name — not
answered with the class prior."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import DataError


def _data(d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1e-4, (50, d)), rng.normal(1e-3, 1e-4, (50, d))]
    return X, np.repeat([0, 1], 50)


@pytest.mark.parametrize(
    ("model", "d", "method"),
    [
        (bk.GaussianMixtureClassifier(n_components=2, check_folds=None), 2, "predict_proba"),
        (bk.QuadraticDiscriminantAnalysis(), 3, "predict_joint_log_proba"),
    ],
    ids=["mixture-proba", "qda-joint"],
)
def test_a_row_beyond_float64_under_every_class_is_refused(model, d, method):
    X, y = _data(d)
    model.fit(X, y)
    with pytest.raises(DataError, match="row 1 is below float64's range under every class"):
        getattr(model, method)(np.r_[X[:1], np.full((1, d), 1e150)])
    near = np.r_[np.full((1, d), 1e100), np.full((1, d), 5e-4)]
    p = model.predict_proba(near)  # far, but within range: decided, not refused
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_a_count_models_impossible_row_still_gets_its_answer():
    # a multinomial without smoothing: a term no class saw has probability 0 in every class,
    # the model's own answer (not an overflow), left as before
    model = bk.MultinomialNB(alpha=0.0, force_alpha=True).fit([[1, 0, 0], [0, 1, 0]], [0, 1])
    with np.errstate(all="ignore"):
        p = model.predict_proba([[0, 0, 1]])
    assert p.shape == (1, 2)
