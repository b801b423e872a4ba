"""SemiSupervisedNB: EM over any bayeskit NB estimator and TextClassifier, with λ, several
components per class, transduction, model files and bad labels."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

import bayeskit as bk
from bayeskit.errors import DataError, ParameterError
from bayeskit.text import TextClassifier, TextVectorizer


def _topics(seed: int = 0, n: int = 400, labelled: int = 4, test: int = 0):
    """Short documents (3–7 words of 30) from two overlapping topics; ``labelled`` rows per
    class keep their label, the others are marked -1; ``test`` more rows from the same
    topics."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(30), size=2)

    def draw(m: int) -> tuple[np.ndarray, np.ndarray]:
        y = rng.integers(0, 2, m)
        X = np.array([rng.multinomial(rng.integers(3, 8), p[c]) for c in y], dtype=float)
        return X, y

    X, y = draw(n)
    marked = np.full(n, -1)
    keep = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), labelled, replace=False) for c in (0, 1)]
    )
    marked[keep] = y[keep]
    if test:
        return (X, y, marked, *draw(test))
    return X, y, marked


def test_unlabelled_rows_improve_a_few_labels():
    X, y, marked, Xt, yt = _topics(test=3000)
    labelled = marked != -1
    supervised = bk.MultinomialNB().fit(X[labelled], y[labelled])
    model = bk.SemiSupervisedNB(bk.MultinomialNB()).fit(X, marked)
    assert supervised.score(Xt, yt) < 0.82
    assert model.score(Xt, yt) > supervised.score(Xt, yt) + 0.08
    assert model.converged_
    assert model.transduction_.shape == y.shape
    np.testing.assert_array_equal(model.transduction_[labelled], y[labelled])
    assert np.mean(model.transduction_ == y) > 0.85
    np.testing.assert_allclose(model.label_distributions_.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.label_distributions_[labelled], np.eye(2)[y[labelled]])


@pytest.mark.parametrize(
    "estimator",
    [
        bk.MultinomialNB(alpha=0.5),
        bk.ComplementNB(),
        bk.BernoulliNB(binarize=0.5),
        bk.GaussianNB(),
        bk.CategoricalNB(),
        bk.PoissonNB(),
    ],
    ids=repr,
)
def test_zero_unlabelled_weight_is_supervised_learning(estimator):
    X, y, marked = _topics(seed=1)
    if isinstance(estimator, bk.CategoricalNB):
        X = np.minimum(X, 2)
    labelled = marked != -1
    supervised = type(estimator)(**estimator.get_params()).fit(X[labelled], y[labelled])
    model = bk.SemiSupervisedNB(estimator, unlabeled_weight=0.0).fit(X, marked)
    np.testing.assert_allclose(model.predict_proba(X), supervised.predict_proba(X), rtol=1e-10)


def _blobs(seed: int = 0, n: int = 300, labelled: int = 3):
    """Two overlapping Gaussian classes in 4-D; ``labelled`` rows per class keep their label."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 4)) * [1.0, 2.0, 0.5, 1.5] + np.outer(y, [1.5, -2.0, 0.7, 1.0])
    marked = np.full(n, -1)
    keep = np.concatenate(
        [rng.choice(np.flatnonzero(y == c), labelled, replace=False) for c in (0, 1)]
    )
    marked[keep] = y[keep]
    return X, y, marked


@pytest.mark.parametrize(
    ("estimator", "data"),
    [
        (bk.MultinomialNB(), _topics),
        (bk.ComplementNB(), _topics),
        (bk.BernoulliNB(binarize=0.5), _topics),
        (bk.GaussianNB(), _blobs),
        (bk.KernelNB(), _blobs),
    ],
    ids=["MultinomialNB", "ComplementNB", "BernoulliNB", "GaussianNB", "KernelNB"],
)
def test_every_wrapped_estimator_learns_from_unlabelled_rows(estimator, data):
    X, y, marked = data(seed=2, labelled=3)
    model = bk.SemiSupervisedNB(estimator).fit(X, marked)
    labelled = marked != -1
    supervised = type(estimator)(**estimator.get_params()).fit(X[labelled], y[labelled])
    assert np.mean(model.transduction_ == y) > np.mean(supervised.predict(X) == y)
    assert model.predict_proba(X).shape == (len(y), 2)


def test_mixed_columns_with_object_labels():
    X, y, marked = _blobs(seed=3)
    rng = np.random.default_rng(3)
    colour = np.where(rng.random(len(y)) < 0.8, np.array(["red", "blue"])[y], "green")
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "colour": colour})
    labels = np.array(["ham", "spam"], dtype=object)[y]
    marked_labels = labels.copy()
    marked_labels[marked == -1] = None
    labelled = marked != -1
    # Six labelled rows: with Laplace's alpha = 1 on the colour the supervised model is poor
    # (0.79) and EM must do better; with MixedNB's default (Jeffreys' alpha = 1/2) it already
    # reaches what EM reaches, and EM must not lose it.
    laplace = {"categorical": {"alpha": 1.0}}
    for options, strictly in ((laplace, True), (None, False)):
        model = bk.SemiSupervisedNB(bk.MixedNB(options=options)).fit(frame, marked_labels)
        assert model.classes_.tolist() == ["ham", "spam"]
        supervised = bk.MixedNB(options=options).fit(frame[labelled], labels[labelled])
        semi = np.mean(model.transduction_ == labels)
        alone = np.mean(supervised.predict(frame) == labels)
        assert semi > alone if strictly else semi >= alone
        assert semi > 0.9


def test_text_classifier_counts_documents_once():
    docs = [
        "win cash now", "win free cash prize", "free prize now", "cash prize win now",
        "lunch at noon", "see you at lunch", "meeting at noon", "noon lunch meeting",
    ]  # fmt: skip
    y = np.array(["spam", None, None, None, "ham", None, None, None], dtype=object)
    truth = ["spam"] * 4 + ["ham"] * 4
    for vectorizer in [TextVectorizer(), TextVectorizer(output="tfidf")]:
        model = bk.SemiSupervisedNB(TextClassifier(vectorizer=vectorizer)).fit(docs, y)
        assert model.transduction_.tolist() == truth
        assert model.predict(["cash win", "noon meeting"]).tolist() == ["spam", "ham"]
    # the result is a TextClassifier whose statistics include the unlabelled documents' share
    fitted = model.estimator_
    assert isinstance(fitted, TextClassifier)
    np.testing.assert_allclose(fitted.class_count_.sum(), 8.0)


def test_several_components_per_class():
    rng = np.random.default_rng(5)
    centres = {0: [(0, 0), (6, 6)], 1: [(0, 6), (6, 0)]}  # each class two blobs (XOR)
    X, y = [], []
    for label, cs in centres.items():
        for c in cs:
            X.append(rng.normal(c, 0.7, size=(150, 2)))
            y += [label] * 150
    X, y = np.vstack(X), np.array(y)
    marked = np.full(len(y), -1)
    for label in (0, 1):
        for block in range(2):
            rows = np.flatnonzero(y == label)[block * 150 : block * 150 + 3]
            marked[rows] = label
    one = bk.SemiSupervisedNB(bk.GaussianNB()).fit(X, marked)
    two = bk.SemiSupervisedNB(bk.GaussianNB(), n_components=2, random_state=0).fit(X, marked)
    assert two.estimator_.classes_.tolist() == [0, 1, 2, 3]
    assert np.mean(two.transduction_ == y) > 0.98
    assert np.mean(two.transduction_ == y) > np.mean(one.transduction_ == y) + 0.2
    np.testing.assert_allclose(two.predict_proba(X).sum(axis=1), 1.0)


@pytest.mark.filterwarnings("ignore::bayeskit.errors.ConvergenceWarning")
def test_components_default_seed_makes_two_fits_agree():
    """The labelled rows' shares among a class's components are drawn from a fixed seed by
    default: two fits of the same data give the same model (cross-validation reproducible);
    ``random_state=None`` draws afresh."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.7, size=(60, 2)) for c in (-3, 0, 3, 6)])
    marked = np.full(len(X), -1)
    marked[[0, 1, 60, 61]] = 0
    marked[[120, 121, 180, 181]] = 1
    first = bk.SemiSupervisedNB(bk.GaussianNB(), n_components=2).fit(X, marked)
    second = bk.SemiSupervisedNB(bk.GaussianNB(), n_components=2).fit(X, marked)
    assert bk.SemiSupervisedNB().random_state == 0
    np.testing.assert_array_equal(first.predict_proba(X), second.predict_proba(X))
    fresh = [
        bk.SemiSupervisedNB(bk.GaussianNB(), n_components=2, random_state=None, max_iter=1)
        .fit(X, marked).estimator_.theta_
        for _ in range(2)
    ]  # fmt: skip
    assert not np.array_equal(*fresh)


@pytest.mark.parametrize(
    "wrapped",
    [bk.MultinomialNB(), TextClassifier(), TextClassifier.twcnb()],
    ids=["MultinomialNB", "TextClassifier", "TextClassifier-tfidf"],
)
@pytest.mark.parametrize("k", [1, 2])
def test_model_file_round_trip(tmp_path, wrapped, k):
    if isinstance(wrapped, TextClassifier):
        X = ["win cash now", "lunch at noon", "free cash", "cash win", "at lunch", "noon meeting"]
        y = np.array(["spam", "ham", None, None, None, None], dtype=object)
    else:
        X, _, y = _topics(seed=6)
    model = bk.SemiSupervisedNB(wrapped, n_components=k, random_state=0).fit(X, y)
    bk.save(model, tmp_path / "semi.bkm")
    loaded = bk.load(tmp_path / "semi.bkm")
    assert isinstance(loaded, bk.SemiSupervisedNB)
    assert repr(loaded) == repr(model)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.n_iter_ == model.n_iter_


def test_convergence_is_reported():
    X, _, marked = _topics(seed=7)
    with pytest.warns(ConvergenceWarning, match="EM did not converge for the unlabelled rows"):
        model = bk.SemiSupervisedNB(max_iter=1, tol=0.0).fit(X, marked)
    assert not model.converged_
    assert model.n_iter_ == 1
    assert len(model.lower_bounds_) == 1


def test_many_classes_are_not_taken_for_a_regression_target():
    # The labelled rows' distinct labels are checked as every model's fit checks them:
    # scikit-learn's check alone warns that 30 unique labels of 30 "could represent a
    # regression problem" (they are the classes, each once).
    rng = np.random.default_rng(0)
    X = rng.poisson(3, (120, 5)).astype(float)
    y = np.repeat(np.arange(30), 4).astype(float)
    y[::4] = -1
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model = bk.SemiSupervisedNB(max_iter=2).fit(X, y)
    assert len(model.classes_) == 30
    with pytest.raises(DataError, match=r"continuous.*-1 or None if unlabelled"):
        bk.SemiSupervisedNB().fit(X[:3], [0.5, 1.5, -1])


def test_bad_labels_and_settings_are_named():
    X, _, marked = _topics(seed=8, n=40)
    with pytest.raises(DataError, match="all 40 rows are unlabelled"):
        bk.SemiSupervisedNB().fit(X, np.full(40, -1))
    with pytest.raises(DataError, match=r"all 3 rows are unlabelled"):
        bk.SemiSupervisedNB().fit(X[:3], np.array([None, None, None], dtype=object))
    with pytest.raises(DataError, match=r"y\[0\] = 7 is neither one of the classes \[0, 1\]"):
        bk.SemiSupervisedNB().fit(X, np.where(np.arange(40) == 0, 7, marked), classes=[0, 1])
    with pytest.raises(DataError, match="class 2 has no labelled row"):
        bk.SemiSupervisedNB().fit(X, marked, classes=[0, 1, 2])
    with pytest.raises(DataError, match=r"y holds inf at row 0; labels are finite, and an unl"):
        bk.SemiSupervisedNB().fit(X, np.where(np.arange(40) == 0, np.inf, marked))
    heavy = np.where(np.arange(40) % 2 == 0, 1e308, 1.0)  # each finite, their sum is not
    for estimator in (bk.MultinomialNB(), TextClassifier()):
        model = bk.SemiSupervisedNB(estimator)
        rows = X if estimator.__class__ is bk.MultinomialNB else [f"w{v}" for v in range(40)]
        with pytest.raises(DataError, match="the total sample weight overflows float64"):
            model.fit(rows, marked, sample_weight=heavy)
        assert not hasattr(model, "classes_")  # refused: the model stays unfitted
    with pytest.raises(ParameterError, match=r"unlabeled_weight=-0\.5"):
        bk.SemiSupervisedNB(unlabeled_weight=-0.5).fit(X, marked)
    with pytest.raises(ParameterError, match="n_components=0"):
        bk.SemiSupervisedNB(n_components=0).fit(X, marked)
    with pytest.raises(ParameterError, match="max_iter=1000000"):
        bk.SemiSupervisedNB(max_iter=10**6).fit(X, marked)
    with pytest.raises(ParameterError, match="estimator must be a bayeskit"):
        bk.SemiSupervisedNB(estimator="MultinomialNB").fit(X, marked)


@parametrize_with_checks(
    [bk.SemiSupervisedNB(bk.GaussianNB())],
    expected_failed_checks=lambda _: {
        "check_classifiers_classes": "-1 marks an unlabelled row (scikit-learn's convention "
        "for semi-supervised learning), not a class"
    },
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_the_marker_beside_text_labels_in_a_list_is_no_class():
    """numpy read ["a", -1, "b"] as the texts "a", "-1", "b": the marker became a class."""
    X = np.random.default_rng(0).normal(size=(60, 2))
    for y in (["a", -1, "b"] * 20, ("a", None, "b") * 20):
        model = bk.SemiSupervisedNB(bk.GaussianNB()).fit(X, y)
        assert model.classes_.tolist() == ["a", "b"]
    with pytest.raises(bk.errors.DataError, match="mixes text and numbers"):
        bk.SemiSupervisedNB(bk.GaussianNB()).fit(X, ["a", 1, "b"] * 20)


def next_round(rounds, total):
    """The next round of a fit by rounds, None when the fit is done."""
    try:
        return rounds.send(total)
    except StopIteration:
        return None


def test_a_part_of_empty_documents_counts_no_term():
    """Fitted by rounds over parts (a cluster, ``bayeskit train --unlabeled``), a part whose
    documents hold no term (empty files) is scored and counted as documents of no term: the
    model is the one fitted in memory."""
    from bayeskit.contract import fit_rounds
    from bayeskit.reduction import Part, add_parts

    docs = ["win cash now", "free prize", "lunch at noon", "see you at lunch", "", "", "cash"]
    y = np.array(["spam", "spam", "ham", "ham", None, None, None], dtype=object)
    parts = [(docs[:4], y[:4]), (docs[4:6], y[4:6]), (docs[6:], y[6:])]
    model = bk.SemiSupervisedNB(TextClassifier())
    rounds = fit_rounds(model, partial=False)
    step = next(rounds)
    while step is not None:
        totals = [
            Part(i, *step.summarize(step.state, X, labels, None))
            for i, (X, labels) in enumerate(parts)
        ]
        step = next_round(rounds, add_parts(*totals))
    in_memory = bk.SemiSupervisedNB(TextClassifier()).fit(docs, y)
    test = ["cash now", "lunch", ""]
    np.testing.assert_allclose(model.predict_proba(test), in_memory.predict_proba(test))
    np.testing.assert_allclose(model.label_distributions_, in_memory.label_distributions_)
    # every document empty: the text classifier's own refusal, in memory as by parts
    with pytest.raises(DataError, match="the vocabulary is empty"):
        bk.SemiSupervisedNB(TextClassifier()).fit(["", "", ""], ["spam", "ham", None])


def test_a_missing_label_marks_an_unlabelled_row_as_minus_one_does():
    import polars as pl

    X, _, marked = _topics(seed=4, n=60)
    unlabelled = marked == -1
    expected = bk.SemiSupervisedNB().fit(X, marked)
    as_missing = [
        np.where(unlabelled, np.nan, marked),  # float labels: NaN is no class label
        pd.Series(np.where(unlabelled, None, marked), dtype="float64"),
        pd.Series(np.where(unlabelled, None, marked), dtype="Int64"),  # pandas NA
        pl.Series(np.where(unlabelled, None, marked).tolist()),  # polars null
        [None if u else int(v) for u, v in zip(unlabelled, marked, strict=True)],
    ]
    for y in as_missing:
        model = bk.SemiSupervisedNB().fit(X, y)
        assert model.classes_.tolist() == [0, 1]
        np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X))
        np.testing.assert_array_equal(model.transduction_, expected.transduction_)
    # booleans beside a missing label are the classes False and True (not 0.0 and 1.0)
    flags = np.where(unlabelled, None, marked == 1)
    for y in (flags.tolist(), flags, pd.array(flags.tolist(), dtype="boolean")):
        model = bk.SemiSupervisedNB().fit(X, y)
        assert model.classes_.tolist() == [False, True]
        np.testing.assert_array_equal(model.transduction_, expected.transduction_ == 1)


def test_em_over_a_model_whose_refit_is_no_maximiser_says_so_when_its_bound_falls(shared_data):
    from bayeskit.datasets.shared import load_uci_table
    from bayeskit.errors import ConvergenceWarning

    X, y = load_uci_table("car", shared_data)
    rng = np.random.default_rng(0)
    y = np.where(rng.random(len(y)) < 0.95, None, y).astype(object)  # 5 % labelled
    with pytest.warns(ConvergenceWarning, match="em_maximizes=False") as caught:
        model = bk.SemiSupervisedNB(bk.AODEClassifier(), max_iter=50).fit(X, y)
    assert "AODEClassifier's estimate from weighted rows is not the maximiser" in str(
        caught[0].message
    )
    assert (np.diff(model.lower_bounds_) < 0).any()
    with warnings.catch_warnings():  # EM proper: no such warning
        warnings.simplefilter("error")
        bk.SemiSupervisedNB(bk.CategoricalNB(), max_iter=50).fit(X, y)


@pytest.mark.parametrize("cls", [bk.TANClassifier, bk.AODEClassifier, bk.KDBClassifier])
def test_a_network_on_numbers_cuts_them_where_the_labelled_rows_say(cls, tmp_path):
    rng = np.random.default_rng(6)
    X = pd.DataFrame(
        {"a": rng.normal(size=300), "b": rng.normal(size=300), "c": rng.choice(["x", "y"], 300)}
    )
    y = np.where(X["a"] + X["b"] > 0, "p", "q")
    labelled = np.arange(300) % 10 == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # (AODE's, KDB's bound may fall)
        model = bk.SemiSupervisedNB(cls()).fit(X, np.where(labelled, y, None))
    # the cut points need classes: those of the labelled rows
    supervised = cls().fit(X[labelled], y[labelled])
    assert model.estimator_.cut_points_.keys() == {"a", "b"}
    for name, cuts in supervised.cut_points_.items():
        np.testing.assert_array_equal(model.estimator_.cut_points_[name], cuts)
    assert model.estimator_.class_count_.sum() == pytest.approx(300)
    bk.save(model, tmp_path / "m.bkm")
    np.testing.assert_array_equal(
        bk.load(tmp_path / "m.bkm").predict_proba(X), model.predict_proba(X)
    )
