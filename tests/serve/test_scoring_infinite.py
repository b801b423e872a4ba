"""An unsmoothed model gives some words no probability in a class, so a message can be
impossible in both: its log-odds are NaN, answered as null. The server's arithmetic said so
in a RuntimeWarning on every such check (under this suite's warnings-as-errors: a 500)."""

from __future__ import annotations

import math

import bayeskit as bk
from bayeskit.serve.scoring import Scorer
from bayeskit.text import TextClassifier


def test_a_message_impossible_in_every_class_is_answered_without_a_warning():
    model = TextClassifier(model=bk.MultinomialNB(alpha=0, force_alpha=True))
    model.fit(["free cash prize", "lunch notes meeting", "cash prize win", "lunch meeting"],
              ["spam", "ham", "spam", "ham"])  # fmt: skip
    answer = Scorer.of(model).check("free lunch", words=True)  # (RuntimeWarning: an error)
    assert math.isnan(answer["log_odds"])
    assert sorted(r["token"] for r in answer["reasons"]) == ["free", "lunch"]
    assert all(math.isinf(r["weight"]) for r in answer["reasons"])
