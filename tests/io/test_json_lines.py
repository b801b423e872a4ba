"""JSON lines typed as the file wrote them: ``1`` is a number, ``"1"`` text, ``"NA"`` a
missing value as in a CSV; a key of numbers and other text is refused by its lines, read
whole or in blocks."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.errors import ReadError
from bayeskit.io import stream
from bayeskit.io.readers import read_table
from bayeskit.io.stream import TableStream
from bayeskit.io.target import labels_of


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_numbers_and_missing_markers_are_numbers(tmp_path):
    path = _write(
        tmp_path / "t.jsonl",
        [{"a": 1.5, "b": 3, "y": "p"}, {"a": "NA", "b": "", "y": "q"}, {"a": 2, "b": 4, "y": "p"}],
    )
    frame = read_table(path)
    assert frame.schema["a"] == pl.Float64
    assert frame.schema["b"] == pl.Int64
    assert frame.get_column("a").to_list() == [1.5, None, 2.0]
    assert frame.get_column("b").to_list() == [3, None, 4]


def test_text_keeps_its_digits_and_drops_its_markers(tmp_path):
    path = _write(
        tmp_path / "t.jsonl",
        [{"zip": "02139", "c": "u", "y": "p"}, {"zip": "10001", "c": "NA", "y": "q"}],
    )
    frame = read_table(path)
    assert frame.get_column("zip").to_list() == ["02139", "10001"]
    assert frame.get_column("c").to_list() == ["u", None]
    kept = read_table(path, default_missing=False)
    assert kept.get_column("c").to_list() == ["u", "NA"]
    assert read_table(path, missing=["u"]).get_column("c").to_list() == [None, None]


@pytest.mark.parametrize(
    ("records", "match"),
    [
        (
            [{"a": 0, "y": 1}, {"a": 1, "y": "1"}],
            r"key 'y' holds numbers and text \(line 1: 1; line 2: \"1\"\)",
        ),
        (
            [{"a": 0.5, "y": "p"}, {"a": 2, "y": "q"}, {"a": "high", "y": "p"}],
            r"key 'a' .*line 1: 0\.5; line 3: \"high\"",
        ),
    ],
)
def test_numbers_beside_text_are_refused_by_line(tmp_path, records, match):
    path = _write(tmp_path / "t.jsonl", records)
    with pytest.raises(ReadError, match=match) as info:
        read_table(path)
    assert info.value.column in ("a", "y")
    with pytest.raises(ReadError, match=match):
        list(TableStream(path, target="y"))


def test_a_marker_that_is_not_missing_is_text_beside_numbers(tmp_path):
    path = _write(tmp_path / "t.jsonl", [{"a": 1, "y": "p"}, {"a": "NA", "y": "q"}])
    with pytest.raises(ReadError, match=r"key 'a' holds numbers and text"):
        read_table(path, default_missing=False)


def test_integers_past_64_bits_stay_digits(tmp_path):
    path = _write(tmp_path / "t.jsonl", [{"a": 2**70, "y": "p"}, {"a": "NA", "y": "q"}])
    assert read_table(path).get_column("a").to_list() == [str(2**70), None]


def test_numbers_in_one_block_and_text_in_another_name_both_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "_BLOCK_BYTES", 7)
    records = [{"a": i, "y": 1 if i < 3 else "2"} for i in range(5)]
    path = _write(tmp_path / "t.jsonl", records)
    both = r"key 'y' holds numbers and text \(line 1: 1; line 4: \"2\"\)"
    with pytest.raises(ReadError, match=both):
        read_table(path)
    with pytest.raises(ReadError, match=both):
        list(TableStream(path, target="y", batch_size=2))


def test_a_bad_line_far_down_is_named_by_its_file_line_in_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "_BLOCK_BYTES", 7)
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1, "y": "p"}\n{"a": 2, "y": "q"}\n{"a": 3, "y": "p"}\n{"a": 4,\n')
    with pytest.raises(ReadError, match=r"t\.jsonl, line 4: not JSON"):
        list(TableStream(path, target="y", batch_size=1))


cells = st.one_of(
    st.none(),
    st.integers(-5, 10**6),
    st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: round(v, 3)),
    st.sampled_from(["NA", "", "null", "N/A", "u", "1", "2.5"]),
)


def _in_blocks(path, batch_size, block):
    """The file's batches, read in blocks of ``block`` bytes (a hypothesis example cannot use
    the function-scoped monkeypatch fixture: a context of its own)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(stream, "_BLOCK_BYTES", block)
        return list(TableStream(path, target="label", batch_size=batch_size))


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(cells, cells, st.sampled_from(["x", "y"])), min_size=1, max_size=12),
    batch_size=st.integers(1, 5),
    block=st.integers(1, 60),
)
def test_json_lines_read_the_same_in_blocks(tmp_path_factory, rows, batch_size, block):
    path = tmp_path_factory.mktemp("j") / "r.jsonl"
    _write(path, [{"a": a, "b": b, "label": label} for a, b, label in rows])
    try:
        expected = read_table(path)
    except ReadError as error:
        whole = str(error)
    else:
        whole = None
    if whole is not None:
        with pytest.raises(ReadError) as streamed:
            _in_blocks(path, batch_size, block)
        # the same refusal: a key holding numbers and text
        assert ("holds numbers and text" in str(streamed.value)) == (
            "holds numbers and text" in whole
        )
        return
    batches = _in_blocks(path, batch_size, block)
    got = pl.concat([b.X for b in batches])
    X = expected.drop("label")
    assert got.schema == X.schema
    assert got.equals(X, null_equal=True)
    np.testing.assert_array_equal(
        np.concatenate([b.y for b in batches]), labels_of(expected, "label", source=str(path))
    )


def test_a_nested_value_is_refused_by_name_whole_or_in_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "_BLOCK_BYTES", 7)
    path = _write(tmp_path / "t.jsonl", [{"a": [i, 1], "b": i, "y": "pq"[i % 2]} for i in range(6)])
    with pytest.raises(ReadError, match=r"column 'a' holds List\(Int64\) values"):
        list(TableStream(path, target="y", batch_size=2))
