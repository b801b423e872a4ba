"""The text classifier on the one template (bayeskit._base): the template's partial_fit,
unlearn, merging, summarize/fit_summary give the whole fit's numbers, for every count model
and both modes; the class prior and the decision are the count model's."""

from __future__ import annotations

import numpy as np
import pytest

from bayeskit import BernoulliNB, ComplementNB, MultinomialNB, PoissonNB
from bayeskit.errors import MergeError, ParameterError
from bayeskit.text import TextClassifier, TextVectorizer

DOCS = [
    "win cash now",
    "free cash prize now",
    "lunch at noon",
    "see you at lunch",
    "the budget report is late",
    "claim your free prize",
    "meeting moved to noon",
    "cheap meds now now",
    "lunch budget meeting",
    "free meds prize",
]
LABELS = np.array(["spam", "spam", "ham", "ham", "ham", "spam", "ham", "spam", "ham", "spam"])
NEW = ["cash prize for lunch", "budget meeting", "zebra", "now now free"]

SETTINGS = [
    {},
    {"vectorizer": TextVectorizer(), "model": MultinomialNB()},
    {"vectorizer": TextVectorizer(output="binary"), "model": BernoulliNB()},
    {"vectorizer": TextVectorizer(), "model": PoissonNB()},
    {"vectorizer": TextVectorizer(oov_token="<oov>"), "model": MultinomialNB()},
    {"vectorizer": TextVectorizer(min_df=2), "model": ComplementNB(norm=True)},
    {"vectorizer": TextVectorizer(), "model": MultinomialNB(fit_prior=False)},
    {"vectorizer": TextVectorizer(), "model": MultinomialNB(), "useful_terms": 5},
]
FIXED = [
    {"vectorizer": TextVectorizer(output="tfidf"), "model": MultinomialNB()},
    {"vectorizer": TextVectorizer(output="hashed", n_features=64), "model": MultinomialNB()},
    {"vectorizer": TextVectorizer(vocabulary=["cash", "lunch", "now"]), "model": ComplementNB()},
]


def _same(mine: TextClassifier, theirs: TextClassifier) -> None:
    np.testing.assert_array_equal(mine.classes_, theirs.classes_)
    np.testing.assert_allclose(mine.predict_proba(NEW), theirs.predict_proba(NEW), rtol=1e-12)
    np.testing.assert_allclose(
        mine.predict_joint_log_proba(NEW), theirs.predict_joint_log_proba(NEW), rtol=1e-12
    )
    np.testing.assert_array_equal(mine.predict(NEW), theirs.predict(NEW))


@pytest.mark.parametrize("settings", SETTINGS, ids=repr)
def test_batches_parts_and_merging_give_the_whole_fit(settings):
    whole = TextClassifier(**settings).fit(DOCS, LABELS)
    batches = TextClassifier(**settings)
    for start in range(0, len(DOCS), 3):
        batches.partial_fit(DOCS[start : start + 3], LABELS[start : start + 3])
    _same(batches, whole)
    a = TextClassifier(**settings).fit(DOCS[:5], LABELS[:5])
    b = TextClassifier(**settings).fit(DOCS[5:], LABELS[5:])
    _same(a + b, whole)
    template = TextClassifier(**settings)
    parts = template.summarize(DOCS[:4], LABELS[:4]) + template.summarize(DOCS[4:], LABELS[4:])
    _same(TextClassifier(**settings).fit_summary(parts), whole)
    np.testing.assert_array_equal(
        (a + b).vocabulary_stats_.doc_freq, whole.vocabulary_stats_.doc_freq
    )


@pytest.mark.parametrize("settings", SETTINGS, ids=repr)
def test_unlearning_gives_the_model_without_those_documents(settings):
    mine = TextClassifier(**settings).fit(DOCS, LABELS).unlearn(DOCS[:3], LABELS[:3])
    _same(mine, TextClassifier(**settings).fit(DOCS[3:], LABELS[3:]))


def test_the_prior_in_the_scores_is_the_count_models():
    assert not TextClassifier().scores_include_prior()  # ComplementNB's, the default model
    assert TextClassifier(model=MultinomialNB()).scores_include_prior()
    vec, model = TextClassifier(model=MultinomialNB()).fit(DOCS, LABELS).fitted_parts()
    theirs = MultinomialNB().fit(vec.transform(DOCS), LABELS)
    np.testing.assert_allclose(model.feature_log_prob_, theirs.feature_log_prob_)


def test_fixed_columns_merge_only_when_the_same():
    settings = {"vectorizer": TextVectorizer(output="tfidf"), "model": MultinomialNB()}
    a = TextClassifier(**settings).fit(DOCS[:5], LABELS[:5])
    b = TextClassifier(**settings).fit(DOCS[5:], LABELS[5:])
    with pytest.raises(MergeError):
        a + b
    more = TextClassifier(**settings).fit(DOCS, LABELS).partial_fit(NEW[:2], ["ham", "spam"])
    theirs = TextClassifier(**settings).fit(DOCS, LABELS).partial_fit(NEW[:2], ["ham", "spam"])
    _same(more, theirs)


def test_count_parameters_that_are_not_numbers_are_refused_naming_them():
    """The template's check of fitted parameters reaches the count family's parameters
    inside the documents block, naming them, the class and the column."""
    from bayeskit._all_or_nothing import check_parameters
    from bayeskit.errors import DataError
    from bayeskit.families import Multinomial
    from bayeskit.families.multinomial import MultinomialParams
    from bayeskit.stats import Counts
    from bayeskit.text._documents import DocumentsFamily, DocumentsParams

    family = DocumentsFamily(TextVectorizer(), Multinomial())
    columns = Counts(np.ones(2), np.ones((2, 2)))
    bad = DocumentsParams(
        TextVectorizer(), MultinomialParams(None, np.array([[0.0, 0.0], [np.nan, 0]])), columns
    )
    with pytest.raises(DataError, match=r"fitted count\.feature_log_prob is nan at class 'spam'"):
        check_parameters([family], [bad], np.array(["ham", "spam"]), [["cash", "now"]])
    good = DocumentsParams(TextVectorizer(), MultinomialParams(None, np.zeros((2, 2))), columns)
    check_parameters([family], [good], np.array(["ham", "spam"]), [["cash", "now"]])


def test_nested_settings_reach_the_default_model_and_take_effect_on_a_fitted_model():
    """``model__alpha=…`` with ``model=None`` sets the default model's alpha (as a grid
    search sets it), and a fitted model scores with the new settings at once."""
    mine = TextClassifier().fit(DOCS, LABELS)
    before = mine.predict_joint_log_proba(NEW)
    mine.set_params(model__alpha=2.0)
    assert mine.model.alpha == 2.0
    theirs = TextClassifier().set_params(model__alpha=2.0).fit(DOCS, LABELS)
    _same(mine, theirs)
    assert not np.allclose(mine.predict_joint_log_proba(NEW), before)
    mine.set_params(model=MultinomialNB())  # and the prior in the scores follows the model
    assert mine.scores_include_prior()


def test_the_fixed_layout_is_compact_and_tells_fits_apart():
    hashed = {"vectorizer": TextVectorizer(output="hashed", n_features=2**18)}
    assert TextClassifier(**hashed).fit(DOCS, LABELS).layout_state() is None
    given = {"vectorizer": TextVectorizer(vocabulary=["cash", "lunch"])}
    assert TextClassifier(**given).fit(DOCS, LABELS).layout_state() is None
    tfidf = {"vectorizer": TextVectorizer(output="tfidf"), "model": MultinomialNB()}
    a = TextClassifier(**tfidf).fit(DOCS, LABELS).layout_state()
    assert a == TextClassifier(**tfidf).fit(DOCS, LABELS).layout_state()
    assert a is not None
    assert set(a) == {"n_columns", "sha256"}
    assert a != TextClassifier(**tfidf).fit(DOCS[:6], LABELS[:6]).layout_state()
    # the hashed models of two parts merge: their columns are the settings'
    parts = TextClassifier(**hashed).fit(DOCS[:5], LABELS[:5]) + TextClassifier(**hashed).fit(
        DOCS[5:], LABELS[5:]
    )
    _same(parts, TextClassifier(**hashed).fit(DOCS, LABELS))


def test_given_parameters_are_adopted_as_the_model_would_make_them():
    counts = np.array([[3, 0, 1], [0, 2, 2], [1, 1, 0], [4, 0, 0]], dtype=float)
    y = np.array([0, 1, 1, 0])
    made = MultinomialNB(alpha=0.5).fit(counts, y)
    summary = made.statistics()
    (family,) = made.configured_families()
    given = MultinomialNB(alpha=0.5).fit_summary(
        summary, parameters=[family.finalize(summary.blocks[0])]
    )
    np.testing.assert_array_equal(given.feature_log_prob_, made.feature_log_prob_)
    np.testing.assert_array_equal(given.predict_proba(counts), made.predict_proba(counts))
    fresh = MultinomialNB()
    with pytest.raises(ParameterError, match="2 blocks' parameters"):
        fresh.fit_summary(summary, parameters=[None, None])
    assert "stats_" not in fresh.__dict__  # refused: the model is as it was


def test_the_count_model_is_finalized_once_per_change(monkeypatch):
    family = type(TextClassifier().prototypes()[1].configured_families()[0])
    calls = []
    original = family.finalize
    monkeypatch.setattr(
        family, "finalize", lambda self, stats: calls.append(1) or original(self, stats)
    )
    clf = TextClassifier().fit(DOCS, LABELS)
    clf.predict(NEW)
    calls.clear()
    clf.partial_fit(NEW[:1], ["spam"])
    _, model = clf.fitted_parts()
    clf.predict_proba(NEW)
    assert len(calls) == 1  # the template's; fitted_parts adopts its parameters
    fresh = type(model)(**model.get_params()).fit_summary(model.statistics())
    np.testing.assert_array_equal(model.feature_log_prob_, fresh.feature_log_prob_)
