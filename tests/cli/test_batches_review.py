"""A hostile review of ``bayeskit train --batch-size``: on real tables (UCI spambase, UCI
mushroom, the SMS Spam Collection) every ``--model`` writes a model file that predicts as the
one trained without batches; a bad row in the seventh batch is refused by its row of the file,
whatever the model, leaving an existing model file byte for byte as it was and nothing else
behind; the largest batch size the option takes reads a small file as one batch."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

NUMERIC = ["gaussian", "kernel", "discretized", "poisson", "mixed", "tan", "aode", "kdb"]
NUMERIC += ["lda", "qda", "rda", "parzen", "gmm"]
CATEGORICAL = ["auto", "categorical", "tan", "aode", "kdb"]
TEXT = ["auto", "multinomial", "bernoulli", "complement"]
BATCH = 53  # the seventh batch holds the rows 319 to 371 of the file
BAD_ROW = 340  # the row of the file (from 1, after the header), in the seventh batch


@pytest.fixture(scope="module")
def spambase(shared_data, tmp_path_factory):
    """600 rows of UCI spambase in a shuffled order (the file is sorted by class), with a
    header."""
    lines = (shared_data / "uci-spambase" / "spambase.data").read_text().split()
    rows = [lines[i] for i in np.random.default_rng(0).permutation(len(lines))[:600]]
    path = tmp_path_factory.mktemp("spambase") / "spambase.csv"
    header = ",".join([*(f"f{j}" for j in range(57)), "label"])
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def sms_600(shared_data, tmp_path_factory):
    lines = (shared_data / "sms-spam-collection" / "SMSSpamCollection").read_text("utf-8")
    path = tmp_path_factory.mktemp("sms") / "sms.tsv"
    path.write_text("label\ttext\n" + "\n".join(lines.splitlines()[:600]) + "\n", "utf-8")
    return path


def _proba(cli, model, data):
    result = cli("predict", model, data)
    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    columns = [i for i, name in enumerate(rows[0]) if name.startswith("p_")]
    assert columns
    return rows[0], np.array([[float(row[i]) for i in columns] for row in rows[1:]])


def _same_predictions(cli, tmp_path, data, choice, *extra):
    whole, batched = tmp_path / "whole.bk", tmp_path / "batched.bk"
    args = ("train", data, *extra, "--model", choice)
    result = cli(*args, "-o", whole)
    assert result.exit_code == 0, result.stderr
    result = cli(*args, "-o", batched, "--batch-size", BATCH)
    assert result.exit_code == 0, result.stderr
    head_whole, p_whole = _proba(cli, whole, data)
    head_batched, p_batched = _proba(cli, batched, data)
    assert head_batched == head_whole
    np.testing.assert_allclose(p_batched, p_whole, rtol=0, atol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("choice", NUMERIC)
def test_every_numeric_model_in_batches_predicts_as_trained_whole(cli, tmp_path, spambase, choice):
    # (600 spambase rows leave a column constant within a class: QDA needs a regularised
    # covariance, which it refuses without, batched or not)
    regularised = ("--set", "reg_param=0.1") if choice == "qda" else ()
    _same_predictions(cli, tmp_path, spambase, choice, "-t", "label", *regularised)


@pytest.mark.slow
@pytest.mark.parametrize("choice", CATEGORICAL)
def test_every_categorical_model_in_batches_predicts_as_trained_whole(
    cli, tmp_path, mushroom_csv, choice
):
    _same_predictions(cli, tmp_path, mushroom_csv, choice, "-t", "class", "--missing", "?")


@pytest.mark.parametrize("choice", TEXT)
def test_every_text_model_in_batches_predicts_as_trained_whole(cli, tmp_path, sms_600, choice):
    """(A SpamFilter of fewer than 10,000 messages fits its scale on all of them.)"""
    _same_predictions(cli, tmp_path, sms_600, choice, "-t", "label")


def _with_bad_row(source, tmp_path, field, value):
    lines = source.read_text().split("\n")
    fields = lines[BAD_ROW].split(",")  # lines[0] is the header
    fields[field] = value
    lines[BAD_ROW] = ",".join(fields)
    path = tmp_path / f"bad-{source.name}"
    path.write_text("\n".join(lines))
    return path


@pytest.mark.parametrize(
    ("choice", "value", "said"),
    [
        ("gaussian", "abc", "holds 'abc'"),
        ("lda", "abc", "holds 'abc'"),
        # EM reads DATA by its own rounds: its refusal named the column, not the row
        ("gmm", "abc", "holds 'abc'"),
        ("parzen", "", "holds a missing value"),
        ("qda", "inf", "holds inf"),
        ("auto", "inf", "holds inf"),
        ("tan", "inf", "holds inf"),
        ("poisson", "-2", "holds -2.0"),
    ],
)
def test_a_bad_row_in_the_seventh_batch_is_named_and_writes_nothing(
    cli, tmp_path, spambase, choice, value, said
):
    data = _with_bad_row(spambase, tmp_path, 3, value)
    out = tmp_path / "model.bk"
    assert cli("train", spambase, "-t", "label", "-o", out).exit_code == 0
    before = out.read_bytes()
    listing = sorted(p.name for p in tmp_path.iterdir())
    for batch in (BATCH, None):
        size = () if batch is None else ("--batch-size", batch)
        result = cli("train", data, "-t", "label", "--model", choice, "-o", out, *size)
        assert result.exit_code == 2, result.stdout
        assert f"row {BAD_ROW}: column 'f3' {said}" in result.stderr
        assert out.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == listing


@pytest.mark.parametrize("kind", ["csv", "jsonl", "tsv"])
def test_the_largest_batch_size_reads_a_small_file_as_one_batch(cli, tmp_path, spambase, kind):
    """``--batch-size 1000000000`` (the largest the option takes) asked for a buffer of a
    billion rows ahead of reading a 600-row file: an internal MemoryError."""
    import polars as pl

    data = tmp_path / f"spambase.{kind}"
    frame = pl.read_csv(spambase, infer_schema_length=None)
    if kind == "csv":
        data.write_bytes(spambase.read_bytes())
    elif kind == "tsv":
        frame.write_csv(data, separator="\t")
    else:
        frame.write_ndjson(data)
    whole, batched = tmp_path / "whole.bk", tmp_path / "batched.bk"
    assert cli("train", data, "-t", "label", "-o", whole).exit_code == 0
    result = cli("train", data, "-t", "label", "-o", batched, "--batch-size", 1_000_000_000)
    assert result.exit_code == 0, result.stderr
    assert "internal error" not in result.stderr
    np.testing.assert_array_equal(_proba(cli, batched, data)[1], _proba(cli, whole, data)[1])


@pytest.mark.parametrize("size", ["0", "-1", "1.5", "1e3", "abc", "1000000001"])
def test_batch_sizes_that_are_not_a_count_of_rows_are_refused(cli, tmp_path, spambase, size):
    out = tmp_path / "m.bk"
    result = cli("train", spambase, "-t", "label", "-o", out, "--batch-size", size)
    assert result.exit_code == 2
    assert "--batch-size" in result.stderr
    assert not out.exists()
