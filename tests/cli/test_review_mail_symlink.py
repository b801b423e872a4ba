"""A model kept in one place and linked where the mail filter looks for it
(``~/.bayeskit/spam.bk -> /srv/mail/spam.bk``): ``--learn`` through the link changes the model
itself, and the scorer reads the token store the learner keeps in step."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import bayeskit as bk

from .._spam_corpus import SRC, needs_corpus, trained_filter

pytestmark = needs_corpus

HAM = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow? The usual place.\n"


def _filter(*args: str, cwd: Path, message: bytes) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "bayeskit", "filter", *args],
        input=message,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=300,
    )


def test_learning_through_a_symbolic_link_changes_the_model_it_points_to(tmp_path):
    kept = tmp_path / "srv"
    kept.mkdir()
    real = trained_filter(kept / "spam.bk", 10)
    before = bk.load(real).class_count_.tolist()
    home = tmp_path / "home"
    home.mkdir()
    (home / "spam.bk").symlink_to(real)

    got = _filter("spam.bk", "--learn", "ham", cwd=home, message=HAM)
    assert got.returncode == 0, got.stderr
    assert got.stdout == HAM
    # The learn used to rename its new file over the link: the link became a copy of its
    # own, and the model it pointed to (which other paths, a server, read) learned nothing.
    assert (home / "spam.bk").is_symlink()
    assert bk.load(real).class_count_.sum() == sum(before) + 1
    assert not (home / "spam.bk.lock").exists()

    scored = _filter("spam.bk", "--verbose", cwd=home, message=HAM)
    assert scored.returncode in (0, 1, 2), scored.stderr
    assert b"scored from the token store" in scored.stderr
    assert scored.stdout.startswith(HAM[: HAM.index(b"\n\n")])
