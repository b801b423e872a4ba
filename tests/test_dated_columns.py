"""A data frame's column of dates or durations is refused by name by every estimator of
numbers (numpy's own refusal, about promoting Float64DType, named no column)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import bayeskit as bk
from bayeskit.errors import InputTypeError

NUMERIC = ["GaussianNB", "MultinomialNB", "BernoulliNB", "PoissonNB", "KernelNB",
           "DiscretizedNB", "LinearDiscriminantAnalysis", "QuadraticDiscriminantAnalysis",
           "RegularizedDiscriminantAnalysis", "GaussianMixtureClassifier",
           "ParzenWindowClassifier"]  # fmt: skip
y = np.array([0, 1, 2] * 10)
dates = pd.date_range("2020", periods=30)
FRAMES = {
    "pandas dates": pd.DataFrame({"f": np.arange(30.0), "when": dates}),
    "pandas durations": pd.DataFrame({"f": np.arange(30.0), "when": dates - dates[0]}),
    "polars dates": pl.DataFrame({"f": np.arange(30.0), "when": dates}),
}


@pytest.mark.parametrize("frame", sorted(FRAMES))
@pytest.mark.parametrize("name", NUMERIC)
def test_a_dated_column_is_refused_by_name(name, frame):
    with pytest.raises(InputTypeError, match=r"column 1 \('when'\) has dtype .*turn dates"):
        getattr(bk, name)().fit(FRAMES[frame], y)
    fitted = getattr(bk, name)().fit(np.c_[np.arange(30.0), np.arange(30.0) % 7], y)
    with pytest.raises(InputTypeError, match=r"column 1 \('when'\)"):
        fitted.predict(FRAMES[frame])
