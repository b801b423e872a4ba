"""Reading tables and document folders: every format, the real datasets, every bad input."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from bayeskit.datasets.shared import load_sms_collection, load_uci_table
from bayeskit.errors import DataError
from bayeskit.io.documents import is_email, read_class_folders, read_documents
from bayeskit.io.readers import ReadError, list_names, read_table, table_format
from bayeskit.io.target import split_target


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ formats
def test_every_table_format_reads_the_same_frame(tmp_path):
    frame = pl.DataFrame(
        {"colour": ["red", None, "blue"], "size": [1.5, 2.0, None], "ok": [True, False, True]}
    )
    frame.write_csv(tmp_path / "t.csv")
    frame.write_csv(tmp_path / "t.tsv", separator="\t")
    frame.write_ndjson(tmp_path / "t.jsonl")
    frame.write_parquet(tmp_path / "t.parquet")
    for name in ("t.csv", "t.tsv", "t.jsonl", "t.parquet"):
        got = read_table(tmp_path / name)
        assert got.columns == frame.columns, name
        assert got.get_column("colour").to_list() == ["red", None, "blue"], name
        assert got.get_column("size").to_list() == [1.5, 2.0, None], name
        assert got.get_column("ok").cast(pl.String).to_list() == ["true", "false", "true"], name


def test_format_comes_from_the_extension_or_is_given(tmp_path):
    assert table_format("a/b.CSV") == "csv"
    assert table_format("x.tab") == "tsv"
    assert table_format("x.ndjson") == "jsonl"
    assert table_format("x.pq") == "parquet"
    assert table_format("data", "tsv") == "tsv"
    path = _write(tmp_path / "table.txt", "a,b\n1,2\n3,4\n")
    assert read_table(path, format="csv").shape == (2, 2)


def test_tsv_has_no_quoting_and_csv_does(tmp_path):
    tsv = _write(tmp_path / "q.tsv", 'label\ttext\nham\tshe said "hi, you"\nspam\t"free"\n')
    assert read_table(tsv).get_column("text").to_list() == ['she said "hi, you"', '"free"']
    csv = _write(tmp_path / "q.csv", 'label,text\nham,"one, two"\nspam,"say ""hi"""\n')
    assert read_table(csv).get_column("text").to_list() == ["one, two", 'say "hi"']


def test_missing_markers_blank_lines_and_bom(tmp_path):
    path = tmp_path / "m.csv"
    path.write_bytes(b"\xef\xbb\xbfa,b\nx,?\n\n,y\n\n")
    frame = read_table(path, missing=["?"])
    assert frame.columns == ["a", "b"]
    assert frame.rows() == [("x", None), (None, "y")]


def test_headerless_files_get_names(tmp_path):
    path = _write(tmp_path / "h.csv", "e,x,s\np,b,y\n")
    assert read_table(path, header=False).columns == ["column_1", "column_2", "column_3"]
    named = read_table(path, columns=["class", "shape", "surface"])
    assert named.columns == ["class", "shape", "surface"]
    assert named.height == 2


def test_stdin_bytes_need_a_format():
    frame = read_table(b'{"a": 1}\n{"a": 2, "b": "x"}\n', format="jsonl")
    assert frame.rows() == [(1, None), (2, "x")]
    with pytest.raises(ReadError, match="name the format"):
        read_table(b"a,b\n1,2\n")


# ------------------------------------------------------------------ real data
def test_sms_collection_as_headerless_tsv(shared_data):
    path = shared_data / "sms-spam-collection" / "SMSSpamCollection"
    frame = read_table(path, format="tsv", columns=["label", "text"])
    texts, labels = load_sms_collection(shared_data)
    X, y = split_target(frame, "label", source=str(path))
    assert X.get_column("text").to_list() == texts
    np.testing.assert_array_equal(y, labels)


def test_mushroom_with_question_marks_as_missing(shared_data):
    path = shared_data / "uci-mushroom" / "agaricus-lepiota.data"
    frame = read_table(path, format="csv", header=False, missing=["?"])
    X_ref, y_ref = load_uci_table("mushroom", shared_data)
    assert frame.shape == (X_ref.shape[0], X_ref.shape[1] + 1)
    X, y = split_target(frame, "column_1", source=str(path))
    np.testing.assert_array_equal(y, y_ref)
    assert X.null_count().sum_horizontal().item() == int((X_ref == "?").sum())


def test_20newsgroups_folder_reads_as_text(shared_data, tmp_path):
    source = shared_data / "20newsgroups-bydate" / "20news-bydate-train"
    for group in ("sci.space", "rec.autos"):
        (tmp_path / group).mkdir()
        for file in sorted((source / group).iterdir())[:5]:
            shutil.copy(file, tmp_path / group / file.name)
    docs = read_class_folders(tmp_path)
    assert docs.kind == "text"
    assert docs.labels.tolist() == ["rec.autos"] * 5 + ["sci.space"] * 5
    first = sorted((source / "rec.autos").iterdir())[0]
    assert docs.docs[0] == first.read_bytes().decode("latin-1")
    assert docs.names[0] == f"rec.autos/{first.name}"


def test_spamassassin_folder_reads_as_email(shared_data, tmp_path):
    source = shared_data / "spamassassin-public-corpus"
    for label, folder in (("ham", "easy_ham"), ("spam", "spam")):
        (tmp_path / label).mkdir()
        for file in sorted((source / folder).iterdir())[:4]:
            shutil.copy(file, tmp_path / label / file.name)
    docs = read_class_folders(tmp_path)
    assert docs.kind == "email"
    assert docs.labels.tolist() == ["ham"] * 4 + ["spam"] * 4
    assert docs.docs[4].subject == "Life Insurance - Why Pay More?"
    unlabelled = read_documents(tmp_path / "spam")
    assert unlabelled.labels is None
    assert len(unlabelled.docs) == 4


def test_mbox_and_eml_files(tmp_path):
    (tmp_path / "ham").mkdir()
    (tmp_path / "spam").mkdir()
    (tmp_path / "ham" / "inbox").write_bytes(
        b"From a@b.org Mon Jan  1 00:00:00 2024\nSubject: lunch\n\nat noon\n\n"
        b"From c@d.org Tue Jan  2 00:00:00 2024\nSubject: meeting\n\n>From now on, Fridays\n"
    )
    (tmp_path / "spam" / "1.eml").write_bytes(b"Subject: WIN\n\ncash\n")
    docs = read_class_folders(tmp_path)
    assert docs.kind == "email"
    assert [m.subject for m in docs.docs] == ["lunch", "meeting", "WIN"]
    assert docs.names == ["ham/inbox#1", "ham/inbox#2", "spam/1.eml"]
    assert docs.labels.tolist() == ["ham", "ham", "spam"]


def test_email_detection_from_content():
    assert is_email(Path("x"), b"From a@b  Thu Aug 22 12:36:23 2002\nReturn-Path: <a@b>\n\nhi")
    assert is_email(Path("x"), b"Received: from x\nSubject: s\n\nbody")
    assert is_email(Path("note.eml"), b"hello")
    assert not is_email(Path("x"), b"From: a@b\nSubject: s\nLines: 3\n\nbody")  # a news post
    assert not is_email(Path("x"), b"just some text\nReceived: late\n")


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("a,b,c\n1,2,3\n4,5\n", r"r\.csv, line 3: 2 fields where the header has 3"),
        ("a,b,c\n1,2,3\n\n4,5,6,7\n", r"r\.csv, line 4: 4 fields where the header has 3.*quotes"),
        ('a,b\n1,"open\n', r"r\.csv, line \d: malformed CSV"),
        ("", r"r\.csv: the file is empty"),
        ("\n \n", r"r\.csv: the file is empty"),
        ("a,b\n", r"r\.csv: the file has a header but no rows"),
        ("a,,c\n1,2,3\n", r"r\.csv, line 1: column 2 has no name"),
        ("a,b,a\n1,2,3\n", r"r\.csv, line 1: the header names column 'a' twice"),
    ],
)
def test_bad_csv_names_the_line(tmp_path, content, match):
    path = _write(tmp_path / "r.csv", content)
    with pytest.raises(ReadError, match=match) as info:
        read_table(path)
    assert isinstance(info.value, DataError)
    assert "\n" not in str(info.value)


def test_bad_bytes_and_files(tmp_path):
    (tmp_path / "latin.csv").write_bytes(b"a,b\ncaf\xe9,1\n")
    with pytest.raises(ReadError, match=r"line 2: byte 0xe9 at column 4 is not UTF-8"):
        read_table(tmp_path / "latin.csv")
    _write(tmp_path / "bad.jsonl", '{"a": 1}\n\n{"a": 2,\n')
    with pytest.raises(ReadError, match=r"bad\.jsonl, line 3: not JSON"):
        read_table(tmp_path / "bad.jsonl")
    _write(tmp_path / "list.jsonl", '{"a": 1}\n[1, 2]\n')
    with pytest.raises(ReadError, match=r"line 2: a JSON list, not an object"):
        read_table(tmp_path / "list.jsonl")
    _write(tmp_path / "fake.parquet", "not parquet at all")
    with pytest.raises(ReadError, match="not a Parquet file"):
        read_table(tmp_path / "fake.parquet")
    with pytest.raises(ReadError, match=r"nothing\.csv: no such file or folder"):
        read_table(tmp_path / "nothing.csv")
    with pytest.raises(ReadError, match=r"unknown format \(extension '\.xlsx'\)"):
        read_table(_write(tmp_path / "sheet.xlsx", "a"))
    with pytest.raises(ReadError, match=r"unknown format \(no extension\)"):
        read_table(_write(tmp_path / "README", "a"))
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(ReadError, match="is a folder"):
        read_table(tmp_path / "dir.csv")


def test_target_problems_are_named(tmp_path):
    frame = read_table(_write(tmp_path / "t.csv", "x,y,label\n1,a,ham\n2,b,ham\n3,c,\n"))
    with pytest.raises(ReadError, match=r"no column 'Label'; .*: x, y, label$"):
        split_target(frame, "Label", source="t.csv")
    with pytest.raises(ReadError, match=r"row 3 has no value in the target column 'label'"):
        split_target(frame, "label", source="t.csv")
    with pytest.raises(ReadError, match=r"one class \('ham' in all 2 rows\)"):
        split_target(frame.head(2), "label", source="t.csv")
    with pytest.raises(ReadError, match="no column besides the target"):
        split_target(pl.DataFrame({"label": ["a", "b"]}), "label", source="t.csv")


def test_folder_problems_are_named(tmp_path):
    with pytest.raises(ReadError, match="no such file or folder"):
        read_class_folders(tmp_path / "absent")
    with pytest.raises(ReadError, match="no sub-folder"):
        read_class_folders(tmp_path)
    (tmp_path / "ham").mkdir()
    _write(tmp_path / "ham" / "1.txt", "hello")
    with pytest.raises(ReadError, match=r"one class folder \('ham'\)"):
        read_class_folders(tmp_path)
    (tmp_path / "spam").mkdir()
    with pytest.raises(ReadError, match="the class folder 'spam' holds no file"):
        read_class_folders(tmp_path)


def test_list_names_hides_two_or_more_and_never_just_one():
    names = [f"c{j}" for j in range(10)]
    assert list_names(names[:8], 8) == ", ".join(names[:8])
    assert list_names(names[:9], 8) == ", ".join(names[:9])  # one more: shown, not "1 more"
    assert list_names(names, 8) == ", ".join(names[:8]) + ", … (2 more)"
    assert list_names([], 8) == ""


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_lines_of_spaces_or_tabs_are_blank_lines_as_pandas_reads_them(tmp_path, ending):
    # polars read a line of spaces as a row whose first field is the spaces: the numeric
    # first column became text, and the row was refused as ragged ("1 field where the
    # header has 3"). pandas and R's read.csv skip it; a quoted field keeps its own.
    import pandas as pd

    lines = ["a,b,note", "1,2.5,x", "   ", "2,3.5,y", "\t", '3,4.5,"p', "  ", 'q"', " \t ", ""]
    path = tmp_path / "white.csv"
    path.write_bytes(ending.join(lines).encode())
    frame = read_table(path)
    assert frame.schema == {"a": pl.Int64, "b": pl.Float64, "note": pl.String}
    expected = pd.read_csv(path)
    assert frame.get_column("a").to_list() == expected["a"].tolist() == [1, 2, 3]
    assert frame.get_column("b").to_list() == expected["b"].tolist()
    assert frame.get_column("note").to_list() == ["x", "y", f"p{ending}  {ending}q"]
    tsv = tmp_path / "white.tsv"  # a tab-separated line of tabs is a row of empty fields
    tsv.write_text("a\tb\tlabel\n1\t2\tx\n\t\t\n3\t4\ty\n")
    assert read_table(tsv).rows() == [(1, 2, "x"), (None, None, None), (3, 4, "y")]


def test_a_lone_carriage_return_ends_a_line_as_pandas_reads_it(tmp_path):
    # A line pasted from a classic Mac OS file into one ended by "\n": polars refused the
    # file with its own message ("found more fields than defined in 'Schema'").
    import pandas as pd

    path = tmp_path / "mixed.csv"
    path.write_bytes(b'a,b,note\r\n1,2.5,x\r2,3.5,"y\rz"\n3,4.5,w\r\n4,5.5,v\r')
    frame = read_table(path)
    expected = pd.read_csv(path)
    assert frame.get_column("a").to_list() == expected["a"].tolist() == [1, 2, 3, 4]
    assert frame.get_column("b").to_list() == expected["b"].tolist()
    assert frame.get_column("note").to_list() == expected["note"].tolist()
    assert frame.get_column("note").to_list() == ["x", "y\rz", "w", "v"]
