"""Blank lines of a CSV are dropped, and only they: a row whose every field is a missing marker
(``NA``) is a row. Polars reads a blank line as a row of nulls, and every row of nulls was
dropped when a file had a blank line: ``bayeskit predict`` of ``aa / (blank) / NA / cc`` wrote
two predictions for three rows, silently."""

import subprocess
import sys

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.io.readers import read_table


def test_a_row_of_missing_markers_after_a_blank_line_is_kept():
    frame = read_table(b"text\naa\n\nNA\ncc\n\n", format="csv")
    assert frame.get_column("text").to_list() == ["aa", None, "cc"]
    frame = read_table(b"x,y\n1,2\n\nNA,NA\n\n3,4\n", format="csv")
    assert frame.rows() == [(1, 2), (None, None), (3, 4)]


def test_without_a_header_leading_blank_lines_are_dropped_and_missing_rows_kept():
    frame = read_table(b"\n\naa\n\nNA\n", format="csv", header=False, columns=["text"])
    assert frame.get_column("text").to_list() == ["aa", None]


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(
        st.one_of(
            st.just(None),  # a blank line
            st.tuples(st.sampled_from(["1", "NA", ""]), st.sampled_from(["aa", "NA", ""])),
        ),
        min_size=1,
        max_size=12,
    ),
    header=st.booleans(),
)
def test_one_row_per_line_that_is_not_blank(lines, header):
    rows = [r for r in lines if r is not None]
    body = "".join("\n" if r is None else f"{r[0]},{r[1]}\n" for r in lines)
    if not rows:
        return
    data = (("x,y\n" if header else "") + body).encode()
    frame = read_table(data, format="csv", header=header, columns=None if header else ["x", "y"])
    assert frame.height == len(rows)
    assert frame.get_column("y").to_list() == [None if v in ("NA", "") else v for _, v in rows]


def test_predict_writes_one_line_per_row(tmp_path):
    train = tmp_path / "t.csv"
    train.write_text("x,label\n1.0,a\n1.2,a\n3.0,b\n3.3,b\n")
    bk.save(
        bk.GaussianNB().fit(np.array([[1.0], [1.2], [3.0], [3.3]]), list("aabb")), tmp_path / "m.bk"
    )
    new = tmp_path / "new.csv"
    new.write_text("x\n1.1\n\nNA\n3.1\n")
    out = subprocess.run(
        [sys.executable, "-m", "bayeskit", "predict", str(tmp_path / "m.bk"), str(new)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert len(out.strip().splitlines()) == 1 + 3, out
    assert pl.read_csv(out.encode()).height == 3
