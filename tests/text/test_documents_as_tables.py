"""Documents given as a table (a pandas or polars DataFrame, a 2-D array) are its one column;
a table of more columns is refused by name. Iterating over a DataFrame gives its column
names: a frame of twelve documents used to be classified as one document, "text"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

from bayeskit.errors import InputTypeError
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

DOCS = ["buy cheap pills now", "meeting at noon", "cheap offer, click now", "lunch at one?"] * 5
LABELS = ["spam", "ham", "spam", "ham"] * 5


def tables(docs):
    return {
        "pandas": pd.DataFrame({"text": docs}),
        "polars": pl.DataFrame({"body": docs}),
        "2-D array": np.array(docs, dtype=object)[:, None],
    }


@pytest.mark.parametrize("make", [TextClassifier, SpamFilter])
@pytest.mark.parametrize("kind", ["pandas", "polars", "2-D array"])
def test_one_column_is_the_documents(make, kind):
    expected = make().fit(DOCS, LABELS)
    table = tables(DOCS)[kind]
    fitted = make().fit(table, LABELS)
    np.testing.assert_array_equal(fitted.predict(DOCS), expected.predict(DOCS))
    np.testing.assert_allclose(expected.predict_proba(table), expected.predict_proba(DOCS))
    assert len(expected.predict(table)) == len(DOCS)


def test_the_vectorizer_reads_the_one_column_too():
    expected = TextVectorizer().fit_transform(DOCS).toarray()
    for table in tables(DOCS).values():
        np.testing.assert_array_equal(TextVectorizer().fit_transform(table).toarray(), expected)


@pytest.mark.parametrize("make", [TextClassifier, SpamFilter])
def test_more_columns_are_refused_by_name_and_the_model_kept(make):
    model = make().fit(DOCS, LABELS)
    before = model.predict_proba(DOCS)
    frame = pd.DataFrame({"text": DOCS, "id": range(len(DOCS))})
    with pytest.raises(InputTypeError, match=r"2 columns \('text', 'id'\).*X\['text'\]"):
        model.predict(frame)
    with pytest.raises(InputTypeError, match=r"2 columns \('text', 'id'\)"):
        model.partial_fit(frame, LABELS)
    with pytest.raises(InputTypeError, match="an array of 2 columns"):
        model.predict(np.array([DOCS, DOCS], dtype=object).T)
    np.testing.assert_array_equal(model.predict_proba(DOCS), before)
