"""scikit-learn's partial_fit contract: declared classes are all the classes there are."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import naive_bayes as sk_nb

import bayeskit as bk
from bayeskit.errors import ParameterError, UnknownClassError

X = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 4.0], [0.5, 0.2], [4.0, 4.0], [1.0, 0.0]])


@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB", "BernoulliNB"])
def test_a_label_outside_the_declared_classes_is_refused(name):
    ours = getattr(bk, name)().partial_fit(X[:3], [0, 1, 0], classes=[0, 1])
    before = ours.stats_
    with pytest.raises(UnknownClassError, match=r"y holds \[2\], not in the classes declared"):
        ours.partial_fit(X[3:], [2, 1, 0])
    assert ours.stats_ is before  # a refused call leaves the model as it was
    with pytest.raises(UnknownClassError, match=r"y holds \[7\], not in classes \(\[0, 1\]\)"):
        getattr(bk, name)().partial_fit(X[:3], [0, 7, 0], classes=[0, 1])
    # a later call may declare more classes; then its labels are accepted
    ours.partial_fit(X[3:], [2, 1, 0], classes=[0, 1, 2])
    np.testing.assert_array_equal(ours.classes_, [0, 1, 2])
    with pytest.raises(UnknownClassError):
        ours.partial_fit(X[:1], [3])


@pytest.mark.parametrize("name", ["GaussianNB", "MultinomialNB", "CategoricalNB"])
def test_a_declaration_must_hold_every_class_the_model_has(name):
    y = np.array([0, 1, 2, 0, 1, 2])
    fitted = getattr(bk, name)().fit(X, y)
    before = fitted.stats_
    match = r"\[2\], which the model already has, is not in classes \(\[0, 1\]\)"
    with pytest.raises(UnknownClassError, match=match):
        fitted.partial_fit(X[:2], y[:2], classes=[0, 1])
    assert fitted.stats_ is before  # a refused call leaves the model as it was
    assert fitted.partial_fit(X[:2], y[:2], classes=[2, 1, 0]).classes_.tolist() == [0, 1, 2]


def test_scikit_learn_refuses_it_too():
    theirs = sk_nb.GaussianNB().partial_fit(X[:3], [0, 1, 0], classes=[0, 1])
    with pytest.raises(ValueError, match=r"do not exist in the initial classes"):
        theirs.partial_fit(X[3:], [2, 1, 0])
    with pytest.raises(ValueError, match=r"not in the classes declared"):
        bk.GaussianNB().partial_fit(X[:3], [0, 1, 0], classes=[0, 1]).partial_fit(X[3:], [2, 1, 0])


def test_without_declared_classes_new_labels_become_classes():
    model = bk.GaussianNB().partial_fit(X[:3], ["a", "b", "a"]).partial_fit(X[3:], ["c", "b", "a"])
    np.testing.assert_array_equal(model.classes_, ["a", "b", "c"])
    # fit starts afresh: the classes a previous partial_fit declared are forgotten
    model = bk.GaussianNB().partial_fit(X[:3], [0, 1, 0], classes=[0, 1])
    model.fit(X[:3], [0, 1, 0]).partial_fit(X[3:], [2, 1, 0])
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])


def test_duplicated_classes_are_refused():
    with pytest.raises(ParameterError, match=r"classes holds \['b'\] more than once"):
        bk.MultinomialNB().partial_fit(X[:2], ["a", "b"], classes=["a", "b", "b"])
    with pytest.raises(ParameterError, match=r"1-D list of class labels"):
        bk.MultinomialNB().partial_fit(X[:2], ["a", "b"], classes=[["a", "b"]])


@pytest.mark.parametrize("name", ["MixedNB", "GaussianNB", "LinearDiscriminantAnalysis"])
def test_a_missing_label_in_a_list_of_strings_is_refused_not_a_class_nan(name):
    # np.asarray(["a", "b", nan]) is the strings "a", "b", "nan": the NaN was a class
    with pytest.raises(bk.errors.DataError, match=r"missing label .* at row 2"):
        getattr(bk, name)().fit(X[:4], ["a", "b", np.nan, "a"])


@pytest.mark.parametrize("classes", [["a", "b", None], [1.0, 2.0, np.nan]])
def test_a_missing_value_among_the_declared_classes_is_refused(classes):
    with pytest.raises(ParameterError, match=r"classes holds a missing value"):
        bk.MixedNB().partial_fit(X[:2], classes[:2], classes=classes)


def test_a_nan_among_string_classes_or_a_numpy_nan_label_is_refused():
    with pytest.raises(ParameterError, match=r"classes holds a missing value"):
        bk.GaussianNB().partial_fit(X[:2], ["a", "b"], classes=["a", "b", np.nan])
    with pytest.raises(bk.errors.DataError, match=r"missing label"):
        bk.GaussianNB().fit(X[:4], ["a", "b", np.float32("nan"), "a"])


def test_labels_that_mix_text_and_numbers_are_refused_by_every_door():
    """1 beside "1": one class read as text, two read as given; neither is guessed."""
    y = np.array([0, 1, 2, 0, 1, 2])
    fitted = bk.MultinomialNB().fit(X, y)
    before = fitted.stats_
    mixed = r"mix text and numbers"
    with pytest.raises(bk.errors.DataError, match=mixed):
        fitted.partial_fit(X, y.astype(str))
    assert fitted.stats_ is before
    with pytest.raises(bk.errors.DataError, match=mixed):
        bk.merge(fitted, bk.MultinomialNB().fit(X, y.astype(str)))
    with pytest.raises(bk.errors.DataError, match=r"y\[1\] = '1' beside y\[0\] = 1"):
        bk.MultinomialNB().fit(X, [1, "1", 2, 1, "1", 2])
    with pytest.raises(bk.errors.DataError, match=r"y\[2\] = '1' beside y\[0\] = 0"):
        bk.MultinomialNB().fit(X, np.array([0, 1, "1"] * 2, dtype=object))
    with pytest.raises(bk.errors.DataError, match=r"classes\[1\] = '1' beside classes\[0\]"):
        bk.MultinomialNB().partial_fit(X, [0, 0, 0, 0, 0, 0], classes=[0, "1"])
    # one type throughout is fine, whichever
    assert bk.MultinomialNB().fit(X, [str(v) for v in y]).classes_.tolist() == ["0", "1", "2"]


def test_a_summary_without_classes_adds_to_text_or_number_labels():
    """An empty part (a partition or check fold with no rows) has no classes: it adds to a
    summary of either kind, as zero does (the mixture's held-out rounds on small
    partitions made such parts)."""
    for labels in (["a", "b", "a", "b", "a", "b"], [0, 1, 0, 1, 0, 1]):
        model = bk.MultinomialNB()
        full = model.summarize(X, labels)
        none = np.zeros(0, dtype=np.int64)
        empty = bk.stats.Summary(
            full.classes[:0], full.class_count[:0], tuple(b.cleaned(none, 0.0) for b in full.blocks)
        )
        for total in (full + empty, empty + full):
            np.testing.assert_array_equal(total.classes, full.classes)
            np.testing.assert_array_equal(total.class_count, full.class_count)


def test_the_default_mixture_fits_on_partitions_of_two_rows():
    da = pytest.importorskip("dask.array")
    import bayeskit.dask as bkd
    import dask

    rng = np.random.default_rng(0)
    Xg, yg = rng.normal(size=(60, 2)), np.array(["a", "b"] * 30)
    expected = bk.GaussianMixtureClassifier().fit(Xg, yg).predict_proba(Xg)
    with dask.config.set(scheduler="synchronous"):
        model = bkd.fit(
            bk.GaussianMixtureClassifier(), da.from_array(Xg, chunks=(2, 2)), da.from_array(yg, 2)
        )
    np.testing.assert_allclose(model.predict_proba(Xg), expected, atol=1e-12)


def test_merging_holds_every_declaration_in_either_order():
    """A merge learns each model's rows into the other, as partial_fit would: a declaration
    must hold every class of the other model (a + b and b + a alike), and the merged model's
    classes are declared when either's are (the flag came from the first model only)."""
    y = np.array(["a", "b", "a", "b", "a", "b"])
    declared = bk.MultinomialNB().partial_fit(X[:3], y[:3], classes=["a", "b", "c"])
    plain = bk.MultinomialNB().fit(X[3:], y[3:])
    for merged in (declared + plain, plain + declared, bk.merge(plain, declared)):
        assert merged.classes_.tolist() == ["a", "b", "c"]
        assert merged.classes_declared()
        with pytest.raises(UnknownClassError, match=r"\['d'\]"):
            merged.partial_fit(X[:1], ["d"])
    assert not (plain + bk.MultinomialNB().fit(X[:3], y[:3])).classes_declared()
    # a class outside the declaration: refused in either order, naming it
    outside = bk.MultinomialNB().fit(X[3:], np.where(y[3:] == "a", "z", "b"))
    for merge in (lambda: declared + outside, lambda: outside + declared):
        with pytest.raises(UnknownClassError, match=r"\['z'\], which a model merged has"):
            merge()
    # two declarations merge when they declare the same classes, as a later partial_fit's
    # classes must hold the model's (and scikit-learn's must be the same)
    same = bk.MultinomialNB().partial_fit(X[3:], y[3:], classes=["c", "b", "a"])
    assert (declared + same).classes_declared()
    wider = bk.MultinomialNB().partial_fit(X[3:], y[3:], classes=["a", "b", "c", "d"])
    for merge in (lambda: declared + wider, lambda: wider + declared):
        with pytest.raises(UnknownClassError, match=r"\['d'\]"):
            merge()
    # associative: three models refused (or not) in whatever order they are added
    narrow = bk.MultinomialNB().partial_fit(X[3:], y[3:], classes=["a", "b"])
    for merge in (
        lambda: (narrow + plain) + declared,
        lambda: narrow + (plain + declared),
        lambda: bk.merge(plain, declared, narrow),
    ):
        with pytest.raises(UnknownClassError):
            merge()
