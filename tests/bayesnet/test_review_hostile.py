"""A hostile user's review of the Bayesian network classifiers (TAN, AODE, KDB): inputs a user
coming from Weka or bnclassify gets wrong, and the laws the structures must keep."""

from __future__ import annotations

import json
from typing import Any

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


def _weather(n: int = 60) -> tuple[Any, np.ndarray]:
    """A table whose TAN tree has ``wind`` as the parent of ``sky``: ``sky`` copies ``wind``
    in most rows, the class depends on both."""
    import polars as pl

    rng = np.random.default_rng(3)
    wind = rng.choice(["calm", "gale"], n)
    sky = np.where(rng.random(n) < 0.8, np.where(wind == "calm", "clear", "grey"), "rain")
    y = np.where((wind == "gale") ^ (rng.random(n) < 0.2), "in", "out")
    return pl.DataFrame({"wind": wind, "sky": sky}), y


@pytest.mark.parametrize("make", [NETWORKS[0], NETWORKS[3]])
def test_explain_names_only_the_parent_values_the_model_reads(make, tmp_path):
    # A parent value never seen in training is read as missing: the child's factor is then
    # P(x_i | y), and `bayeskit explain` must not show it as given ("sky=grey | wind=breeze").
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    X, y = _weather()
    model = make().fit(X, y)
    child = next(c for c, ps in model.parents_.items() if ps)
    (parent,) = model.parents_[child]
    path = tmp_path / "model.bkm"
    bk.save(model, path)
    values = {"wind": "calm", "sky": "clear"}
    runner = CliRunner()
    for given, shown in ((values[parent], True), ("breeze", False), (None, False)):
        row = {**values, parent: given}
        result = runner.invoke(app, ["explain", str(path), json.dumps(row), "--json"])
        assert result.exit_code == 0, result.stderr
        terms = {c["feature"] for c in json.loads(result.stdout)["contributions"]}
        own = f"{child}={values[child]}"
        assert (f"{own} | {parent}={given}" if shown else own) in terms
    # what explain reads the row by: the model's own view of which values it reads
    import polars as pl

    rows = pl.DataFrame({"wind": ["calm", "breeze", None], "sky": ["clear", "clear", "snow"]})
    np.testing.assert_array_equal(
        model.observed_values(rows), [[True, True], [False, True], [False, False]]
    )
