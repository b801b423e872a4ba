"""A missing document — None, NaN or pandas' NA, as a frame's text column read with empty cells
holds them — is a document without words wherever documents enter (fit, predict, the
vectorizers of every analyzer), as the missing-values guide says of Python input: NaN was
refused ("documents must be str or bytes, got float") where None was read as no text."""

import numpy as np
import pandas as pd
import pytest

from bayeskit.errors import InputTypeError
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

TRAIN = ["free prize now", "lunch at noon", "win cash prize", "see you at noon"] * 3
LABELS = ["spam", "ham", "spam", "ham"] * 3
MISSING = [np.nan, pd.NA, float("nan"), np.float64("nan")]


@pytest.mark.parametrize("make", [TextClassifier, SpamFilter], ids=["text", "spam"])
def test_a_missing_document_scores_as_none_does(make):
    model = make().fit(TRAIN, LABELS)
    none = model.predict_proba([None])
    for missing in MISSING:
        got = model.predict_proba(pd.Series(["free prize", missing], dtype=object))
        np.testing.assert_array_equal(got[1:], none)
        np.testing.assert_array_equal(got[:1], model.predict_proba(["free prize"]))


def test_fitting_with_missing_documents_is_fitting_with_none():
    with_nan = TextClassifier().fit(pd.Series([*TRAIN[:-1], np.nan]), LABELS)
    with_none = TextClassifier().fit([*TRAIN[:-1], None], LABELS)
    np.testing.assert_array_equal(with_nan.class_count_, with_none.class_count_)
    np.testing.assert_array_equal(
        with_nan.predict_joint_log_proba(TRAIN), with_none.predict_joint_log_proba(TRAIN)
    )


@pytest.mark.parametrize("analyzer", ["auto", "word", "email", "char"])
def test_every_analyzer_counts_no_words_in_a_missing_document(analyzer):
    docs = pd.Series(["free prize now", np.nan, pd.NA, None], dtype=object)
    X = TextVectorizer(analyzer=analyzer).fit_transform(docs)
    assert X[0].sum() > 0
    assert X[1:].sum() == 0


def test_a_number_is_still_not_a_document():
    model = TextClassifier().fit(TRAIN, LABELS)
    with pytest.raises(InputTypeError, match=r"documents must be str or bytes, got float \(3.5\)"):
        model.predict([3.5])
