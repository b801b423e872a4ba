"""Two defects of real files, read whole and in batches alike: a header line repeated among
the rows (two CSV files joined with ``cat``) is refused naming its line, where it was read as
a row that turned every numeric column into text; and a column with no value in any row reads
as numbers, as ``pandas.read_csv`` reads it, so the command line's ``MixedNB`` gives it the
family the same frame gets in Python."""

from __future__ import annotations

import codecs

import numpy as np
import polars as pl
import pytest

from bayeskit.errors import ReadError
from bayeskit.io.readers import read_table
from bayeskit.io.stream import TableStream

# airquality's first rows, as R's write.csv writes them (NA for missing, quoted names)
HEADER = '"Ozone","Solar.R","Wind","Temp","Month","Day"'
ROWS = [
    "41,190,7.4,67,5,1",
    "36,118,8,72,5,2",
    "12,149,12.6,74,5,3",
    "18,313,11.5,62,5,4",
    "NA,NA,14.3,56,5,5",
    "28,NA,14.9,66,5,6",
    "23,299,8.6,65,6,7",
    "19,99,13.8,59,6,8",
]


def _read_both(path, **options):
    whole = read_table(path, **options)
    streamed = pl.concat([b.X for b in TableStream(path, target="Month", batch_size=3)])
    return whole, streamed


@pytest.mark.parametrize(
    ("prefix", "line_end"), [(b"", b"\n"), (codecs.BOM_UTF8, b"\n"), (b"", b"\r\n")]
)
def test_a_header_repeated_among_the_rows_is_named_by_its_line(tmp_path, prefix, line_end):
    part = prefix + line_end.join(s.encode() for s in [HEADER, *ROWS[:4]]) + line_end
    path = tmp_path / "joined.csv"
    path.write_bytes(part + part)  # cat a.csv a.csv: the second header is line 6
    with pytest.raises(ReadError, match=r"joined\.csv, line 6: repeats the header line") as whole:
        read_table(path)
    assert whole.value.line == 6
    with pytest.raises(ReadError, match=r"line 6: repeats the header line"):
        list(TableStream(path, target="Month", batch_size=2))


def test_a_header_repeated_as_the_last_line_is_named_too(tmp_path):
    path = tmp_path / "tail.csv"
    path.write_text("\n".join([HEADER, *ROWS, HEADER]) + "\n")
    with pytest.raises(ReadError, match=r"line 10: repeats the header line"):
        read_table(path)


def test_a_row_that_holds_a_column_name_is_not_a_header(tmp_path):
    # one value equal to a name, or a one-column file of words, is data
    path = tmp_path / "names.csv"
    path.write_text("a,b,y\nb,a,y\nx,y,n\na,b,y2\n")
    assert read_table(path).height == 3
    single = tmp_path / "one.csv"
    single.write_text("word\nword\nother\n")
    assert read_table(single).height == 2


def test_a_column_with_no_value_reads_as_numbers_as_pandas_reads_it(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text(
        "Ozone,Wind,Note,Month\n"
        + "\n".join(
            f"{r.split(',')[0]},,{'NA' if i % 2 else ''},{r.split(',')[4]}"
            for i, r in enumerate(ROWS)
        )
        + "\n"
    )
    whole, streamed = _read_both(path)
    assert whole.schema["Wind"] == pl.Float64
    assert whole.schema["Note"] == pl.Float64
    assert streamed.schema == whole.drop("Month").schema
    assert streamed.equals(whole.drop("Month"), null_equal=True)
    # a model's string categories stay text, whatever the file holds
    assert read_table(path, text_columns=["Wind"]).schema["Wind"] == pl.String


def test_python_and_the_reader_give_an_empty_column_one_family(tmp_path):
    pd = pytest.importorskip("pandas")
    from bayeskit import MixedNB

    rng = np.random.default_rng(0)
    n = 60
    y = np.repeat(["a", "b"], n // 2)
    frame = pd.DataFrame({"x": rng.normal(size=n) + (y == "b"), "gone": np.nan, "y": y})
    path = tmp_path / "gone.csv"
    frame.to_csv(path, index=False)  # the empty column is written as empty fields
    from_pandas = pd.read_csv(path)
    python = MixedNB().fit(from_pandas.drop(columns="y"), from_pandas["y"])
    table = read_table(path)
    read = MixedNB().fit(table.drop("y"), table.get_column("y").to_numpy())
    assert read.feature_families_ == python.feature_families_
    assert read.feature_families_["gone"] != "categorical"
    np.testing.assert_allclose(
        read.predict_proba(table.drop("y")), python.predict_proba(from_pandas.drop(columns="y")),
        rtol=0, atol=1e-12,
    )  # fmt: skip


# mtcars's first rows as R's write.csv writes them: row names under an empty name
MTCARS = [
    '"","mpg","cyl","am"',
    '"Mazda RX4",21,6,1',
    '"Mazda RX4 Wag",21,6,1',
    '"Datsun 710",22.8,4,1',
    '"Hornet 4 Drive",21.4,6,0',
    '"Valiant",18.1,6,0',
]


def test_the_unnamed_first_column_is_read_as_row_names(tmp_path):
    path = tmp_path / "mtcars.csv"
    path.write_text("\n".join(MTCARS) + "\n")
    frame = read_table(path)
    assert frame.columns == ["row_names", "mpg", "cyl", "am"]
    assert frame.get_column("row_names").to_list()[:2] == ["Mazda RX4", "Mazda RX4 Wag"]
    stream = TableStream(path, target="am", batch_size=2)
    assert list(stream.schema) == ["row_names", "mpg", "cyl"]
    # pandas' to_csv writes its index so
    index = tmp_path / "index.csv"
    index.write_text(",a,y\n0,1.5,p\n1,2.5,q\n")
    assert read_table(index).columns == ["row_names", "a", "y"]


@pytest.mark.parametrize(("separator", "suffix"), [(",", "csv"), ("\t", "tsv"), (";", "csv")])
@pytest.mark.parametrize("prefix", ["", "\ufeff", "\n\n"], ids=["plain", "BOM", "blank lines"])
def test_r_write_table_row_names_read_as_write_csv_writes_them(tmp_path, separator, suffix, prefix):
    # R's write.table(mtcars, sep=...): the header has no name over the row names (R's
    # read.table(header = TRUE) takes the first column for them then)
    r_table = [MTCARS[0].removeprefix('"",'), *MTCARS[1:]]
    path = tmp_path / f"table.{suffix}"
    path.write_text(prefix + "\n".join(r.replace(",", separator) for r in r_table) + "\n")
    write_csv = tmp_path / "write_csv.csv"
    write_csv.write_text("\n".join(MTCARS) + "\n")
    expected = read_table(write_csv)
    assert expected.columns == ["row_names", "mpg", "cyl", "am"]
    # (a header of fewer ";" than its rows is not sniffed as ";"-separated: named)
    given = {"separator": separator} if separator == ";" else {}
    assert read_table(path, **given).equals(expected)
    stream = TableStream(path, target="am", batch_size=2, **given)
    assert pl.concat([b.X for b in stream]).equals(expected.drop("am"))


@pytest.mark.parametrize(
    "text",
    [
        '"label","x","note"\n"r1","spam",1,"a"\n"r2","ham",2,NA\n"r3","spam",3,"b"\n',
        '"label","x"\n   \n"r1","spam",1\n"r2","ham",2\n"r3","spam",3\n',
        '"label","text"\n'
        + "".join(f'"{i}","{"spam" if i % 2 else "ham"}","{"word " * 9000}"\n' for i in range(4)),
    ],
    ids=["NA in the last column", "a line of spaces first", "rows of 45 KB"],
)
def test_r_write_table_files_read_alike_through_both_readers(tmp_path, text):
    path = tmp_path / "r.csv"
    path.write_text(text)
    whole = read_table(path)
    assert whole.columns[:2] == ["row_names", "label"]
    streamed = pl.concat([b.X for b in TableStream(path, target="label", batch_size=2)])
    assert streamed.equals(whole.drop("label"))


def _refused_alike(tmp_path, text: str, target: str, message: str) -> None:
    """Both readers refuse ``text`` with ``message``."""
    path = tmp_path / "ragged.csv"
    path.write_text(text)
    with pytest.raises(ReadError, match=message):
        read_table(path)
    with pytest.raises(ReadError, match=message):
        list(TableStream(path, target=target, batch_size=2))


@pytest.mark.parametrize(
    ("text", "target", "message"),
    [
        # a separator ending the rows only
        ("x,y,label\n1.0,2.5,a,\n2.0,3.2,b,\n1.1,2.4,a,\n", "label", "line 2: 4 fields"),
        # first fields alike: no row names
        ("id,x,label\n1,2,3,a\n1,5,6,b\n1,8,9,a\n", "label", "line 2: 4 fields"),
        # one row with a field too many (an unquoted comma) is no row-names layout
        ("a,b,y\n1,2,3,p\n4,5,q\n6,7,p\n", "y", "line 2: 4 fields"),
        # a ragged row after R's row names: its line, by both
        ("a,b\n" + "".join(f"r{i},{i},x\n" for i in range(1, 6)) + "6,y\n", "b", "line 7: 2"),
    ],
    ids=["trailing separator on the rows", "first fields alike", "one row", "ragged after five"],
)
def test_a_field_more_than_the_header_that_is_no_row_names_is_refused_alike(
    tmp_path, text, target, message
):
    _refused_alike(tmp_path, text, target, message)


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_a_separator_at_the_end_of_every_line_adds_no_column(tmp_path, line_end):
    path = tmp_path / "trailing.csv"
    path.write_text(line_end.join(f"{s}," for s in [HEADER, *ROWS]) + line_end, newline="")
    plain = tmp_path / "plain.csv"
    plain.write_text("\n".join([HEADER, *ROWS]) + "\n")
    whole, streamed = _read_both(path)
    assert whole.equals(read_table(plain), null_equal=True)
    assert streamed.equals(read_table(plain).drop("Month"), null_equal=True)


def test_a_nameless_last_column_that_holds_a_value_is_refused_naming_it(tmp_path):
    rows = [f"{r}," for r in ROWS]
    rows[3] = rows[3] + "oops"
    path = tmp_path / "named.csv"
    path.write_text("\n".join([HEADER + ",", *rows]) + "\n")
    message = r"line 1: the last column \(7\) has no name in the header but holds values"
    with pytest.raises(ReadError, match=message + r" \(data row 4 holds 'oops'\)"):
        read_table(path)
    with pytest.raises(ReadError, match=message):
        TableStream(path, target="Month", batch_size=2)
    # a nameless column inside the header is refused as before
    inside = tmp_path / "inside.csv"
    inside.write_text("a,,b\n1,2,3\n")
    with pytest.raises(ReadError, match="column 2 has no name"):
        read_table(inside)


def test_a_json_lines_key_that_is_always_null_reads_as_numbers_whole_and_in_batches(tmp_path):
    path = tmp_path / "null.jsonl"
    path.write_text(
        "".join(f'{{"x": {i}, "gone": null, "y": "{"ab"[i % 2]}"}}\n' for i in range(6))
    )
    whole = read_table(path)
    assert whole.schema["gone"] == pl.Float64  # pandas.read_json(lines=True): float64
    streamed = pl.concat([b.X for b in TableStream(path, target="y", batch_size=4)])
    assert streamed.schema == whole.drop("y").schema
