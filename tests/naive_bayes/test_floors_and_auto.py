"""Per-column variance floors, and each numeric column's family chosen by held-out
log-likelihood (MixedNB's defaults)."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes as sk_nb
from sklearn.metrics import log_loss

import bayeskit as bk
from bayeskit.errors import DataError, ParameterError
from bayeskit.families import Auto, Gaussian, auto
from bayeskit.io import model_file


def _collapse_table(seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A strong predictor of variance ~1 beside a column in large units (variance ~1e10)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    strong = rng.normal(1.5 * y, 1.0)
    wide = rng.normal(5e5, 1e5, n)
    return np.column_stack([strong, wide]), y


def test_largest_floor_flattens_and_column_floor_does_not():
    X, y = _collapse_table(0, 600)
    Xt, yt = _collapse_table(1, 2000)
    sklearn = sk_nb.GaussianNB().fit(X, y)
    parity = bk.GaussianNB().fit(X, y)  # the default keeps scikit-learn's numbers
    np.testing.assert_allclose(parity.var_, sklearn.var_, rtol=1e-12)
    np.testing.assert_allclose(parity.predict_proba(Xt), sklearn.predict_proba(Xt), rtol=1e-9)
    assert parity.var_[0, 0] > 10  # the wide column's floor, 1e-9 × 1e10, swamps variance 1
    column = bk.GaussianNB(var_floor="column").fit(X, y)
    np.testing.assert_allclose(column.var_[:, 0], [X[y == c, 0].var() for c in (0, 1)], rtol=1e-6)
    np.testing.assert_allclose(column.epsilon_, 1e-9 * X.var(axis=0), rtol=1e-9)
    mixed = bk.MixedNB(numeric="gaussian").fit(pd.DataFrame(X, columns=["a", "b"]), y)
    np.testing.assert_allclose(
        mixed.predict_proba(pd.DataFrame(Xt, columns=["a", "b"])), column.predict_proba(Xt)
    )
    flat, sharp = log_loss(yt, parity.predict_proba(Xt)), log_loss(yt, column.predict_proba(Xt))
    assert sharp < flat - 0.05
    assert column.score(Xt, yt) > parity.score(Xt, yt) + 0.05


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    scale=st.floats(1e-6, 1e8),
    var_smoothing=st.sampled_from([1e-9, 1e-3, 0.5]),
)
def test_column_floor_follows_each_column_alone(seed, scale, var_smoothing):
    """With per-column floors, a column's units change nothing but its own numbers: rescaling
    it leaves every posterior the same, and the other columns' variances untouched."""
    rng = np.random.default_rng(seed)
    y = np.arange(40) % 3
    X = rng.normal(y[:, None] * 0.5, 1.0, size=(40, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    scaled = X * np.array([1.0, scale, 1.0])
    a = bk.GaussianNB(var_floor="column", var_smoothing=var_smoothing).fit(X, y)
    b = bk.GaussianNB(var_floor="column", var_smoothing=var_smoothing).fit(scaled, y)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(scaled), rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(a.var_[:, [0, 2]], b.var_[:, [0, 2]], rtol=1e-12)


def test_floor_settings_are_checked_and_constant_columns_floored():
    with pytest.raises(ParameterError, match=r"var_floor='widest' is not one of"):
        bk.GaussianNB(var_floor="widest").fit([[0.0], [1.0]], [0, 1])
    X = np.array([[1.0, 0.0, 5.0], [2.0, 0.0, 5.0], [3.0, 0.0, 5.0], [4.0, 0.0, 5.0]])
    model = bk.GaussianNB(var_floor="column").fit(X, [0, 0, 1, 1])
    # A constant column is floored by the size of its value (1 when it is 0): never 0.
    np.testing.assert_allclose(model.epsilon_, 1e-9 * np.array([1.25, 1.0, 25.0]))
    family = Gaussian(var_floor="column")
    assert family.config()["var_floor"] == "column"


# ---------------------------------------------------------------------- the held-out choice
def _table(seed: int, n: int = 300) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    normal = rng.normal(1.2 * y, 1.0)
    bimodal = np.where(rng.random(n) < 0.5, -3.0, 3.0) * (y == 0) + rng.normal(0, 0.4, n)
    counts = rng.poisson(1.0 + 2.0 * y).astype(np.int64)
    step = np.where(rng.random(n) < 0.9, y, 1 - y) * 10.0 + rng.random(n)
    noise = rng.normal(0, 1, n)
    noise[rng.random(n) < 0.2] = np.nan
    frame = pd.DataFrame(
        {"normal": normal, "bimodal": bimodal, "counts": counts, "step": step, "noise": noise}
    )
    return frame, y


def test_auto_choice_is_recorded_and_sensible():
    X, y = _table(0, 600)
    model = bk.MixedNB().fit(X, y)
    families = model.feature_families_
    assert families["bimodal"] == "kernel"  # two modes in one class: no Gaussian fits
    assert set(families.values()) <= {"gaussian", "kernel", "discretized", "poisson"}
    # Alone (the bimodal column no longer decides nearly every row), counts get a count family.
    alone = bk.MixedNB().fit(X[["counts"]], y).feature_families_
    assert alone["counts"] in {"poisson", "discretized"}
    params = model._fitted()[1][0]
    assert params.chosen == tuple(families[c] for c in X.columns)
    for j, family in enumerate(params.chosen):
        assert np.isfinite(params.scores[params.candidates.index(family), j])
    # Poisson is a candidate only for columns of non-negative integers.
    poisson = params.candidates.index("poisson")
    assert np.isneginf(params.scores[poisson, [0, 1, 3, 4]]).all()
    assert np.isfinite(params.scores[poisson, 2])


def test_auto_never_loses_much_to_one_family_on_held_out_rows():
    X, y = _table(1, 800)
    Xt, yt = _table(2, 2000)
    auto = log_loss(yt, bk.MixedNB().fit(X, y).predict_proba(Xt))
    for family in ("gaussian", "kernel", "discretized"):
        single = log_loss(yt, bk.MixedNB(numeric=family).fit(X, y).predict_proba(Xt))
        assert auto <= single + 0.02, family


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), batches=st.integers(2, 4))
def test_the_choice_depends_on_the_rows_not_their_order_or_batches(seed, batches):
    X, y = _table(seed, 120)
    order = np.random.default_rng(seed).permutation(len(y))
    whole = bk.MixedNB().fit(X, y)
    shuffled = bk.MixedNB().fit(X.iloc[order], y[order])
    streamed = bk.MixedNB()
    for part in np.array_split(order, batches):
        streamed.partial_fit(X.iloc[part], y[part])
    for other in (shuffled, streamed):
        assert other.feature_families_ == whole.feature_families_
        np.testing.assert_array_equal(other._fitted()[1][0].scores, whole._fitted()[1][0].scores)
        np.testing.assert_allclose(
            other.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-9, atol=1e-9
        )


def test_the_joint_choice_does_not_count_a_repeated_column_twice():
    """Two copies of a calibrated column: alone each is best with its sharp family, together
    the product is overconfident, so the joint choice gives one copy the neutral family."""
    from bayeskit.families.auto import choose, log_likelihood

    y = np.r_[np.zeros(50, int), np.ones(50, int)]
    right = np.r_[np.ones(40), np.zeros(10), np.ones(40), np.zeros(10)].astype(bool)
    said = np.where(right, y, 1 - y)
    sharp = np.log(np.where(np.eye(2)[said] > 0, 0.8, 0.2))[None]  # (1 column, n, K)
    weight = np.eye(2)[y].T
    prior = np.full((100, 2), np.log(0.5))
    neutral = np.zeros((2, 100, 2))
    parts = [np.concatenate([sharp, sharp]), neutral]
    choice, scores = choose(prior, parts, weight)
    assert (scores[0] > scores[1]).all()  # alone, the sharp family wins each column
    assert sorted(choice.tolist()) == [0, 1]  # together, one copy is enough
    both = log_likelihood(prior + 2 * sharp[0], weight)
    one = log_likelihood(prior + sharp[0], weight)
    assert one > both


def test_additive_candidates_use_total_minus_fold():
    """The Gaussian candidate's held-out score equals refitting on each training part."""
    from bayeskit.families.auto import _contributions, fold_of, held_out_prior, log_likelihood

    X, y = _table(3, 200)
    values = X.to_numpy(dtype=np.float64)
    weight = np.eye(2)[y].T
    fold = fold_of(values, weight, 5)
    family = Gaussian(var_floor="column")
    parts = _contributions(family, "gaussian", values, weight, fold, 5)
    prior = held_out_prior(weight, fold, 5)
    fast = np.array([log_likelihood(prior + parts[j], weight) for j in range(values.shape[1])])
    slow = np.zeros(values.shape[1])
    for f in range(5):
        train, test = fold != f, fold == f
        params = family.finalize(family.summarize(values[train], weight[:, train].T))
        count = weight[:, train].sum(axis=1)
        prior = np.log(count + 1) - np.log(count.sum() + 2)
        for j in range(values.shape[1]):
            one = np.full((test.sum(), values.shape[1]), np.nan)
            one[:, j] = values[test, j]  # missing values score 0: the prior alone
            joint = family.log_prob(params, one) + prior
            post = joint - np.logaddexp(joint[:, 0], joint[:, 1])[:, None]
            slow[j] += post[np.arange(test.sum()), y[test]].sum()
    np.testing.assert_allclose(fast, slow, rtol=1e-9)


def test_auto_settings_and_bad_input_are_named():
    X, y = _table(4, 100)
    model = bk.MixedNB(options={"auto": {"candidates": ["gaussian", "kernel"], "folds": 3}})
    assert set(model.fit(X, y).feature_families_.values()) <= {"gaussian", "kernel"}
    with pytest.raises(ParameterError, match=r"each must be one of"):
        bk.MixedNB(options={"auto": {"candidates": ["gaussian", "bogus"]}}).fit(X, y)
    with pytest.raises(ParameterError, match=r"folds must be an integer from 2 to 100"):
        bk.MixedNB(options={"auto": {"folds": 1}}).fit(X, y)
    with pytest.raises(ParameterError, match=r"one of gaussian, discretized or kernel"):
        bk.MixedNB(options={"auto": {"candidates": ["poisson"]}}).fit(X, y)
    X = X[["counts"]]
    counts = bk.MixedNB(options={"auto": {"candidates": ["poisson", "gaussian"]}}).fit(X, y)
    assert counts.feature_families_["counts"] == "poisson"
    bad = X.iloc[:3].copy()
    bad.loc[bad.index[1], "counts"] = -2
    with pytest.raises(DataError, match=r"'counts'\) holds -2 at row 1; the Poisson family"):
        counts.predict(bad)


def test_auto_family_summary_is_the_sample():
    X = np.array([[0.0], [1.0], [5.0], [6.0]])
    R = sp.csr_matrix(np.repeat(np.eye(2), 2, axis=0))
    family = Auto(folds=2)
    params = family.finalize(family.summarize(X, R))
    assert len(params.chosen) == 1
    assert family.log_prob(params, np.array([[np.nan]])).tolist() == [[0.0, 0.0]]


def test_model_file_keeps_the_choice(tmp_path):
    X, y = _table(5, 200)
    model = bk.MixedNB().fit(X, y)
    path = tmp_path / "mixed.bk"
    bk.save(model, path)
    loaded = bk.load(path)
    assert loaded.feature_families_ == model.feature_families_
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def _rewritten(path: Path, out: Path, change: Callable[[dict[str, Any]], Any]) -> Path:
    """``path``'s model file with its meta.json changed by ``change``, sealed again."""
    with zipfile.ZipFile(path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    meta = json.loads(entries.pop("meta.json"))
    del meta["checksum"]
    change(meta)
    with open(out, "w+b") as f:
        model_file._write_archive(f, meta, entries)
    return out


def test_a_model_file_stores_the_choice_and_load_does_not_make_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The load cross-validated every candidate again (many times the sample's memory, and
    # the time of the fit); the stored choice is taken for the statistics it was made from.
    X, y = _table(5, 200)
    model = bk.MixedNB().fit(X, y)
    path = tmp_path / "mixed.bkm"
    bk.save(model, path)
    older = _rewritten(path, tmp_path / "older.bkm", lambda meta: meta.pop("fitted"))
    choose = auto._cross_validated

    def refused(*args: Any) -> Any:
        raise AssertionError("the choice was made again")

    monkeypatch.setattr(auto, "_cross_validated", refused)
    loaded = bk.load(path)
    assert loaded.feature_families_ == model.feature_families_
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded._fitted()[1][0].scores, model._fitted()[1][0].scores)
    # other settings of the choice, or other statistics, choose again
    with pytest.raises(AssertionError, match="made again"):
        bk.load(older)
    with pytest.raises(AssertionError, match="made again"):
        loaded.set_params(options={"auto": {"folds": 3}})
    monkeypatch.setattr(auto, "_cross_validated", choose)
    loaded.set_params(options=None)  # (the refusal above left them set)
    # a file written before the choice was stored makes it again, as then
    np.testing.assert_array_equal(bk.load(older).predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(
        loaded.partial_fit(X[:30], y[:30]).predict_proba(X),
        model.partial_fit(X[:30], y[:30]).predict_proba(X),
    )
    three = bk.MixedNB(options={"auto": {"folds": 3}}).fit(X, y)
    again = bk.load(path).set_params(options={"auto": {"folds": 3}})
    np.testing.assert_array_equal(again.predict_proba(X), three.predict_proba(X))


def _choice(meta: dict[str, Any]) -> dict[str, Any]:
    """The stored choice of a MixedNB file's first "auto" block, as meta.json holds it
    (its values encoded: the list of family names is ``{"type": "list", "items": …}``)."""
    record = meta["fitted"]
    assert record["keys"]["values"] == [["str", "auto_choice"]]
    choice = record["items"][0]["items"][0]
    keys = [key for _, key in choice["keys"]["values"]]
    return dict(zip(keys, choice["items"], strict=True)) | {"_raw": choice}


def _set(choice: dict[str, Any], key: str, value: Any) -> None:
    raw = choice["_raw"]
    keys = [k for _, k in raw["keys"]["values"]]
    raw["items"][keys.index(key)] = value


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda c: c["chosen"]["items"].__setitem__(1, "gamma"), "names 'gamma', not one"),
        (lambda c: c["chosen"]["items"].pop(), "one family for each of the 5 columns"),
        # the Poisson family for a column of real numbers: the choice never gives it one
        (lambda c: c["chosen"]["items"].__setitem__(0, "poisson"), "column 0 the Poisson"),
        (lambda c: c["scores"].__setitem__("shape", [5, 4]), r"scores must be \(4, 5\) floats"),
        (lambda c: _set(c, "block", 1), "names block 1, whose family is 'categorical'"),
    ],
)
def test_a_stored_choice_the_fit_could_not_make_is_refused(
    tmp_path: Path, change: Callable[[dict[str, Any]], Any], message: str
) -> None:
    X, y = _table(5, 200)
    X["city"] = np.where(y == 0, "Lyon", "Oslo")
    path = tmp_path / "mixed.bkm"
    bk.save(bk.MixedNB().fit(X, y), path)
    bad = _rewritten(path, tmp_path / "bad.bkm", lambda meta: change(_choice(meta)))
    with pytest.raises(bk.errors.ModelFileError, match=message):
        bk.load(bad)
