"""``bayeskit filter`` misused, as a mail delivery agent's configuration can misuse it:
generated command lines (unknown options, missing or wrong values, learning options in the
wrong place, unreachable servers, model paths that are not filters) and messages that are not
mail. Whatever happens the filter never eats the message, never answers with a status that
reads as a verdict it did not reach, and says what went wrong on one line."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.cli import main
from bayeskit.cli.mail_headers import header_end
from bayeskit.text import SpamFilter

HAM = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow? The usual place.\n"
SPAM = b"From: win@prize.example\nSubject: WIN\n\nYou WIN a free prize, click now to claim!!!\n"
MAILS = {
    "mail": HAM,
    "empty": b"",
    "binary": bytes(range(256)) * 8,
    "not-mail": b"just a line of text, no header",
}
# What a command line can hold after "filter"; "MODEL", "FOLDER", "GARBAGE" and "MISSING"
# stand for paths made below.
TOKENS = ["MODEL", "--learn", "--unlearn", "spam", "ham", "junk", "--train-on-error",
          "--exit-zero", "--verbose", "--server", "http://127.0.0.1:9", "ftp://example.org",
          "--from", "FOLDER", "GARBAGE", "MISSING", "--bogus", "-x", "", "extra"]  # fmt: skip
LEARNED = re.compile(r"^\d+ of \d+ messages (learned|unlearned)$")


@pytest.fixture(scope="module")
def paths(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("filter-misuse")
    texts = [HAM, SPAM] * 6
    labels = ["ham", "spam"] * 6
    model = root / "spam.bk"
    bk.save(SpamFilter().fit(texts, labels), model)
    folder = root / "mail"
    folder.mkdir()
    (folder / "1").write_bytes(SPAM)
    garbage = root / "garbage.bk"
    garbage.write_bytes(bytes(range(256)) * 4)
    table = root / "table.bk"
    bk.save(bk.GaussianNB().fit([[0.0], [1.0]], ["a", "b"]), table)
    return {"MODEL": model, "FOLDER": folder, "GARBAGE": garbage, "TABLE": table,
            "MISSING": root / "missing.bk"}  # fmt: skip


def _filter(args: list[str], mail: bytes) -> tuple[int, bytes, bytes]:
    """Run ``bayeskit filter ARGS`` in this process with ``mail`` on standard input: (exit
    status, standard output, standard error)."""
    with CliRunner().isolation(input=mail) as (out, err, _):
        status = main(["filter", *args])
        sys.stdout.flush()
        sys.stderr.flush()
    return status, out.getvalue(), err.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    model=st.sampled_from(["MODEL", "TABLE", "GARBAGE", "MISSING", "FOLDER", None]),
    rest=st.lists(st.sampled_from(TOKENS), max_size=5),
    mail=st.sampled_from(sorted(MAILS)),
)
@example(model=None, rest=["spam", "--learn", "ham"], mail="mail").via("a bare word as model")
@example(model="MODEL", rest=["--exit-zero"], mail="binary").via("no message, --exit-zero")
@example(model="MISSING", rest=["--exit-zero"], mail="binary").via("no message, no model")
def test_a_misused_filter_never_eats_mail(paths, model, rest, mail):
    with tempfile.TemporaryDirectory() as scratch:
        # every example learns into its own copy of the model
        own = {**paths, "MODEL": Path(shutil.copy(paths["MODEL"], Path(scratch) / "spam.bk"))}
        before = own["MODEL"].read_bytes()
        args = [str(own[t]) if t in own else t for t in ([model] if model else []) + rest]
        # a bare word may be taken for the model (``filter spam --learn ham`` learns into a
        # new filter named spam, with its lock file): in the scratch folder, not the cwd
        here = os.getcwd()
        os.chdir(scratch)
        try:
            status, out, err = _filter(args, MAILS[mail])
        finally:
            os.chdir(here)
        after = own["MODEL"].read_bytes()
    raw = MAILS[mail]
    said = err.decode("utf-8", "replace").splitlines()
    assert status in (0, 1, 2, 3), (args, status, said)
    assert "Traceback" not in err.decode("utf-8", "replace"), (args, said)
    assert all(line.startswith("bayeskit filter") or LEARNED.match(line) for line in said), (
        args,
        said,
    )
    learning = "--learn" in args or "--unlearn" in args
    if status == 3:
        assert any(line.startswith("bayeskit filter") for line in said), (args, said)
        assert after == before, args  # a refused call leaves the model as it was
    if out == raw or (learning and out == b"" and "--from" in args):
        return  # passed through as it came (or learning from a folder: stdin untouched)
    added = out[: len(out) - len(raw)]
    if b"X-Bayeskit-Reason: " in added and out.endswith(raw):
        # a message no filter can read, delivered as Unsure under --exit-zero: two headers
        # (and the blank line that ends them where it has no header block), then every byte
        assert status == 0, (args, status, said)
        assert "--exit-zero" in args, args
        lines = added.splitlines(keepends=True)
        assert all(line.startswith(b"X-Bayeskit-") or not line.strip() for line in lines)
        return
    # a verdict: the message with the two headers at the end of its header block
    assert status in (0, 1, 2), (args, status, said)
    assert not learning, (args, status, said)
    head = header_end(out)
    assert head is not None, args
    kept = b"".join(
        line for line in out.splitlines(keepends=True) if not line.startswith(b"X-Bayeskit-")
    )
    assert kept == raw, args
    assert out[:head].count(b"X-Bayeskit-Spam: ") == 1, args


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["MODEL", "--bogus"], "No such option: --bogus"),
        (["MODEL", "--version"], "No such option: --version"),
        ([], "Missing argument 'MODEL'"),
        (["MODEL", "--learn"], "Option '--learn' requires an argument"),
        (["MODEL", "--server"], "Option '--server' requires an argument"),
        (["MODEL", "extra"], "unexpected extra argument"),
    ],
)
def test_a_usage_mistake_passes_the_mail_through_with_the_error_status(paths, args, says):
    # Exit status 2 is "unsure" to a filter: a typo in an MDA's recipe must not read as a
    # verdict, nor lose the message (click's own usage errors exit 2 with no output).
    args = [str(paths[a]) if a in paths else a for a in args]
    status, out, err = _filter(args, HAM)
    assert (status, out) == (3, HAM)
    lines = err.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("bayeskit filter: error: "), lines
    assert says.lower() in lines[0].lower()
    assert "(see 'bayeskit filter --help')" in lines[0]


@pytest.mark.parametrize("option", ["--bogus", "--exit-zer", "-x"])
def test_an_unknown_option_is_named_with_the_options_the_filter_takes(paths, option):
    status, out, err = _filter([str(paths["MODEL"]), option], HAM)
    assert (status, out) == (3, HAM)
    assert err.decode().splitlines() == [
        f"bayeskit filter: error: No such option: {option}; it takes --learn spam|ham, "
        "--unlearn spam|ham, --train-on-error, --exit-zero, --server URL, --verbose, "
        "--from PATH, -h/--help (see 'bayeskit filter --help')"
    ]


def test_an_unreadable_model_is_named_with_the_reason(paths):
    status, out, err = _filter([str(paths["MISSING"])], HAM)
    assert (status, out) == (3, HAM)
    assert err.decode().strip() == f"bayeskit filter: {paths['MISSING']}: No such file or directory"


def test_help_is_still_help_at_a_terminal(paths, monkeypatch):
    from bayeskit.cli import mail_headers

    monkeypatch.setattr(mail_headers, "at_a_terminal", lambda: True)
    status, out, _ = _filter(["--help"], b"")
    assert status == 0
    assert b"X-Bayeskit-Spam" in out


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize("before", [[], ["MODEL", "--exit-zero"], ["MODEL", "--learn", "spam"]])
def test_help_in_a_recipe_passes_the_mail_through(paths, flag, before):
    # A filter recipe's standard output replaces the message: the help went there, status 0,
    # and procmail delivered the help page as the mail.
    args = [str(paths[a]) if a in paths else a for a in before] + [flag]
    model = paths["MODEL"].read_bytes()
    status, out, err = _filter(args, HAM)
    assert (status, out) == (3, HAM)
    assert paths["MODEL"].read_bytes() == model  # nothing learned
    said = err.decode()
    assert "Usage: bayeskit filter" in said
    assert said.splitlines()[-1] == (
        "bayeskit filter: -h/--help with standard input not a terminal (a filter recipe): "
        "the help is on standard error, the message passed through unchanged"
    )


def test_help_in_a_procmail_recipe_leaves_the_mail(paths):
    """``bayeskit filter MODEL --exit-zero -h`` run as procmail's ``fw`` recipe runs it: a
    pipe in, a pipe out. The help page was the output, status 0: the mail replaced by it."""
    done = subprocess.run(
        [sys.executable, "-m", "bayeskit", "filter", str(paths["MODEL"]), "--exit-zero", "-h"],
        input=HAM,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(Path(bk.__file__).parents[1])},
        timeout=300,
    )
    assert (done.returncode, done.stdout) == (3, HAM)
    assert b"Usage: bayeskit filter" in done.stderr
