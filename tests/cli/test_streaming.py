"""``bayeskit train`` reads and learns in batches: the model is the one fitted on all the data
at once, whatever the batch size; progress shows as plain lines when stderr is not a terminal;
``bayeskit merge`` adds model files."""

from __future__ import annotations

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.io.documents import read_class_folders
from bayeskit.io.readers import read_table
from bayeskit.io.target import split_target
from bayeskit.text import SpamFilter


def _cli_spam_filter(**vectorizer):
    """The SpamFilter ``bayeskit train`` builds (SpamFilter()'s settings), uncalibrated."""
    return SpamFilter(
        vectorizer=SpamFilter.default_vectorizer().set_params(**vectorizer),
        model=SpamFilter.default_model(),
        calibration_folds=None,
    )


TABLE = (
    "age,owner,city,kids,label\n"
    "23.5,true,Oslo,1,rent\n41,,Lyon,2,buy\n,false,,0,rent\n35.25,true,Rome,,buy\n"
    "52,false,Lyon,3,buy\n29,true,Oslo,0,share\n61,,Rome,2,buy\n33,false,Oslo,1,rent\n"
    "47.5,true,,4,share\n38,false,Lyon,2,buy\n"
)


def _same_model(a, b, X):
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=1e-12)
    np.testing.assert_allclose(
        a.predict_joint_log_proba(X), b.predict_joint_log_proba(X), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("batch_size", [1, 3, 1000])
def test_a_table_in_batches_is_the_table_fitted_whole(cli, tmp_path, batch_size):
    data = tmp_path / "t.csv"
    data.write_text(TABLE)
    out = tmp_path / "m.bk"
    result = cli("train", data, "-t", "label", "-o", out, "--batch-size", batch_size)
    assert result.exit_code == 0, result.stderr
    assert "data: " in result.stdout
    assert "10 rows × 4 columns; classes: buy 5, rent 3, share 2" in result.stdout
    X, y = split_target(read_table(data), "label", source=str(data))
    whole = bk.MixedNB().fit(X, y)
    model = bk.load(out)
    assert model.feature_families_ == whole.feature_families_
    _same_model(model, whole, X)


@pytest.mark.parametrize("batch_size", [3, 1000])
def test_row_ids_and_separator_are_found_as_when_the_table_is_read_whole(cli, tmp_path, batch_size):
    """The columns are chosen from the first rows, whatever the batch size: an ID named like
    one, a different word in every row, whole numbers increasing down the file (the last two
    need 20 rows to tell); a ';' file with decimal commas is sniffed as when read whole."""
    rows = [
        f"{i};T{i:04d};{1000 + i};{i % 7},{i % 3}5;{['red', 'blue', 'green'][i % 3]};{'ab'[i % 2]}"
        for i in range(30)
    ]
    data = tmp_path / "t.csv"
    data.write_text("customer_id;ticket;row;x;colour;label\n" + "\n".join(rows) + "\n")
    out = tmp_path / "m.bk"
    result = cli("train", data, "-t", "label", "-o", out, "--batch-size", batch_size)
    assert result.exit_code == 0, result.stderr
    for name, reason in (
        ("customer_id", "named like an ID"),
        ("ticket", "a different value in every row"),
        ("row", "whole numbers increasing down the file"),
    ):
        assert f"note: column {name!r} looks like a row ID ({reason})" in result.stderr
    assert "30 rows × 2 columns; classes: a 15, b 15" in result.stdout
    model = bk.load(out)
    assert list(model.feature_names_in_) == ["x", "colour"]
    # x read as numbers (decimal commas); numeric="auto" picks its family.
    assert model.feature_families_ == {"x": "discretized", "colour": "categorical"}
    frame = read_table(data).drop("customer_id", "ticket", "row")
    X, y = split_target(frame, "label", source=str(data))
    _same_model(model, bk.MixedNB().fit(X, y), X)


def test_text_in_batches_and_the_classes_found_late(cli, tmp_path):
    rows = [("ham", "lunch at noon today"), ("ham", "see you at the office")] * 3
    rows += [("spam", "win free cash now"), ("spam", "claim your free prize")] * 2
    data = tmp_path / "sms.tsv"
    data.write_text("label\ttext\n" + "".join(f"{a}\t{b}\n" for a, b in rows))
    out = tmp_path / "m.bk"
    # (--text: four distinct texts in ten rows are not free text to the column sniffing)
    result = cli("train", data, "-t", "label", "--text", "text", "-o", out, "--batch-size", 2)
    assert result.exit_code == 0, result.stderr
    model = bk.load(out)
    assert isinstance(model, SpamFilter)  # the first batch held only ham
    texts, labels = [t for _, t in rows], np.array([a for a, _ in rows])
    # SpamFilter()'s vectorizer and model, as if the first batch had shown both classes: the
    # model is chosen from the labels of the table's first rows, not of its first batch
    assert model.vectorizer.get_params() == SpamFilter.default_vectorizer().get_params()
    assert model.model.get_params() == SpamFilter.default_model().get_params()
    whole = _cli_spam_filter().fit(texts, labels)
    _same_model(model, whole, texts)
    assert model.vocabulary_stats_.term_freq.tolist() == whole.vocabulary_stats_.term_freq.tolist()
    # calibrated on held-out scores of every message (fewer than the sample's 10,000)
    assert model.calibration_folds == 5
    assert model.score_counts_.sum() == len(texts)


def test_folders_with_mbox_files_in_batches(cli, tmp_path):
    root = tmp_path / "mail"
    (root / "ham").mkdir(parents=True)
    (root / "spam").mkdir()
    (root / "ham" / "inbox.mbox").write_bytes(
        b"From a@b Mon Jan  1 00:00:00 2024\nSubject: lunch\n\nsee you at noon\n\n"
        b"From c@d Mon Jan  1 00:00:00 2024\nSubject: report\n\nthe budget report\n"
    )
    for i, body in enumerate([b"win cash", b"free prize now", b"cheap cash offer"]):
        (root / "spam" / f"{i}.eml").write_bytes(b"Subject: offer\n\n" + body + b"\n")
    (root / "ham" / "z.eml").write_bytes(b"Subject: hi\n\nmeeting moved\n")
    out = tmp_path / "m.bk"
    result = cli("train", root, "-o", out, "--batch-size", 2)
    assert result.exit_code == 0, result.stderr
    assert "6 e-mails; classes: ham 3, spam 3" in result.stdout
    docs = read_class_folders(root)
    # the first batch (the mbox and z.eml) held only ham: SpamFilter()'s settings all the same
    whole = _cli_spam_filter().fit(docs.docs, docs.labels)
    _same_model(bk.load(out), whole, docs.docs)


def test_merge_of_classes_and_errors_in_later_batches(cli, tmp_path):
    data = tmp_path / "t.csv"
    data.write_text(TABLE)
    out = tmp_path / "m.bk"
    args = ["train", data, "-t", "label", "-o", out, "--batch-size", 2]
    result = cli(*args, "--merge", "other=rent,share")
    assert result.exit_code == 0, result.stderr
    assert bk.load(out).classes_.tolist() == ["buy", "other"]
    result = cli(*args, "--merge", "other=nothing")
    assert result.exit_code == 2
    assert "no class 'nothing'" in result.stderr
    unlabelled = tmp_path / "u.csv"
    unlabelled.write_text(TABLE.replace("share\n38", "\n38"))
    result = cli("train", unlabelled, "-t", "label", "-o", tmp_path / "u.bk", "--batch-size", 2)
    assert result.exit_code == 2
    assert "row 9 has no value in the target column 'label'" in result.stderr
    assert not (tmp_path / "u.bk").exists()


def test_progress_is_a_plain_line_off_a_terminal(cli, tmp_path, monkeypatch):
    data = tmp_path / "t.csv"
    data.write_text(TABLE)
    monkeypatch.setenv("BAYESKIT_PROGRESS_SECONDS", "0")
    result = cli("train", data, "-t", "label", "-o", tmp_path / "m.bk", "--batch-size", 4)
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("training: ")]
    assert lines[-1].startswith("training: 10 rows, ")
    assert " MB/s, " in lines[-1]
    assert "left" in lines[0]  # the file's size is known: the time left is estimated


def test_merge_command_adds_model_files(cli, tmp_path):
    texts = ["win cash now", "lunch at noon", "free prize", "see you at lunch"]
    labels = ["spam", "ham", "spam", "ham"]
    files = []
    for k in range(2):
        path = tmp_path / f"part{k}.tsv"
        rows = zip(labels[2 * k : 2 * k + 2], texts[2 * k : 2 * k + 2], strict=True)
        path.write_text("label\ttext\n" + "".join(f"{a}\t{b}\n" for a, b in rows))
        assert cli("train", path, "-t", "label", "-o", tmp_path / f"m{k}.bk").exit_code == 0
        files.append(tmp_path / f"m{k}.bk")
    result = cli("merge", *files, "-o", tmp_path / "all.bk")
    assert result.exit_code == 0, result.stderr
    assert "merged 2 models: classes ham 2, spam 2" in result.stdout
    _same_model(bk.load(tmp_path / "all.bk"), _cli_spam_filter().fit(texts, labels), texts)
    other = tmp_path / "other.bk"
    assert (
        cli("train", tmp_path / "part0.tsv", "-t", "label", "-o", other, "--alpha", 2).exit_code
        == 0
    )
    result = cli("merge", files[0], other, "-o", tmp_path / "x.bk")
    assert result.exit_code == 2
    assert f"different settings (model__alpha={SpamFilter.default_model().alpha} in" in (
        result.stderr
    )
    assert "but 2.0 in" in result.stderr
    assert not (tmp_path / "x.bk").exists()
    result = cli("merge", files[0], "-o", tmp_path / "x.bk")
    assert result.exit_code == 2
    assert "two or more model files" in result.stderr


def test_merge_refuses_to_replace_what_it_did_not_write(cli, tmp_path):
    """merge's output obeys train's rule: an existing model file is replaced; another file
    only with --force; one of the models merged never."""
    files = []
    for k, rows in enumerate((("spam", "win cash"), ("ham", "lunch at noon"))):
        path = tmp_path / f"p{k}.tsv"
        path.write_text("label\ttext\n" + "spam\tfree prize\nham\tsee you\n" + "\t".join(rows))
        assert cli("train", path, "-t", "label", "-o", tmp_path / f"m{k}.bk").exit_code == 0
        files.append(tmp_path / f"m{k}.bk")
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    refused = cli("merge", *files, "-o", notes)
    assert refused.exit_code == 2
    assert "the file exists and is not a bayeskit model file; pass --force" in refused.stderr
    assert notes.read_text() == "keep me"
    assert cli("merge", *files, "-o", notes, "--force").exit_code == 0
    assert cli("merge", *files, "-o", notes).exit_code == 0  # now a model file
    before = files[0].read_bytes()
    into_input = cli("merge", *files, "-o", files[0], "--force")
    assert into_input.exit_code == 2
    assert "is the input file" in into_input.stderr
    assert files[0].read_bytes() == before


def _wine_csv(path, rows=None):
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    rows = range(len(y)) if rows is None else rows
    header = ",".join([*(f"x{j}" for j in range(X.shape[1])), "label"])
    lines = [",".join(map(repr, X[i].tolist())) + f",c{y[i]}" for i in rows]
    path.write_text(header + "\n" + "\n".join(lines) + "\n")
    return split_target(read_table(path), "label", source=str(path))


@pytest.mark.parametrize("choice", ["lda", "qda", "rda"])
def test_discriminant_analysis_in_batches_is_fitted_whole(cli, tmp_path, choice):
    """Scatter matrices add: wine read 7 rows at a time (sorted by class: most batches hold
    one class) gives the model fitted on the whole table."""
    data = tmp_path / "wine.csv"
    X, y = _wine_csv(data)
    out = tmp_path / "m.bk"
    result = cli("train", data, "-t", "label", "--model", choice, "-o", out, "--batch-size", 7)
    assert result.exit_code == 0, result.stderr
    model = bk.load(out)
    whole = type(model)().fit(X, y)
    np.testing.assert_allclose(model.class_count_, whole.class_count_, rtol=1e-12)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X), whole.predict_joint_log_proba(X), rtol=1e-10, atol=1e-10
    )


@pytest.mark.parametrize("batch_size", [7, 1000])
def test_a_model_fit_refuses_is_refused_in_batches_too(cli, tmp_path, batch_size):
    """QDA with a class of 3 rows for 13 columns: fit refuses it (a singular covariance);
    so does training in batches, naming the class, and no file is written."""
    data = tmp_path / "few.csv"
    X, y = _wine_csv(data, [*range(60), 130, 140, 150])  # classes c0: 59, c1: 1, c2: 3 rows
    with pytest.raises(bk.errors.SingularCovarianceError) as fit:
        bk.QuadraticDiscriminantAnalysis().fit(X, y)
    out = tmp_path / "m.bk"
    result = cli(
        "train", data, "-t", "label", "--model", "qda", "-o", out, "--batch-size", batch_size
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("bayeskit: error: ")
    assert str(fit.value).split(":")[0] in result.stderr
    assert not out.exists()


def _capped_by_hand(rows, batch_size, max_terms):
    """What --max-terms promises, counted in plain Python: after every batch, when more than
    ``max_terms`` terms were seen, keep the ``max_terms`` found in the most documents (ties:
    alphabetical order); a dropped term's counts are gone."""
    from collections import Counter

    from sklearn.feature_extraction.text import CountVectorizer

    tokens = CountVectorizer().build_analyzer()
    df, tf, by_class = Counter(), Counter(), {}
    for start in range(0, len(rows), batch_size):
        for label, text in rows[start : start + batch_size]:
            words = tokens(text)
            df.update(set(words))
            tf.update(words)
            by_class.setdefault(label, Counter()).update(words)
        if len(df) > max_terms:
            for term in sorted(df, key=lambda t: (-df[t], t))[max_terms:]:
                del df[term], tf[term]
                for counts in by_class.values():
                    counts.pop(term, None)
    return df, tf, by_class


@pytest.mark.parametrize(("batch_size", "max_terms"), [(7, 12), (7, 30), (50, 5), (1, 3)])
def test_max_terms_keeps_the_terms_in_the_most_documents(cli, tmp_path, batch_size, max_terms):
    rng = np.random.default_rng(batch_size * max_terms)
    words = [f"w{i:02d}" for i in range(40)]
    rows = []
    for i in range(50):
        label = "ab"[i % 2]
        picks = rng.zipf(1.5, size=rng.integers(2, 8)) % 40 + (i % 2)
        rows.append((label, " ".join(words[j % 40] for j in picks)))
    data = tmp_path / "t.tsv"
    data.write_text("label\ttext\n" + "".join(f"{a}\t{b}\n" for a, b in rows))
    out = tmp_path / "m.bk"
    args = ("train", data, "-t", "label", "--text", "text", "-o", out, "-m", "multinomial")
    result = cli(*args, "--batch-size", batch_size, "--max-terms", max_terms)
    assert result.exit_code == 0, result.stderr
    model = bk.load(out)
    df, tf, by_class = _capped_by_hand(rows, batch_size, max_terms)
    vocab = model.vocabulary_stats_
    assert len(vocab) == max_terms
    assert vocab.terms.tolist() == sorted(df)
    assert vocab.doc_freq.tolist() == [df[t] for t in sorted(df)]
    assert vocab.term_freq.tolist() == [tf[t] for t in sorted(df)]
    assert vocab.n_docs == len(rows)  # documents are never dropped, only terms
    counts = model.stats_.blocks[0].keyed.block.total
    for k, label in enumerate(model.classes_):
        assert counts[k].tolist() == [by_class[label][t] for t in sorted(df)]
    np.testing.assert_array_equal(model.class_count_, [25, 25])
    # the same data and settings give the same model again
    again = tmp_path / "again.bk"
    assert cli(*args[:-4], "-o", again, "-m", "multinomial", "--batch-size", batch_size,
               "--max-terms", max_terms).exit_code == 0  # fmt: skip
    np.testing.assert_array_equal(bk.load(again).stats_.blocks[0].keyed.block.total, counts)


def test_max_terms_above_the_vocabulary_changes_nothing(cli, tmp_path):
    rows = [("ham", "lunch at noon today"), ("spam", "win free cash now")] * 5
    data = tmp_path / "t.tsv"
    data.write_text("label\ttext\n" + "".join(f"{a}\t{b}\n" for a, b in rows))
    texts, labels = [t for _, t in rows], np.array([a for a, _ in rows])
    whole = _cli_spam_filter().fit(texts, labels)  # 1-2-grams: 14 terms
    assert len(whole.vocabulary_stats_) == 14
    for max_terms, capped in ((14, False), (13, True)):
        out = tmp_path / f"m{max_terms}.bk"
        args = ("train", data, "-t", "label", "--text", "text", "-o", out, "--batch-size", 3)
        assert cli(*args, "--max-terms", max_terms).exit_code == 0
        model = bk.load(out)
        if capped:
            # after each batch the fewest documents, then the alphabetical order, drop 'win
            # free' (back in every batch, dropped again each time: never more than 2
            # documents); the others keep every count
            terms = whole.vocabulary_stats_.terms.tolist()
            assert model.vocabulary_stats_.terms.tolist() == terms[:13]
            assert terms[13] == "win free"
            kept = model.vocabulary_stats_.term_freq
            np.testing.assert_array_equal(kept, whole.vocabulary_stats_.term_freq[:13])
            assert model.calibration_folds == 5  # the held-out scores of a capped model
            assert model.score_counts_.sum() == len(texts)
            continue
        _same_model(model, whole, texts)
        assert model.vocabulary_stats_.terms.tolist() == whole.vocabulary_stats_.terms.tolist()


def test_max_terms_refuses_what_is_not_a_count(cli, tmp_path):
    data = tmp_path / "t.tsv"
    data.write_text("label\ttext\nham\tlunch\nspam\tcash\n")
    result = cli("train", data, "-t", "label", "-o", tmp_path / "m.bk", "--max-terms", 0)
    assert result.exit_code == 2
    assert "--max-terms" in result.stderr
    assert not (tmp_path / "m.bk").exists()
