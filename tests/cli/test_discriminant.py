"""The command line and the report know discriminant analysis: --model lda|qda|rda, inspect
shows the class means (and LDA's discriminant weights), explain splits LDA's decisions, and
the report draws LDA's projection."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_breast_cancer, load_wine

import bayeskit as bk
from bayeskit.inspection import top_features
from bayeskit.report import build_report


@pytest.fixture(scope="module")
def wine_csv(tmp_path_factory) -> Path:
    data = load_wine(as_frame=True)
    frame = pl.from_pandas(data.frame.rename(columns={"od280/od315_of_diluted_wines": "od280"}))
    names = {0: "barolo", 1: "grignolino", 2: "barbera"}
    frame = frame.with_columns(pl.col("target").replace_strict(names, return_dtype=pl.String))
    path = tmp_path_factory.mktemp("wine") / "wine.csv"
    frame.write_csv(path)
    return path


def _table(path: Path) -> tuple[pl.DataFrame, np.ndarray]:
    frame = pl.read_csv(path)
    return frame.drop("target"), frame.get_column("target").to_numpy()


@pytest.mark.parametrize(
    ("choice", "cls"),
    [
        ("lda", bk.LinearDiscriminantAnalysis),
        ("qda", bk.QuadraticDiscriminantAnalysis),
        ("rda", bk.RegularizedDiscriminantAnalysis),
    ],
)
def test_train_each_model(cli, wine_csv, tmp_path, choice, cls):
    path = tmp_path / f"{choice}.bkm"
    result = cli("train", wine_csv, "--target", "target", "--model", choice, "-o", path)
    assert result.exit_code == 0, result.stderr
    assert f"model: {cls.__name__}()" in result.stdout
    assert "families: mvnormal (13)" in result.stdout
    model = bk.load(path)
    X, y = _table(wine_csv)
    np.testing.assert_array_equal(model.predict_proba(X), cls().fit(X, y).predict_proba(X))


def test_inspect_lda_shows_class_means_and_discriminant_weights(cli, wine_csv, tmp_path):
    path = tmp_path / "lda.bkm"
    cli("train", wine_csv, "--target", "target", "--model", "lda", "-o", path)
    out = cli("inspect", path, "--top", "3").stdout
    assert "class means (the 3 columns whose means differ most):" in out
    model = bk.load(path)
    columns = re.search(r"^\s+class\s+(.*)$", out, re.M).group(1).split()
    row = re.search(r"^\s+barolo\s+(.*)$", out, re.M).group(1).split()
    barolo = model.means_[list(model.classes_).index("barolo")]
    names = list(model.feature_names_in_)
    for column, shown in zip(columns, row, strict=True):
        assert float(shown) == pytest.approx(barolo[names.index(column)], rel=1e-3)
    assert "top features per class (log-odds one unit adds, vs the mean class):" in out
    expected = top_features(model, 3)["barolo"]
    line = next(s for s in out.splitlines() if s.strip().startswith("barolo:"))
    assert line.strip() == "barolo: " + ", ".join(f"{f} {w:+.2f}" for f, w in expected)
    data = json.loads(cli("inspect", path, "--json").stdout)
    assert data["class_means"]["barolo"]["alcohol"] == pytest.approx(barolo[0])
    assert len(data["top_features"]["barolo"]) == 10


def test_inspect_qda_has_no_linear_weights(cli, wine_csv, tmp_path):
    path = tmp_path / "qda.bkm"
    cli("train", wine_csv, "--target", "target", "--model", "qda", "-o", path)
    out = cli("inspect", path).stdout
    assert "class means" in out
    assert "top features: none, the decision is quadratic (a covariance per class)" in out


def test_explain(cli, wine_csv, tmp_path):
    X, _y = _table(wine_csv)
    row = ",".join(f"{c}={v}" for c, v in zip(X.columns, X.row(0), strict=True))
    lda = tmp_path / "lda.bkm"
    cli("train", wine_csv, "--target", "target", "--model", "lda", "-o", lda)
    result = cli("explain", lda, row, "--json")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    model = bk.load(lda)
    log_proba = model.predict_log_proba(X.head(1))[0]
    a, b = (list(model.classes_).index(out[k]) for k in ("label", "versus"))
    assert out["log_odds"] == pytest.approx(log_proba[a] - log_proba[b], rel=1e-9)
    total = out["prior"] + out["intercept"] + sum(c["log_odds"] for c in out["contributions"])
    assert total == pytest.approx(out["log_odds"], rel=1e-9)
    qda = tmp_path / "qda.bkm"
    cli("train", wine_csv, "--target", "target", "--model", "qda", "-o", qda)
    refused = cli("explain", qda, row)
    assert refused.exit_code == 2
    assert "not a sum of one term per feature" in refused.stderr


def test_missing_values_are_refused_by_column(cli, wine_csv, tmp_path):
    frame = pl.read_csv(wine_csv).with_columns(
        pl.when(pl.int_range(pl.len()) == 4).then(None).otherwise(pl.col("ash")).alias("ash")
    )
    holes = tmp_path / "holes.csv"
    frame.write_csv(holes)
    result = cli("train", holes, "--target", "target", "--model", "qda", "-o", tmp_path / "m.bkm")
    assert result.exit_code == 2
    assert "holes.csv, row 5: column 'ash' has a missing value" in result.stderr
    assert not (tmp_path / "m.bkm").exists()


def test_report_draws_the_projection(cli, wine_csv, tmp_path):
    page_path = tmp_path / "lda.html"
    result = cli("report", wine_csv, "--target", "target", "--model", "lda", "-o", page_path)
    assert result.exit_code == 0, result.stderr
    page = page_path.read_text()
    section = page[page.index('<section id="projection"') :]
    section = section[: section.index("</section>")]
    assert section.count("<circle") == 178  # every training row
    assert "discriminant axis 1 (" in section
    assert "axis 2 (" in section
    qda_page = tmp_path / "qda.html"
    cli("report", wine_csv, "--target", "target", "--model", "qda", "-o", qda_page)
    assert 'id="projection"' not in qda_page.read_text()


def test_projection_of_two_classes_is_one_axis_with_a_lane_per_class():
    X, y = load_breast_cancer(return_X_y=True)
    model = bk.LinearDiscriminantAnalysis().fit(X, y)
    page = build_report(
        title="bc",
        classes=model.classes_,
        y_true=y,
        proba=model.predict_proba(X),
        model=model,
        X=X,
        y=y,
    )
    section = page[page.index('<section id="projection"') :]
    section = section[: section.index("</section>")]
    assert section.count("<circle") == len(y)
    assert "Rows projected on the discriminant axis" in section
    # the dots of each class sit where the model puts them: class means apart on the axis
    Z = model.transform(X)[:, 0]
    assert abs(Z[y == 0].mean() - Z[y == 1].mean()) > 2 * Z[y == 0].std()
