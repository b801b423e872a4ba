"""What a newcomer meets in the first hour (issue 10 §6): example data that ships with the
package, every documented model, row-ID columns, semicolon-separated files, `explain` on a
file name, and help that reads as it should."""

from __future__ import annotations

import csv
import io
import re

import polars as pl
import pytest

import bayeskit as bk
from bayeskit.cli.app import COMMANDS
from bayeskit.cli.models import MODELS


def _ok(result):
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


# ------------------------------------------------------------------ example data
def test_example_writes_the_bundled_sms_collection(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _ok(cli("example", "sms"))
    assert result.stdout.splitlines() == [
        "wrote sms.csv (481.1 KB): 5574 rows × 2 columns, the SMS Spam Collection v.1 (Almeida "
        "et al., 2011; CC BY 4.0), shipped with bayeskit",
        "next: bayeskit train sms.csv --target label -o sms.bk",
    ]
    frame = pl.read_csv(tmp_path / "sms.csv")
    assert frame.columns == ["label", "text"]
    assert frame.height == 5574
    assert frame.get_column("label").value_counts().sort("label").rows() == [
        ("ham", 4827),
        ("spam", 747),
    ]
    _ok(cli("example", "sms"))  # the same file again: replaced without --force
    (tmp_path / "sms.csv").write_text("mine")
    refused = cli("example", "sms")
    assert refused.exit_code == 2
    assert "sms.csv: the file exists and is not this example (sms); pass --force" in refused.stderr
    _ok(cli("example", "sms", "--force"))


@pytest.mark.parametrize(
    ("name", "target", "rows", "columns"),
    [
        ("breast-cancer", "diagnosis", 569, 32),
        ("wine", "cultivar", 178, 14),
        ("iris", "species", 150, 5),
        ("digits", "digit", 1797, 65),
    ],
)
def test_example_tables_from_scikit_learn(cli, tmp_path, name, target, rows, columns):
    out = tmp_path / f"{name}.csv"
    _ok(cli("example", name, "-o", out))
    frame = pl.read_csv(out)
    assert frame.shape == (rows, columns)
    assert frame.columns[-1] == target
    evaluated = _ok(cli("evaluate", out, "-t", target, "--folds", 3, "--json"))
    assert '"accuracy"' in evaluated.stdout


def test_example_refuses_an_unknown_name(cli):
    result = cli("example", "titanic")
    assert result.exit_code == 2
    assert "'titanic' is not an example; choose one of: sms, breast-cancer" in result.stderr


# ------------------------------------------------------------------ every documented model
NUMERIC = [m for m in MODELS if m not in ("auto", "mixed", "categorical", "text")]


@pytest.mark.parametrize("model", NUMERIC)
def test_every_numeric_model_trains_and_predicts(cli, tmp_path, model):
    out = tmp_path / "iris.csv"
    _ok(cli("example", "iris", "-o", out))
    trained = _ok(cli("train", out, "-t", "species", "--model", model, "-o", tmp_path / "m.bk"))
    assert "wrote" in trained.stdout
    rows = (
        "sepal length (cm),sepal width (cm),petal length (cm),petal width (cm)\n5.1,3.5,1.4,0.2\n"
    )
    predicted = _ok(cli("predict", tmp_path / "m.bk", "-", input=rows))
    assert predicted.stdout.splitlines()[1].split(",")[0] == "setosa"


def test_discretized_model_is_a_discretized_nb(cli, tmp_path):
    out = tmp_path / "wine.csv"
    _ok(cli("example", "wine", "-o", out))
    _ok(cli("train", out, "-t", "cultivar", "--model", "discretized", "-o", tmp_path / "w.bk"))
    assert type(bk.load(tmp_path / "w.bk")).__name__ == "DiscretizedNB"


@pytest.mark.parametrize("model", ["auto", "mixed", "categorical"])
def test_every_table_model_trains(cli, tmp_path, model):
    path = tmp_path / "weather.csv"
    path.write_text(
        "outlook,windy,play\nsunny,false,no\nrain,true,yes\novercast,false,yes\nsunny,true,no\n"
    )
    _ok(cli("train", path, "-t", "play", "--model", model, "-o", tmp_path / "m.bk"))


@pytest.mark.parametrize("model", ["auto", "text", "multinomial", "bernoulli", "complement"])
def test_every_text_model_trains(cli, tmp_path, model):
    out = tmp_path / "sms.csv"
    _ok(cli("example", "sms", "-o", out))
    _ok(cli("train", out, "-t", "label", "--model", model, "-o", tmp_path / "m.bk"))


def test_model_help_lists_exactly_the_models_that_work(cli):
    help_text = " ".join(_ok(cli("train", "--help")).stdout.split())
    for model in MODELS[1:]:
        assert model in help_text


# ------------------------------------------------------------------ row IDs
def _with_ids(tmp_path, name="id"):
    rows = [
        {name: 1000 + i, "x": float(i % 7) + (5 if i % 2 else 0), "label": "ab"[i % 2]}
        for i in range(40)
    ]
    path = tmp_path / "ids.csv"
    pl.DataFrame(rows).write_csv(path)
    return path


@pytest.mark.parametrize("name", ["id", "ID", "customer_id", "PassengerId", "order-id"])
def test_a_column_named_like_an_id_is_left_out_with_a_note(cli, tmp_path, name):
    path = _with_ids(tmp_path, name)
    result = _ok(cli("train", path, "-t", "label", "-o", tmp_path / "m.bk"))
    assert (
        f"note: column {name!r} looks like a row ID (named like an ID): left out of the model "
        f"(--keep {name} uses it as a feature; predict copies it into its output)"
    ) in result.stderr
    model = bk.load(tmp_path / "m.bk")
    assert list(model.feature_names_in_) == ["x"]
    predicted = _ok(cli("predict", tmp_path / "m.bk", path, "--ignore", "label"))
    rows = list(csv.reader(io.StringIO(predicted.stdout)))
    assert rows[0] == [name, "label", "p_a", "p_b"]
    assert [r[0] for r in rows[1:4]] == ["1000", "1001", "1002"]


def test_unique_values_in_every_row_are_an_id(cli, tmp_path):
    frame = pl.DataFrame(
        {
            "ticket": [f"T{i:04d}" for i in range(30)],  # a different word in every row
            "row": list(range(30)),  # whole numbers increasing down the file
            "colour": ["red", "blue", "green"] * 10,
            "label": ["a", "b"] * 15,
        }
    )
    path = tmp_path / "t.csv"
    frame.write_csv(path)
    result = _ok(cli("train", path, "-t", "label", "-o", tmp_path / "m.bk"))
    assert "column 'ticket' looks like a row ID (a different value in every row)" in result.stderr
    assert "column 'row' looks like a row ID (whole numbers increasing down the file)" in (
        result.stderr
    )
    assert list(bk.load(tmp_path / "m.bk").feature_names_in_) == ["colour"]


def test_keep_and_explicit_id(cli, tmp_path):
    path = _with_ids(tmp_path)
    _ok(cli("train", path, "-t", "label", "--keep", "id", "-o", tmp_path / "k.bk"))
    assert list(bk.load(tmp_path / "k.bk").feature_names_in_) == ["id", "x"]
    result = _ok(
        cli("train", path, "-t", "label", "--id", "x", "--keep", "id", "-o", tmp_path / "e.bk")
    )
    assert "note:" not in result.stderr  # an ID named by the user needs no note
    assert list(bk.load(tmp_path / "e.bk").feature_names_in_) == ["id"]
    bad = cli("train", path, "-t", "label", "--id", "nope", "-o", tmp_path / "n.bk")
    assert bad.exit_code == 2
    assert "no column 'nope' for --id; the columns are: id, x" in bad.stderr


def test_predict_id_option_and_test_sets_with_ids(cli, tmp_path):
    path = _with_ids(tmp_path)
    model = tmp_path / "m.bk"
    _ok(cli("train", path, "-t", "label", "-o", model))
    given = _ok(cli("predict", model, path, "--ignore", "label", "--id", "id"))
    assert given.stdout.startswith("id,label,p_a,p_b\n1000,")
    evaluated = _ok(cli("evaluate", path, "-t", "label", "--test", path, "--json"))
    assert '"accuracy"' in evaluated.stdout
    assert evaluated.stderr.count("looks like a row ID") == 1  # not again for the test set


# ------------------------------------------------------------------ separators
def test_semicolon_separated_file_with_decimal_commas(cli, tmp_path):
    path = tmp_path / "semi.csv"
    rows = "".join(f"{i},5;{i % 3};{'xy'[i % 2]}\n" for i in range(12))
    path.write_text("a;b;label\n" + rows)
    result = _ok(cli("train", path, "-t", "label", "-o", tmp_path / "m.bk"))
    assert "12 rows × 2 columns" in result.stdout
    model = bk.load(tmp_path / "m.bk")
    # Both read as numbers (the decimal commas too); numeric="auto" picks each one's family.
    assert model.feature_families_ == {"a": "discretized", "b": "discretized"}
    assert model.predict(pl.DataFrame({"a": [3.5], "b": [0]})).tolist() in (["x"], ["y"])


def test_separator_option_and_the_hint_when_sniffing_cannot_tell(cli, tmp_path):
    path = tmp_path / "pipes.csv"
    path.write_text("a|b|label\n1|2|x\n3|4|y\n5|6|x\n7|8|y\n")
    _ok(cli("train", path, "-t", "label", "-o", tmp_path / "m.bk"))  # sniffed
    ragged = tmp_path / "ragged.csv"  # one line has an extra ';': no consistent separator
    ragged.write_text("a;b;label\n1;2;x\n3;4;y;\n5;6;x\n")
    hint = cli("train", ragged, "-t", "label", "-o", tmp_path / "r.bk")
    assert hint.exit_code == 2
    assert "the header looks separated by ';': pass --separator ';'" in hint.stderr
    explicit = cli("train", ragged, "-t", "label", "--separator", ";", "-o", tmp_path / "r.bk")
    assert explicit.exit_code == 2
    assert "ragged.csv, line 3: 4 fields where the header has 3" in explicit.stderr
    tabs = tmp_path / "tabs.csv"
    tabs.write_text("a\tlabel\n1\tx\n2\ty\n3\tx\n")
    _ok(cli("train", tabs, "-t", "label", "--separator", "\\t", "-o", tmp_path / "t.bk"))
    wrong = cli("train", tabs, "-t", "label", "--separator", "ab", "-o", tmp_path / "t.bk")
    assert "the separator must be one character" in wrong.stderr


# ------------------------------------------------------------------ explain on a file
def test_explain_reads_an_existing_file_and_says_so(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _ok(cli("example", "sms"))
    _ok(cli("train", "sms.csv", "-t", "label", "-o", "sms.bk"))
    (tmp_path / "one.txt").write_text("WINNER!! Claim your free prize now")
    by_name = _ok(cli("explain", "sms.bk", "one.txt"))
    assert by_name.stderr == (
        "note: one.txt is a file: explaining what it holds (@one.txt says so; to explain the "
        "words 'one.txt' themselves, pipe them in: echo 'one.txt' | bayeskit explain MODEL -)\n"
    )
    by_at = _ok(cli("explain", "sms.bk", "@one.txt"))
    assert by_at.stdout == by_name.stdout
    assert by_at.stderr == ""
    assert by_name.stdout.startswith("'spam'")
    words = _ok(cli("explain", "sms.bk", "-", input="one.txt"))
    assert words.stdout != by_name.stdout


def test_explain_reads_a_row_from_a_file(cli, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("outlook,windy,play\nsunny,false,no\nrain,true,yes\novercast,false,yes\n")
    _ok(cli("train", path, "-t", "play", "-o", tmp_path / "m.bk"))
    row = tmp_path / "row.json"
    row.write_text('{"outlook": "rain"}')
    assert _ok(cli("explain", tmp_path / "m.bk", row)).stdout == (
        _ok(cli("explain", tmp_path / "m.bk", '{"outlook": "rain"}')).stdout
    )


# ------------------------------------------------------------------ help
@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_reads_well(cli, command, monkeypatch):
    from bayeskit.cli import mail_headers

    # at a terminal (the filter's help goes to standard error, and the message through,
    # when standard input is not one)
    monkeypatch.setattr(mail_headers, "at_a_terminal", lambda: True)
    text = _ok(cli(command, "--help")).stdout
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage
    assert "<bool>" not in text
    assert "--cv" not in text  # --folds' old name works but is not shown
    flag = re.search(r"--(no-header|force|json|words|debug)\b[^\n]*", text)
    if flag:
        assert "<" not in flag.group(0)


def test_the_command_list_gives_each_summary_whole(cli):
    """``bayeskit --help`` lists every command with its one-line help as written, not cut
    at the end of a line (click's listing would end it with "...")."""
    text = re.sub(r"-\s+", "-", " ".join(_ok(cli("--help")).stdout.split()))  # wrapped at a -
    for name, lazy in COMMANDS.items():
        assert f"{name} {lazy.summary}" in text, name
    assert "..." not in text.partition("Commands:")[2]


def test_summaries_are_the_commands_docstrings(cli):
    for name, lazy in COMMANDS.items():
        doc = " ".join((lazy.function().__doc__ or "").split())
        assert doc.startswith(lazy.summary.rstrip(".")), name


@pytest.mark.parametrize("command", ["evaluate", "report", "quickstart"])
def test_folds_everywhere_and_cv_still_works(cli, command, tmp_path):
    assert "--folds" in _ok(cli(command, "--help")).stdout
    if command == "evaluate":
        path = tmp_path / "w.csv"
        path.write_text("a,label\n1,x\n2,y\n1,x\n2,y\n1,x\n2,y\n")
        for option in ("--folds", "--cv"):
            out = _ok(cli("evaluate", path, "-t", "label", option, 2, "--json")).stdout
            assert '"method": "2-fold stratified cross-validation (seed 0)"' in out


def test_unknown_command_suggests_the_close_one(cli):
    result = cli("evalute")
    assert result.exit_code == 2
    assert "No such command 'evalute'. Did you mean 'evaluate'?" in result.stderr


def test_evaluate_on_a_test_file_fits_the_model_once(cli, tmp_path, monkeypatch):
    # The families line is the model fitted on DATA, which the held-out evaluation fitted
    # already: a second fit on a wide table doubled the command's time.
    from bayeskit._base import GenerativeClassifier

    fits = []
    fit = GenerativeClassifier.fit

    def counted(self, *args, **kwargs):
        fits.append(type(self).__name__)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(GenerativeClassifier, "fit", counted)
    path = tmp_path / "t.csv"
    path.write_text(
        "a,b,label\n" + "".join(f"{i % 7},{i % 5}.5,{'xy'[i % 2]}\n" for i in range(40))
    )
    evaluated = _ok(cli("evaluate", path, "-t", "label", "--test", path))
    assert fits == ["MixedNB"]
    assert "families: " in evaluated.stdout
    alone = _ok(cli("train", path, "-t", "label", "-o", tmp_path / "m.bk"))
    families = [line for line in alone.stdout.splitlines() if line.startswith("families: ")]
    assert families
    assert families[0] in evaluated.stdout.splitlines()  # the same line as train's
