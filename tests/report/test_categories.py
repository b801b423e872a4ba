"""The report's categorical and boolean columns: each class's share of each value, as the
data hold them, ranked by Cramér's V (scipy's)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats.contingency import association

from bayeskit import CategoricalNB, MixedNB
from bayeskit.report import build_report
from bayeskit.report.categories import TOP_VALUES, category_columns

from ._dom import parse


def mixed(seed: int, n: int = 300) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    colour = np.where(y == "a", rng.choice(["red", "blue"], n), rng.choice(["blue", "green"], n))
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n) + (y == "a"),
            "colour": colour,
            "flag": rng.random(n) < np.where(y == "b", 0.8, 0.3),
            "noise": rng.choice(["p", "q"], n),
        }
    )
    frame.loc[rng.random(n) < 0.1, "colour"] = None
    return frame, y


def _page(model, X, y):
    """The parsed report of ``model`` on its own training rows."""
    return parse(
        build_report(
            title="t",
            classes=model.classes_,
            y_true=y,
            proba=model.predict_proba(X),
            model=model,
            X=X,
            y=y,
        )
    )


def test_a_mixed_table_shows_every_categorical_and_boolean_column():
    X, y = mixed(0)
    model = MixedNB().fit(X, y)
    page = _page(model, X, y)
    section = page.find("section", id="categories")
    shown = [int(div.attrs["data-feature"]) for div in section.find_all("div", class_="scroll")]
    assert sorted(shown) == [1, 2, 3]  # colour, flag, noise; not the numeric x
    assert shown[-1] == 3  # the column that tells nothing comes last


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_values=st.integers(1, 14))
@example(seed=3359075, n_values=2)  # 8 rows: class b's values of column 0 all missing
def test_shares_and_strength_are_the_datas(seed, n_values):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 200))
    y = rng.choice(["a", "b"], n)
    X = np.column_stack([rng.integers(0, n_values, n), rng.random(n) < 0.5]).astype(object)
    X[rng.random(n) < 0.1, 0] = None
    model = CategoricalNB().fit(X, y)
    columns = {c.j: c for c in category_columns(model, X, y)}
    for j in range(2):
        seen = np.array([v is not None for v in X[:, j]])
        # Every class of the model, one with no value seen in the column included (its
        # row of counts 0: all its values of column 0 can be missing in a small sample).
        table = pd.crosstab(y[seen], X[seen, j].astype(str)).reindex(model.classes_, fill_value=0)
        col = columns[j]
        counts = table.to_numpy(dtype=np.int64)
        held = counts[counts.sum(axis=1) > 0]  # the association of the classes seen
        if held.shape[0] > 1 and held.shape[1] > 1:
            assert abs(col.cramers_v - association(held, method="cramer")) < 1e-12
        else:
            assert col.cramers_v == 0.0
        np.testing.assert_array_equal(col.observed, counts.sum(axis=1))
        observed = np.maximum(counts.sum(axis=1), 1)  # (an empty class's shares are 0)
        for i, value in enumerate(col.values):
            if col.folded and i == len(col.values) - 1:
                assert value == f"({col.folded} more value{'s' if col.folded > 1 else ''})"
                folded = [v for v in table.columns if v not in col.values]
                expected = table[folded].sum(axis=1).to_numpy()
            else:
                key = value if value in table.columns else {"true": "True", "false": "False"}[value]
                expected = table[key].to_numpy()
            np.testing.assert_allclose(col.shares[:, i], expected / observed)
        assert len(col.values) <= TOP_VALUES + 1


def test_a_value_called_other_is_not_mixed_up_with_the_folded_values():
    rng = np.random.default_rng(0)
    values = ["other"] * 6 + [f"v{i}" for i in range(10)]  # "other" is the commonest value
    X = pd.DataFrame({"kind": rng.choice(values, 400)})
    y = rng.choice(["a", "b"], 400)
    model = CategoricalNB().fit(X, y)
    (col,) = category_columns(model, X, y)
    assert col.values[0] == "other"
    assert col.folded == 11 - TOP_VALUES
    assert col.values[-1] == f"({col.folded} more values)"
    page = _page(model, X, y)
    table = page.find("section", id="categories").find("table")
    rows = table.find_all("tr")
    labelled = [r.attrs.get("data-value") for r in rows if "data-value" in r.attrs]
    assert labelled.count("other") == 1
    assert len(labelled) == TOP_VALUES
    (folded,) = [r for r in rows if r.attrs.get("data-folded")]
    assert folded.attrs["data-folded"] == str(col.folded)
    assert "(3 more values)" in folded.text
