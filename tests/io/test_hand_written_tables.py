"""Tables as people and spreadsheets write them. Fields padded with spaces (``a, b, label``)
read as R's ``read.csv`` reads them: `` 2`` is the number 2, `` NA`` among numbers is
missing, text keeps its spaces, and the names are the names without their spaces; lines
ended by a lone carriage return read as lines; a stray double quote is named by its line,
also one that polars reads without an error by taking the rows after it into one field."""

from __future__ import annotations

import csv
import re

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.datasets import load_sms_spam
from bayeskit.io.readers import ReadError, read_table
from bayeskit.io.stream import TableStream
from bayeskit.io.target import split_target

numbers = st.integers(-999, 999).map(lambda n: n / 8)
spaces = st.sampled_from(["", " ", "  ", "\t"])


def test_padded_numbers_names_and_markers(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a , b, c, d, label\n1.5, 2, NA ,x, p\n 2.5 ,3 , , y , q\n")
    frame = read_table(path)
    assert frame.columns == ["a", "b", "c", "d", "label"]
    assert frame.schema["a"] == pl.Float64
    assert frame.schema["b"] == pl.Int64
    assert frame.get_column("a").to_list() == [1.5, 2.5]
    assert frame.get_column("b").to_list() == [2, 3]
    assert frame.get_column("c").to_list() == [None, None]  # " NA " and " " are missing
    assert frame.get_column("d").to_list() == ["x", " y "]  # text as written
    assert split_target(frame, "label", source="t")[1].tolist() == ["p", "q"]


def test_padding_kept_off_what_is_not_a_number(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("id, code, label\n 12345678901234567890123, 1e3x, p\n 7, 2, q\n")
    frame = read_table(path)
    # digits beyond 64 bits stay the digits they were written with, as unpadded ones do
    assert frame.get_column("id").to_list() == ["12345678901234567890123", "7"]
    assert frame.get_column("code").to_list() == [" 1e3x", " 2"]  # text as written
    # a model's text columns stay text
    assert read_table(path, text_columns=["id"]).schema["id"] == pl.String
    unpadded = tmp_path / "u.csv"
    unpadded.write_text("id,label\n12345678901234567890123,p\n7,q\n")
    assert read_table(unpadded).schema["id"] == pl.String


def test_padded_decimal_commas(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a; b; label\n1,5; 2 ; x\n -2,25 ;3 ; y\n")
    frame = read_table(path)
    assert frame.get_column("a").to_list() == [1.5, -2.25]
    assert frame.get_column("b").to_list() == [2, 3]


def test_names_the_same_once_unpadded_are_refused(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a, a ,label\n1,2,x\n")
    with pytest.raises(ReadError, match="names column 'a' twice"):
        read_table(path)
    with pytest.raises(ReadError, match="names column 'a' twice"):
        TableStream(path, target="label")


@settings(max_examples=60, deadline=None)
@given(
    n_rows=st.integers(1, 8),
    separator=st.sampled_from([",", ";", "|"]),
    batch_size=st.integers(1, 4),
    data=st.data(),
)
def test_padding_never_changes_the_table(tmp_path_factory, n_rows, separator, batch_size, data):
    kinds = data.draw(st.lists(st.sampled_from(["number", "word", "missing"]), min_size=1,
                               max_size=4))  # fmt: skip
    words = st.sampled_from(["a", "b c", "NAx"])
    cells = {"number": numbers, "word": words, "missing": st.sampled_from(["NA", "", "3"])}
    columns = {
        f"c{j}": data.draw(st.lists(cells[kind], min_size=n_rows, max_size=n_rows))
        for j, kind in enumerate(kinds)
    }
    columns["label"] = data.draw(st.lists(st.sampled_from(["x", "y"]), min_size=n_rows,
                                          max_size=n_rows))  # fmt: skip

    def cell(value: object) -> str:
        text = repr(value) if isinstance(value, float) else str(value)
        return text.replace(".", ",") if separator == ";" and isinstance(value, float) else text

    kinds.append("word")  # the labels

    def table(pad: bool) -> bytes:
        def padded(text: str, kind: str = "name") -> str:
            # text keeps its spaces: only names, numbers and missing markers are padded
            if not pad or kind == "word":
                return text
            return data.draw(spaces) + text + data.draw(spaces)

        lines = [separator.join(padded(c) for c in columns)] + [
            separator.join(
                padded(cell(columns[c][i]), kind) for c, kind in zip(columns, kinds, strict=True)
            )
            for i in range(n_rows)
        ]
        return ("\n".join(lines) + "\n").encode()

    folder = tmp_path_factory.mktemp("padded")
    (folder / "plain.csv").write_bytes(table(pad=False))
    (folder / "padded.csv").write_bytes(table(pad=True))
    expected = read_table(folder / "plain.csv", separator=separator)
    got = read_table(folder / "padded.csv", separator=separator)
    assert got.schema == expected.schema
    assert got.equals(expected, null_equal=True)
    batches = list(TableStream(folder / "padded.csv", target="label", separator=separator,
                               batch_size=batch_size))  # fmt: skip
    streamed = pl.concat([b.X for b in batches])
    assert streamed.schema == expected.drop("label").schema
    assert streamed.equals(expected.drop("label"), null_equal=True)


@pytest.mark.parametrize("batch_size", [1, 3, 1000])
def test_lines_ended_by_a_lone_carriage_return(tmp_path, batch_size):
    """Classic Mac OS line ends (Excel for Mac's "CSV (Macintosh)"): the same table."""
    text = "a,b,label\n1,2.5,x\n3,,y\n5,6,x\n"
    (tmp_path / "unix.csv").write_text(text)
    (tmp_path / "mac.csv").write_bytes(text.replace("\n", "\r").encode())
    expected = read_table(tmp_path / "unix.csv")
    assert read_table(tmp_path / "mac.csv").equals(expected, null_equal=True)
    batches = list(TableStream(tmp_path / "mac.csv", target="label", batch_size=batch_size))
    streamed = pl.concat([b.X for b in batches])
    assert streamed.equals(expected.drop("label"), null_equal=True)
    (tmp_path / "ragged.csv").write_bytes(b"a,b,label\r1,2,x\r3,4\r")
    with pytest.raises(ReadError, match=r"ragged\.csv, line 3: 2 fields"):
        read_table(tmp_path / "ragged.csv")
    with pytest.raises(ReadError, match=r"ragged\.csv, line 3: 2 fields"):
        list(TableStream(tmp_path / "ragged.csv", target="label", batch_size=1))


@pytest.mark.parametrize("batch_size", [1, 1000])
def test_a_stray_quote_is_named_by_its_line(tmp_path, batch_size):
    path = tmp_path / "q.csv"
    path.write_text('h,w,label\n1,"two\nlines",x\n"a ""quoted"" word",3,y\n5,6"7,x\n')
    match = r'q\.csv, line 5: the field 6"7 holds a double quote but is not in double quotes; ' \
        r'write it quoted with its quote doubled \("6""7"\)'  # fmt: skip
    with pytest.raises(ReadError, match=match):
        read_table(path)
    with pytest.raises(ReadError, match=match):
        list(TableStream(path, target="label", batch_size=batch_size))
    path.write_text('h,w,label\n1,"two\nlines",x\n"a ""quoted"" word",3,y\n')
    assert read_table(path).get_column("h").to_list() == ["1", 'a "quoted" word']


def test_a_quoted_field_after_a_padding_space_is_named_with_its_fix(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('a, b, y\n1, "hello, world", x\n')
    with pytest.raises(ReadError, match=r'line 2: the field "hello has spaces before its opening'):
        read_table(path)


def test_padded_infinities_read_as_they_do_unpadded(tmp_path):
    (tmp_path / "p.csv").write_text("a,b,y\n inf,1,x\n3,4,z\n -inf ,2,x\n")
    (tmp_path / "u.csv").write_text("a,b,y\ninf,1,x\n3,4,z\n-inf,2,x\n")
    padded, unpadded = read_table(tmp_path / "p.csv"), read_table(tmp_path / "u.csv")
    assert padded.schema == unpadded.schema
    assert padded.equals(unpadded)


def _sms_rows(n: int) -> list[tuple[str, str]]:
    """The first ``n`` messages of the SMS Spam Collection with no comma, quote or line
    break in them (so a writer that quotes nothing still writes one field per message)."""
    texts, labels = load_sms_spam()
    rows = [(str(y), t) for y, t in zip(labels, texts, strict=True) if not set(t) & set(',"\r\n')]
    return rows[:n]


def _hand_written(rows: list[tuple[str, str]]) -> str:
    """label,text as an exporter that quotes nothing writes it."""
    return "label,text\n" + "".join(f"{label},{text}\n" for label, text in rows)


@pytest.mark.parametrize("block_bytes", [None, 2000])
def test_a_stray_quote_that_swallows_rows_is_named_by_its_line(tmp_path, monkeypatch, block_bytes):
    # quoted speech opened in one message and closed in another, 50 messages later: polars
    # and Python's csv alike read the lines between as one quoted field, without an error
    rows = _sms_rows(400)
    rows[239] = (rows[239][0], '"' + rows[239][1])  # file line 241
    rows[289] = (rows[289][0], rows[289][1] + '"')  # file line 291
    path = tmp_path / "sms.csv"
    path.write_text(_hand_written(rows), encoding="utf-8")
    assert pl.read_csv(path).height == 350  # what a reader that does not look makes of it
    column = len(rows[239][0]) + 2
    match = (
        rf"sms\.csv, line 241: the double quote at column {column} opens a field that ends only "
        r"on line 291, so lines 242-291 would be read into that one field, yet they look like rows "
        rf"of the table \(line 242: {rows[240][0]},{re.escape(rows[240][1][:20])}.*\); close the "
        r"quote on line 241, or, if it is part of the text, quote the whole field with that "
        rf'quote doubled \("""{re.escape(rows[239][1][1:20])}'
    )
    with pytest.raises(ReadError, match=match):
        read_table(path)
    if block_bytes is not None:  # read in blocks (the lines named are the file's)
        monkeypatch.setattr("bayeskit.io.stream._BLOCK_BYTES", block_bytes)
    with pytest.raises(ReadError, match=match):
        list(TableStream(path, target="label", batch_size=100))


def test_one_row_swallowed_by_a_stray_quote_is_named_too(tmp_path):
    rows = _sms_rows(30)
    rows[9] = (rows[9][0], '"' + rows[9][1])
    rows[10] = (rows[10][0], rows[10][1] + '"')
    path = tmp_path / "sms.csv"
    path.write_text(_hand_written(rows), encoding="utf-8")
    with pytest.raises(ReadError, match=r"line 11: .* ends only on line 12, so line 12 would be "
                       r"read into that one field, yet it looks like a row"):  # fmt: skip
        read_table(path)


def test_fields_that_hold_line_breaks_are_read_as_written(tmp_path):
    # a column of conversations, each several messages on lines of their own (some with a
    # comma: read alone they split in two, but their second part is no label)
    texts, labels = load_sms_spam()
    rows = [("\n".join(texts[i : i + 4]), str(labels[i])) for i in range(0, 400, 4)]
    path = tmp_path / "chats.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([("text", "label"), *rows])
    assert sum(t.count("\n") for t, _ in rows) > 200
    frame = read_table(path)
    assert frame.get_column("text").to_list() == [t for t, _ in rows]
    batches = list(TableStream(path, target="label", batch_size=30))
    assert sum(b.rows for b in batches) == len(rows)
