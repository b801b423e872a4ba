"""A hostile user's review of the Bayesian network classifiers (TAN, AODE, KDB): inputs a user
coming from Weka or bnclassify gets wrong, and the laws the structures must keep."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    for value, shown in ((values[parent], True), ("breeze", False), (None, False)):
        row = {**values, parent: value}
        result = runner.invoke(app, ["explain", str(path), json.dumps(row), "--json"])
        assert result.exit_code == 0, result.stderr
        terms = {c["feature"] for c in json.loads(result.stdout)["contributions"]}
        own = f"{child}={values[child]}"
        assert (f"{own} | {parent}={value}" if shown else own) in terms
    # what explain reads the row by: the model's own view of which values it reads
    import polars as pl

    rows = pl.DataFrame({"wind": ["calm", "breeze", None], "sky": ["clear", "clear", "snow"]})
    np.testing.assert_array_equal(
        model.observed_values(rows), [[True, True], [False, True], [False, False]]
    )


@st.composite
def dependent_tables(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Categorical tables of 2 to 5 features (3 values and None) that depend on the class and
    on each other: each column copies the class or an earlier column in a random share of
    the rows, random values elsewhere; two or three classes; a permutation of the columns
    and one of the rows. Drawn from a seeded generator: hypothesis's own arrays shrink to
    constant columns, whose equal informations are ties the permutation law cannot check."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = int(rng.integers(12, 49))
    d = int(rng.integers(2, 6))
    y = rng.integers(0, rng.integers(2, 4), n)
    codes = rng.integers(-1, 3, (n, d))
    for j in range(d):
        source = y if j == 0 or rng.random() < 0.4 else codes[:, rng.integers(0, j)]
        codes[:, j] = np.where(rng.random(n) < rng.random(), source, codes[:, j])
    X = np.where(codes >= 0, np.array(["a", "b", "c"])[np.maximum(codes, 0)], None)
    return X.astype(object), np.array(["p", "q", "r"])[y], rng.permutation(d), rng.permutation(n)


def _structure(model: Any, names: list[str]) -> dict[str, tuple[str, ...]]:
    """The parents by the original column names (``names[j]`` of the fitted column j)."""
    return {
        names[int(k[1:])]: tuple(sorted(names[int(p[1:])] for p in v))
        for k, v in model.parents_.items()
    }


def _pairs(weights: np.ndarray) -> np.ndarray:
    """The weights of the pairs of features (the upper triangle, not the diagonal's 0s)."""
    return weights[np.triu_indices(len(weights), 1)]


def _near_ties(values: np.ndarray) -> bool:
    """Whether two of ``values`` (finite) are within 1e-6 of the largest: a tie the index
    rule breaks, which a permutation of the columns may break the other way."""
    v = np.sort(values[np.isfinite(values)].ravel())
    scale = max(1.0, float(np.abs(v).max(initial=0.0)))
    return bool(np.any(np.diff(v) <= 1e-6 * scale))


@settings(max_examples=60, deadline=None)
@given(dependent_tables())
@pytest.mark.parametrize("make", NETWORKS)
def test_permuting_columns_permutes_the_model_and_row_order_changes_nothing(make, data):
    X, y, columns, rows = data
    model = make().fit(X, y)
    proba = model.predict_proba(X)
    # rows in another order: the same counts, the same structure and probabilities
    shuffled = make().fit(X[rows], y[rows])
    assert shuffled.parents_ == model.parents_
    np.testing.assert_allclose(shuffled.predict_proba(X), proba, rtol=1e-12, atol=1e-15)
    # columns in another order: the same network over the same columns, unless the index
    # rule broke a tie (Sahami's order and TAN's root and edges depend on column indices
    # only among equal weights); AODE has no structure, so always the same probabilities
    moved = make().fit(X[:, columns], y)
    same = list(range(X.shape[1]))
    names = [f"c{j}" for j in same]
    tied = hasattr(model, "conditional_information_") and (
        _near_ties(model.class_information_)
        or _near_ties(_pairs(getattr(model, "edge_weights_", model.conditional_information_)))
    )
    if not tied:
        assert _structure(moved, [names[j] for j in columns]) == _structure(model, names)
        np.testing.assert_allclose(moved.predict_proba(X[:, columns]), proba, rtol=1e-9)


@settings(max_examples=40, deadline=None)
@given(dependent_tables(), st.integers(1, 5))
@pytest.mark.parametrize("make", NETWORKS)
def test_batches_and_merged_parts_are_the_model_of_all_rows(make, data, cut):
    X, y, _, _ = data
    cut = min(cut, len(y) - 1)
    whole = make().fit(X, y)
    classes = np.unique(y)
    batched = make().partial_fit(X[:cut], y[:cut], classes=classes).partial_fit(X[cut:], y[cut:])
    merged = make().partial_fit(X[:cut], y[:cut], classes=classes) + make().partial_fit(
        X[cut:], y[cut:], classes=classes
    )
    for other in (batched, merged):
        assert other.parents_ == whole.parents_
        np.testing.assert_allclose(other.predict_proba(X), whole.predict_proba(X), rtol=1e-12)


@pytest.mark.parametrize("scale", [1e-200, 1e-160, 1e160, 1e200])
def test_the_informations_do_not_depend_on_the_scale_of_the_weights(scale):
    # I(X_i; Y) and I(X_i; X_j | Y) are those of the empirical distribution: rows of equal
    # weight c give those of c = 1 whatever c. A product of two counts overflowed beyond
    # c ≈ 1e154 (and underflowed below 1e-154), and the fit was refused as if the weights
    # were near float64's limits.
    X, y = _weather(80)
    X = X.to_numpy()
    X = np.column_stack([X, np.where(X[:, 0] == "calm", "lo", "hi")])
    weights = np.full(len(y), scale)
    for make in (lambda: bk.TANClassifier(edge_weight="cmi"), lambda: bk.KDBClassifier(k=2)):
        plain, scaled = make().fit(X, y), make().fit(X, y, sample_weight=weights)
        assert scaled.parents_ == plain.parents_
        np.testing.assert_allclose(scaled.class_information_, plain.class_information_, rtol=1e-12)
        np.testing.assert_allclose(
            scaled.conditional_information_, plain.conditional_information_, rtol=1e-12
        )
    # with maximum-likelihood tables the probabilities do not depend on it either
    plain = bk.KDBClassifier(k=2, alpha=0).fit(X, y)
    scaled = bk.KDBClassifier(k=2, alpha=0).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(scaled.predict_proba(X), plain.predict_proba(X), rtol=1e-9)


@pytest.mark.parametrize("make", NETWORKS)
def test_inspect_shows_the_networks_structure(make, tmp_path):
    # Weka prints a BayesNet's structure ("nodes followed by parents"); `bayeskit inspect`
    # showed a network's classes and families only, and "not linear" for its features.
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    X, y = _weather()
    model = make().fit(X, y)
    path = tmp_path / "model.bkm"
    bk.save(model, path)
    runner = CliRunner()
    found = runner.invoke(app, ["inspect", str(path), "--json"])
    assert found.exit_code == 0, found.stderr
    assert json.loads(found.stdout)["parents"] == {f: list(p) for f, p in model.parents_.items()}
    text = runner.invoke(app, ["inspect", str(path)])
    assert text.exit_code == 0, text.stderr
    if isinstance(model, bk.AODEClassifier):
        assert "each of the 2 features in turn the parent of all the others" in text.stdout
    else:
        for feature, parents in model.parents_.items():
            assert f"  {feature} <- {', '.join(parents) or '(the class only)'}\n" in text.stdout
