"""Names from the data that hold characters which hide themselves (a bidi override, NUL) are
shown on the terminal as their escapes: a class named ``ok<U+202E>exe.png`` would reverse the
text after it."""

from __future__ import annotations


def test_a_class_name_holding_a_bidi_override_is_shown_escaped(cli, tmp_path):
    path = tmp_path / "bidi.csv"
    path.write_text("a,y\n1,ok\u202eexe.png\n2,fine\n3,ok\u202eexe.png\n4,fine\n", encoding="utf-8")
    model = tmp_path / "m.bkm"
    trained = cli("train", path, "-t", "y", "-o", model, "-m", "gaussian")
    assert trained.exit_code == 0, trained.output
    inspected = cli("inspect", model)
    for result in (trained, inspected):
        assert "ok\\u202eexe.png" in result.output
        assert "\u202e" not in result.output


def test_an_error_line_shows_them_escaped_too(cli, tmp_path):
    result = cli("train", tmp_path / "data\u202evsc.csv", "-t", "y", "-o", tmp_path / "m.bkm")
    assert result.exit_code == 2
    assert "data\\u202evsc.csv: no such file" in result.output
    assert "\u202e" not in result.output


def test_evaluates_tables_show_them_escaped(cli, tmp_path):
    """The per-class table and the confusion matrix are rich tables, not the console's text
    arguments: a label holding an escape sequence (here one that retitles the terminal's
    window) reached the terminal as it was."""
    label = "\x1b]0;PWNED\x07evil"
    rows = [f"{i % 7}.5,{label if i % 2 else 'ok'}" for i in range(40)]
    path = tmp_path / "esc.csv"
    path.write_text("a,y\n" + "\n".join(rows) + "\n", encoding="utf-8")
    result = cli("evaluate", path, "-t", "y")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    assert "\x07" not in result.output
    # the data line, the per-class row, the matrix's column and row
    assert result.output.count("\\x1b]0;PWNED\\x07evil") == 4
