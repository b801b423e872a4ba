"""Text models inside scikit-learn's tools: a document of weight 0 is as if left out (a
bootstrap's out-of-bag rows), a search over ``ngram_range`` keeps the default's n-gram
weights, and a spam filter's refusal of coded labels says how to wrap it."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import VotingClassifier
from sklearn.model_selection import GridSearchCV

from bayeskit.datasets import load_sms_spam
from bayeskit.errors import DataError
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

MAKERS = {
    "default": TextClassifier,
    "tf-idf without idf": lambda: TextClassifier(
        vectorizer=TextVectorizer(output="tfidf", use_idf=False)
    ),
    "counts": lambda: TextClassifier(vectorizer=TextVectorizer()),
    "spam filter": SpamFilter,
}


@pytest.fixture(scope="module")
def sms():
    texts, labels = load_sms_spam()
    return np.asarray(texts[:600], dtype=object), np.asarray(labels[:600])


@pytest.mark.parametrize("name", list(MAKERS))
def test_a_document_of_weight_0_is_as_if_left_out(sms, name):
    texts, labels = sms
    weights = np.ones(len(texts))
    weights[::3] = 0.0
    kept = weights > 0
    make = MAKERS[name]
    weighed = make().fit(texts, labels, sample_weight=weights)
    left_out = make().fit(texts[kept], labels[kept])
    np.testing.assert_array_equal(weighed.get_feature_names_out(), left_out.get_feature_names_out())
    if name != "spam filter":  # (its calibration folds are cut from every message)
        np.testing.assert_allclose(
            weighed.predict_proba(texts[::3]), left_out.predict_proba(texts[::3]), atol=1e-12
        )
    # in a stream, batch by batch, too
    streamed = make()
    for start in range(0, len(texts), 200):
        part = slice(start, start + 200)
        streamed.partial_fit(
            texts[part], labels[part], classes=["ham", "spam"], sample_weight=weights[part]
        )
    np.testing.assert_array_equal(
        streamed.get_feature_names_out(), left_out.get_feature_names_out()
    )


def test_a_search_over_ngram_range_keeps_the_defaults_ngram_weights(sms):
    texts, labels = sms
    search = GridSearchCV(
        TextClassifier(), {"vectorizer__ngram_range": [(1, 1), (1, 2)]}, cv=2, error_score="raise"
    ).fit(texts, labels)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    unigrams = TextClassifier().set_params(vectorizer__ngram_range=(1, 1)).fit(texts, labels)
    assert not any(" " in term for term in unigrams.get_feature_names_out())
    # a range longer than the weights given is still refused, naming both
    with pytest.raises(Exception, match="at least ngram_range\\[1\\]=3"):
        TextClassifier().set_params(vectorizer__ngram_range=(1, 3)).fit(texts, labels)


def test_a_spam_filter_given_coded_labels_says_how_to_wrap_it(sms):
    texts, labels = sms
    coded = (labels == "spam").astype(int)
    with pytest.raises(DataError, match="ham_label=0, spam_label=1"):
        SpamFilter().fit(texts, coded)
    voting = VotingClassifier([("filter", SpamFilter(ham_label=0, spam_label=1))], voting="soft")
    assert voting.fit(texts, labels).score(texts, labels) > 0.9
