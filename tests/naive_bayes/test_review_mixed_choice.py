"""A hostile review of MixedNB's choice of a family per column: the values a user's table may
hold where the chosen family does not fit, refused by name; and the choice itself."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import bayeskit as bk
from bayeskit.errors import BayeskitError, DataError

rng = np.random.default_rng(11)
N = 200
Y = np.repeat(np.array(["a", "b"]), N // 2)


def _flags() -> pd.DataFrame:
    present = np.where(Y == "a", rng.random(N) < 0.8, rng.random(N) < 0.2)
    return pd.DataFrame({"x": rng.normal(Y == "a", 1.0), "member": present})


FLAGS = _flags()


@pytest.mark.parametrize("value", [2, 0.5, -1, 7.0])
def test_a_boolean_column_refuses_another_number_by_name(value):
    """A column of True/False gets the Bernoulli family. Fed 2, 0.5 or -1 (a column of
    another table, a code), it used to read them as True above 0 and False at or below it,
    and gave a confident answer; it is refused, naming the column, the row and the value,
    at predict and at partial_fit, and the model is left as it was."""
    model = bk.MixedNB(numeric="gaussian").fit(FLAGS, Y)
    assert model.feature_families_["member"] == "bernoulli"
    before = model.predict_joint_log_proba(FLAGS)
    bad = pd.DataFrame({"x": [0.0, 0.1], "member": [1, value]})
    with pytest.raises(DataError, match=r"column 1 \('member'\) holds .* at row 1.*True/False"):
        model.predict(bad)
    with pytest.raises(BayeskitError, match="'member'") as refused:
        model.partial_fit(bad, ["a", "b"])
    assert isinstance(refused.value, ValueError)
    np.testing.assert_array_equal(model.predict_joint_log_proba(FLAGS), before)


def test_a_boolean_column_takes_bools_and_their_numbers_alike():
    model = bk.MixedNB(numeric="gaussian").fit(FLAGS, Y)
    as_bools = pd.DataFrame({"x": [0.0, 0.0, 0.0], "member": [True, False, None]})
    as_numbers = pd.DataFrame({"x": [0.0, 0.0, 0.0], "member": [1.0, 0.0, np.nan]})
    np.testing.assert_array_equal(model.predict_proba(as_bools), model.predict_proba(as_numbers))


def test_a_threshold_given_in_options_still_binarizes():
    model = bk.MixedNB(numeric="gaussian", options={"bernoulli": {"binarize": 0.0}}).fit(FLAGS, Y)
    probe = pd.DataFrame({"x": [0.0, 0.0], "member": [2.0, 1.0]})
    proba = model.predict_proba(probe)
    np.testing.assert_allclose(proba[0], proba[1])


def _visits() -> pd.DataFrame:
    """Counts (visits per month) that separate the classes, beside a real column."""
    visits = rng.poisson(np.where(Y == "a", 0.4, 4.0))
    return pd.DataFrame({"x": rng.normal(0.0, 1.0, N), "visits": visits})


VISITS = _visits()


@pytest.mark.parametrize(("value", "why"), [(-1, "cannot be negative"), (2.5, "whole numbers")])
def test_a_column_chosen_poisson_refuses_a_value_no_count_is_by_name(value, why):
    """The held-out choice gives a column of counts the Poisson family only when every
    training value is a whole number >= 0. A -1 or a 2.5 at predict was scored anyway (2.5
    by the Gamma function's interpolation of the factorial), or refused without the
    column's name; it is refused naming the column, the row and the value."""
    model = bk.MixedNB(options={"auto": {"candidates": ["poisson", "gaussian"]}})
    model.fit(VISITS, Y)
    assert model.feature_families_["visits"] == "poisson"
    bad = pd.DataFrame({"x": [0.0, 0.0], "visits": [3.0, value]})
    named = rf"column 1 \('visits'\) holds {value:g} at row 1; .*{why}"
    with pytest.raises(DataError, match=named):
        model.predict_proba(bad)


def test_a_later_batch_that_is_no_count_changes_the_choice_not_the_rule():
    """partial_fit keeps the rows, so a batch holding -1 makes the column no Poisson
    candidate any more: the choice is made again, exactly as fit on every row makes it."""
    options = {"auto": {"candidates": ["poisson", "gaussian"]}}
    online = bk.MixedNB(options=options).partial_fit(VISITS, Y)
    later = pd.DataFrame({"x": [0.0, 0.3], "visits": [-1, 2]})
    online.partial_fit(later, ["a", "b"])
    whole = bk.MixedNB(options=options).fit(pd.concat([VISITS, later]), [*Y, "a", "b"])
    assert online.feature_families_ == whole.feature_families_
    assert online.feature_families_["visits"] != "poisson"
    np.testing.assert_allclose(online.predict_proba(VISITS), whole.predict_proba(VISITS))


@pytest.mark.parametrize("numeric", ["kernel", "gaussian", "discretized", "auto"])
def test_a_column_one_class_never_observed_is_no_evidence_for_that_class(numeric):
    """A measurement taken in one class only (missing in every row of the other): neither
    class has data that tells them apart by it. The kernel family gave the class that never
    observed it its Cauchy tail alone, wider than the other's density, so a value 3 or 10
    standard deviations out of the observed class's data made the unobserved class 99%
    likely; every numeric family now gives that class the population's density, and the
    column decides nothing between the two classes."""
    measured = np.where(Y == "b", rng.normal(0.0, 1.0, N), np.nan)
    X = pd.DataFrame({"measured": measured})
    model = bk.MixedNB(numeric=numeric).fit(X, Y)
    probe = pd.DataFrame({"measured": [0.0, 1.0, 3.0, 10.0, -40.0, np.nan]})
    np.testing.assert_allclose(model.predict_proba(probe), 0.5, atol=1e-9)


def test_with_three_classes_the_unobserved_class_sits_between_the_others():
    """The density of the class that never observed the column is a mixture of the others':
    at every value it lies between them, so it never wins on that column alone."""
    y = np.repeat(np.array(["a", "b", "c"]), 60)
    measured = np.where(y == "a", np.nan, rng.normal(np.where(y == "b", -2.0, 2.0), 1.0))
    model = bk.MixedNB(numeric="kernel").fit(pd.DataFrame({"measured": measured}), y)
    probe = pd.DataFrame({"measured": np.linspace(-30.0, 30.0, 61)})
    joint = model.predict_joint_log_proba(probe) - model.class_log_prior_
    assert (joint[:, 0] <= joint[:, 1:].max(axis=1) + 1e-9).all()
    assert (joint[:, 0] >= joint[:, 1:].min(axis=1) - 1e-9).all()


def test_each_columns_reason_for_its_family_is_given():
    """feature_family_reasons_ says why each column has its family: its type, the setting
    that gave it, or the held-out choice with every candidate's score on that column."""
    X = VISITS.assign(member=FLAGS["member"], city=np.where(Y == "a", "Oslo", "Lyon"))
    model = bk.MixedNB(families={"x": "gaussian"}).fit(X, Y)
    reasons = model.feature_family_reasons_
    assert list(reasons) == ["x", "visits", "member", "city"]
    assert reasons["x"] == "given by families="
    assert reasons["member"] == "a boolean column"
    assert reasons["city"] == "text or categories"
    assert reasons["visits"].startswith("numeric, held-out choice")
    for name in ("gaussian", "poisson", "discretized", "kernel"):
        assert f"{name} -" in reasons["visits"]
    assert bk.MixedNB(families={"x": "gaussian"}).feature_family_reasons_ == {}  # unfitted
    fixed = bk.MixedNB(numeric="gaussian", integers="poisson").fit(X, Y)
    assert fixed.feature_family_reasons_["visits"] == "whole numbers (integers='poisson')"
    assert fixed.feature_family_reasons_["x"] == "numeric (numeric='gaussian')"


def test_inspect_prints_each_columns_family_and_why(tmp_path):
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    table = VISITS.assign(member=FLAGS["member"], label=Y)
    data = tmp_path / "visits.csv"
    table.to_csv(data, index=False)
    runner = CliRunner()
    model = tmp_path / "visits.bkm"
    trained = runner.invoke(app, ["train", str(data), "-t", "label", "-o", str(model)])
    assert trained.exit_code == 0, trained.stderr
    shown = runner.invoke(app, ["inspect", str(model)])
    assert shown.exit_code == 0, shown.stderr
    assert "why each column has its family:" in shown.stdout
    assert "  member: bernoulli — a boolean column" in shown.stdout
    assert "  visits: " in shown.stdout
    assert "held-out choice" in shown.stdout
    as_json = runner.invoke(app, ["inspect", str(model), "--json"])
    assert json.loads(as_json.stdout)["family_reasons"] == bk.load(model).feature_family_reasons_


@pytest.mark.parametrize("value", ["oops", "3.5", "1,234", "12%"])
def test_text_in_a_numeric_column_is_refused_in_the_users_words(value):
    """Text in a column that held numbers (a number written with a thousands separator or a
    percent sign, read as text) is refused naming the column, the row and the value; the
    message spoke of 'the auto family', a name the user never gave."""
    model = bk.MixedNB().fit(VISITS, Y)
    before = model.predict_joint_log_proba(VISITS)
    bad = pd.DataFrame({"x": pd.Series([0.5, value], dtype=object), "visits": [1, 2]})
    for call in (model.predict, lambda X: model.partial_fit(X, ["a", "b"])):
        with pytest.raises(DataError, match=r"column 0 \('x'\) holds .* at row 1") as refused:
            call(bad)
        assert "auto" not in str(refused.value)
        assert "held numbers in training" in str(refused.value)
    np.testing.assert_array_equal(model.predict_joint_log_proba(VISITS), before)


def test_train_says_when_numbers_written_for_people_become_categories(tmp_path):
    """A CSV's '1,234' (quoted) and '12%' are text to every CSV reader, so MixedNB makes each
    value a category: train said nothing, and the families line only showed 'categorical'.
    It now notes each such column with an example; plain numbers and words get no note."""
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    # amounts that repeat (a value in every row would read as a row ID), drawn apart from
    # the module's generator, whose state depends on the tests run before this one
    amount = np.random.default_rng(7).choice(np.arange(500, 5000, 100), N)
    table = pd.DataFrame(
        {
            "income": [f"{v:,}" for v in amount],
            "share": [f"{v % 100}%" for v in amount],
            "plain": amount,
            "city": np.where(Y == "a", "Oslo", "Lyon"),
            "label": Y,
        }
    )
    data = tmp_path / "written.csv"
    table.to_csv(data, index=False)
    out = tmp_path / "written.bkm"
    result = CliRunner().invoke(app, ["train", str(data), "-t", "label", "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    first = next(v for v in table["income"] if "," in v)
    assert (
        f"column 'income' holds numbers with thousands separators written as text ({first})"
    ) in result.stderr
    assert f"column 'share' holds percentages written as text ({table['share'][0]})" in (
        result.stderr
    )
    assert "'plain'" not in result.stderr
    assert "'city'" not in result.stderr
    assert bk.load(out).feature_families_["income"] == "categorical"
