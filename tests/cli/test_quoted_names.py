"""A column name that holds double quotes, written as RFC 4180 writes it (in quotes, each
quote doubled: HEADER below names the columns ``a``, ``"q,c"`` and ``say "hi"``), is read the
same by ``bayeskit train``, which takes the header from Python's csv module, and by
``bayeskit predict``, which took it from polars and kept the doubled quotes ("the columns
differ from the model's")."""

from __future__ import annotations

import csv
import io

from typer.testing import CliRunner

from bayeskit.cli.app import app

HEADER = 'a,"""q,c""","say ""hi""",cls\n'
ROWS = "1,2,5,x\n2,3,6,y\n1,2,5,x\n2,3,6,y\n"


def _run(*args: object) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_predict_reads_a_quoted_name_as_train_does(tmp_path):
    data = tmp_path / "q.csv"
    data.write_text(HEADER + ROWS)
    model = tmp_path / "q.bk"
    _run("train", data, "--target", "cls", "-o", model)
    shown = _run("inspect", model)
    assert '"q,c"' in shown
    assert 'say "hi"' in shown
    out = list(csv.reader(io.StringIO(_run("predict", model, data))))
    assert [row[0] for row in out[1:]] == ["x", "y", "x", "y"]
