"""A binary report's ROC-AUC is the area of the curve it draws, the positive class's (a spam
filter's spam label, which need not be the second class): it was class index 1's, which
differs where rows that sum to 1 within rounding tie on one column and not on the other."""

from types import SimpleNamespace

import numpy as np
from sklearn import metrics

from bayeskit.report.evaluation import evaluate

# rows summing to 1 within 1e-6: column 0 ranks b above a, column 1 ranks them the other way
P = np.array([[0.4, 0.6], [0.4000004, 0.6000001], [0.9, 0.1], [0.1, 0.9]])
TRUTH = np.array(["spam", "ham", "spam", "ham"], dtype=object)


def test_the_headline_area_is_the_drawn_curve_of_the_positive_class():
    model = SimpleNamespace(spam_label="spam")
    out = evaluate(["spam", "ham"], TRUTH, P, model, predicted=TRUTH)
    assert out.positive == 0
    (curve,) = out.roc
    assert out.roc_auc == curve.area
    assert out.roc_auc == metrics.roc_auc_score(TRUTH == "spam", P[:, 0])
    assert out.roc_auc != metrics.roc_auc_score(TRUTH == "ham", P[:, 1])
