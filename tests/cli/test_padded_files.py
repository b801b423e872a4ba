"""A table whose fields are padded with spaces trains and predicts from the command line."""

from __future__ import annotations

import re


def test_the_command_line_trains_and_predicts_on_a_padded_file(tmp_path, cli):
    path = tmp_path / "t.csv"
    path.write_text("a, b, y\n" + "".join(
        f"{i / 4}, {i % 3}, {'xz'[i % 2]}\n" for i in range(40)
    ))  # fmt: skip
    model = tmp_path / "m.bkm"
    result = cli("train", path, "-t", "y", "-o", model)
    assert result.exit_code == 0, result.output
    # both columns numeric (a categorical column would be listed as categorical)
    assert re.search(r"families: (gaussian|kernel|discretized)[^\n]*: a, b\n", result.output)
    predicted = cli("predict", model, path)
    assert predicted.exit_code == 0, predicted.output
    assert len(predicted.stdout.strip().splitlines()) == 41
