"""The command line knows the EM models: --model gmm|parzen, and --unlabeled documents."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_wine

import bayeskit as bk
from bayeskit.io.documents import read_class_folders
from bayeskit.text import TextClassifier


@pytest.fixture
def wine_csv(tmp_path):
    X, y = load_wine(return_X_y=True)
    frame = pl.DataFrame({f"f{j}": X[:, j] for j in range(X.shape[1])})
    path = tmp_path / "wine.csv"
    frame.with_columns(pl.Series("label", [f"c{v}" for v in y])).write_csv(path)
    return path, X, np.array([f"c{v}" for v in y])


@pytest.mark.parametrize(
    ("choice", "cls", "family"),
    [
        ("gmm", bk.GaussianMixtureClassifier, "gaussian_mixture"),
        ("parzen", bk.ParzenWindowClassifier, "parzen"),
    ],
)
def test_numeric_tables_train_mixtures_and_windows(cli, wine_csv, tmp_path, choice, cls, family):
    path, X, y = wine_csv
    out = tmp_path / f"{choice}.bkm"
    result = cli("train", path, "-t", "label", "-m", choice, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert f"families: {family} (13)" in result.stdout
    model = bk.load(out)
    assert type(model) is cls
    X = pl.read_csv(path).drop("label")  # the named columns the command trained on
    expected = cls(**({"random_state": 0} if choice == "gmm" else {})).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), rtol=1e-12)
    again = tmp_path / "again.bkm"
    assert cli("train", path, "-t", "label", "-m", choice, "-o", again).exit_code == 0
    np.testing.assert_array_equal(bk.load(again).predict_proba(X), model.predict_proba(X))
    predicted = cli("predict", out, path, "--ignore", "label")
    assert predicted.exit_code == 0, predicted.stderr


def test_unlabeled_documents_are_learnt_from(cli, newsgroups, shared_data, tmp_path):
    train, test = newsgroups
    unlabelled = tmp_path / "unlabelled"
    unlabelled.mkdir()
    base = shared_data / "20newsgroups-bydate" / "20news-bydate-train"
    for group in ("comp.graphics", "rec.autos", "sci.space"):  # posts the labels skipped
        for file in sorted(p for p in (base / group).iterdir() if p.is_file())[25:85]:
            (unlabelled / f"{group}-{file.name}").write_bytes(file.read_bytes())
    out = tmp_path / "semi.bkm"
    result = cli("train", train, "--unlabeled", unlabelled, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert "unlabelled: " in result.stdout
    assert "180 documents, learnt from by EM" in result.stdout
    model = bk.load(out)
    assert isinstance(model, TextClassifier)
    np.testing.assert_allclose(model.class_count_.sum(), 75 + 180)
    # beside scikit-learn's bag of words without the unlabelled documents (word counts +
    # MultinomialNB(); plain `train` now takes TextClassifier()'s defaults, another model)
    alone = tmp_path / "supervised.bkm"
    assert cli("train", train, "--model", "multinomial", "-o", alone).exit_code == 0
    supervised = bk.load(alone)
    held_out = read_class_folders(test)
    assert model.score(held_out.docs, held_out.labels) >= supervised.score(
        held_out.docs, held_out.labels
    )
    inspected = cli("inspect", out)
    assert inspected.exit_code == 0, inspected.stderr


def test_unlabeled_smooths_lightly_unless_told(cli, newsgroups, shared_data, tmp_path):
    """--unlabeled defaults --alpha to 0.1 (EM from a few labelled posts drifts at 1); an
    explicit --alpha wins."""
    train, _ = newsgroups
    unlabelled = tmp_path / "unlabelled"
    unlabelled.mkdir()
    base = shared_data / "20newsgroups-bydate" / "20news-bydate-train" / "sci.space"
    for file in sorted(p for p in base.iterdir() if p.is_file())[25:45]:
        (unlabelled / file.name).write_bytes(file.read_bytes())
    for given, expected in ((None, 0.1), ("1", 1.0)):
        out = tmp_path / f"semi-{given}.bkm"
        extra = () if given is None else ("--alpha", given)
        result = cli("train", train, "--unlabeled", unlabelled, *extra, "-o", out)
        assert result.exit_code == 0, result.stderr
        assert bk.load(out).model.alpha == expected


def test_unlabeled_needs_text(cli, wine_csv, tmp_path):
    path, _, _ = wine_csv
    other = tmp_path / "more-wine.csv"  # (DATA itself is refused as such: test_misuse)
    other.write_bytes(path.read_bytes())
    result = cli("train", path, "-t", "label", "--unlabeled", other, "-o", tmp_path / "m.bkm")
    assert result.exit_code == 2
    assert "--unlabeled reads documents for the text pipeline" in result.stderr


def test_gmm_reads_the_file_again_in_batches_at_every_iteration(cli, wine_csv, tmp_path):
    """EM over batches (one reduction per iteration) is EM in memory, to rounding."""
    path, _, y = wine_csv
    out = tmp_path / "gmm.bkm"
    result = cli("train", path, "-t", "label", "-m", "gmm", "-o", out, "--batch-size", 40)
    assert result.exit_code == 0, result.stderr
    assert "178 rows × 13 columns; classes: c0 59, c1 71, c2 48" in result.stdout
    model = bk.load(out)
    X = pl.read_csv(path).drop("label")
    expected = bk.GaussianMixtureClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.n_components_, expected.n_components_)
    np.testing.assert_array_equal(model.n_iter_, expected.n_iter_)
    np.testing.assert_allclose(model.lower_bound_, expected.lower_bound_, rtol=1e-10)
    for label in expected.classes_.tolist():
        np.testing.assert_allclose(model.means_[label], expected.means_[label], rtol=1e-10)
        np.testing.assert_allclose(
            model.covariances_[label], expected.covariances_[label], rtol=1e-10
        )


def test_unlabeled_on_a_cluster_writes_the_single_process_file(
    cli, newsgroups, shared_data, tmp_path
):
    train, _ = newsgroups
    unlabelled = tmp_path / "unlabelled"
    unlabelled.mkdir()
    base = shared_data / "20newsgroups-bydate" / "20news-bydate-train"
    for group in ("comp.graphics", "rec.autos", "sci.space"):
        for file in sorted(p for p in (base / group).iterdir() if p.is_file())[25:55]:
            (unlabelled / f"{group}-{file.name}").write_bytes(file.read_bytes())
    here, there = tmp_path / "here.bkm", tmp_path / "there.bkm"
    common = ("train", train, "--unlabeled", unlabelled, "--batch-size", 20)
    result = cli(*common, "-o", here)
    assert result.exit_code == 0, result.stderr
    assert "90 documents, learnt from by EM" in result.stdout
    assert "75 documents" in result.stdout  # the labelled ones
    result = cli(*common, "-o", there, "--workers", 2)
    assert result.exit_code == 0, result.stderr
    assert here.read_bytes() == there.read_bytes()
    model = bk.load(here)
    np.testing.assert_allclose(model.class_count_.sum(), 75 + 90)


def test_explain_says_which_decisions_it_splits_exactly(cli, tmp_path):
    rng = np.random.default_rng(0)
    X = pl.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    y = np.where(X["a"] + X["b"] > 0, "p", "q")
    gmm = tmp_path / "gmm.bkm"
    bk.save(bk.GaussianMixtureClassifier(n_components=2, random_state=0).fit(X, y), gmm)
    # a table model learned with unlabelled rows explains as the model it wraps
    semi = tmp_path / "semi.bkm"
    unlabelled = np.where(np.arange(200) % 4 == 0, y, None).astype(object)
    bk.save(bk.SemiSupervisedNB(bk.GaussianNB()).fit(X, unlabelled), semi)
    for path, exact in ((gmm, False), (semi, True)):
        result = cli("explain", path, "a=0.3,b=0.1", "--json")
        assert result.exit_code == 0, result.stderr
        found = json.loads(result.stdout)
        model = bk.load(path)
        jll = model.predict_joint_log_proba(pl.DataFrame({"a": [0.3], "b": [0.1]}))[0]
        assert found["log_odds"] == pytest.approx(jll[0] - jll[1])
        assert found["exact"] is exact
        terms = found["prior"] + sum(c["log_odds"] for c in found["contributions"])
        assert terms + found["interactions"] == pytest.approx(found["log_odds"])
        assert (terms == pytest.approx(found["log_odds"])) is exact


def test_inspect_shows_each_classes_components_covariance_and_bic(cli, tmp_path):
    """A mclust user reads per class the number of components, the covariance type and the
    BIC (Fraley & Raftery 2002). The model declares them (its contract's ``class_table``),
    and inspect names BIC's sign: scikit-learn's −2 ln L + p ln n, lower is better."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model = bk.GaussianMixtureClassifier(
        covariance_type="spherical", check_folds=None, random_state=0
    ).fit(X, np.array(["setosa", "versicolor", "virginica"])[y])
    path = tmp_path / "iris-gmm.bk"
    bk.save(model, path)
    table = model.components_table_
    shown = cli("inspect", path)
    assert shown.exit_code == 0, shown.stderr
    assert "BIC = −2 ln L + p ln n, lower is better" in shown.stdout
    for label, row in table.items():
        k = row["n_components"]
        assert row["bic"] == model.bic_[label][k] == min(model.bic_[label].values())
        line = next(s for s in shown.stdout.splitlines() if s.startswith(f"  {label}: "))
        assert f"{k} spherical component" in line
        assert f"BIC {row['bic']:.6g}" in line
    as_json = json.loads(cli("inspect", path, "--json").stdout)["per_class"]
    assert as_json["setosa"]["n_components"] == table["setosa"]["n_components"]
    assert as_json["virginica"]["bic"] == pytest.approx(table["virginica"]["bic"], rel=1e-12)
