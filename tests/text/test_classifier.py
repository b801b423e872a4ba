"""TextClassifier: raw text in; exact partial_fit, merge and unlearn; explanations."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.naive_bayes import ComplementNB as SkComplementNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.errors import DataError, MergeError, NotFittedError, ParameterError
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

TEXTS, LABELS = load_sms_spam()
TRAIN, Y_TRAIN = TEXTS[:3000], LABELS[:3000]
TEST = TEXTS[3000:3600]


def test_same_numbers_as_a_scikit_learn_pipeline():
    ours = TextClassifier.sklearn_defaults().fit(TRAIN, Y_TRAIN)
    vec = CountVectorizer()
    theirs = SkMultinomialNB().fit(vec.fit_transform(TRAIN), Y_TRAIN)
    np.testing.assert_allclose(
        ours.predict_log_proba(TEST), theirs.predict_log_proba(vec.transform(TEST)), rtol=1e-10
    )
    twcnb = TextClassifier(
        vectorizer=TextVectorizer(output="tfidf", sublinear_tf=True),
        model=bk.ComplementNB(norm=True, alpha=0.3),
    ).fit(TRAIN, Y_TRAIN)
    tvec = TfidfVectorizer(sublinear_tf=True)
    sk_twcnb = SkComplementNB(norm=True, alpha=0.3).fit(tvec.fit_transform(TRAIN), Y_TRAIN)
    np.testing.assert_allclose(
        twcnb.predict_proba(TEST), sk_twcnb.predict_proba(tvec.transform(TEST)), rtol=1e-10
    )


SETTINGS = [
    {},
    {"vectorizer": TextVectorizer(min_df=2, oov_token="<oov>")},
    {"vectorizer": TextVectorizer(output="binary", max_features=300), "model": bk.BernoulliNB()},
    {"vectorizer": TextVectorizer(ngram_range=(1, 2)), "model": bk.ComplementNB(norm=True)},
    {
        # Per-document weights (log-tf, unit length, no idf): the statistics still add.
        "vectorizer": TextVectorizer(output="tfidf", use_idf=False, sublinear_tf=True),
        "model": bk.ComplementNB(alpha=0.03),
    },
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: repr(s)[:60])
@settings(max_examples=6)  # each example fits four classifiers on 3,000 messages
@given(cut=st.integers(200, 2800))
def test_partial_fit_merge_and_unlearn_are_exact(settings, cut):
    whole = TextClassifier(**settings).fit(TRAIN, Y_TRAIN)
    expected = whole.predict_log_proba(TEST)
    streamed = TextClassifier(**settings).partial_fit(TRAIN[:cut], Y_TRAIN[:cut])
    streamed.partial_fit(TRAIN[cut:], Y_TRAIN[cut:])
    np.testing.assert_allclose(streamed.predict_log_proba(TEST), expected, rtol=1e-9)
    merged = TextClassifier(**settings).fit(TRAIN[:cut], Y_TRAIN[:cut]) + TextClassifier(
        **settings
    ).fit(TRAIN[cut:], Y_TRAIN[cut:])
    np.testing.assert_allclose(merged.predict_log_proba(TEST), expected, rtol=1e-9)
    unlearned = whole.unlearn(TRAIN[cut:], Y_TRAIN[cut:])
    first = TextClassifier(**settings).fit(TRAIN[:cut], Y_TRAIN[:cut])
    np.testing.assert_allclose(
        unlearned.predict_log_proba(TEST), first.predict_log_proba(TEST), rtol=1e-9
    )


def test_tfidf_partial_fit_keeps_the_first_vocabulary():
    clf = TextClassifier(vectorizer=TextVectorizer(output="tfidf")).fit(
        TRAIN[:1000], Y_TRAIN[:1000]
    )
    vocab = clf.transform(["x"]).shape[1]
    clf.partial_fit(TRAIN[1000:], Y_TRAIN[1000:])
    assert clf.transform(["x"]).shape[1] == vocab
    assert clf.score(TEST, LABELS[3000:3600]) > 0.9


def test_explain_and_top_terms():
    clf = TextClassifier().fit(TRAIN, Y_TRAIN)
    e = clf.explain("WINNER!! Claim your free prize now")
    assert e.label == "spam"
    assert {c.feature for c in e.top(3)} <= {"claim", "prize", "winner", "free", "your", "now"}
    jll = clf.predict_joint_log_proba(["WINNER!! Claim your free prize now"])[0]
    assert e.log_odds == pytest.approx(jll[1] - jll[0])
    top = clf.top_terms(5)
    assert set(top) == {"ham", "spam"}
    useful = clf.term_usefulness()
    assert max(useful.values()) <= 1.0
    assert useful["the"] < useful["prize"]


def test_empty_and_tokenless_documents_get_the_prior():
    clf = TextClassifier.sklearn_defaults().fit(TRAIN, Y_TRAIN)
    proba = clf.predict_proba(["", "!!! ?", "zzzqqq xxyyzz"])
    prior = np.exp(clf.fitted_parts()[1].class_log_prior_)
    np.testing.assert_allclose(proba, np.tile(prior, (3, 1)))
    # The default's ComplementNB leaves the prior out (as scikit-learn's does): what it gives
    # an all-zero row.
    clf = TextClassifier().fit(TRAIN, Y_TRAIN)
    vec, model = clf.fitted_parts()
    empty = model.predict_proba(sp.csr_matrix((1, len(vec.get_feature_names_out()))))
    proba = clf.predict_proba(["", "!!! ?", "zzzqqq xxyyzz"])
    np.testing.assert_allclose(proba, np.tile(empty, (3, 1)))


def test_log_tf_weights_without_idf_equal_a_scikit_learn_pipeline():
    # Kept per term (additive), yet the same numbers as TfidfVectorizer(use_idf=False).
    settings = {"use_idf": False, "sublinear_tf": True, "ngram_range": (1, 2)}
    ours = TextClassifier(
        vectorizer=TextVectorizer(output="tfidf", **settings), model=bk.ComplementNB(alpha=0.03)
    ).fit(TRAIN, Y_TRAIN)
    assert "stats_" in ours.__dict__
    vec = TfidfVectorizer(**settings)
    theirs = SkComplementNB(alpha=0.03).fit(vec.fit_transform(TRAIN), Y_TRAIN)
    np.testing.assert_allclose(
        ours.predict_proba(TEST), theirs.predict_proba(vec.transform(TEST)), rtol=1e-9
    )


def test_explain_a_hashed_filter_names_the_terms():
    clf = SpamFilter(vectorizer=TextVectorizer(output="hashed", n_features=2**12))
    clf.fit(TRAIN, Y_TRAIN)
    e = clf.explain("WINNER!! Claim your free prize now")
    features = {c.feature for c in e.contributions}
    assert {"claim", "prize", "winner"} <= {t for f in features for t in f.split(" | ")}
    assert not any(f.startswith("hash_") for f in features)
    jll = clf.predict_joint_log_proba(["WINNER!! Claim your free prize now"])[0]
    assert abs(e.log_odds) == pytest.approx(abs(jll[1] - jll[0]))
    assert len(clf.top_terms(3)["spam"]) == 3  # named hash_j: no vocabulary to name them


def test_pandas_output_setting_does_not_break_fitting():
    import sklearn

    with sklearn.config_context(transform_output="pandas"):
        for cls in (TextClassifier, SpamFilter):
            clf = cls().fit(TRAIN[:500], Y_TRAIN[:500])
            assert clf.score(TEST[:100], LABELS[3000:3100]) > 0.9


def test_bad_input():
    with pytest.raises(ParameterError, match="single str"):
        TextClassifier().fit("one text", ["ham"])
    with pytest.raises(
        ParameterError, match=r"model must be a bayeskit count model.*CategoricalNB"
    ):
        TextClassifier(model=bk.CategoricalNB()).fit(TRAIN[:5], Y_TRAIN[:5])
    with pytest.raises(ParameterError, match="oov_token with BernoulliNB"):
        TextClassifier(vectorizer=TextVectorizer(oov_token="<oov>"), model=bk.BernoulliNB()).fit(
            TRAIN[:5], Y_TRAIN[:5]
        )
    with pytest.raises(NotFittedError):
        TextClassifier().predict(["hello"])
    with pytest.raises(ParameterError, match="useful_terms must be a positive int"):
        TextClassifier(useful_terms=0).fit(TRAIN[:5], Y_TRAIN[:5])
    with pytest.raises(ParameterError, match="ngram_range"):
        TextClassifier(vectorizer=TextVectorizer(ngram_range=(1, 50))).fit(TRAIN[:5], Y_TRAIN[:5])
    with pytest.raises(DataError, match=r"vocabulary is empty .*\(0 distinct terms in 2 documents"):
        TextClassifier().fit(["- !", "?"], ["x", "y"])
    clf = TextClassifier().fit(["free cash", "lunch"], ["spam", "ham"])
    clf.partial_fit(["!!", "?"], ["spam", "spam"])  # no terms: only the class counts change
    np.testing.assert_allclose(clf.stats_.class_count, [1, 3])


def test_an_oov_token_that_is_a_term_is_refused_by_the_classifier():
    """oov_token="free" with "free" learned as a term: explain printed two rows 'free'.
    Refused at fit, and by the partial_fit that makes it a term, the model unchanged."""
    docs, y = ["free money now", "lunch at noon", "free lunch", "money"], ["s", "h", "s", "h"]
    refusal = r"oov_token='free' is also the term 'free'"
    with pytest.raises(ParameterError, match=refusal):
        TextClassifier(vectorizer=TextVectorizer(oov_token="free"), model=bk.MultinomialNB()).fit(
            docs, y
        )
    clf = TextClassifier(
        vectorizer=TextVectorizer(oov_token="free", min_df=2), model=bk.MultinomialNB()
    )
    clf.partial_fit(docs[:2] + docs[3:], ["s", "h", "h"])
    P, names = clf.predict_proba(docs), clf.get_feature_names_out().tolist()
    with pytest.raises(ParameterError, match=refusal):
        clf.partial_fit(["free cash"], ["s"])
    np.testing.assert_array_equal(clf.predict_proba(docs), P)
    assert clf.get_feature_names_out().tolist() == names == ["money", "free"]


def test_merge_compares_settings_by_value():
    words = ["the", "to", "a", "you", "and"]
    a = TextClassifier(vectorizer=TextVectorizer(stop_words=set(words))).fit(
        TRAIN[:100], Y_TRAIN[:100]
    )
    b = TextClassifier(vectorizer=TextVectorizer(stop_words=set(reversed(words))))
    b.fit(TRAIN[100:200], Y_TRAIN[100:200])
    assert (a + b).stats_.class_count.sum() == 200
    assert bk.merge(a, b).stats_.class_count.sum() == 200  # one operation
    c = TextClassifier(model=bk.MultinomialNB(alpha=0.5)).fit(TRAIN[:100], Y_TRAIN[:100])
    d = TextClassifier().fit(TRAIN[:100], Y_TRAIN[:100])
    for merged in (lambda: d + c, lambda: bk.merge(d, c)):
        with pytest.raises(MergeError, match="different settings: model="):
            merged()


def test_useful_terms_keeps_the_most_useful_and_stays_exact():
    clf = TextClassifier(useful_terms=500).fit(TRAIN, Y_TRAIN)
    names = clf.fitted_parts()[0].get_feature_names_out()
    assert len(names) == 500
    full = TextClassifier().fit(TRAIN, Y_TRAIN)
    useful = full.term_usefulness()
    assert useful["the"] < min(useful[t] for t in names)
    streamed = TextClassifier(useful_terms=500).partial_fit(TRAIN[:1500], Y_TRAIN[:1500])
    streamed.partial_fit(TRAIN[1500:], Y_TRAIN[1500:])
    np.testing.assert_allclose(streamed.predict_log_proba(TEST), clf.predict_log_proba(TEST))
    # 500 terms of ~25,000 lose little accuracy (the default: 0.9833 with all terms, 0.9483
    # with 500; with uniform smoothing 0.9800 and 0.9500).
    assert clf.score(TEST, LABELS[3000:3600]) >= full.score(TEST, LABELS[3000:3600]) - 0.04
    with pytest.raises(ParameterError, match="useful_terms selects from term statistics"):
        TextClassifier(useful_terms=10, vectorizer=TextVectorizer(output="tfidf")).fit(
            TRAIN[:50], Y_TRAIN[:50]
        )


def test_pickling_and_parallel_model_selection():
    # bayeskit's own files never use pickle, but joblib (n_jobs) and users' caches do.
    import pickle

    from sklearn.model_selection import cross_val_score

    for clf in (
        TextClassifier(),
        TextClassifier(vectorizer=TextVectorizer(output="tfidf")),
        TextClassifier(vectorizer=TextVectorizer(output="hashed", n_features=2**12)),
    ):
        clf.fit(TRAIN[:500], Y_TRAIN[:500])
        again = pickle.loads(pickle.dumps(clf))
        np.testing.assert_array_equal(again.predict_proba(TEST), clf.predict_proba(TEST))
    scores = cross_val_score(TextClassifier(), TRAIN[:900], Y_TRAIN[:900], cv=3, n_jobs=2)
    assert scores.min() > 0.9


def test_grid_search_over_nested_defaults():
    from sklearn.model_selection import GridSearchCV

    grid = {"model__alpha": [0.1, 1.0], "vectorizer__min_df": [1, 2]}
    search = GridSearchCV(TextClassifier(), grid, cv=3).fit(TRAIN[:900], Y_TRAIN[:900])
    assert set(search.best_params_) == set(grid)
    assert search.best_score_ > 0.9
    clf = TextClassifier().set_params(model__alpha=0.25)
    assert clf.model.alpha == 0.25
    assert TextClassifier().model is None  # the default itself is never shared or changed


def test_unlearn_one_message_under_min_df():
    # The removed batch alone satisfies no min_df: unlearning must not select a vocabulary
    # for it, only subtract its statistics.
    settings = {"vectorizer": TextVectorizer(min_df=2)}
    clf = TextClassifier(**settings).fit(TRAIN[:500], Y_TRAIN[:500]).unlearn(TRAIN[:1], Y_TRAIN[:1])
    reference = TextClassifier(**settings).fit(TRAIN[1:500], Y_TRAIN[1:500])
    np.testing.assert_allclose(
        clf.predict_log_proba(TEST), reference.predict_log_proba(TEST), rtol=1e-10
    )


def test_priors_counts_and_terms_of_the_current_model():
    docs = ["win cash now", "free cash prize", "lunch at noon", "see you at lunch", "cash"]
    labels = ["spam", "spam", "ham", "ham", "spam"]
    clf = TextClassifier(vectorizer=TextVectorizer(min_df=2)).fit(docs, labels)
    np.testing.assert_array_equal(clf.class_count_, [2.0, 3.0])
    np.testing.assert_allclose(np.exp(clf.class_log_prior_), [0.4, 0.6])
    assert clf.get_feature_names_out().tolist() == ["at", "cash", "lunch"]
    assert clf.transform(["cash at lunch"]).shape == (1, 3)
