"""The public protocol adapters call (the template's contract, ``bayeskit._base``): each
method gives what the calls it stands for give — the statistics of ``fit``, the scores of
``predict_joint_log_proba``, the refusals of ``fit`` — so model files, the Dask rounds, the
streaming trainer and EM need no private member of a model."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import bayeskit as bk
from bayeskit._base import PreparedRows
from bayeskit.errors import DataError, NotFittedError, ParameterError, SingularCovarianceError
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

from ._grid import CASES, _arrays, dataset, law_cases


def _one_hot(y: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, sp.csr_matrix]:
    """The sorted classes and the (n, n_classes) one-hot labels times weights."""
    classes, codes = np.unique(y, return_inverse=True)
    n = len(y)
    R = sp.csr_matrix((weight, codes, np.arange(n + 1)), shape=(n, len(classes)))
    return classes, R


def _assert_same_statistics(a: bk.stats.Summary, b: bk.stats.Summary) -> None:
    np.testing.assert_array_equal(a.classes, b.classes)
    np.testing.assert_allclose(a.class_count, b.class_count, rtol=1e-12)
    for sa, sb in zip(a.blocks, b.blocks, strict=True):
        arrays_a, meta_a = _arrays(sa)
        arrays_b, meta_b = _arrays(sb)
        assert meta_a == meta_b
        for key in arrays_a:
            np.testing.assert_allclose(arrays_a[key], arrays_b[key], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", law_cases("incremental", statistics=True))
@pytest.mark.parametrize("seed", [0, 1])
def test_prepared_rows_under_one_hot_weights_are_the_fits_statistics(case, seed):
    X, y = dataset(case, seed)
    model = case.make().fit(X, y)
    weight = np.random.default_rng(seed).uniform(0.5, 2.0, size=len(y))
    weighted = case.make().fit(X, y, sample_weight=weight)
    rows = weighted.prepare(X)
    assert isinstance(rows, PreparedRows)
    assert rows.n_rows == len(y)
    classes, R = _one_hot(y, weight)
    _assert_same_statistics(weighted.summarize_rows(rows, classes, R), weighted.statistics())
    # and a selection of the prepared rows is the preparation of those rows
    mask = np.arange(len(y)) % 3 != 0
    classes, R = _one_hot(y[mask], np.ones(int(mask.sum())))
    _assert_same_statistics(
        model.summarize_rows(rows.take(mask), classes, R),
        model.summarize_rows(model.prepare(X[mask]), classes, R),
    )
    _assert_same_statistics(
        model.summarize_rows(rows.take(np.flatnonzero(mask)), classes, R),
        model.summarize(X[mask], y[mask]),
    )


@pytest.mark.parametrize("case", CASES[:-1], ids=repr)  # every generative classifier
def test_joint_of_prepared_rows_is_predict_joint_log_proba(case):
    X, y = dataset(case, 2)
    model = case.make().fit(X, y)
    try:
        expected = model.predict_joint_log_proba(X)
    except SingularCovarianceError:
        pytest.skip("no spread to score with in this draw")
    np.testing.assert_array_equal(model.joint_log_proba_rows(model.prepare(X)), expected)
    assert list(model.feature_names()) == [f"x{j}" for j in range(X.shape[1])]


@pytest.mark.parametrize("case", law_cases("incremental", statistics=True))
def test_configured_families_are_the_statistics_kinds(case):
    X, y = dataset(case, 3)
    model = case.make().fit(X, y)
    families = model.configured_families()  # (under the layout the fit chose: MixedNB's)
    assert len(families) == len(model.statistics().blocks)
    for family, stat in zip(families, model.statistics().blocks, strict=True):
        assert family.check_statistic(stat) is None


def test_statistics_refuse_an_unfitted_model_and_are_the_fitted_ones():
    model = bk.MultinomialNB()
    with pytest.raises(NotFittedError):
        model.statistics()
    model.fit([[1, 0], [0, 2]], ["a", "b"])
    assert model.statistics() is model.stats_


def test_summarize_declares_classes_and_takes_a_part_of_zero_weight():
    X, y = np.array([[1.0, 2.0], [0.0, 3.0]]), np.array(["a", "a"])
    with pytest.raises(DataError, match="every sample_weight is zero"):
        bk.MultinomialNB().summarize(X, y, np.zeros(2))
    part = bk.MultinomialNB().summarize(X, y, np.zeros(2), classes=["a", "b"], part=True)
    assert part.classes.tolist() == ["a", "b"]
    np.testing.assert_array_equal(part.class_count, [0.0, 0.0])


def test_summarize_reads_new_rows_under_the_fitted_columns():
    model = bk.MultinomialNB().fit(np.ones((2, 3)), ["a", "b"])
    with pytest.raises(DataError, match="3 features"):
        model.summarize(np.ones((2, 4)), ["a", "b"])


def test_check_fit_refuses_what_fit_refuses():
    X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.5], [0.5, 3.0], [3.0, 0.2], [1.5, 1.0]])
    y = np.array(["a"] * 6)
    with pytest.raises(DataError, match="at least two classes") as by_fit:
        bk.LinearDiscriminantAnalysis().fit(X, y)
    assembled = bk.LinearDiscriminantAnalysis()
    assembled.fit_summary(assembled.summarize(X, y))  # statistics alone are accepted
    with pytest.raises(DataError, match="at least two classes") as by_check:
        assembled.check_fit()
    assert str(by_check.value) == str(by_fit.value)
    fitted = bk.LinearDiscriminantAnalysis().partial_fit(X, ["a", "b"] * 3)
    assert fitted.check_fit() is fitted


# ---------------------------------------------------------------------------- text models
DOCS = [
    "win cash now",
    "free cash prize now",
    "lunch at noon",
    "see you at lunch",
    "cheap prize offer",
    "meeting moved to noon",
    "cash offer inside",
    "notes from the meeting",
] * 2
LABELS = np.array(["spam", "spam", "ham", "ham"] * 4)


def test_text_term_statistics_of_parts_add_to_the_fit():
    clf = TextClassifier(vectorizer=TextVectorizer(), model=bk.MultinomialNB())
    assert clf.keeps_term_statistics()
    cuts = [(0, 5), (5, 11), (11, len(DOCS))]
    parts = [clf.summarize(DOCS[a:b], LABELS[a:b]) for a, b in cuts]
    assembled = TextClassifier(vectorizer=TextVectorizer(), model=bk.MultinomialNB())
    assembled.fit_summary(sum(parts[1:], parts[0]))
    fitted = TextClassifier(vectorizer=TextVectorizer(), model=bk.MultinomialNB())
    fitted.fit(DOCS, LABELS)
    np.testing.assert_allclose(assembled.predict_proba(DOCS), fitted.predict_proba(DOCS))
    vec, model = fitted.fitted_parts()
    np.testing.assert_array_equal(
        model.predict_proba(vec.transform(DOCS)), fitted.predict_proba(DOCS)
    )
    assert fitted.check_fitted() is fitted


def test_text_protocol_refuses_unfitted_models_and_fixed_vocabularies():
    with pytest.raises(NotFittedError):
        TextClassifier().check_fitted()
    with pytest.raises(NotFittedError):
        TextClassifier().fitted_parts()
    idf = TextClassifier(vectorizer=TextVectorizer(output="tfidf"), model=bk.MultinomialNB())
    assert not idf.keeps_term_statistics()
    vec, model = idf.prototypes()
    assert isinstance(vec, TextVectorizer)
    assert isinstance(model, bk.MultinomialNB)
    with pytest.raises(ParameterError, match="model must be"):
        TextClassifier(model=bk.GaussianNB()).prototypes()


@pytest.mark.parametrize(
    "settings", [{}, {"output": "binary"}, {"output": "tfidf", "use_idf": False, "norm": "l2"}]
)
def test_vectorizer_counts_once_then_weighs_as_transform(settings):
    vec = TextVectorizer(**settings).fit(DOCS[:8])
    terms, counts = vec.count(DOCS)
    python_terms, python_counts = vec.count(DOCS, compiled=False)
    np.testing.assert_array_equal(terms, python_terms)
    assert (counts != python_counts).nnz == 0
    expected = vec.transform(DOCS)
    np.testing.assert_allclose(vec.weigh(vec.reindex(terms, counts)).toarray(), expected.toarray())
    index = vec.selection()
    np.testing.assert_array_equal(np.asarray(vec.stats_.terms)[index], vec.terms_)
    assert vec.check_fitted() is vec
    with pytest.raises(NotFittedError):
        TextVectorizer().check_fitted()


def test_spam_filter_counted_forms_are_the_text_forms():
    make = lambda: SpamFilter(  # noqa: E731
        vectorizer=TextVectorizer(), model=bk.MultinomialNB(), calibration_folds=2
    )
    fitted = make().fit(DOCS, LABELS)
    vec = TextVectorizer()
    terms, counts = vec.count(DOCS)
    counted = make().fit_counted(terms, counts, LABELS)
    np.testing.assert_allclose(counted.spam_probability(DOCS), fitted.spam_probability(DOCS))
    np.testing.assert_allclose(
        counted.spam_probability_counted(terms, counts), fitted.spam_probability(DOCS)
    )
    assert counted.probability_scale() == fitted.calibration_
    np.testing.assert_array_equal(counted.score_counts(), fitted.score_counts_)
    scores = fitted.log_odds_counted(terms, counts)
    _, model = fitted.fitted_parts()
    column = fitted.spam_index()
    assert fitted.classes_[column] == "spam"
    joint = model.predict_joint_log_proba(fitted.transform(DOCS))
    np.testing.assert_allclose(scores, joint[:, column] - joint[:, 1 - column])


def test_spam_filter_decision_and_scale_as_the_filter_checks_them():
    spam_filter = SpamFilter(ham_cutoff=0.2, spam_cutoff=0.9, lost_ham_cost=3.0)
    assert spam_filter.decision_rule() == (0.2, 0.9, 0.75)
    assert spam_filter.check_scoring() == "naive_bayes"
    assert spam_filter.probability_scale() == (1.0, 0.0)  # before any is fitted
    with pytest.raises(ParameterError, match="cutoffs"):
        SpamFilter(ham_cutoff=0.8, spam_cutoff=0.2).decision_rule()
    with pytest.raises(ParameterError, match="scoring"):
        SpamFilter(scoring="bayes").check_scoring()
    fitted = SpamFilter(calibration_folds=2).fit(DOCS, LABELS)
    scale = fitted.calibration_
    assert fitted.set_score_counts(fitted.score_counts()).calibration_ == scale
    with pytest.raises(DataError, match="two classes"):
        SpamFilter(spam_label="junk").fit(DOCS, LABELS).spam_index()


# ---------------------------------------------------------------------------- semi-supervised
def test_semi_supervised_fitted_estimator_round_trips():
    rng = np.random.default_rng(4)
    X = rng.poisson(1.5, size=(40, 4)).astype(np.float64)
    y = np.where(rng.random(40) < 0.5, "a", "b").astype(object)
    y[::3] = None
    model = bk.SemiSupervisedNB().fit(X, y)
    copy = bk.SemiSupervisedNB().check_params()
    copy.set_fitted_estimator(model.fitted_estimator(), model.classes_)
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))
    assert copy.n_features_in_ == 4
    with pytest.raises(NotFittedError):
        bk.SemiSupervisedNB().fitted_estimator()
    with pytest.raises(ParameterError, match="fitted by rounds"):
        bk.SemiSupervisedNB(bk.GaussianMixtureClassifier()).check_params()
    with pytest.raises(ParameterError, match="unlabeled_weight"):
        bk.SemiSupervisedNB(unlabeled_weight=-1).check_params()
