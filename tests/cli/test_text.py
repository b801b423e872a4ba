"""The command line on text: the SMS Spam Collection (TSV), a 20 Newsgroups subset (a folder
per class) and SpamAssassin e-mails (ham/ and spam/ folders of raw messages)."""

from __future__ import annotations

import io
import json

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import StratifiedKFold

import bayeskit as bk
from bayeskit.io.documents import read_class_folders, read_documents
from bayeskit.text import SpamFilter, TextClassifier


def _sms(path):
    frame = pl.read_csv(path, separator="\t", quote_char=None)
    return frame.get_column("text").to_list(), frame.get_column("label").to_numpy()


def test_sms_trains_a_spam_filter_and_predicts_stdin(cli, sms_tsv, tmp_path):
    model_path = tmp_path / "sms.bk"
    result = cli("train", sms_tsv, "--target", "label", "-o", model_path)
    assert result.exit_code == 0, result.stderr
    assert "texts (column 'text'); classes: ham" in result.stdout
    assert "model: SpamFilter: words (counts) + MultinomialNB()" in result.stdout
    model = bk.load(model_path)
    texts, labels = _sms(sms_tsv)
    expected = SpamFilter.sklearn_defaults().fit(texts, labels)
    mail = ["WINNER!! Claim your free prize now, call 09061701461", "see you at lunch?", ""]
    got = cli("predict", model_path, "-", input="\n".join(mail) + "\n")
    assert got.exit_code == 0, got.stderr
    table = pl.read_csv(io.StringIO(got.stdout))
    assert table.columns == ["line", "label", "verdict", "p_ham", "p_spam"]
    assert table.get_column("line").to_list() == [1, 2, 3]
    assert table.get_column("label").to_list() == expected.predict(mail).tolist()
    assert table.get_column("verdict").to_list() == expected.classify(mail).tolist()
    np.testing.assert_allclose(
        table.select("p_ham", "p_spam").to_numpy(), model.predict_proba(mail), rtol=1e-12
    )


def test_sms_evaluate_matches_cross_validation_by_hand(cli, sms_tsv):
    result = cli("evaluate", sms_tsv, "-t", "label", "--cv", 3, "--json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    texts, labels = _sms(sms_tsv)
    docs = np.asarray(texts, dtype=object)
    proba = np.zeros((len(labels), 2))
    predicted = np.empty_like(labels)
    for train, test in StratifiedKFold(3, shuffle=True, random_state=0).split(docs, labels):
        model = SpamFilter.sklearn_defaults().fit(docs[train].tolist(), labels[train])
        proba[test] = model.predict_proba(docs[test].tolist())
        predicted[test] = model.predict(docs[test].tolist())
    assert found["accuracy"] == pytest.approx(accuracy_score(labels, predicted), abs=1e-12)
    assert found["log_loss"] == pytest.approx(log_loss(labels, proba), rel=1e-6)
    assert found["positive_class"] == "spam"
    assert found["roc_auc"] > 0.95
    assert found["model"] == "SpamFilter: words (counts) + MultinomialNB()"


def test_text_column_of_a_wider_table(cli, sms_tsv, tmp_path):
    texts, labels = _sms(sms_tsv)
    frame = pl.DataFrame({"id": range(len(texts)), "body": texts, "kind": labels})
    path = tmp_path / "wide.csv"
    frame.write_csv(path)
    result = cli(
        "train",
        path,
        "-t",
        "kind",
        "--text",
        "body",
        "--model",
        "bernoulli",
        "-o",
        tmp_path / "b.bk",
    )
    assert result.exit_code == 0, result.stderr
    assert "note: --text body: the other columns are not used (id)" in result.stderr
    model = bk.load(tmp_path / "b.bk")
    assert model.vectorizer.output == "binary"
    assert type(model.model).__name__ == "BernoulliNB"
    got = cli("predict", tmp_path / "b.bk", path, "--text", "body")
    assert got.exit_code == 0, got.stderr
    assert pl.read_csv(io.StringIO(got.stdout)).height == len(texts)


def test_newsgroups_folders_train_predict_and_test(cli, newsgroups, tmp_path):
    train, test = newsgroups
    model_path = tmp_path / "ng.bk"
    result = cli("train", train, "-o", model_path)
    assert result.exit_code == 0, result.stderr
    assert "75 documents; classes: comp.graphics 25, rec.autos 25, sci.space 25" in result.stdout
    model = bk.load(model_path)
    assert isinstance(model, TextClassifier)
    assert not isinstance(model, SpamFilter)
    docs = read_documents(test)
    got = cli("predict", model_path, test)
    assert got.exit_code == 0, got.stderr
    table = pl.read_csv(io.StringIO(got.stdout))
    assert table.get_column("document").to_list() == docs.names
    assert table.get_column("label").to_list() == model.predict(docs.docs).tolist()
    evaluated = cli("evaluate", train, "--test", test, "--json")
    assert evaluated.exit_code == 0, evaluated.stderr
    found = json.loads(evaluated.stdout)
    truth = read_class_folders(test).labels
    assert found["n"] == 30
    assert found["accuracy"] == pytest.approx(float((model.predict(docs.docs) == truth).mean()))
    inspected = cli("inspect", model_path, "--top", 3)
    assert "vocabulary:" in inspected.stdout
    assert "  sci.space: " in inspected.stdout


def test_spamassassin_mail_folders(cli, mail, tmp_path):
    model_path = tmp_path / "mail.bk"
    result = cli("train", mail, "-o", model_path)
    assert result.exit_code == 0, result.stderr
    assert "28 e-mails; classes: ham 16, spam 12" in result.stdout
    assert "SpamFilter: e-mail tokens (counts)" in result.stdout
    model = bk.load(model_path)
    messages = read_class_folders(mail).docs
    one = sorted((mail / "spam").iterdir())[0]
    got = cli("predict", model_path, one)
    assert got.exit_code == 0, got.stderr
    row = pl.read_csv(io.StringIO(got.stdout)).row(0, named=True)
    assert row["document"] == one.name
    assert row["p_spam"] == pytest.approx(model.predict_proba([messages[16]])[0, 1])
    explained = cli("explain", model_path, f"@{one}", "--json")
    assert explained.exit_code == 0, explained.stderr
    found = json.loads(explained.stdout)
    assert found["label"] == "spam"
    assert found["prior"] + sum(c["log_odds"] for c in found["contributions"]) == pytest.approx(
        found["log_odds"]
    )
    assert any(c["feature"].startswith("subject:") for c in found["contributions"])


def test_explain_text_reads_stdin_and_prints_the_terms(cli, sms_tsv, tmp_path):
    model_path = tmp_path / "sms.bk"
    assert cli("train", sms_tsv, "-t", "label", "-o", model_path).exit_code == 0
    result = cli("explain", model_path, "-", "--top", 3, input="Claim your FREE prize now")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("'spam' (P = ")
    assert "vs 'ham': log-odds +" in lines[0]
    assert lines[1].split()[0] == "(prior)"
    assert len(lines) == 6
    assert lines[-1].startswith("  … 2 more features, together +")


def test_merge_renames_class_folders(cli, newsgroups, tmp_path):
    train, test = newsgroups
    merges = ["--merge", "tech=comp.graphics,sci.space", "--merge", "cars=rec.autos"]
    result = cli("train", train, *merges, "-o", tmp_path / "m.bk")
    assert result.exit_code == 0, result.stderr
    assert "classes: cars 25, tech 50" in result.stdout
    assert bk.load(tmp_path / "m.bk").classes_.tolist() == ["cars", "tech"]
    evaluated = cli("evaluate", train, "--test", test, *merges, "--json")
    assert json.loads(evaluated.stdout)["per_class"]["tech"]["support"] == 20
    bad = cli("evaluate", train, "--merge", "x=nothing")
    assert bad.exit_code == 2
    assert "--merge x=nothing: no class 'nothing'; the classes are: comp.graphics" in bad.stderr
    everything = cli("evaluate", train, "--merge", "all=comp.graphics,rec.autos,sci.space")
    assert everything.exit_code == 2
    assert "after --merge every row has the class 'all'" in everything.stderr
