"""A served model over a large vocabulary is checked from the few columns of its weights each
message needs: the same answers as from the whole array, which no learn's snapshot makes."""

from __future__ import annotations

import numpy as np
import pytest

from bayeskit.datasets import load_sms_spam
from bayeskit.families import _structured
from bayeskit.serve import scoring
from bayeskit.serve.scoring import Scorer
from bayeskit.text import SpamFilter, TextClassifier


@pytest.mark.parametrize("make", [TextClassifier, SpamFilter])
def test_checks_by_columns_answer_as_checks_by_the_whole_array(monkeypatch, make):
    monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1)  # kept structured, however small
    texts, labels = load_sms_spam()
    model = make().fit(texts[:2000], labels[:2000])
    whole = Scorer.of(model)
    assert whole.W is not None
    monkeypatch.setattr(scoring, "WHOLE_CELLS", 0)  # as a model of a million terms is
    params = model.fitted_parts()[1]._fitted().params[0]
    params.__dict__.pop("feature_log_prob", None)  # (the whole array, made for ``whole``)
    by_columns = Scorer.of(model)
    assert by_columns.W is None
    np.testing.assert_array_equal(by_columns.b, whole.b)
    for doc in [*texts[2000:2040], "", "zzzz unseen words only", "FREE entry win £1000"]:
        a, b = whole.check(doc, words=True), by_columns.check(doc, words=True)
        assert a["verdict"] == b["verdict"]
        assert a["label"] == b["label"]
        for key in ("log_odds", *(("p_spam",) if make is SpamFilter else ())):
            np.testing.assert_allclose(b[key], a[key], rtol=1e-10, atol=1e-10)
        for k, p in a["probabilities"].items():
            np.testing.assert_allclose(b["probabilities"][k], p, rtol=1e-10, atol=1e-15)
        assert [r["token"] for r in a["reasons"]] == [r["token"] for r in b["reasons"]]
        expected = model.predict_proba([doc])[0]
        got = [b["probabilities"][str(c)] for c in model.classes_]
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert "feature_log_prob" not in params.__dict__  # no check made the whole array
