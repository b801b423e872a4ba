"""``bayeskit merge`` accepts what Python's merge accepts and refuses what it refuses, by name:
hashed and fixed-vocabulary text models merge; semi-supervised models and a file given twice
are refused (exit code 2)."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.text import TextClassifier, TextVectorizer

TEXTS, LABELS = load_sms_spam()
TEXTS, LABELS = list(TEXTS[:1200]), np.asarray(LABELS[:1200])


@pytest.mark.parametrize(
    "vectorizer",
    [
        {"output": "hashed", "n_features": 2**10},
        {"output": "counts", "vocabulary": ["free", "call", "now", "ok", "home", "txt"]},
    ],
    ids=["hashed", "vocabulary"],
)
def test_text_models_python_merges_exactly_merge_as_files(cli, tmp_path, vectorizer):
    def make():
        return TextClassifier(vectorizer=TextVectorizer(**vectorizer), model=bk.MultinomialNB())

    a, b = make().fit(TEXTS[:500], LABELS[:500]), make().fit(TEXTS[500:1000], LABELS[500:1000])
    bk.save(a, tmp_path / "a.bk")
    bk.save(b, tmp_path / "b.bk")
    result = cli("merge", tmp_path / "a.bk", tmp_path / "b.bk", "-o", tmp_path / "ab.bk")
    assert result.exit_code == 0, result.stderr
    merged, whole = bk.load(tmp_path / "ab.bk"), make().fit(TEXTS[:1000], LABELS[:1000])
    np.testing.assert_allclose(
        merged.predict_joint_log_proba(TEXTS[1000:]),
        whole.predict_joint_log_proba(TEXTS[1000:]),
        rtol=1e-12,
    )


def test_tfidf_models_whose_idf_their_own_data_chose_are_still_refused(cli, tmp_path):
    def make():
        return TextClassifier(
            vectorizer=TextVectorizer(output="tfidf", use_idf=True), model=bk.MultinomialNB()
        )

    bk.save(make().fit(TEXTS[:500], LABELS[:500]), tmp_path / "a.bk")
    bk.save(make().fit(TEXTS[500:1000], LABELS[500:1000]), tmp_path / "b.bk")
    result = cli("merge", tmp_path / "a.bk", tmp_path / "b.bk", "-o", tmp_path / "ab.bk")
    assert result.exit_code == 2
    assert "cannot be merged: cannot merge models whose fits chose different" in result.stderr
    assert not (tmp_path / "ab.bk").exists()


def test_semi_supervised_files_are_refused_by_their_contract(cli, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.poisson(2, (60, 4))
    y = rng.choice(["a", "b"], 60).astype(object)
    y[::3] = -1
    for name, rows in (("a", slice(0, 30)), ("b", slice(30, 60))):
        model = bk.SemiSupervisedNB(estimator=bk.MultinomialNB()).fit(X[rows], y[rows])
        bk.save(model, tmp_path / f"{name}.bk")
    result = cli("merge", tmp_path / "a.bk", tmp_path / "b.bk", "-o", tmp_path / "ab.bk")
    assert result.exit_code == 2, result.stderr
    assert "internal error" not in result.stderr
    assert "SemiSupervisedNB cannot merge models of parts of its rows" in result.stderr
    assert "declares mergeable=False" in result.stderr


def test_one_file_given_twice_is_refused_by_any_path(cli, tmp_path, monkeypatch):
    X = np.random.default_rng(0).poisson(2, (40, 3))
    bk.save(bk.MultinomialNB().fit(X, np.repeat(["a", "b"], 20)), tmp_path / "x.bk")
    monkeypatch.chdir(tmp_path)
    for twice in (["x.bk", "x.bk"], ["x.bk", "./x.bk"], [str(tmp_path / "x.bk"), "x.bk"]):
        result = cli("merge", *twice, "-o", "xx.bk")
        assert result.exit_code == 2
        assert "are the same model file" in result.stderr
        assert "union of its rows with themselves is the model itself" in result.stderr
        assert not (tmp_path / "xx.bk").exists()
