"""The stray-quote check against tables written correctly: a field holding line breaks (RFC
4180), written by Python's ``csv`` module as spreadsheets write it, is read as written
whatever its column, its number of lines and the doubled quotes it holds; a stray quote
that swallows rows is still named, wherever its field is."""

from __future__ import annotations

import csv
import io

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.io.readers import ReadError, read_table
from bayeskit.io.stream import TableStream

ORDERS = [("text", "label", "n"), ("n", "text", "label"), ("label", "n", "text")]


def _rows(count: int) -> list[dict[str, object]]:
    return [
        {"text": f"message number {i} about lunch", "label": ("spam", "ham")[i % 3 == 0], "n": i}
        for i in range(count)
    ]


def _written(rows: list[dict[str, object]], order: tuple[str, ...]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(order)
    writer.writerows([[row[c] for c in order] for row in rows])
    return out.getvalue()


def _as_csv_reads(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))[1:]


def _texts_read(path, order) -> list[str]:
    frame = read_table(path)
    batches = list(TableStream(path, target="label", batch_size=7))
    streamed = pl.concat([b.X for b in batches], how="vertical")
    assert streamed.get_column("text").to_list() == frame.get_column("text").to_list()
    return frame.get_column("text").to_list()


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize(
    "text",
    [
        "first line\nsecond line",  # two lines: the commonest message with a line break
        'he said ""hi""\nthen left',  # doubled quotes before the line break
        'Dear John,\n\n"thanks", she wrote',
        "a\nb\nc\nd",
    ],
)
def test_a_field_with_line_breaks_written_by_csv_is_read_as_written(tmp_path, order, text):
    rows = _rows(40)
    rows[5]["text"] = text.replace('""', '"')
    rows[20]["text"] = "one\ntwo"
    path = tmp_path / "t.csv"
    written = _written(rows, order)
    path.write_text(written, encoding="utf-8")
    assert len(_as_csv_reads(written)) == 40
    assert _texts_read(path, order) == [r["text"] for r in rows]


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("swallowed", [1, 2, 9])
def test_a_stray_quote_is_named_in_any_column(tmp_path, order, swallowed):
    rows = _rows(40)
    rows[10]["text"] = '"' + str(rows[10]["text"])
    rows[10 + swallowed]["text"] = str(rows[10 + swallowed]["text"]) + '"'
    path = tmp_path / "t.csv"
    written = "\n".join(",".join(str(r[c]) for c in order) for r in rows)
    path.write_text(",".join(order) + "\n" + written + "\n", encoding="utf-8")
    assert len(_as_csv_reads(path.read_text())) == 40 - swallowed  # read silently short
    with pytest.raises(ReadError, match=rf"line 12: the double quote .* ends only on line "
                       rf"{12 + swallowed}"):  # fmt: skip
        read_table(path)


_TEXT = st.text(alphabet="abc '\",\n", max_size=30)


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(_TEXT, min_size=6, max_size=20),
    order=st.sampled_from(ORDERS),
)
def test_every_table_csv_writes_reads_back(tmp_path_factory, texts, order):
    # texts of letters, quotes, commas and line breaks (never a label or a number, so never
    # a row of the table of their own): what csv writes, read_table reads as csv reads it
    rows = _rows(len(texts))
    for row, text in zip(rows, texts, strict=True):
        row["text"] = text
    written = _written(rows, order)
    path = tmp_path_factory.mktemp("t") / "t.csv"
    path.write_text(written, encoding="utf-8")
    frame = read_table(path, text_columns=["text"])
    assert frame.height == len(_as_csv_reads(written)) == len(texts)
    got = [t or "" for t in frame.get_column("text").to_list()]
    assert got == [r[order.index("text")] for r in _as_csv_reads(written)]


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(20, 40),
    order=st.sampled_from(ORDERS),
    data=st.data(),
)
def test_a_stray_quote_never_loses_rows_silently(tmp_path_factory, n, order, data):
    # a quote opening a field of one row and another closing a field of a later row (of any
    # columns), in a table of rows one line each: read whole, or refused, never short
    rows = [[str(r[c]) for c in order] for r in _rows(n)]
    i = data.draw(st.integers(0, n - 2))
    j = data.draw(st.integers(i + 1, min(n - 1, i + 12)))
    opened, closed = data.draw(st.integers(0, 2)), data.draw(st.integers(0, 2))
    rows[i][opened] = '"' + rows[i][opened]
    rows[j][closed] += '"'
    path = tmp_path_factory.mktemp("t") / "t.csv"
    path.write_text(",".join(order) + "\n" + "".join(",".join(r) + "\n" for r in rows))
    try:
        frame = read_table(path)
    except ReadError:
        return
    assert frame.height == n
