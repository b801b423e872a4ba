"""A ``text/csv`` body's blank lines are no rows, as ``bayeskit predict`` reads a file: the
service answered a prediction for each blank line (a body ending with an empty line got one
prediction more than its rows), and a body of rows without a header that began with a blank
line was read as having the first row for its header. A row of missing markers is a row."""

import subprocess
import sys

import numpy as np
import polars as pl

import bayeskit as bk

from .conftest import wine_frame


def _csv(frame: pl.DataFrame, *, header: bool) -> str:
    return frame.write_csv(include_header=header)


def test_blank_lines_are_no_rows_and_missing_rows_are(serve, wine_file, tmp_path):
    client = serve(wine_file)
    model = bk.load(wine_file)
    frame, _ = wine_frame()
    frame = frame[:3]
    expected = model.predict(frame).tolist()
    names = ",".join(frame.columns)
    lines = _csv(frame, header=False).splitlines()
    missing_row = ",".join(["NA"] * frame.width)
    bodies = {
        "blank inside and at the end": f"{names}\n{lines[0]}\n\n{lines[1]}\n{lines[2]}\n\n\n",
        "headerless after a blank line": f"\n\n{lines[0]}\n{lines[1]}\n\n{lines[2]}\n",
    }
    for what, body in bodies.items():
        r = client.post("/invocations", content=body, headers={"Content-Type": "text/csv"})
        assert r.status_code == 200, (what, r.text)
        assert r.json() == {"predictions": expected}, what
    body = f"{names}\n{lines[0]}\n\n{missing_row}\n"
    r = client.post("/invocations", content=body, headers={"Content-Type": "text/csv"})
    assert r.status_code == 200, r.text
    predictions = r.json()["predictions"]
    assert len(predictions) == 2
    # bayeskit predict reads the same bytes into as many rows, the same predictions
    path = tmp_path / "rows.csv"
    path.write_text(body)
    out = subprocess.run(
        [sys.executable, "-m", "bayeskit", "predict", str(wine_file), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert pl.read_csv(out.encode()).get_column("label").cast(pl.String).to_list() == [
        str(p) for p in predictions
    ]
    assert np.asarray(predictions).shape == (2,)
