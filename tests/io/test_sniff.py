"""CSV files separated by ',', ';' (with decimal commas), a tab or '|' read as the same table
(issue 10 §6: a semicolon file gave "no column 'label'; the columns are: a;b;label")."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.io.readers import read_table, sniff_separator

words = st.text(alphabet="abcxyz ", min_size=1, max_size=6).filter(lambda w: w.strip() == w)
numbers = st.integers(-999, 999).map(lambda n: n / 8)  # exact in binary and in decimal


@settings(max_examples=60, deadline=None)
@given(
    separator=st.sampled_from([",", ";", "\t", "|"]),
    n_rows=st.integers(1, 8),
    data=st.data(),
)
def test_any_separator_reads_the_same_table(tmp_path_factory, separator, n_rows, data):
    kinds = data.draw(st.lists(st.sampled_from(["number", "word"]), min_size=1, max_size=4))
    columns = {
        f"c{j}": data.draw(st.lists(numbers if kind == "number" else words, min_size=n_rows,
                                    max_size=n_rows))
        for j, kind in enumerate(kinds)
    }  # fmt: skip
    columns["label"] = data.draw(st.lists(st.sampled_from(["x", "y"]), min_size=n_rows,
                                          max_size=n_rows))  # fmt: skip

    def cell(value: object) -> str:
        text = repr(value) if isinstance(value, float) else str(value)
        return text.replace(".", ",") if separator == ";" and isinstance(value, float) else text

    lines = [separator.join(columns)] + [
        separator.join(cell(columns[c][i]) for c in columns) for i in range(n_rows)
    ]
    raw = ("\n".join(lines) + "\n").encode()
    assert sniff_separator(raw) == separator
    path = tmp_path_factory.mktemp("sniff") / "t.csv"
    path.write_bytes(raw)
    frame = read_table(path)
    assert frame.columns == list(columns)
    for name, values in columns.items():
        got = frame.get_column(name).to_list()
        if all(isinstance(v, float) for v in values):
            assert [float(v) for v in got] == values
        else:
            assert [str(v) for v in got] == [str(v) for v in values]


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b"a,b\n1,2\n", ","),
        (b"a;b\n1,5;2\n", ";"),
        (b'text,label\n"a; b; c",x\n"d; e",y\n', ","),  # semicolons inside quotes
        (b"only\n1\n2\n", ","),
        (b"a\tb\n1\t2\n", "\t"),
        (b"a|b\n1|2\n", "|"),
        (b"", ","),
    ],
)
def test_sniff_separator_examples(head, expected):
    assert sniff_separator(head) == expected


def test_an_explicit_separator_wins(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b;c\n1,2;3\n")
    assert read_table(path).columns == ["a,b", "c"]  # sniffed: every line splits on ';'
    assert read_table(path, separator=",").columns == ["a", "b;c"]
    assert isinstance(read_table(path, separator=","), pl.DataFrame)


def test_decimal_commas_first_written_far_down_the_file_are_read_as_numbers(tmp_path):
    # the first 26 rows hold whole numbers only; a column's decimals start at row 27
    rows = ["x;label"] + [f"{i};{'ab'[i % 2]}" for i in range(26)] + ["2,5;a", "-0,75;b"]
    path = tmp_path / "late.csv"
    path.write_text("\n".join(rows) + "\n")
    frame = read_table(path)
    assert frame.schema["x"] == pl.Float64
    assert frame.get_column("x").to_list()[-2:] == [2.5, -0.75]
    # a comma inside a text field is no decimal comma
    path.write_text("x;label\n1;version 2,5\n2;b\n")
    assert read_table(path).schema["x"] == pl.Int64
