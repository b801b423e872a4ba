"""A JSON-lines table from the command line: numbers with "NA" among them stay numbers (so
train and predict read one file alike), and a key of numbers and text is refused by line."""

from __future__ import annotations

import json
import re


def test_numbers_with_missing_markers_train_and_predict_as_numbers(tmp_path, cli):
    path = tmp_path / "t.jsonl"
    path.write_text("".join(
        json.dumps({"a": "NA" if i % 9 == 0 else i / 4, "c": "NA" if i % 5 == 0 else "uv"[i % 2],
                    "y": "xz"[i % 2]}) + "\n"
        for i in range(40)
    ))  # fmt: skip
    model = tmp_path / "m.bkm"
    result = cli("train", path, "-t", "y", "-o", model)
    assert result.exit_code == 0, result.output
    assert re.search(
        r"families: (gaussian|kernel|discretized) \(1\): a; categorical \(1\): c", result.output
    )
    predicted = cli("predict", model, path)
    assert predicted.exit_code == 0, predicted.output
    assert len(predicted.stdout.strip().splitlines()) == 41


def test_labels_written_as_numbers_and_as_text_are_refused(tmp_path, cli):
    path = tmp_path / "t.jsonl"
    path.write_text('{"a": 1, "y": 1}\n{"a": 2, "y": 2}\n{"a": 3, "y": "1"}\n')
    result = cli("train", path, "-t", "y", "-o", tmp_path / "m.bkm")
    assert result.exit_code != 0
    assert "t.jsonl: key 'y' holds numbers and text (line 1: 1; line 3: \"1\")" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "m.bkm").exists()
