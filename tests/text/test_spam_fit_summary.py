"""A SpamFilter set up from a sum of summaries: the counts are fit's, and the probability
scale, which no summary holds, is fitted from the parts' held-out score counts as the
docstring shows."""

from __future__ import annotations

import numpy as np

from bayeskit.datasets import load_sms_spam
from bayeskit.text import SpamFilter


def test_fit_summary_then_calibrate_from_the_parts():
    texts, labels = load_sms_spam()
    texts, labels = np.asarray(texts[:1200], dtype=object), np.asarray(labels[:1200])
    parts = [(texts[i : i + 400], labels[i : i + 400]) for i in range(0, 1200, 400)]
    f = SpamFilter().fit_summary(sum(SpamFilter().summarize(X, y) for X, y in parts))
    fitted = SpamFilter().fit(texts, labels)
    test = texts[:50]
    np.testing.assert_allclose(f.log_odds(test), fitted.log_odds(test), atol=1e-9)
    assert f.probability_scale() == (1.0, 0.0)  # no scale yet, as documented
    f.calibrate(sum(f.held_out_score_counts(X, y) for X, y in parts))
    a, b = f.probability_scale()
    assert a > 0
    assert (a, b) != (1.0, 0.0)
    # held-out scores by the filter less each part's folds: close to fit's own scale
    np.testing.assert_allclose(f.spam_probability(test), fitted.spam_probability(test), atol=0.1)
