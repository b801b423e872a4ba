"""MixedNB: families per column, chosen from the table's types or given, with missing values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

import bayeskit as bk
from bayeskit.errors import DataError, InputTypeError, MergeError, ParameterError, ShapeError
from bayeskit.families import Categorical

rng = np.random.default_rng(3)
N = 120
Y = np.array(["low", "mid", "high"])[rng.integers(0, 3, size=N)]
shift = (Y == "high") * 2.0 - (Y == "low")


def frame() -> pd.DataFrame:
    income = rng.normal(30 + 10 * shift, 5)
    income[rng.random(N) < 0.1] = np.nan
    kids = rng.poisson(1.0 + 0.5 * (Y == "low"))
    owner = pd.array(rng.random(N) < 0.3 + 0.3 * (Y == "high"), dtype="boolean")
    owner[rng.random(N) < 0.1] = pd.NA
    city = np.array(["Oslo", "Lyon", "Porto"], dtype=object)[rng.integers(0, 3, size=N)]
    city[rng.random(N) < 0.1] = None
    return pd.DataFrame(
        {
            "income": income,
            "kids": kids,
            "owner": owner,
            "city": city,
            "tier": pd.Categorical(np.where(shift > 0, "gold", "basic")),
        }
    )


DATA = frame()


def _polars(data: pd.DataFrame) -> pl.DataFrame:
    """The same table in polars, column by column (pl.from_pandas needs pyarrow for pandas'
    nullable and categorical columns), nulls as nulls."""
    columns = {}
    for name in data.columns:
        col = data[name]
        values = col.astype(object).where(col.notna(), None).tolist()
        if isinstance(col.dtype, pd.CategoricalDtype):
            columns[name] = pl.Series(name, values, dtype=pl.Categorical)
        elif pd.api.types.is_datetime64_any_dtype(col.dtype):
            columns[name] = pl.Series(name, col.to_numpy())
        else:
            columns[name] = pl.Series(name, values, strict=False)
    return pl.DataFrame(columns)


def test_auto_maps_column_types_to_families():
    model = bk.MixedNB(numeric="gaussian").fit(DATA, Y)
    assert model.feature_families_ == {
        "income": "gaussian",
        "kids": "gaussian",
        "owner": "bernoulli",
        "city": "categorical",
        "tier": "categorical",
    }
    counts = bk.MixedNB(integers="poisson", numeric="kernel").fit(DATA, Y)
    assert counts.feature_families_["kids"] == "poisson"
    assert counts.feature_families_["income"] == "kernel"


def test_polars_and_pandas_give_the_same_model():
    ours = bk.MixedNB().fit(DATA, Y)
    polars_frame = _polars(DATA)
    other = bk.MixedNB().fit(polars_frame, Y)
    assert other.feature_families_ == ours.feature_families_
    np.testing.assert_allclose(
        other.predict_joint_log_proba(polars_frame), ours.predict_joint_log_proba(DATA), rtol=1e-12
    )


def test_explicit_map_overrides_auto():
    model = bk.MixedNB(families={"kids": "categorical", "city": Categorical(alpha=0.1)}).fit(
        DATA, Y
    )
    assert model.feature_families_["kids"] == "categorical"
    assert model.feature_families_["income"] == "gaussian"
    # Columns with the same family but different settings are separate blocks.
    assert len(model.stats_.blocks) == 5 - 1


def test_each_block_is_the_single_family_model():
    """A MixedNB of one family is that family's estimator."""
    cats = DATA[["city", "tier"]]
    mixed = bk.MixedNB().fit(cats, Y)
    chosen = set(mixed.category_alpha_.values())  # one pseudo-count for the block
    assert len(chosen) == 1
    alone = bk.CategoricalNB(alpha=chosen.pop()).fit(cats, Y)
    np.testing.assert_allclose(
        mixed.predict_joint_log_proba(cats), alone.predict_joint_log_proba(cats), rtol=1e-12
    )
    alone = bk.CategoricalNB(alpha="auto").fit(cats, Y)  # the same choice
    np.testing.assert_allclose(
        mixed.predict_joint_log_proba(cats), alone.predict_joint_log_proba(cats), rtol=1e-12
    )
    numbers = DATA[["income"]].fillna(0.0).to_numpy()
    mixed = bk.MixedNB(numeric="gaussian").fit(numbers, Y)
    gaussian = bk.GaussianNB(var_floor="column").fit(numbers, Y)
    np.testing.assert_allclose(
        mixed.predict_joint_log_proba(numbers),
        gaussian.predict_joint_log_proba(numbers),
        rtol=1e-12,
    )


def test_categories_and_booleans_get_the_chosen_pseudo_count_unless_options_say():
    """MixedNB's categories and booleans get the pseudo-count chosen from the counts
    (``category_alpha_``, one of the candidates); ``options`` set Jeffreys' alpha = 1/2 or
    Laplace's alpha = 1 (Weka's) exactly."""
    from bayeskit.families._dirichlet import AUTO_ALPHAS

    table = DATA[["owner", "city", "tier"]]
    default = bk.MixedNB().fit(table, Y)
    assert set(default.category_alpha_) == {"owner", "city", "tier"}
    assert set(default.category_alpha_.values()) <= set(AUTO_ALPHAS)
    jeffreys = bk.MixedNB(options={"categorical": {"alpha": 0.5}, "bernoulli": {"alpha": 0.5}})
    laplace = bk.MixedNB(options={"categorical": {"alpha": 1.0}, "bernoulli": {"alpha": 1.0}})
    assert laplace.fit(table, Y).category_alpha_ == dict.fromkeys(table.columns, 1.0)
    cats = DATA[["city", "tier"]]
    for alpha, model in ((0.5, jeffreys), (1.0, laplace)):
        alone = bk.CategoricalNB(alpha=alpha).fit(cats, Y)
        np.testing.assert_allclose(
            model.fit(cats, Y).predict_joint_log_proba(cats),
            alone.predict_joint_log_proba(cats),
            rtol=1e-12,
        )
    # a category seen once in a class of n rows, with K categories: (1 + a) / (n + K a)
    city = DATA["city"].to_numpy()
    labels = np.asarray(Y)
    for alpha, model in ((0.5, jeffreys), (1.0, laplace)):
        fitted = model.fit(DATA[["city"]], Y)
        k = len(fitted.categories_["city"])
        for c, label in enumerate(fitted.classes_):
            rows = city[(labels == label) & pd.notna(city)]
            for value in fitted.categories_["city"]:
                expected = (np.sum(rows == value) + alpha) / (len(rows) + k * alpha)
                probe = pd.DataFrame({"city": [value]})
                joint = fitted.predict_joint_log_proba(probe)[0, c]
                assert joint - fitted.class_log_prior_[c] == pytest.approx(np.log(expected))


def test_missing_value_drops_the_column_and_all_missing_gets_the_prior():
    model = bk.MixedNB().fit(DATA, Y)
    others = [c for c in DATA.columns if c != "city"]
    without_city = bk.MixedNB().fit(DATA[others], Y)
    row = DATA.iloc[:5].copy()
    row["city"] = None
    np.testing.assert_allclose(
        model.predict_joint_log_proba(row),
        without_city.predict_joint_log_proba(row[others]),
        rtol=1e-12,
    )
    empty = pd.DataFrame({c: [None] for c in DATA.columns}).astype(
        {"income": float, "kids": float, "owner": "boolean"}
    )
    np.testing.assert_allclose(
        model.predict_proba(empty)[0], np.exp(model.class_log_prior_), rtol=1e-12
    )


def test_reordered_columns_are_matched_by_name():
    model = bk.MixedNB().fit(DATA, Y)
    shuffled = DATA[["tier", "city", "owner", "kids", "income"]]
    np.testing.assert_array_equal(model.predict_proba(shuffled), model.predict_proba(DATA))


def test_different_columns_at_predict_are_named():
    model = bk.MixedNB().fit(DATA, Y)
    renamed = DATA.rename(columns={"kids": "children"}).drop(columns="tier")
    with pytest.raises(ShapeError, match=r"missing \['kids', 'tier'\]; unexpected \['children'\]"):
        model.predict(renamed)


def test_a_column_no_family_takes_is_named_with_its_dtype():
    bad = DATA.assign(when=pd.to_datetime("2024-01-01") + pd.to_timedelta(np.arange(N), "D"))
    with pytest.raises(InputTypeError, match=r"'when'\) has dtype datetime64"):
        bk.MixedNB().fit(bad, Y)
    with pytest.raises(InputTypeError, match=r"'when'\) has dtype Date"):
        bk.MixedNB().fit(_polars(bad).with_columns(pl.col("when").dt.date()), Y)


def test_text_in_a_numeric_column_is_named():
    bad = DATA.astype({"income": object})
    bad.loc[7, "income"] = "n/a"
    with pytest.raises(DataError, match=r"'income'\) holds 'n/a' at row 7; the gaussian family"):
        bk.MixedNB(families={"income": "gaussian"}).fit(bad, Y)


def test_infinite_number_is_refused():
    bad = DATA.copy()
    bad.loc[4, "income"] = np.inf
    with pytest.raises(DataError, match=r"inf at row 4, column 0 \('income'\)"):
        bk.MixedNB().fit(bad, Y)


def test_bad_family_settings():
    with pytest.raises(ParameterError, match="'weird', which is not a family"):
        bk.MixedNB(families={"city": "weird"}).fit(DATA, Y)
    with pytest.raises(ParameterError, match=r"column 'nope' that is not in the data"):
        bk.MixedNB(families={"nope": "gaussian"}).fit(DATA, Y)
    with pytest.raises(ParameterError, match="not a family of real-valued columns"):
        bk.MixedNB(numeric="categorical").fit(DATA, Y)
    with pytest.raises(ParameterError, match='families must be "auto"'):
        bk.MixedNB(families="guess").fit(DATA, Y)


def test_numpy_object_array_with_positions():
    X = DATA.astype(object).where(DATA.notna(), None).to_numpy()
    model = bk.MixedNB(families={1: "poisson"}).fit(X, Y)
    assert model.feature_families_ == {
        "x0": "gaussian",
        "x1": "poisson",
        "x2": "bernoulli",
        "x3": "categorical",
        "x4": "categorical",
    }
    assert model.predict(X).shape == (N,)


def test_fit_partial_fit_merge_unlearn_and_save(tmp_path):
    whole = bk.MixedNB().fit(DATA, Y)
    online = bk.MixedNB()
    for start in range(0, N, 40):
        online.partial_fit(DATA.iloc[start : start + 40], Y[start : start + 40])
    np.testing.assert_allclose(
        online.predict_joint_log_proba(DATA), whole.predict_joint_log_proba(DATA), rtol=1e-10
    )
    merged = bk.MixedNB().fit(DATA.iloc[:50], Y[:50]) + bk.MixedNB().fit(DATA.iloc[50:], Y[50:])
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(DATA), whole.predict_joint_log_proba(DATA), rtol=1e-10
    )
    merged.unlearn(DATA.iloc[50:], Y[50:])
    first = bk.MixedNB().fit(DATA.iloc[:50], Y[:50])
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(DATA), first.predict_joint_log_proba(DATA), rtol=1e-9
    )
    configured = bk.MixedNB(
        families={"city": Categorical(alpha=0.3)}, options={"gaussian": {"var_smoothing": 1e-6}}
    ).fit(DATA, Y)
    bk.save(configured, tmp_path / "mixed.bk")
    again = bk.load(tmp_path / "mixed.bk")
    assert again.feature_families_ == configured.feature_families_
    np.testing.assert_array_equal(
        again.predict_joint_log_proba(DATA), configured.predict_joint_log_proba(DATA)
    )


def test_models_with_different_layouts_do_not_merge():
    a = bk.MixedNB().fit(DATA, Y)  # kids: integers, so gaussian
    b = bk.MixedNB().fit(DATA.astype({"kids": str}), Y)  # kids: text, so categorical
    with pytest.raises(MergeError, match="different families"):
        a + b


def test_options_change_a_fitted_model_without_refitting():
    model = bk.MixedNB().fit(DATA, Y)
    before = model.predict_joint_log_proba(DATA)
    model.set_params(options={"categorical": {"alpha": 5.0}})
    refit = bk.MixedNB(options={"categorical": {"alpha": 5.0}}).fit(DATA, Y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(DATA), refit.predict_joint_log_proba(DATA)
    )
    assert not np.allclose(before, refit.predict_joint_log_proba(DATA))


def test_real_mixed_table_of_email_metadata(shared_data):
    """Sizes, link counts, an HTML flag, charset, sender TLD, subject shape and hour of real
    e-mails (no words): auto families, missing charsets, and better than the majority."""
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    from bayeskit.text.email import iter_folder
    from bayeskit.text.email_table import email_table

    corpus = shared_data / "spamassassin-public-corpus"
    messages, labels = [], []
    for group in ["easy_ham", "spam"]:
        for k, (_, message) in enumerate(iter_folder(corpus / group)):
            if k == 400:
                break
            messages.append(message)
            labels.append(group)
    table = pd.DataFrame(email_table(messages))
    y = np.asarray(labels)
    assert table["charset"].isna().any()  # a real missing value: no declared charset
    model = bk.MixedNB(numeric="gaussian", integers="poisson")
    scores = cross_val_score(model, table, y, cv=StratifiedKFold(5, shuffle=True, random_state=0))
    assert scores.mean() > 0.8  # half the rows are spam: 0.5 is the majority rate
    fitted = model.fit(table, y)
    assert fitted.feature_families_ == {
        "body_chars": "gaussian",
        "urls": "poisson",
        "attachments": "poisson",
        "html": "bernoulli",
        "charset": "categorical",
        "sender_tld": "categorical",
        "subject_words": "poisson",
        "subject_caps": "gaussian",
        "exclamations": "poisson",
        "hour": "poisson",  # whole numbers and missing values (float64 in pandas): integers
    }


def test_votes_as_nullable_booleans_equal_categorical_votes(shared_data):
    """Congressional votes: y/n as True/False, '?' as missing. MixedNB gives each vote the
    Bernoulli family; with two values that is the categorical model, missing votes included."""
    from bayeskit.datasets.shared import load_uci_table

    X, y = load_uci_table("voting", shared_data)
    votes = pd.DataFrame(
        {f"vote{j}": pd.array(np.where(X[:, j] == "?", None, X[:, j] == "y"), dtype="boolean")
         for j in range(X.shape[1])}
    )  # fmt: skip
    assert votes.isna().to_numpy().sum() == 392  # the votes not cast
    mixed = bk.MixedNB().fit(votes, y)
    assert set(mixed.feature_families_.values()) == {"bernoulli"}
    # MixedNB smooths booleans and categories alike: the same counts, the same pseudo-count
    raw = np.where(X == "?", None, X).astype(object)
    chosen = bk.MixedNB().fit(raw, y).category_alpha_
    assert list(mixed.category_alpha_.values()) == list(chosen.values())
    categorical = bk.CategoricalNB(alpha=mixed.category_alpha_["vote0"]).fit(raw, y)
    np.testing.assert_allclose(
        mixed.predict_joint_log_proba(votes), categorical.predict_joint_log_proba(raw), rtol=1e-12
    )


def test_categories_of_the_categorical_columns():
    model = bk.MixedNB().fit(DATA, Y)
    assert set(model.categories_) == {"city", "tier"}
    assert model.categories_["city"].tolist() == ["Lyon", "Oslo", "Porto"]


def test_a_file_from_before_the_chosen_pseudo_count_loads_as_it_was_fitted(tmp_path: Path) -> None:
    """A MixedNB file stores the pseudo-count its categories were fitted with ("auto" now); a
    file written before it was stored (fitted with Laplace's alpha = 1), or with Jeffreys'
    alpha = 1/2 stored, loads as it was saved, not with today's default; a stored value that is
    neither "auto" nor a positive number is refused by name. (Categories only: such a file's
    Gaussian or "auto" columns are refused, tests/io/test_review_versions.py.)"""
    import json
    import zipfile

    from bayeskit.io import model_file

    table = DATA[["owner", "city"]]
    default = bk.MixedNB(numeric="gaussian").fit(table, Y)
    laplace = bk.MixedNB(
        numeric="gaussian", options={"categorical": {"alpha": 1.0}, "bernoulli": {"alpha": 1.0}}
    ).fit(table, Y)
    path = tmp_path / "now.bkm"
    bk.save(default, path)
    np.testing.assert_array_equal(bk.load(path).predict_proba(table), default.predict_proba(table))

    def rewrite(alpha: object, name: str) -> Path:
        """The file with its stored pseudo-count changed (None: removed), sealed again."""
        with zipfile.ZipFile(path) as zf:
            entries = {n: zf.read(n) for n in zf.namelist()}
        meta = json.loads(entries.pop("meta.json"))
        del meta["checksum"]
        state = meta["state"]
        keys = state["keys"]["values"]
        at = keys.index(["str", "category_alpha"])
        if alpha is None:  # as written before the field existed
            del keys[at], state["items"][at]
        else:
            state["items"][at] = alpha
        out = tmp_path / name
        with open(out, "w+b") as f:
            model_file._write_archive(f, meta, entries)
        return out

    jeffreys = bk.MixedNB(
        numeric="gaussian", options={"categorical": {"alpha": 0.5}, "bernoulli": {"alpha": 0.5}}
    ).fit(table, Y)
    loaded = bk.load(rewrite(0.5, "jeffreys.bkm"))
    assert set(loaded.category_alpha_.values()) == {0.5}
    np.testing.assert_allclose(
        loaded.predict_proba(table), jeffreys.predict_proba(table), rtol=1e-12, atol=0
    )
    old = bk.load(rewrite(None, "old.bkm"))
    np.testing.assert_allclose(
        old.predict_proba(table), laplace.predict_proba(table), rtol=1e-12, atol=0
    )
    assert set(old.category_alpha_.values()) == {1.0}
    # fitted with different pseudo-counts: their statistics would add, their models not
    with pytest.raises(bk.errors.MergeError, match=r"category_alpha: 1\.0 vs 'auto'"):
        bk.merge(old, default)
    for bad in (-1.0, "half", True):
        with pytest.raises(bk.errors.ModelFileError, match="category_alpha"):
            bk.load(rewrite(bad, "bad.bkm"))
