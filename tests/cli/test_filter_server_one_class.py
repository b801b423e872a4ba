"""``bayeskit filter --server URL`` with a served filter that has learned one class only: Unsure
with the reason and no score, as ``bayeskit filter MODEL`` answers (its P(spam) would be 1.0,
the one class it knows, not evidence about the message)."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request

from .._spam_corpus import SRC, needs_corpus, served
from .._spam_corpus import messages as _messages

pytestmark = needs_corpus


def _bayeskit(*args: object, data: bytes = b"", cwd=None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "bayeskit", *map(str, args)]
    return subprocess.run(command, input=data, capture_output=True, env=env, timeout=300, cwd=cwd)


def test_a_served_one_class_filter_says_why_it_is_unsure(tmp_path):
    spam, ham = _messages("spam", 2), _messages("easy_ham_2", 1)
    learned = _bayeskit("filter", "m.bk", "--learn", "spam", data=spam[0], cwd=tmp_path)
    assert learned.returncode == 0, learned.stderr
    with served(tmp_path / "m.bk", cwd=tmp_path) as url:
        request = urllib.request.Request(
            f"{url}/verdict", data=ham[0], headers={"Content-Type": "message/rfc822"}
        )
        answer = urllib.request.urlopen(request, timeout=30).read()
        assert answer == b"unsure - the filter has learned spam only\n"
        for message in (spam[1], ham[0]):
            done = _bayeskit("filter", "--server", url, data=message)
            assert done.returncode == 2, done.stderr  # Unsure, not "spam"
            assert b"X-Bayeskit-Spam: Unsure\n" in done.stdout
            assert b"X-Bayeskit-Score" not in done.stdout
            assert b"X-Bayeskit-Reason: the filter has learned spam only\n" in done.stdout
            assert b"unsure of every message" in done.stderr
            ours = [
                b"X-Bayeskit-Spam: Unsure\n",
                b"X-Bayeskit-Reason: the filter has learned spam only\n",
            ]
            passed = done.stdout
            for line in ours:
                passed = passed.replace(line, b"", 1)
            assert passed == message  # every byte passed on
