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
from bayeskit.cli import streaming
from bayeskit.cli.data import ReadOptions
from bayeskit.cli.models import describe
from bayeskit.io.documents import read_class_folders, read_documents
from bayeskit.text import SpamFilter, TextClassifier, calibration

#: What ``bayeskit train`` builds for ham and spam texts: SpamFilter() (today "SpamFilter:
#: e-mail tokens or word 1-2-grams (counts) + MultinomialNB(alpha=0.3), calibrated").
CLI_MODEL = describe(SpamFilter())


def _sms(path):
    frame = pl.read_csv(path, separator="\t", quote_char=None)
    return frame.get_column("text").to_list(), frame.get_column("label").to_numpy()


def test_sms_trains_a_spam_filter_and_predicts_stdin(cli, sms_tsv, tmp_path):
    model_path = tmp_path / "sms.bk"
    result = cli("train", sms_tsv, "--target", "label", "-o", model_path)
    assert result.exit_code == 0, result.stderr
    assert "texts (column 'text'); classes: ham" in result.stdout
    assert f"model: {CLI_MODEL}" in result.stdout
    model = bk.load(model_path)
    texts, labels = _sms(sms_tsv)
    expected = SpamFilter().fit(texts, labels)  # one batch: the same calibration
    assert model.calibration_ == pytest.approx(expected.calibration_, rel=1e-12)
    np.testing.assert_array_equal(model.score_counts_, expected.score_counts_)
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
        model = SpamFilter().fit(docs[train].tolist(), labels[train])
        proba[test] = model.predict_proba(docs[test].tolist())
        predicted[test] = model.predict(docs[test].tolist())
    assert found["accuracy"] == pytest.approx(accuracy_score(labels, predicted), abs=1e-12)
    assert found["log_loss"] == pytest.approx(log_loss(labels, proba), rel=1e-6)
    assert found["positive_class"] == "spam"
    assert found["roc_auc"] > 0.95
    assert found["model"] == CLI_MODEL


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
    assert f"model: {describe(SpamFilter())}" in result.stdout
    assert "SpamFilter: e-mail tokens or word 1-2-grams (binary)" in result.stdout
    model = bk.load(model_path)
    folders = read_class_folders(mail)
    messages = folders.docs
    # the library builds the same filter from the same folder
    library = SpamFilter().fit(messages, folders.labels)
    np.testing.assert_array_equal(model.get_feature_names_out(), library.get_feature_names_out())
    np.testing.assert_allclose(model.spam_probability(messages), library.spam_probability(messages))
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
    model = bk.load(model_path)
    p_spam = model.spam_probability(["Claim your FREE prize now"])[0]
    # P is calibrated; the terms add up to the count model's log-odds
    assert lines[0].startswith(f"'spam' (P = {p_spam:.4f}, calibrated) vs 'ham': the model's")
    log_odds = float(lines[0].rsplit(" ", 1)[1])
    assert log_odds == pytest.approx(model.log_odds(["Claim your FREE prize now"])[0], abs=1e-3)
    assert lines[1].split()[0] == "(prior)"
    assert len(lines) == 6
    # the message's terms in the vocabulary (1-2-grams) beyond the top 3
    seen = model.transform(["Claim your FREE prize now"]).nnz
    assert lines[-1].startswith(f"  … {seen - 3} more features, together +")


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


@pytest.mark.parametrize("batch_size", [400, 1000])
def test_train_in_batches_calibrates_on_held_out_scores(cli, sms_tsv, tmp_path, batch_size):
    out = tmp_path / "sms.bk"
    args = ("train", sms_tsv, "-t", "label", "-o", out, "--batch-size", batch_size)
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    assert f"model: {CLI_MODEL}" in result.stdout
    model = bk.load(out)
    texts, labels = _sms(sms_tsv)
    # the count model is SpamFilter()'s on all the rows
    whole = SpamFilter().fit(texts, labels)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(texts), whole.predict_joint_log_proba(texts), rtol=1e-10
    )
    # 1,500 messages, fewer than the sample's 10,000: held-out scores of every one
    counts = model.held_out_score_counts(texts, labels)
    np.testing.assert_array_equal(model.score_counts_, counts)
    assert model.score_counts_.sum() == len(texts)
    assert model.calibration_ == calibration.fit_scale(counts)
    # near fit's scale: fit scores a held-out message over all its terms, the held-out
    # filter over those it knows (SpamFilter.held_out_score_counts); 0.17 at most here
    p_batches, p_fit = model.spam_probability(texts), whole.spam_probability(texts)
    assert np.abs(p_batches - p_fit).max() < 0.2
    assert (model.predict(texts) != whole.predict(texts)).sum() <= 2
    # a second file of other messages merges with it: the held-out counts add
    assert cli("train", sms_tsv, "-t", "label", "-o", tmp_path / "b.bk").exit_code == 0
    assert cli("merge", out, tmp_path / "b.bk", "-o", tmp_path / "ab.bk").exit_code == 0
    merged = bk.load(tmp_path / "ab.bk")
    np.testing.assert_array_equal(
        merged.score_counts_, model.score_counts_ + bk.load(tmp_path / "b.bk").score_counts_
    )


def test_the_calibration_sample_is_spread_evenly_whatever_the_batches(sms_tsv):
    texts, labels = _sms(sms_tsv)
    take = streaming.sample_rows(len(texts), 100)
    assert len(take) == 100
    assert take[0] == 7  # floor((k + 1/2) 1500 / 100)
    assert take[-1] == 1492
    np.testing.assert_array_equal(np.diff(take), 15)
    assert streaming.sample_rows(40, 100).tolist() == list(range(40))
    options = ReadOptions.of(None, False, None, None, None, None, None, None)
    for batch_size in (7, 400, None):
        data = streaming.open_data(str(sms_tsv), "label", None, options, batch_size)
        docs, ys = streaming.read_sample(data, take)
        assert docs == [texts[i] for i in take]
        assert ys.tolist() == labels[take].tolist()


def test_a_sample_calibrates_as_all_the_messages_do(shared_data):
    """The full SMS collection (5,574 messages): the scale from held-out scores of 4,000
    evenly spaced messages is within 0.06 in P(spam) of the one from all of them (0.050
    measured with SpamFilter()'s defaults of 2026-11-24, 0.021 with the ones before), and
    decides every message alike; 5,574 or more gives that scale exactly."""
    lines = (shared_data / "sms-spam-collection" / "SMSSpamCollection").read_text("utf-8")
    rows = [line.split("\t", 1) for line in lines.splitlines()]
    texts, labels = [t for _, t in rows], np.array([a for a, _ in rows])
    model = SpamFilter(calibration_folds=None).fit(texts, labels)
    scores = model.log_odds(texts)
    full = calibration.fit_scale(model.held_out_score_counts(texts, labels))
    p_full = calibration.calibrated(scores, full)
    for size, tolerance in ((len(texts), 0.0), (10_000, 0.0), (4000, 0.06)):
        take = streaming.sample_rows(len(texts), size)
        counts = model.held_out_score_counts([texts[i] for i in take], labels[take])
        assert counts.sum() == len(take)
        p = calibration.calibrated(scores, calibration.fit_scale(counts))
        assert np.abs(p - p_full).max() <= tolerance
        np.testing.assert_array_equal(p > 0.5, p_full > 0.5)


def test_the_model_line_names_the_term_weights():
    # The default TextClassifier weighs 2-grams and subject: tokens apart and reads the
    # subject line as text: the model line says so; a model without them says nothing more.
    from bayeskit.text import TextClassifier, TextVectorizer

    line = describe(TextClassifier())
    assert "(log-tf, unit length; 2-grams x0.7; subject: x1.5; subject line read as text)" in line
    plain = TextClassifier(
        vectorizer=TextVectorizer(output="tfidf", sublinear_tf=True, use_idf=False)
    )
    assert "(log-tf, unit length)" in describe(plain)
    assert "x1" not in describe(SpamFilter())
