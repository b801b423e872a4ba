"""``bayeskit filter`` learning as a new user meets it: a model whose folder does not exist
yet (``~/.bayeskit``) is refused naming the folder, before any file is opened; ``--unlearn``
checks what a model of counts can tell, as the guide says."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import bayeskit as bk
from bayeskit.cli import main
from bayeskit.text import SpamFilter

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "mail-filter.md"
HAM = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow? The usual place.\n"
SPAM = b"From: win@prize.example\nSubject: WIN\n\nYou WIN a free prize, click now to claim!!!\n"


def _filter(args: list[str], mail: bytes) -> tuple[int, bytes, str]:
    with CliRunner().isolation(input=mail) as (out, err, _):
        status = main(["filter", *args])
        sys.stdout.flush()
        sys.stderr.flush()
    return status, out.getvalue(), err.getvalue().decode()


@pytest.fixture
def model(tmp_path) -> Path:
    path = tmp_path / "spam.bk"
    bk.save(SpamFilter().fit([HAM, SPAM] * 6, ["ham", "spam"] * 6), path)
    return path


def test_learning_into_a_folder_that_does_not_exist_names_the_folder(tmp_path):
    # A new user following the guide: the lock was opened first, and its error named it
    # (".../.bayeskit/spam.bk.lock: No such file or directory").
    folder = tmp_path / "home" / ".bayeskit"
    path = folder / "spam.bk"
    status, out, err = _filter([str(path), "--learn", "spam"], SPAM)
    assert (status, out) == (3, SPAM)  # the message passed on
    assert err.splitlines() == [
        f"bayeskit filter: {path}: the folder '{folder}' does not exist; create it first "
        f"(mkdir -p {folder}); nothing was learned"
    ]
    assert not folder.exists()
    # the same for --unlearn, which has nothing to unlearn from
    status, out, err = _filter([str(path), "--unlearn", "spam"], SPAM)
    assert (status, out) == (3, SPAM)
    assert err.splitlines() == [
        f"bayeskit filter: {path}: no such model file (the folder '{folder}' does not "
        "exist); nothing to unlearn from"
    ]
    # once it is made, --learn creates the model
    folder.mkdir(parents=True)
    status, out, err = _filter([str(path), "--learn", "spam"], SPAM)
    assert (status, out, err) == (0, SPAM, "1 of 1 messages learned\n")
    assert path.exists()


def test_the_guide_says_to_create_the_folder():
    text = " ".join(GUIDE.read_text().split())
    assert "`--learn` creates the model when it does not exist yet, but not its folder" in text
    assert "mkdir -p ~/.bayeskit" in text


def test_unlearn_refuses_what_the_counts_can_tell_and_no_more(model):
    """The model file holds counts: a message made only of words ham messages hold is
    unlearned from ham whether it was learned or not (as bogofilter's -N); one holding a word
    no ham message holds is refused, the model unchanged. The guide says exactly that (it
    said every message not learned as ham was refused)."""
    before = bk.load(model).class_count_.tolist()
    never = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon.\n"  # ham's words only
    status, out, err = _filter([str(model), "--unlearn", "ham"], never)
    assert (status, out, err) == (0, never, "1 of 1 messages unlearned\n")
    after = bk.load(model)
    assert after.class_count_.tolist() == [before[0] - 1, before[1]]
    saved = model.read_bytes()
    new_word = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon, zyzzyva.\n"
    status, out, err = _filter([str(model), "--unlearn", "ham"], new_word)
    assert (status, out) == (3, new_word)
    assert err.splitlines() == [
        "bayeskit filter: this message was not learned as ham: some of its words are in no "
        "ham message the model learned (never learned, or unlearned already); nothing was "
        "unlearned, the model is unchanged"
    ]
    assert model.read_bytes() == saved
    text = " ".join(GUIDE.read_text().split())
    assert "Unlearning a message that was not learned as that class is refused" not in text
    assert (
        "A message made only of words that messages of that class hold is unlearned as "
        "asked, whether it was learned or not" in text
    )
