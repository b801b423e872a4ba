"""DocumentsFamily: a vectorizer plus a count family as one family. Its statistics are the
text classifier's term statistics, its scores the classifier's, for every count model and
both modes (per term, fixed vocabulary); soft class weights give EM's weighted statistics."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from bayeskit import BernoulliNB, ComplementNB, MultinomialNB, PoissonNB
from bayeskit.errors import ParameterError
from bayeskit.families import Multinomial
from bayeskit.text import DocumentStats, TextClassifier, TextVectorizer
from bayeskit.text._documents import DocumentsFamily, as_documents, keeps_term_statistics

DOCS = [
    "win cash now",
    "free cash prize now",
    "lunch at noon",
    "see you at lunch",
    "the budget report is late",
    "claim your free prize",
    "meeting moved to noon",
    "cheap meds now now",
]
LABELS = np.array(["spam", "spam", "ham", "ham", "ham", "spam", "ham", "spam"])
NEW = ["cash prize for lunch", "budget meeting", "zebra"]

SETTINGS = [
    TextClassifier.sklearn_defaults(),
    TextClassifier(),
    TextClassifier(vectorizer=TextVectorizer(output="binary"), model=BernoulliNB()),
    TextClassifier(vectorizer=TextVectorizer(), model=PoissonNB()),
    TextClassifier(vectorizer=TextVectorizer(oov_token="<oov>"), model=MultinomialNB()),
    TextClassifier(vectorizer=TextVectorizer(min_df=2), model=ComplementNB(norm=True)),
    TextClassifier(vectorizer=TextVectorizer(), model=MultinomialNB(), useful_terms=4),
]


def _family(clf: TextClassifier, **kwargs) -> DocumentsFamily:
    vec, model = clf.prototypes()
    (count,) = model.configured_families()
    return DocumentsFamily(vec, count, useful_terms=clf.useful_terms, **kwargs)


def _one_hot(labels: np.ndarray) -> tuple[np.ndarray, sp.csr_matrix]:
    classes, index = np.unique(labels, return_inverse=True)
    n = len(labels)
    return classes, sp.csr_matrix((np.ones(n), (np.arange(n), index)), shape=(n, len(classes)))


@pytest.mark.parametrize("clf", SETTINGS, ids=repr)
def test_statistics_and_scores_are_the_classifiers(clf):
    family = _family(clf)
    _, R = _one_hot(LABELS)
    stats = family.summarize(family.validate(DOCS, []), R)
    assert isinstance(stats, DocumentStats)
    (through_model,) = clf.summarize(DOCS, LABELS).blocks
    np.testing.assert_array_equal(stats.terms, through_model.terms)
    for mine, theirs in zip(stats.weights(), through_model.weights(), strict=True):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(stats.vocabulary.doc_freq, through_model.vocabulary.doc_freq)
    params = family.finalize(stats)
    fitted = clf.fit(DOCS, LABELS)
    vec, model = fitted.fitted_parts()
    np.testing.assert_array_equal(
        params.vectorizer.get_feature_names_out(), vec.get_feature_names_out()
    )
    docs = family.validate(NEW, [])
    jll = family.log_prob(params, docs)
    prior = model.class_log_prior_ if model.contract.prior_in_scores else 0.0
    np.testing.assert_allclose(jll + prior, fitted.predict_joint_log_proba(NEW), rtol=1e-12)
    W, b = family.linear_form(params) if family.linear else (None, None)
    if W is not None:
        np.testing.assert_allclose(
            family.design(params, docs) @ W.T + b, jll, rtol=1e-12, atol=1e-12
        )
        names = vec.get_feature_names_out().tolist()
        columns = family.column_names(params, [])
        assert len(columns) == W.shape[1]
        if len(columns) == len(names):  # a count family scoring the counts themselves
            assert columns == names


def test_the_fixed_mode_is_the_count_family_over_the_fitted_columns():
    clf = TextClassifier(vectorizer=TextVectorizer(output="tfidf"), model=MultinomialNB())
    assert not keeps_term_statistics(clf.prototypes()[0])
    fitted = clf.fit(DOCS, LABELS)
    vec, model = fitted.fitted_parts()
    family = _family(clf, fitted=True)
    family = DocumentsFamily(vec, family.count, fitted=True)
    _, R = _one_hot(LABELS)
    stats = family.summarize(family.validate(DOCS, []), R)
    np.testing.assert_allclose(stats.total, model.feature_count_, rtol=1e-12)
    params = family.finalize(stats)
    np.testing.assert_allclose(
        family.log_prob(params, family.validate(NEW, [])) + model.class_log_prior_,
        fitted.predict_joint_log_proba(NEW),
        rtol=1e-12,
    )


def test_soft_class_weights_give_weighted_statistics():
    """EM's M-step: a row split between two classes counts in both, by its weights; as the
    same rows given with sample weights in each class."""
    family = _family(TextClassifier.sklearn_defaults())
    share = np.linspace(0.1, 0.9, len(DOCS))
    soft = np.column_stack([share, 1 - share])
    got = family.summarize(family.validate(DOCS, []), soft)
    doubled = DOCS + DOCS
    weights = np.concatenate([share, 1 - share])
    labels = np.array(["a"] * len(DOCS) + ["b"] * len(DOCS))
    (weighted,) = TextClassifier.sklearn_defaults().summarize(doubled, labels, weights).blocks
    np.testing.assert_allclose(got.keyed.block.total, weighted.keyed.block.total)
    np.testing.assert_array_equal(got.vocabulary.doc_freq * 2, weighted.vocabulary.doc_freq)


def test_documents_are_a_list_not_a_text():
    with pytest.raises(ParameterError, match="wrap it in a list"):
        as_documents("one text")
    with pytest.raises(TypeError, match="iterable of documents"):
        as_documents(3)
    rows = as_documents(["a b", b"c d"])
    assert rows.dtype == object
    assert rows[np.array([1])].tolist() == [b"c d"]


def test_a_family_is_a_vectorizer_and_a_count_family():
    with pytest.raises(ParameterError, match="TextVectorizer and a count family"):
        DocumentsFamily(MultinomialNB(), Multinomial())
    family = DocumentsFamily(TextVectorizer(), Multinomial(0.5))
    assert family.config()["count"] == {"name": "multinomial", **Multinomial(0.5).config()}
    assert family == DocumentsFamily(TextVectorizer(), Multinomial(0.5))
    assert family != DocumentsFamily(TextVectorizer(min_df=2), Multinomial(0.5))
