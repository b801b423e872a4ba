"""The note on a usual missing marker read as missing in a column of categories (``NA`` may be
a category) comes from the reading itself: the file is read once, not a second time with
every column as text (on a table of 10,000 numeric columns with ``NA`` among them, the second
reading took seconds and tens of megabytes for one line of text)."""

from __future__ import annotations

import pytest

import bayeskit.cli.data as cli_data
import bayeskit.cli.streaming as cli_streaming

#: Numbers with NA, a column of categories with NA and N/A (and an empty field), a blank line.
TABLE = (
    "x,tint,z,label\n"
    "1.5,red,NA,a\n"
    "2.5,NA,3,b\n"
    "\n"
    "0.5,blue,4,a\n"
    "NA,N/A,5,b\n"
    "3.5,,6,a\n"
    "1.0,red,7,b\n"
    "2.0,blue,NA,a\n"
    "4.0,red,8,b\n"
)
NOTE = (
    "note: fields written 'N/A', 'NA' were read as missing in column 'tint', which holds "
    "categories (a usual missing marker); if that is one of the categories, pass "
    "--no-default-missing (only empty fields and --missing values are then missing)"
)


def _notes(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "read as missing" in line]


@pytest.mark.parametrize("batch_size", [None, "3"])
def test_train_reads_the_file_once_for_the_note(cli, tmp_path, monkeypatch, batch_size):
    """``train`` (read in batches) opens DATA once; the note names the markers of the
    categories, in batches of any size too (a blank line in a block keeps rows aligned)."""
    opened: list[str] = []

    class Counted(cli_streaming.TableStream):
        def __init__(self, path, **kwargs):
            opened.append(str(path))
            super().__init__(path, **kwargs)

    monkeypatch.setattr(cli_streaming, "TableStream", Counted)
    path = tmp_path / "t.csv"
    path.write_text(TABLE)
    extra = ["--batch-size", batch_size] if batch_size else []
    result = cli("train", path, "-t", "label", "-o", tmp_path / "t.bkm", *extra)
    assert result.exit_code == 0, result.stderr
    assert _notes(result.stderr) == [NOTE]
    assert opened == [str(path)]


def test_train_notes_the_words_of_the_rows_the_columns_are_chosen_from(cli, tmp_path, monkeypatch):
    """The note, as the columns, is about the first rows (a default batch; 3 here): an NA
    further down is not named."""
    monkeypatch.setattr(cli_streaming, "TABLE_BATCH", 3)
    path = tmp_path / "t.csv"
    path.write_text(TABLE.replace("2.5,NA,3,b", "2.5,,3,b").replace("NA,N/A,5,b", "NA,NA,5,b"))
    args = ["train", path, "-t", "label", "-o", tmp_path / "t.bkm", "--batch-size", "2"]
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    assert _notes(result.stderr) == []  # the NA is in the fourth row (after a blank line)
    monkeypatch.setattr(cli_streaming, "TABLE_BATCH", 4)
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    assert _notes(result.stderr) == [NOTE.replace("'N/A', 'NA'", "'NA'")]


def test_evaluate_reads_the_file_once_for_the_note(cli, tmp_path, monkeypatch):
    """``evaluate`` (read whole) parses DATA once as a table; the note is the same."""
    reads: list[object] = []
    read_table = cli_data.read_table

    def counted(source, **kwargs):
        reads.append(source)
        return read_table(source, **kwargs)

    monkeypatch.setattr(cli_data, "read_table", counted)
    path = tmp_path / "t.csv"
    path.write_text(TABLE)
    result = cli("evaluate", path, "-t", "label", "--folds", "2")
    assert result.exit_code == 0, result.stderr
    assert _notes(result.stderr) == [NOTE]
    assert len(reads) == 1


def test_no_note_when_the_markers_are_given_or_switched_off(cli, tmp_path):
    """``--missing NA`` names NA a marker (no note for it); --no-default-missing reads the
    words as categories (no note)."""
    path = tmp_path / "t.csv"
    path.write_text(TABLE)
    out = tmp_path / "t.bkm"
    result = cli("train", path, "-t", "label", "-o", out, "--missing", "NA")
    assert result.exit_code == 0, result.stderr
    assert _notes(result.stderr) == [NOTE.replace("'N/A', 'NA'", "'N/A'")]
    result = cli("evaluate", path, "-t", "label", "--folds", "2", "--missing", "NA")
    assert _notes(result.stderr) == [NOTE.replace("'N/A', 'NA'", "'N/A'")]
    result = cli("train", path, "-t", "label", "-o", out, "--no-default-missing", "--force")
    assert result.exit_code == 0, result.stderr
    assert _notes(result.stderr) == []
