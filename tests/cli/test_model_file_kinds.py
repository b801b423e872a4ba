"""Every model file bayeskit.save writes meets the commands that read classifiers with an
answer: a SemiSupervisedNB is inspected through its fitted model, a TextVectorizer (not a
classifier) is refused in one line (both ended in 'internal error')."""

from __future__ import annotations

import numpy as np

import bayeskit as bk
from bayeskit.text import TextVectorizer


def test_a_semi_supervised_model_is_inspected(cli, tmp_path):
    rng = np.random.RandomState(0)
    X = rng.randint(0, 5, (30, 4))
    y = np.array(["a", "b"] * 10 + [None] * 10, dtype=object)
    model = bk.SemiSupervisedNB(bk.MultinomialNB()).fit(X, y)
    bk.save(model, tmp_path / "semi.bk")
    result = cli("inspect", tmp_path / "semi.bk")
    assert result.exit_code == 0, result.output
    prior = np.exp(model.fitted_estimator().class_log_prior_)
    assert f"classes: a (prior {prior[0]:.3f}" in result.output
    assert "top features per class" in result.output


def test_a_vectorizer_file_is_refused_by_the_commands_that_read_classifiers(cli, tmp_path):
    bk.save(TextVectorizer().fit(["ball goal team", "code bug python"]), tmp_path / "tv.bk")
    (tmp_path / "doc.txt").write_text("ball goal\n")
    for args in (
        ("inspect", tmp_path / "tv.bk"),
        ("predict", tmp_path / "tv.bk", tmp_path / "doc.txt"),
    ):
        result = cli(*args)
        assert result.exit_code == 2, result.output
        assert "tv.bk: a TextVectorizer model file, not a classifier" in result.output
        assert "internal error" not in result.output


def test_cross_validation_of_one_row_per_class_says_what_can_work(cli, tmp_path):
    (tmp_path / "t.csv").write_text("a,b,label\n1,1.0,x\n2,1.0,y\n")
    for more in ((), ("--folds", "2")):
        result = cli("evaluate", tmp_path / "t.csv", "-t", "label", *more)
        assert result.exit_code == 2, result.output
        assert "needs a class of at least 2 rows" in result.output
        assert "or fewer" not in result.output
