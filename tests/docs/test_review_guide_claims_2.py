"""The user guide's checkable claims, checked against the code: the pages on the command line,
text, the service, Dask, mixtures and model files (docs/guide/*.md). Each test names the page
and the claim it checks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from bayeskit.cli.app import app


def _cli(*args: object, input: str | None = None):
    return CliRunner().invoke(app, [str(a) for a in args], input=input)


def _two_classes(rows: int = 40) -> list[tuple[float, float, str]]:
    rng = np.random.default_rng(0)
    return [
        (round(float(rng.normal(2.0 * (i % 2), 1)), 2), round(float(rng.normal()), 2), "ab"[i % 2])
        for i in range(rows)
    ]


@pytest.fixture
def iris_csv(tmp_path: Path) -> Path:
    from sklearn.datasets import load_iris

    data = load_iris()
    names = ["setosa", "versicolor", "virginica"]
    lines = ["a,b,c,d,species"] + [
        ",".join(map(str, row)) + f",{names[k]}"
        for row, k in zip(data.data, data.target, strict=True)
    ]
    path = tmp_path / "iris.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


# ------------------------------------------------------------------------------ cli.md
@pytest.mark.parametrize(
    "command",
    [
        ["train", "-", "--target", "species", "-o", "m.bk"],
        ["train", "-", "--format", "csv", "--target", "species", "-o", "m.bk"],
        ["evaluate", "-", "--target", "species"],
        ["report", "-", "--target", "species", "-o", "r.html"],
    ],
)
def test_cli_data_is_a_file_or_folder_and_standard_input_is_refused_saying_so(
    iris_csv, tmp_path, monkeypatch, command
):
    # cli.md, "Unlabelled documents": `-` is standard input for --unlabeled, and DATA cannot
    # be `-`. Training and testing read DATA more than once: a `-` is refused by name, not
    # taken for a file name without an extension ("rename the file"), nor for a missing file.
    monkeypatch.chdir(tmp_path)
    result = _cli(*command, input=iris_csv.read_text())
    assert result.exit_code == 2
    assert "-: DATA is read from a file or folder, not from standard input" in result.stderr
    assert "rename the file" not in result.stderr
    assert "no such file" not in result.stderr
    assert not list(tmp_path.glob("m.bk*"))
    assert not (tmp_path / "r.html").exists()


def test_cli_evaluate_test_set_from_standard_input_is_refused_naming_the_option(iris_csv):
    # cli.md: `--test FILE` evaluates on a second file.
    result = _cli("evaluate", iris_csv, "--target", "species", "--test", "-", input="x\n")
    assert result.exit_code == 2
    assert "-: --test DATA is read from a file or folder" in result.stderr


def test_cli_a_row_id_column_is_left_out_from_20_rows_on(tmp_path):
    # cli.md, "A tour": a column holding a different word, or increasing whole numbers, in
    # every row is left out as a row ID, from 20 rows on (in fewer rows that proves nothing).
    def table(rows: int) -> Path:
        path = tmp_path / f"t{rows}.csv"
        lines = ["code,seq,x,label"] + [
            f"w{i},{i + 5},{x},{c}" for i, (x, _, c) in enumerate(_two_classes(rows))
        ]
        path.write_text("\n".join(lines) + "\n")
        return path

    many = _cli("train", table(20), "--target", "label", "-o", tmp_path / "m.bk")
    assert many.exit_code == 0, many.stderr
    assert "column 'code' looks like a row ID (a different value in every row)" in many.stderr
    assert "column 'seq' looks like a row ID (whole numbers increasing" in many.stderr
    assert "20 rows × 1 columns" in many.stdout
    few = _cli("train", table(19), "--target", "label", "-o", tmp_path / "f.bk")
    assert few.exit_code == 0, few.stderr
    assert "row ID" not in few.stderr
    assert "19 rows × 3 columns" in few.stdout


def test_cli_model_takes_the_python_class_name_in_any_case(iris_csv, tmp_path):
    # cli.md: `--model KernelNB` is `--model kernel`, in any case.
    for name in ("kernel", "KernelNB", "KERNELNB", "kernelnb"):
        result = _cli("evaluate", iris_csv, "--target", "species", "-m", name, "--folds", "2")
        assert result.exit_code == 0, result.stderr
        assert "model: KernelNB()" in result.stdout


def test_cli_a_class_never_learnt_clips_the_log_loss_and_says_how_many_rows(iris_csv, tmp_path):
    # cli.md: a row whose true class got probability 0 adds -ln 2.22e-16 = 36.04 to the
    # log-loss and the command says how many rows did (log_loss_clipped_rows in the JSON,
    # beside each class's `predicted` count); a 0/0 score prints as `–` with a line saying so.
    train = tmp_path / "train.csv"
    train.write_text(
        "".join(line for line in iris_csv.read_text().splitlines(True) if "virginica" not in line)
    )
    text = _cli("evaluate", train, "--target", "species", "--test", iris_csv, "-m", "gaussian")
    assert text.exit_code == 0, text.stderr
    assert "50 rows gave the true class a probability below 2.22e-16" in text.stdout
    assert "36.04" in text.stdout
    virginica = next(line for line in text.stdout.splitlines() if line.startswith("virginica"))
    assert virginica.split()[1] == "–"
    assert "–: undefined (0/0)" in text.stdout
    out = _cli(
        "evaluate", train, "--target", "species", "--test", iris_csv, "-m", "gaussian", "--json"
    )
    found = json.loads(out.stdout)
    assert found["log_loss_clipped_rows"] == 50
    assert found["per_class"]["virginica"]["predicted"] == 0
    assert found["per_class"]["versicolor"]["predicted"] == 100
    assert found["log_loss"] >= 50 * -math.log(2.220446049250313e-16) / 150 - 1e-9


def test_cli_separators_padding_and_lone_carriage_returns_are_read(tmp_path):
    # cli.md: `;` (with decimal commas), tabs and `|` are recognised from the first lines;
    # fields padded with spaces read as R's read.csv reads them (` NA` missing); lines ended
    # by a lone carriage return too. Every file gives the same model.
    rows = _two_classes()
    files = {
        "semi.csv": "x;y;label\n" + "".join(f"{a};{b};{c}\n".replace(".", ",") for a, b, c in rows),
        "pipe.csv": "x|y|label\n" + "".join(f"{a}|{b}|{c}\n" for a, b, c in rows),
        "tab.csv": "x\ty\tlabel\n" + "".join(f"{a}\t{b}\t{c}\n" for a, b, c in rows),
        "cr.csv": "x,y,label\r" + "".join(f"{a},{b},{c}\r" for a, b, c in rows),
        "pad.csv": "x, y, label\n" + "".join(f"{a}, {b}, {c}\n" for a, b, c in rows),
    }
    import bayeskit as bk

    means = []
    for name, text in files.items():
        (tmp_path / name).write_text(text, newline="")
        out = tmp_path / f"{name}.bk"
        result = _cli("train", tmp_path / name, "--target", "label", "-m", "gaussian", "-o", out)
        assert result.exit_code == 0, (name, result.stderr)
        assert "40 rows × 2 columns" in result.stdout
        means.append(bk.load(out).theta_)
    for theta in means[1:]:
        np.testing.assert_allclose(theta, means[0])
    padded = "x, y, label\n" + "".join(
        f"{a}, {' NA' if i == 3 else b}, {c}\n" for i, (a, b, c) in enumerate(rows)
    )
    (tmp_path / "na.csv").write_text(padded)
    result = _cli(
        "train", tmp_path / "na.csv", "--target", "label", "-m", "gaussian", "-o", tmp_path / "n.bk"
    )
    assert result.exit_code == 0, result.stderr


def test_cli_a_refused_value_is_named_by_file_row_and_column(tmp_path):
    # cli.md: `data.csv, row 25: column 'b' holds -2.0; a multinomial model takes non-negative
    # counts or frequencies`, for train and evaluate alike.
    lines = ["a,b,label"] + [f"{abs(a)},{abs(b)},{c}" for a, b, c in _two_classes()]
    lines[25] = "1,-2.0,a"
    data = tmp_path / "data.csv"
    data.write_text("\n".join(lines) + "\n")
    message = (
        "data.csv, row 25: column 'b' holds -2.0; a multinomial model takes non-negative counts "
        "or frequencies"
    )
    for command in (["train", "-o", tmp_path / "m.bk"], ["evaluate"]):
        result = _cli(command[0], data, "--target", "label", "-m", "multinomial", *command[1:])
        assert result.exit_code == 2
        assert message in result.stderr
    assert not (tmp_path / "m.bk").exists()


def test_cli_an_existing_file_of_another_kind_is_replaced_only_with_force(iris_csv, tmp_path):
    # cli.md: a command replaces an existing file only if it wrote that kind of file or
    # --force says so, and never writes over its input.
    notes = tmp_path / "notes.txt"
    notes.write_text("hello\n")
    refused = _cli("train", iris_csv, "--target", "species", "-o", notes)
    assert refused.exit_code == 2
    assert "is not a bayeskit model file" in refused.stderr
    assert notes.read_text() == "hello\n"
    forced = _cli("train", iris_csv, "--target", "species", "-o", notes, "--force")
    assert forced.exit_code == 0, forced.stderr
    again = _cli("train", iris_csv, "--target", "species", "-o", notes)
    assert again.exit_code == 0, again.stderr
    over = _cli("train", iris_csv, "--target", "species", "-o", iris_csv, "--force")
    assert over.exit_code == 2
    assert "is the input file" in over.stderr


def test_cli_integers_and_text_options_choose_the_families_and_the_column(tmp_path):
    # cli.md: `--integers poisson` or `categorical` gives integer columns that family under
    # --model auto; `--text COLUMN` classifies by that column, its other columns not used.
    rng = np.random.default_rng(1)
    ints = tmp_path / "ints.csv"
    ints.write_text(
        "n,k,label\n"
        + "".join(f"{rng.integers(6)},{rng.integers(10)},{'ab'[i % 2]}\n" for i in range(40))
    )
    for family in ("poisson", "categorical"):
        out = tmp_path / f"{family}.bk"
        result = _cli("train", ints, "--target", "label", "--integers", family, "-o", out)
        assert result.exit_code == 0, result.stderr
        assert f"families: {family} (2): n, k" in result.stdout
    texts = tmp_path / "texts.csv"
    texts.write_text(
        "subject,body,label\n"
        + "".join(
            f"hi {i},win cash prize now {i},spam\nmeet {i},lunch at noon {i},ham\n"
            for i in range(10)
        )
    )
    result = _cli("train", texts, "--target", "label", "--text", "body", "-o", tmp_path / "t.bk")
    assert result.exit_code == 0, result.stderr
    assert "20 texts (column 'body')" in result.stdout
    assert "note: --text body: the other columns are not used (subject)" in result.stderr


# ----------------------------------------------------------------------------- text.md
@pytest.fixture(scope="module")
def sms_texts() -> list[str]:
    from bayeskit.datasets import load_sms_spam

    texts, _ = load_sms_spam()
    return list(texts[:800])


@pytest.mark.parametrize(
    ("settings", "tfidf"),
    [
        ({}, False),
        ({"ngram_range": (1, 2), "min_df": 2, "max_df": 0.5}, False),
        ({"analyzer": "char_wb", "ngram_range": (2, 3)}, False),
        ({"max_features": 300}, False),
        ({"stop_words": ["you", "the", "to"]}, False),
        ({"sublinear_tf": True, "norm": "l1"}, True),
        ({"smooth_idf": False, "norm": None}, True),
    ],
)
def test_text_vectorizer_gives_scikit_learns_vocabulary_and_numbers(sms_texts, settings, tfidf):
    # text.md: TextVectorizer gives the same vocabulary and numbers as CountVectorizer and
    # TfidfVectorizer (counts, tf-idf options, n-grams, a list of stop words, min_df/max_df/
    # max_features).
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    from bayeskit.text import TextVectorizer

    theirs = (TfidfVectorizer if tfidf else CountVectorizer)(**settings)
    ours = TextVectorizer(output="tfidf" if tfidf else "counts", **settings)
    expected, got = theirs.fit_transform(sms_texts), ours.fit_transform(sms_texts)
    assert list(ours.get_feature_names_out()) == list(theirs.get_feature_names_out())
    np.testing.assert_allclose(got.toarray(), expected.toarray(), atol=1e-12)


def test_text_english_stop_words_and_a_given_vocabulary_are_the_two_differences(sms_texts):
    # text.md: stop_words="english" is a compact list of 126 function words, not
    # scikit-learn's 318 (also and already stay, just goes); a ready-made vocabulary gives
    # the same numbers with its columns in alphabetical order.
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

    from bayeskit.text import TextVectorizer
    from bayeskit.text.analyze import ENGLISH_STOP_WORDS as OURS

    assert (len(OURS), len(ENGLISH_STOP_WORDS)) == (126, 318)
    terms = set(TextVectorizer(stop_words="english").fit(sms_texts).get_feature_names_out())
    assert {"also", "already"} <= terms
    assert "just" not in terms
    given = ["free", "call", "now", "lunch"]
    ours = TextVectorizer(vocabulary=given)
    got = ours.fit_transform(sms_texts).toarray()
    assert list(ours.get_feature_names_out()) == sorted(given)
    expected = CountVectorizer(vocabulary=given).fit_transform(sms_texts).toarray()
    np.testing.assert_array_equal(got, expected[:, [given.index(t) for t in sorted(given)]])


def test_text_a_spam_filter_refuses_a_third_label_before_learning_anything():
    # text.md: fit, partial_fit, train_on_error and fit_counted refuse any label other than
    # the two before they learn anything.
    from bayeskit.errors import DataError
    from bayeskit.text import SpamFilter, TextVectorizer

    texts = ["buy cheap pills now", "meeting at noon", "win cash", "lunch at noon", "x y"] * 3
    labels = ["spam", "ham", "spam", "ham", "other"] * 3
    terms, counts = TextVectorizer().count(texts)
    for learn in ("fit", "partial_fit", "train_on_error", "fit_counted"):
        spam_filter = SpamFilter()
        args = (terms, counts, labels) if learn == "fit_counted" else (texts, labels)
        with pytest.raises(DataError, match="not 'other'"):
            getattr(spam_filter, learn)(*args)
        assert not hasattr(spam_filter, "classes_")
    fitted = SpamFilter().fit(texts[:4] * 3, labels[:4] * 3)
    before = fitted.predict_proba(texts[:4])
    with pytest.raises(DataError, match="not 'eggs'"):
        fitted.partial_fit(["x"], ["eggs"])
    np.testing.assert_array_equal(fitted.predict_proba(texts[:4]), before)


def test_text_a_table_of_more_columns_is_refused_naming_them():
    # text.md: documents as a table of one column (pandas, polars, 2-D array); a table of
    # more columns is refused naming them.
    import pandas as pd
    import polars as pl

    from bayeskit.errors import InputTypeError
    from bayeskit.text import TextClassifier

    texts = ["cash prize now", "cash cash now", "lunch at noon", "noon meeting"]
    model = TextClassifier().fit(texts, ["spam", "spam", "ham", "ham"])
    expected = model.predict(texts)
    for table in (
        pd.DataFrame({"t": texts}),
        pl.DataFrame({"t": texts}),
        np.array(texts, dtype=object).reshape(-1, 1),
    ):
        np.testing.assert_array_equal(model.predict(table), expected)
    for table in (pd.DataFrame({"t": texts, "u": texts}), pl.DataFrame({"t": texts, "u": texts})):
        with pytest.raises(InputTypeError, match=r"2 columns \('t', 'u'\)"):
            model.predict(table)


# ------------------------------------------------------------------------- mixtures.md
@pytest.mark.parametrize(
    ("cov", "init"),
    [
        *[
            (cov, init)
            for cov in ("full", "diag", "spherical", "tied")
            for init in ("kmeans", "random")
        ],
        ("full", "k-means++"),
        ("full", "random_from_data"),
    ],
)
def test_mixtures_each_class_is_sklearn_gaussian_mixture_to_1e10(cov, init):
    # mixtures.md: with the same start and var_floor=None, each class's mixture is
    # scikit-learn's GaussianMixture on that class: weights, means and covariances to 1e-10
    # for the starts that weigh every row, and for full covariances from any start.
    from sklearn.datasets import load_wine
    from sklearn.mixture import GaussianMixture

    import bayeskit as bk

    X, y = load_wine(return_X_y=True)
    settings = dict(covariance_type=cov, init_params=init, random_state=3, tol=1e-6, max_iter=500)
    ours = bk.GaussianMixtureClassifier(n_components=2, var_floor=None, **settings).fit(X, y)
    for c in ours.classes_:
        theirs = GaussianMixture(2, **settings).fit(X[y == c])
        np.testing.assert_allclose(ours.weights_[c], theirs.weights_, rtol=1e-10)
        np.testing.assert_allclose(ours.means_[c], theirs.means_, rtol=1e-10)
        scale = np.abs(theirs.covariances_).max()
        np.testing.assert_allclose(
            ours.covariances_[c], theirs.covariances_, rtol=1e-10, atol=1e-14 * scale
        )


def test_mixtures_the_default_variance_floor_is_why_the_default_fit_may_differ():
    # mixtures.md: the agreement with scikit-learn is with var_floor=None; the default floor
    # (the resolution of coarsely recorded columns such as wine's) gives other mixtures.
    from sklearn.datasets import load_wine
    from sklearn.mixture import GaussianMixture

    import bayeskit as bk

    X, y = load_wine(return_X_y=True)
    settings = dict(covariance_type="diag", random_state=0)
    floored = bk.GaussianMixtureClassifier(n_components=2, **settings).fit(X, y)
    theirs = [GaussianMixture(2, **settings).fit(X[y == c]) for c in floored.classes_]
    assert not all(
        np.allclose(floored.means_[c], t.means_, rtol=1e-3)
        for c, t in zip(floored.classes_, theirs, strict=True)
    )


# ----------------------------------------------------------------------------- dask.md
_POST = (
    b"From: drice@ponder.example (D. Rice)\nSubject: Re: Drive compatibility\nLines: 12\n\n"
    b"Here are the answers I got by mail:\n\n"
    b"From ravalent@mailbox.example Sat Apr  3 16:45:03 1993\nthe controller is fine\n\n"
    b"From chpp@unitrix.example Mon Apr  5 06:33:46 1993\nset the jumper to master\n"
)


@pytest.mark.parametrize("batch", [[], ["--batch-size", "1"]])
def test_dask_a_news_post_quoting_mbox_from_lines_is_one_document(tmp_path, batch):
    # dask.md: 20 Newsgroups' training folder is read as its 11314 posts, one document per
    # file; a post (From: header first) that quotes mail with mbox "From " lines is one
    # document, not an mbox of several. An mbox file (starting with a From_ line) still
    # gives one document per message (cli.md).
    for label, other in (("hw", b"disk drive controller jumper\n"), ("space", b"orbit moon\n")):
        (tmp_path / "data" / label).mkdir(parents=True)
        for i in range(3):
            (tmp_path / "data" / label / f"{i}").write_bytes(b"From: a@b.example\n\n" + other)
    (tmp_path / "data" / "hw" / "58862").write_bytes(_POST)
    out = tmp_path / "m.bk"
    result = _cli("train", tmp_path / "data", "-m", "multinomial", "-o", out, *batch)
    assert result.exit_code == 0, result.stderr
    assert "7 documents" in result.stdout
    box = tmp_path / "data" / "space" / "box"
    box.write_bytes(
        b"From a@example.org  Mon Jan  1 00:00:00 2024\nSubject: one\n\norbit\n\n"
        b"From b@example.org  Tue Jan  2 00:00:00 2024\nSubject: two\n\nmoon\n"
    )
    result = _cli("train", tmp_path / "data", "-m", "multinomial", "-o", out, *batch)
    assert result.exit_code == 0, result.stderr
    assert "9 documents" in result.stdout


@pytest.mark.slow
def test_dask_twenty_newsgroups_training_posts_are_11314_documents(shared_data):
    # dask.md: `bayeskit train $BAYESKIT_DATA/20newsgroups-bydate/20news-bydate-train` reads
    # 11314 documents, 377 to 600 a class.
    from bayeskit.io.documents import read_class_folders

    docs = read_class_folders(shared_data / "20newsgroups-bydate" / "20news-bydate-train")
    assert len(docs.docs) == 11314
    _, counts = np.unique(docs.labels, return_counts=True)
    assert (counts.min(), counts.max()) == (377, 600)


def test_mixtures_one_component_without_floors_is_gaussian_nb_or_qda():
    # mixtures.md: one component with reg_covar=0 and var_floor=None is
    # GaussianNB(var_smoothing=0) (diagonal) or QDA (full).
    from sklearn.datasets import load_wine
    from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis

    import bayeskit as bk

    X, y = load_wine(return_X_y=True)
    bare = dict(n_components=1, reg_covar=0, var_floor=None)
    diag = bk.GaussianMixtureClassifier(covariance_type="diag", **bare).fit(X, y)
    naive = bk.GaussianNB(var_smoothing=0).fit(X, y)
    np.testing.assert_allclose(diag.predict_proba(X), naive.predict_proba(X), atol=1e-12)
    full = bk.GaussianMixtureClassifier(covariance_type="full", **bare).fit(X, y)
    qda = QuadraticDiscriminantAnalysis().fit(X, y)
    np.testing.assert_allclose(full.predict_proba(X), qda.predict_proba(X), atol=1e-12)


# -------------------------------------------------------------------------- model-files.md
def test_model_files_a_python_file_of_an_unnamed_array_predicts_from_the_command_line(tmp_path):
    # model-files.md: a model file written in Python is read by the command line (the
    # page's CategoricalNB fitted on a list of rows, whose columns have no names): predict
    # reads the table's columns by position, and a table of another width is refused.
    import bayeskit as bk

    model = bk.CategoricalNB().fit([["red"], ["blue"], ["red"]], ["a", "b", "a"])
    path = tmp_path / "colours.bk"
    bk.save(model, path)
    table = tmp_path / "c.csv"
    table.write_text("colour\nred\nblue\n")
    result = _cli("predict", path, table)
    assert result.exit_code == 0, result.stderr
    rows = result.stdout.splitlines()
    assert rows[0] == "label,p_a,p_b"
    assert [r.split(",")[0] for r in rows[1:]] == ["a", "b"]
    expected = model.predict_proba([["red"], ["blue"]])
    np.testing.assert_allclose(
        [[float(v) for v in r.split(",")[1:]] for r in rows[1:]], expected, rtol=1e-15
    )
    wide = tmp_path / "w.csv"
    wide.write_text("colour,shade\nred,1\n")
    refused = _cli("predict", path, wide)
    assert refused.exit_code == 2
    assert "internal error" not in refused.stderr


def test_model_files_any_name_works_the_extension_is_not_checked(iris_csv, tmp_path):
    # model-files.md: a model file is by convention named *.bk; any name works.
    import bayeskit as bk

    for name in ("model.txt", "model", "colours.csv"):
        out = tmp_path / name
        result = _cli("train", iris_csv, "--target", "species", "-m", "gaussian", "-o", out)
        assert result.exit_code == 0, result.stderr
        assert type(bk.load(out)).__name__ == "GaussianNB"
        shown = _cli("inspect", out)
        assert shown.exit_code == 0, shown.stderr


def test_cli_evaluate_and_report_help_name_unlabeled_as_trains_option():
    # cli.md: `bayeskit COMMAND --help` lists a command's options; --unlabeled is train's
    # (evaluate and report have none), so their help says "train --unlabeled".
    import re
    import subprocess
    import sys

    for command in ("evaluate", "report"):
        shown = subprocess.run(
            [sys.executable, "-m", "bayeskit", command, "--help"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        text = " ".join(shown.split())
        assert "--unlabeled" in text
        assert not re.search(r"(?<!train )--unlabeled", text), command
