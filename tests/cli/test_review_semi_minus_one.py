"""``bayeskit train TABLE --unlabeled LINES`` with class labels -1 and 1 (as sentiment data
has them): DATA's rows labelled -1 were taken for unlabelled ones, and the model written had
the single class 1."""

from __future__ import annotations

import bayeskit as bk


def test_a_class_labelled_minus_one_is_learnt_as_a_class(cli, tmp_path):
    rows = [
        ("1", "great movie loved it"),
        ("-1", "terrible film hated it"),
        ("1", "loved the acting great fun"),
        ("-1", "boring awful plot hated"),
    ]
    data = tmp_path / "reviews.tsv"
    data.write_text("label\ttext\n" + "".join(f"{a}\t{b}\n" for a, b in rows), "utf-8")
    lines = tmp_path / "unlabelled.txt"
    lines.write_text("great fun\nawful boring\nloved it\n", "utf-8")
    out = tmp_path / "m.bk"
    result = cli("train", data, "--target", "label", "--unlabeled", lines, "-o", out)
    assert result.exit_code == 0, result.output
    model = bk.load(out)
    assert [int(c) for c in model.classes_] == [-1, 1]
    assert [int(v) for v in model.predict(["hated boring plot", "loved great acting"])] == [-1, 1]
