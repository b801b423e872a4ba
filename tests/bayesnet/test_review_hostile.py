"""A hostile user's review of the Bayesian network classifiers (TAN, AODE, KDB): inputs a user
coming from Weka or bnclassify gets wrong, and the laws the structures must keep."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import BayeskitError

NETWORKS = [
    pytest.param(lambda: bk.TANClassifier(), id="tan"),
    pytest.param(lambda: bk.TANClassifier(edge_weight="cmi"), id="tan-cmi"),
    pytest.param(lambda: bk.AODEClassifier(), id="aode"),
    pytest.param(lambda: bk.KDBClassifier(k=2), id="kdb"),
]

Y4 = [0, 1, 0, 1]


@pytest.mark.parametrize("make", NETWORKS)
@pytest.mark.parametrize(
    ("learned", "given", "held"),
    [
        # a column learned as text ("1", "2": a CSV's codes) given as numbers (JSON)
        (np.array([["1", "a"], ["2", "b"], ["1", "a"], ["2", "a"]]), [1, "a"], "1, a number"),
        # and the reverse
        (np.array([[1, 3], [2, 4], [1, 3], [2, 3]]), ["1", 3], "'1', text"),
    ],
)
def test_a_column_of_the_other_kind_is_refused_not_read_as_missing(make, learned, given, held):
    # Read as values never seen, every row would silently lose the column (the model would
    # answer from the other columns alone); CategoricalNB refuses it naming the column.
    model = make().fit(learned, Y4)
    row = np.array([given], dtype=object)
    with pytest.raises(BayeskitError, match=f"column 'x0' holds {held}"):
        model.predict_proba(row)
    if hasattr(model, "feature_log_factors"):
        with pytest.raises(BayeskitError, match="column 'x0'"):
            model.feature_log_factors(row)
    # a value never seen that spells no learned category is still a missing value
    other = np.array([["zz" if isinstance(given[0], str) else 7, given[1]]], dtype=object)
    missing = np.array([[None, given[1]]], dtype=object)
    np.testing.assert_allclose(model.predict_proba(other), model.predict_proba(missing))
