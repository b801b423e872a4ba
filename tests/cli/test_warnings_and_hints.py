"""What the command line says beside its work: a warning once, on one line of its own (not
Python's form, with the source line of the code that warned, once per fit); a hint for a
setting its message names but the command line has no option for; no negative --top."""

from __future__ import annotations

import numpy as np


def _collinear(path):
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 50, 60), rng.integers(0, 50, 60)
    rows = [f"{x},{z},{x - z},{'ab'[i % 2]}" for i, (x, z) in enumerate(zip(a, b, strict=True))]
    path.write_text("p1,p2,d,y\n" + "\n".join(rows) + "\n")
    return path


def test_a_warning_is_one_line_said_once(cli, tmp_path):
    data = _collinear(tmp_path / "col.csv")
    for args in (["train", data, "-t", "y", "-m", "lda", "-o", tmp_path / "m.bkm"],
                 ["evaluate", data, "-t", "y", "-m", "lda"]):  # fmt: skip
        result = cli(*args)
        assert result.exit_code == 0, result.output
        said = [line for line in result.stderr.splitlines() if "collinear" in line]
        assert said == [
            "warning: the columns 'p1', 'p2', 'd' are collinear (or constant within every "
            "class): 1 direction without within-class variance dropped; the model works in "
            "the span of the data"
        ]
        assert ".py:" not in result.stderr  # no source file and line of the warning code


def test_a_singular_covariance_names_what_the_command_line_can_do(cli, tmp_path):
    data = _collinear(tmp_path / "col.csv")
    result = cli("train", data, "-t", "y", "-m", "qda", "-o", tmp_path / "m.bkm")
    assert result.exit_code == 2
    assert "reg_param > 0" in result.stderr  # the library's own words
    assert "on the command line: --set NAME=VALUE, such as --set reg_param=0.1" in result.stderr
    assert "--model lda, which works in the span of collinear columns" in result.stderr
    # and --set does what the hint says
    args = ("train", data, "-t", "y", "-m", "qda", "--set", "reg_param=0.1")
    assert cli(*args, "-o", tmp_path / "m.bkm").exit_code == 0


def test_top_takes_no_negative_count(cli, tmp_path):
    data = _collinear(tmp_path / "col.csv")
    model = tmp_path / "m.bkm"
    assert cli("train", data, "-t", "y", "-m", "lda", "-o", model).exit_code == 0
    refused = cli("inspect", model, "--top", "-1")
    assert refused.exit_code == 2
    assert "'--top'" in refused.stderr
    none = cli("inspect", model, "--top", "0")
    assert none.exit_code == 0
    assert "top features" not in none.stdout
