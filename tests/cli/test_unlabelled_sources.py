"""``train --unlabeled SOURCE`` reads SOURCE's documents as DATA's are read: a table's text
column one per row, a text file one per line, an mbox one per message, a folder one per file;
an empty file or folder is refused by name, with what is accepted."""

from __future__ import annotations

import csv

import polars as pl
import pytest

import bayeskit as bk
from bayeskit.datasets import load_sms_spam

LABELLED, UNLABELLED = 300, 600


@pytest.fixture(scope="module")
def sms(tmp_path_factory):
    """A labelled table of SMS messages and the next messages as unlabelled sources: a table
    (an ID column beside the text), the same table with its labels, a file of lines."""
    texts, labels = load_sms_spam()
    # one line each (no message of the collection holds a line break; checked)
    assert not any("\n" in t or "\r" in t for t in texts[: LABELLED + UNLABELLED])
    folder = tmp_path_factory.mktemp("sms")
    rows = list(zip(labels, texts, strict=True))
    _write(folder / "labelled.csv", ["label", "text"], rows[:LABELLED])
    more = rows[LABELLED : LABELLED + UNLABELLED]
    _write(folder / "more.csv", ["id", "text"], [(i, t) for i, (_, t) in enumerate(more)])
    _write(folder / "more-labelled.csv", ["label", "text"], more)
    (folder / "more.txt").write_text("".join(f"{t}\n" for _, t in more), encoding="utf-8")
    return folder


def _write(path, header, rows) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([header, *rows])


def _train(cli, data, unlabelled, out, *extra):
    result = cli("train", data, *extra, "--unlabeled", unlabelled, "-o", out)
    assert result.exit_code == 0, result.stderr
    return result


def test_a_table_and_a_file_of_lines_give_one_document_a_row_or_line(cli, sms, tmp_path):
    data = sms / "labelled.csv"
    table = _train(cli, data, sms / "more.csv", tmp_path / "t.bkm", "-t", "label")
    assert f"unlabelled: {sms / 'more.csv'} — {UNLABELLED} texts (column 'text')" in table.stdout
    lines = _train(cli, data, sms / "more.txt", tmp_path / "l.bkm", "-t", "label")
    assert f"{UNLABELLED} documents, one per line, learnt from by EM" in lines.stdout
    # the same documents: the same model, byte for byte
    assert (tmp_path / "t.bkm").read_bytes() == (tmp_path / "l.bkm").read_bytes()
    model = bk.load(tmp_path / "t.bkm")
    assert model.class_count_.sum() == pytest.approx(LABELLED + UNLABELLED)
    pl.read_csv(sms / "more.csv").write_parquet(tmp_path / "more.parquet")
    _train(cli, data, tmp_path / "more.parquet", tmp_path / "p.bkm", "-t", "label")
    assert (tmp_path / "p.bkm").read_bytes() == (tmp_path / "t.bkm").read_bytes()
    # the labels of a table given as unlabelled are not read, and said so
    labelled = _train(cli, data, sms / "more-labelled.csv", tmp_path / "m.bkm", "-t", "label")
    assert "column 'label' (DATA's labels) is not read" in labelled.stderr
    assert (tmp_path / "m.bkm").read_bytes() == (tmp_path / "t.bkm").read_bytes()


def test_a_folder_of_class_folders_reads_them_alike(cli, sms, tmp_path):
    # EM by rounds over DATA's files, with the unlabelled documents of a table or lines
    texts, labels = load_sms_spam()
    data = tmp_path / "docs"
    for i, (label, text) in enumerate(zip(labels[:LABELLED], texts[:LABELLED], strict=True)):
        (data / label).mkdir(parents=True, exist_ok=True)
        (data / label / f"{i}.txt").write_text(text, encoding="utf-8")
    table = _train(cli, data, sms / "more.csv", tmp_path / "t.bkm", "--batch-size", 128)
    assert f"{UNLABELLED} texts (column 'text'), learnt from by EM" in table.stdout
    lines = _train(cli, data, sms / "more.txt", tmp_path / "l.bkm", "--batch-size", 128)
    assert f"{UNLABELLED} documents, one per line, learnt from by EM" in lines.stdout
    assert (tmp_path / "t.bkm").read_bytes() == (tmp_path / "l.bkm").read_bytes()
    assert bk.load(tmp_path / "t.bkm").class_count_.sum() == pytest.approx(LABELLED + UNLABELLED)


def test_an_mbox_gives_one_document_a_message(cli, sms, tmp_path):
    texts, _ = load_sms_spam()
    box = tmp_path / "inbox"  # no .mbox suffix: its From lines tell
    box.write_text(
        "".join(
            f"From friend{i}@example.org Thu Aug 22 12:36:23 2002\nFrom: friend{i}@example.org\n"
            f"Subject: note {i}\n\n{texts[LABELLED + i]}\n\n"
            for i in range(40)
        ),
        encoding="utf-8",
    )
    result = _train(cli, sms / "labelled.csv", box, tmp_path / "m.bkm", "-t", "label")
    assert "unlabelled: " in result.stdout
    assert "40 messages, learnt from by EM" in result.stdout


@pytest.mark.parametrize("content", ["", "\n  \n\t\n"])
@pytest.mark.parametrize("folder_data", [False, True])
def test_an_empty_file_is_refused_by_name(cli, sms, tmp_path, content, folder_data):
    empty = tmp_path / "more.txt"
    empty.write_text(content)
    if folder_data:
        data = tmp_path / "docs"
        for label in ("ham", "spam"):
            (data / label).mkdir(parents=True)
            (data / label / "1.txt").write_text(f"a {label} message")
        args = [data]
    else:
        args = [sms / "labelled.csv", "-t", "label"]
    result = cli("train", *args, "--unlabeled", empty, "-o", tmp_path / "m.bkm")
    assert result.exit_code == 2, (result.stdout, result.stderr)
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"bayeskit: error: {empty}: the file is ")
    assert "--unlabeled takes a folder of documents" in line
    assert "a text file with one document per line" in line
    assert not (tmp_path / "m.bkm").exists()


def test_sources_without_documents_are_refused(cli, sms, tmp_path):
    empties = tmp_path / "empties"
    empties.mkdir()
    for i in range(3):
        (empties / f"{i}.txt").write_bytes(b"")
    (tmp_path / "blank.csv").write_text('text\n""\n"  "\n')
    blanks = tmp_path / "blanks"
    blanks.mkdir()
    for i in range(3):
        (blanks / f"{i}.txt").write_bytes(b" \n\t\n" if i else b"")
    (tmp_path / "numbers.csv").write_text("a,b\n1,2\n3,4\n")
    (tmp_path / "two.csv").write_text(
        "subject,body\nlunch on friday at noon,see you there and bring the notes\n"
        "you won a prize today,call now to claim your free cash prize\n"
    )
    for source, says in (
        (empties, "every file in the folder is empty; --unlabeled takes"),
        (tmp_path / "blank.csv", "no document to learn from: its column 'text' holds no text"),
        (tmp_path / "two.csv", "which column holds the unlabelled texts? 2 columns hold free "
                               "text (subject, body); name it 'text', as in DATA, or keep only "
                               "that one (the columns are: subject, body)"),
        (tmp_path / "numbers.csv", "which column holds the unlabelled texts? none of its "
                                   "columns holds free text; name it 'text'"),
        (blanks, "every file in the folder is empty or blank (nothing but white space)"),
    ):  # fmt: skip
        result = cli(
            "train", sms / "labelled.csv", "-t", "label", "--unlabeled", source,
            "-o", tmp_path / "m.bkm",
        )  # fmt: skip
        assert result.exit_code == 2, (source, result.stdout, result.stderr)
        assert says in result.stderr, result.stderr
        assert not (tmp_path / "m.bkm").exists()
