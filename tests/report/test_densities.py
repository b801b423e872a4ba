"""Class-conditional densities read off a fitted model by leaving every other column missing,
and the ranking of features by how well each alone separates the classes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import integrate, stats
from sklearn import metrics
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

from bayeskit import CategoricalNB, MultinomialNB
from bayeskit.datasets.shared import load_spambase
from bayeskit.errors import ShapeError
from bayeskit.report import build_report, densities
from bayeskit.report.categories import category_columns
from bayeskit.report.densities import feature_densities, numeric_columns, rank_features

from ._dom import parse

GaussianNB = pytest.importorskip("bayeskit.naive_bayes.gaussian").GaussianNB
MixedNB = pytest.importorskip("bayeskit.naive_bayes.mixed").MixedNB
PoissonNB = pytest.importorskip("bayeskit.naive_bayes.poisson").PoissonNB


def separated(n=3000, seed=0):
    """Two equally likely classes; feature 0 apart by 3 sd, feature 1 by 0.5 sd, 2 noise."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n)
    b = (y == "b").astype(float)
    X = rng.normal(size=(n, 3)) + np.column_stack([3.0 * b, 0.5 * b, 0 * b])
    return X, y


def test_densities_are_the_models_gaussians():
    X, y = separated()
    model = GaussianNB().fit(X, y)
    ref = SkGaussianNB().fit(X, y)
    _, pictures = feature_densities(model, X, y)
    assert pictures
    for fd in pictures:
        j = fd.score.j
        for k in range(2):
            expected = stats.norm.pdf(fd.grid, ref.theta_[k, j], np.sqrt(ref.var_[k, j]))
            np.testing.assert_allclose(fd.density[k], expected, rtol=1e-7, atol=1e-300)


def test_the_same_densities_from_numpy_pandas_and_polars():
    X, y = separated(600)
    frame = pd.DataFrame(X, columns=["far", "near", "noise"])
    results = []
    for data in (X, frame, pl.from_pandas(frame)):
        scores, pictures = feature_densities(GaussianNB().fit(data, y), data, y)
        results.append(([s.j for s in scores], [fd.density for fd in pictures]))
    for order, dens in results[1:]:
        assert order == results[0][0]
        for a, b in zip(dens, results[0][1], strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_ranking_by_auc_matches_the_theory():
    X, y = separated()
    scores = rank_features(GaussianNB().fit(X, y), X, y)
    assert [s.j for s in scores] == [0, 1, 2]
    # two unit-variance normals d apart: AUC = Φ(d / √2)
    assert scores[0].auc == pytest.approx(stats.norm.cdf(3 / np.sqrt(2)), abs=0.01)
    assert scores[1].auc == pytest.approx(stats.norm.cdf(0.5 / np.sqrt(2)), abs=0.02)
    assert scores[2].auc == pytest.approx(0.5, abs=0.03)


def test_information_in_bits_matches_the_mutual_information():
    X, y = separated()
    best = rank_features(GaussianNB().fit(X, y), X, y)[0]

    def integrand(x):
        p0, p1 = stats.norm.pdf(x, 0, 1), stats.norm.pdf(x, 3, 1)
        mix = (p0 + p1) / 2
        return 0.5 * (p0 * np.log2(p0 / mix) + p1 * np.log2(p1 / mix))

    mutual_information = integrate.quad(integrand, -10, 13)[0]
    assert best.bits == pytest.approx(mutual_information, abs=0.04)


def test_auc_shown_for_spambase_is_the_single_feature_rule(shared_data):
    X, y, names = load_spambase(shared_data)
    X, y = X[::3], y[::3]  # every third message: fewer than RANK_ROWS, so every row is scored
    assert len(y) <= densities.rank_rows(X.shape[1])
    frame = pd.DataFrame(X, columns=names)
    model = GaussianNB().fit(frame, y)
    page = build_report(
        title="spambase",
        classes=model.classes_,
        y_true=y,
        proba=model.predict_proba(frame),
        model=model,
        X=frame,
        y=y,
    )
    section = parse(page).find("section", id="densities")
    panels = [s for s in section.find_all("svg") if s.attrs["aria-label"].startswith("Class-")]
    assert len(panels) == 6
    rows = section.find("table", class_="features").find_all("tr")[1:]
    assert len(rows) == 15
    ref = SkGaussianNB().fit(X, y)
    shown = []
    for row in rows:
        j = int(row.attrs["data-feature"])
        cells = {c.attrs.get("data-col"): c.text for c in row.children}
        assert row.children[0].text == names[j]
        llr = stats.norm.logpdf(X[:, j], ref.theta_[1, j], np.sqrt(ref.var_[1, j])) - (
            stats.norm.logpdf(X[:, j], ref.theta_[0, j], np.sqrt(ref.var_[0, j]))
        )
        assert float(cells["auc"]) == pytest.approx(metrics.roc_auc_score(y == 1, llr), abs=6e-4)
        shown.append(float(cells["auc"]))
    assert shown == sorted(shown, reverse=True)


def test_histograms_hold_each_class_share_inside_the_drawn_range():
    X, y = separated(800)
    X[::7, 0] = np.nan  # missing values are left out of the picture and the ranking
    model = GaussianNB().fit(X, y)
    scores, pictures = feature_densities(model, X, y)
    for fd in pictures:
        x = X[:, fd.score.j]
        assert fd.axis == "linear"
        for k, label in enumerate(model.classes_):
            v = x[(y == label) & np.isfinite(x)]
            inside = np.mean((v >= fd.edges[0]) & (v <= fd.edges[-1]))
            assert np.sum(fd.hist[k] * np.diff(fd.edges)) == pytest.approx(inside)
    means = pd.DataFrame({"x": X[:, 0], "y": y}).groupby("y")["x"].mean()
    np.testing.assert_allclose(next(s for s in scores if s.j == 0).means, means.to_numpy())


def test_a_long_tail_is_drawn_on_a_log_axis_with_the_jacobian():
    rng = np.random.default_rng(6)
    y = rng.choice(["a", "b"], 2000)
    X = np.column_stack([rng.lognormal(np.where(y == "b", 2.0, 0.5), 1.5), rng.normal(size=2000)])
    model = GaussianNB().fit(X, y)
    fd = next(fd for fd in feature_densities(model, X, y)[1] if fd.score.j == 0)
    assert fd.axis == "log1p"
    ref = SkGaussianNB().fit(X, y)
    top = np.expm1(fd.grid[-1])
    for k in range(2):
        mu, sd = ref.theta_[k, 0], np.sqrt(ref.var_[k, 0])
        # the drawn density integrates over log(1 + x) to the model's mass on [0, top]
        mass = stats.norm.cdf(top, mu, sd) - stats.norm.cdf(0, mu, sd)
        assert integrate.trapezoid(fd.density[k], fd.grid) == pytest.approx(mass, rel=1e-3)
        v = np.log1p(X[y == model.classes_[k], 0])
        share = np.mean(v <= fd.edges[-1])
        assert np.sum(fd.hist[k] * np.diff(fd.edges)) == pytest.approx(share)


def test_a_pmf_is_drawn_at_the_integers():
    rng = np.random.default_rng(2)
    y = rng.choice(["few", "many"], 500)
    X = rng.poisson(np.where(y == "many", 6.0, 2.0)[:, None] * [1.0, 1.0]).astype(float)
    model = PoissonNB().fit(X, y)
    _, pictures = feature_densities(model, X, y)
    fd = pictures[0]
    np.testing.assert_array_equal(fd.grid, np.arange(fd.grid[0], fd.grid[-1] + 1))
    assert fd.grid[0] >= 0
    rate = model.feature_rate_[:, fd.score.j]
    expected = stats.poisson.pmf(fd.grid[None, :], rate[:, None])
    np.testing.assert_allclose(fd.density, expected, rtol=1e-9)
    np.testing.assert_array_equal(np.diff(fd.edges), 1.0)  # one bar per count


def test_only_density_columns_of_a_mixed_table_are_drawn():
    rng = np.random.default_rng(4)
    y = rng.choice(["no", "yes"], 400)
    frame = pd.DataFrame(
        {
            "city": rng.choice(["Oslo", "Lyon"], 400),
            "age": rng.normal(40, 8, 400) + 8 * (y == "yes"),
            "owner": rng.choice([True, False], 400),
            "visits": rng.poisson(2 + 2 * (y == "yes")),
        }
    )
    model = MixedNB(integers="poisson", numeric="gaussian").fit(frame, y)
    assert numeric_columns(model, frame) == [1, 3]
    scores, pictures = feature_densities(model, frame, y)
    assert {(s.name, s.family) for s in scores} == {("age", "gaussian"), ("visits", "poisson")}
    assert len(pictures) == 2


def test_models_without_per_feature_densities_draw_nothing():
    rng = np.random.default_rng(5)
    counts = rng.poisson(2, size=(100, 4))
    y = rng.choice(["a", "b"], 100)
    assert feature_densities(MultinomialNB().fit(counts, y), counts, y) == ([], [])
    table = rng.choice(["u", "v"], size=(100, 3))
    assert feature_densities(CategoricalNB().fit(table, y), table, y) == ([], [])


def test_a_wide_table_is_screened_to_the_separating_features():
    rng = np.random.default_rng(7)
    y = rng.choice(["a", "b"], 1500)
    X = rng.normal(size=(1500, densities.MAX_RANKED + 40))
    X[:, 90] += 2.0 * (y == "b")
    X[:, 5] += 1.0 * (y == "b")
    X[::4, 90] = np.nan
    X[:, 30] = 1.0  # constant: no F statistic
    scores = rank_features(GaussianNB().fit(X, y), X, y)
    assert len(scores) == densities.MAX_RANKED
    assert [s.j for s in scores[:2]] == [90, 5]
    assert 30 not in {s.j for s in scores}


def test_training_data_of_the_wrong_length_is_refused():
    X, y = separated(100)
    model = GaussianNB().fit(X, y)
    with pytest.raises(ShapeError, match="X has 100 rows but y has 99 labels"):
        feature_densities(model, X, y[:99])


class _CountingFrame(pl.DataFrame):
    """A polars frame that counts how often its schema (rebuilt on every access) is read."""

    reads = 0

    @property
    def schema(self):  # type: ignore[override]
        type(self).reads += 1
        return super().schema


def test_a_wide_polars_frame_has_its_schema_read_a_few_times_not_once_per_column():
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b"], 120)
    X = _CountingFrame({f"f{j}": rng.normal(size=120) + (y == "a") * (j == 3) for j in range(150)})
    model = GaussianNB().fit(X, y)
    _CountingFrame.reads = 0
    scores, pictures = feature_densities(model, X, y)
    category_columns(model, X, y)
    assert scores[0].name == "f3"
    assert pictures
    assert _CountingFrame.reads <= 5  # once per column was 150 and more


def test_the_one_vs_rest_auc_of_many_classes_is_sklearns():
    rng = np.random.default_rng(4)
    K, n = 50, 400
    truth = np.arange(n) % K
    score = np.round(rng.dirichlet(np.ones(K), n), 2)  # coarse: many ties
    score /= score.sum(axis=1, keepdims=True)
    expected = metrics.roc_auc_score(truth, score, multi_class="ovr")
    assert densities.ovr_macro_auc(truth, score) == pytest.approx(expected, abs=1e-12)


def test_ranking_features_of_many_classes_makes_no_per_class_sklearn_loop(monkeypatch):
    rng = np.random.default_rng(5)
    K, n = 80, 800
    y = np.asarray([f"c{k}" for k in range(K)])[np.arange(n) % K]
    X = rng.normal(size=(n, 2)) + (np.arange(n) % K)[:, None] / 20
    model = GaussianNB().fit(X, y)
    calls = []
    real = metrics.roc_auc_score
    monkeypatch.setattr(
        densities.metrics, "roc_auc_score", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    scores = rank_features(model, X, y)
    assert len(scores) == 2
    assert calls == []
    assert all(0.5 < s.auc <= 1.0 for s in scores)
