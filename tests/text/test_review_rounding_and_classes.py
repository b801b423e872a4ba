"""The text models' selection and classes as ``fit`` gives them, whichever way the same
weighted documents were learned: terms tied in usefulness are not chosen by the rounding of
their weights' sums, and a spam filter that unlearns every message of one class keeps both."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit._usefulness import top_useful
from bayeskit.naive_bayes import MultinomialNB
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer


def useful(k: int) -> TextClassifier:
    return TextClassifier(vectorizer=TextVectorizer(), model=MultinomialNB(), useful_terms=k)


def test_terms_tied_in_usefulness_are_kept_in_term_order_whatever_the_weights_order():
    """0.1 + 0.2 + 0.7 is 1 and 0.7 + 0.2 + 0.1 is 0.9999999999999999: the shares differed in
    the last digit, and the order of the weights chose 'xx' or 'yy' (probabilities 0.5 and
    0.67)."""
    docs, y = ["ww xx", "yy", "yy", "yy"], ["spam", "ham", "ham", "ham"]
    models = [
        useful(2).fit(docs, y, sample_weight=w)
        for w in ([1.0, 0.1, 0.2, 0.7], [1.0, 0.7, 0.2, 0.1])
    ]
    assert [m.get_feature_names_out().tolist() for m in models] == [["ww", "xx"], ["ww", "xx"]]
    np.testing.assert_allclose(
        models[0].predict_proba(["yy"]), models[1].predict_proba(["yy"]), rtol=1e-12
    )


def test_batches_merges_and_unlearns_keep_fits_useful_terms():
    docs, y, w = ["xx", "yy", "yy", "yy"], ["spam", "ham", "ham", "ham"], [1.0, 0.1, 0.2, 0.7]
    whole = useful(1).fit(docs, y, sample_weight=w)
    batches = useful(1).partial_fit(docs[:2], y[:2], classes=["ham", "spam"], sample_weight=w[:2])
    batches.partial_fit(docs[2:], y[2:], sample_weight=w[2:])
    merged = useful(1).fit(docs[:2], y[:2], sample_weight=w[:2]) + useful(1).fit(
        docs[2:], y[2:], sample_weight=w[2:]
    )
    unlearned = useful(1).fit([*docs, "qq"], [*y, "ham"], sample_weight=[*w, 0.9])
    unlearned.unlearn(["qq"], ["ham"], sample_weight=[0.9])
    for other in (batches, merged, unlearned):
        assert other.get_feature_names_out().tolist() == whole.get_feature_names_out().tolist()
        np.testing.assert_allclose(other.predict_proba(docs), whole.predict_proba(docs), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_useful_terms_do_not_depend_on_the_documents_order(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    words = np.array(["aa", "bb", "cc", "dd", "ee"])
    docs = [" ".join(rng.choice(words, size=int(rng.integers(1, 4)))) for _ in range(n)]
    y = np.array(["ham", "spam"])[rng.integers(0, 2, size=n)]
    y[0], y[-1] = "ham", "spam"
    w = rng.integers(1, 10, size=n) / 10.0
    perm = rng.permutation(n)
    a = useful(2).fit(docs, y, sample_weight=w)
    b = useful(2).fit([docs[i] for i in perm], y[perm], sample_weight=w[perm])
    assert a.get_feature_names_out().tolist() == b.get_feature_names_out().tolist()
    np.testing.assert_allclose(a.predict_proba(docs), b.predict_proba(docs), rtol=1e-9)


def test_top_useful_keeps_the_first_of_features_tied_at_the_cut():
    values = np.array([0.6296296296296297, 0.9, 0.6296296296296295, 0.5])
    np.testing.assert_array_equal(
        top_useful(values, k=2, threshold=None), [True, True, False, False]
    )
    np.testing.assert_array_equal(
        top_useful(values, k=3, threshold=None), [True, True, True, False]
    )
    np.testing.assert_array_equal(
        top_useful(values, k=None, threshold=0.6296296296296297), [True, True, True, False]
    )


def test_a_filter_that_unlearns_every_spam_keeps_both_classes_and_says_unsure():
    """It dropped the spam class, and every later classify was refused ("a SpamFilter learns
    two classes ... set ham_label/spam_label")."""
    for folds in (None, 5):
        f = SpamFilter(calibration_folds=folds).fit(
            ["aa bb", "bb cc", "cc dd"], ["ham", "spam", "ham"]
        )
        f.unlearn(["bb cc"], ["spam"])
        only_ham = SpamFilter(calibration_folds=folds).fit(["aa bb", "cc dd"], ["ham", "ham"])
        assert f.classes_.tolist() == only_ham.classes_.tolist() == ["ham", "spam"]
        assert f.classify(["aa", "zz"]).tolist() == only_ham.classify(["aa", "zz"]).tolist()
        np.testing.assert_array_equal(f.predict_proba(["aa"]), only_ham.predict_proba(["aa"]))
        f.partial_fit(["zz qq"], ["spam"])  # and it goes on learning
        assert f.classes_.tolist() == ["ham", "spam"]
