"""Learning one message at a time, as the model service does: the same model as fitting all
of them at once, and the vocabulary looked up by search or by table with the same columns."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bayeskit.datasets import load_sms_spam
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer, vectorize
from bayeskit.text import _term_lookup as term_lookup

TEXTS, LABELS = load_sms_spam()
FIRST = 400
TEST = TEXTS[4000:4200]
#: Words of the messages below that the first 400 messages mostly do not hold.
NEW_WORDS = ["zyqvax", "load", "test", "0", "17", "quuxly", "plover", "xyzzy"]


def _messages(draw_texts: list[int], words: list[list[str]]) -> list[str]:
    """SMS messages (known words) with some words the model has never counted in front."""
    return [" ".join([*w, TEXTS[FIRST + i]]) for i, w in zip(draw_texts, words, strict=True)]


one_message = st.tuples(
    st.integers(0, 2000), st.lists(st.sampled_from(NEW_WORDS), max_size=3), st.booleans()
)


@pytest.mark.parametrize("make", [TextClassifier, SpamFilter], ids=lambda m: m.__name__)
@settings(max_examples=5, deadline=None)  # each example fits two models on ~400 messages
@given(learned=st.lists(one_message, min_size=1, max_size=12))
def test_learning_one_message_at_a_time_is_fitting_them_all(make, learned):
    docs = _messages([i for i, _, _ in learned], [w for _, w, _ in learned])
    labels = ["spam" if is_spam else "ham" for _, _, is_spam in learned]
    model = make().fit(TEXTS[:FIRST], LABELS[:FIRST])
    for doc, label in zip(docs, labels, strict=True):
        before = model
        model = copy.copy(model).partial_fit([doc], [label])  # as the service learns
        # the model learned from is unchanged (readers of it never see a half-update)
        assert before.stats_.blocks[0].shares_terms()
        # the count model's terms and the counted ones stay one array: no string compared
        assert model.stats_.blocks[0].shares_terms()
    whole = make().fit([*TEXTS[:FIRST], *docs], [*LABELS[:FIRST], *labels])
    assert np.array_equal(model.get_feature_names_out(), whole.get_feature_names_out())
    assert np.array_equal(model.class_count_, whole.class_count_)
    # The count model's numbers (a SpamFilter's probability scale is fitted on scores taken
    # before each message is learned, and by cross-validation in a fit: not compared here).
    (w_model, b_model), (w_whole, b_whole) = model.linear_form(), whole.linear_form()
    np.testing.assert_allclose(w_model, w_whole, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b_model, b_whole, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(TEST),
        whole.predict_joint_log_proba(TEST),
        rtol=1e-9,
        atol=1e-12,
    )


def test_a_learn_leaves_the_model_it_started_from_as_it_was():
    model = SpamFilter().fit(TEXTS[:FIRST], LABELS[:FIRST])
    expected = model.predict_log_proba(TEST)
    terms = model.get_feature_names_out()
    copy.copy(model).partial_fit(["zyqvax plover " + TEXTS[FIRST]], ["spam"])
    assert np.array_equal(model.get_feature_names_out(), terms)
    assert np.array_equal(model.predict_log_proba(TEST), expected)


@pytest.mark.parametrize(
    "vectorizer",
    [
        TextVectorizer(),
        TextVectorizer(min_df=2, oov_token="<oov>"),
        TextVectorizer(analyzer="auto", ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b"),
        # a given vocabulary (here every other word of 2,000 messages, and one never seen)
        TextVectorizer(
            vocabulary=[*sorted({*" ".join(TEXTS[:2000]).lower().split()})[::2], "zyqvax"]
        ),
    ],
    ids=["word", "oov", "auto", "fixed"],
)
@settings(max_examples=20, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 5000), st.lists(st.sampled_from(NEW_WORDS), max_size=4)),
        min_size=1,
        max_size=5,
    )
)
def test_search_and_table_give_the_same_columns(vectorizer, rows):
    fitted = copy.deepcopy(vectorizer).fit(TEXTS[:FIRST])
    docs = [" ".join([*w, TEXTS[i]]) for i, w in rows]
    searched = copy.deepcopy(fitted)
    # Looked up by binary search whatever the number of terms (by default the table is
    # built once the searches would cost as much: five long messages may reach that).
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(vectorize, "SEARCH_BUDGET", float("inf"))
        by_search = searched.transform(docs)
    assert term_lookup.registered(searched.terms_) is None
    tabled = copy.deepcopy(fitted)
    term_lookup.build(tabled.terms_)  # the term -> column table built first: looked up there
    by_table = tabled.transform(docs)
    assert (by_search != by_table).nnz == 0
    assert by_search.shape == by_table.shape
    np.testing.assert_array_equal(by_search.indices, by_table.indices)
    for doc in docs:
        assert searched.column_terms(doc) == tabled.column_terms(doc)


def test_the_table_is_built_once_the_searches_would_cost_as_much():
    vec = TextVectorizer().fit(TEXTS[:FIRST])
    vec.transform(TEXTS[FIRST : FIRST + 2])
    assert term_lookup.registered(vec.terms_) is None
    # A few messages at a time (as many terms in all as the vocabulary has): the table pays.
    many = sp.vstack([vec.transform(TEXTS[i : i + 4]) for i in range(0, FIRST, 4)])
    assert term_lookup.registered(vec.terms_) is not None
    assert (many != TextVectorizer().fit_transform(TEXTS[:FIRST])).nnz == 0


def _columns_by_search(terms: np.ndarray, asked: list[str]) -> np.ndarray:
    at = np.searchsorted(terms, np.asarray(asked, dtype=object))
    inside = at < len(terms)
    hit = np.zeros(len(asked), dtype=bool)
    hit[inside] = terms[at[inside]] == np.asarray(asked, dtype=object)[inside]
    return np.where(hit, at, -1)


@settings(max_examples=15, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.integers(0, 20), st.integers(0, 2000), st.lists(st.sampled_from(NEW_WORDS))),
        min_size=1,
        max_size=8,
    )
)
@example(steps=[(0, 1665, [])])  # more than 64 new terms and pairs: a merge, not an insertion
def test_a_learned_vocabulary_derives_its_lookup_from_the_one_it_was_learned_from(steps):
    """A served model learns a message at a time, each learn from the newest model or (a
    refused batch retried) an older one: every vocabulary made so gets its lookup from its
    parent's, and it gives the columns a search in its own terms gives."""
    models = [SpamFilter().fit(TEXTS[:FIRST], LABELS[:FIRST])]
    term_lookup.build(models[0].fitted_parts()[0].terms_)
    for parent, i, words in steps:
        doc = " ".join([*words, TEXTS[FIRST + i]])
        label = LABELS[FIRST + i]
        models.append(copy.copy(models[parent % len(models)]).partial_fit([doc], [label]))
    asked = [*NEW_WORDS, "never-seen", "a", "zzzz"]
    for model in models:
        terms = model.fitted_parts()[0].terms_
        lookup = term_lookup.registered(terms)
        assert lookup is not None
        np.testing.assert_array_equal(lookup.columns_of(terms.tolist()), np.arange(len(terms)))
        np.testing.assert_array_equal(lookup.columns_of(asked), _columns_by_search(terms, asked))
        # and the model reads a message as one fitted from scratch on its terms reads it
        vec = model.fitted_parts()[0]
        fresh = copy.deepcopy(vec)
        fresh.transform(TEXTS[:2])
        assert term_lookup.registered(fresh.terms_) is None  # a copy: searched, not derived
        assert (vec.transform([" ".join(asked)]) != fresh.transform([" ".join(asked)])).nnz == 0


def test_a_stream_of_learns_builds_the_lookup_once_its_searches_would_pay():
    """Few lookups between learns (a service's checks): the count of terms searched passes
    from each vocabulary to the next, so the lookup is built after as many as the budget
    allows in all, and derived from then on."""
    model = SpamFilter().fit(TEXTS[:FIRST], LABELS[:FIRST])
    vocabularies = []
    for i in range(200):
        model = copy.copy(model).partial_fit([f"plover{i} " + TEXTS[FIRST + i]], [LABELS[i]])
        vec = model.fitted_parts()[0]
        vec.transform(TEXTS[i : i + 2])
        vocabularies.append(term_lookup.registered(vec.terms_))
    built = next(i for i, lookup in enumerate(vocabularies) if lookup is not None)
    assert 0 < built < 150
    assert all(lookup is not None for lookup in vocabularies[built:])


def test_a_lookup_derived_past_a_sibling_s_terms_finds_none_of_them():
    """Two learns from one model (a refused batch retried from an older one) give ids to
    different new terms; a vocabulary learned from the second, then learned from again, holds
    none of the first's: its lookup says so (-1) for them and finds its own as a search does."""
    parent = SpamFilter().fit(TEXTS[:FIRST], LABELS[:FIRST])
    term_lookup.build(parent.fitted_parts()[0].terms_)
    sibling = copy.copy(parent).partial_fit(["zyqvax plover " + TEXTS[FIRST]], [LABELS[FIRST]])
    branch = copy.copy(parent).partial_fit(["xyzzy quuxly " + TEXTS[FIRST + 1]], ["ham"])
    child = copy.copy(branch).partial_fit(["xyzzy fnord " + TEXTS[FIRST + 2]], ["spam"])
    terms = child.fitted_parts()[0].terms_
    lookup = term_lookup.registered(terms)
    assert lookup is not None
    theirs = sorted(set(sibling.fitted_parts()[0].terms_.tolist()) - set(terms.tolist()))
    assert "zyqvax" in theirs
    np.testing.assert_array_equal(lookup.columns_of(theirs), np.full(len(theirs), -1))
    asked = ["xyzzy", "fnord", "quuxly", "xyzzy fnord", "a", *theirs]
    np.testing.assert_array_equal(lookup.columns_of(asked), _columns_by_search(terms, asked))
