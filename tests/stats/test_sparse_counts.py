"""Counts kept as their cells with counts: every operation gives what the full array gives, bit
for bit, and the models that keep them learn, merge and unlearn as with the full array."""

from __future__ import annotations

import json
import pickle
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit import ComplementNB, MultinomialNB
from bayeskit.datasets import load_sms_spam
from bayeskit.errors import MergeError, ModelFileError
from bayeskit.families import _structured
from bayeskit.families._base import class_totals
from bayeskit.families._class_cells import class_cells
from bayeskit.stats import Counts, SparseCounts, Summary
from bayeskit.text import TextClassifier


def _counts(rng: np.random.Generator, k: int, d: int, fill: float) -> Counts:
    """Counts laid out as a fit lays them out (class-fastest), some cells empty, values not
    whole numbers (so the order of a sum shows)."""
    total = rng.random((d, k)) * 100 / 7 * (rng.random((d, k)) < fill)
    return Counts(rng.random(k) * 10, total.T)


def _same(sparse: Counts, dense: Counts) -> None:
    assert isinstance(sparse, SparseCounts)
    np.testing.assert_array_equal(sparse.weight, dense.weight)
    np.testing.assert_array_equal(sparse.total, dense.total)
    assert sparse.cells.has_canonical_format
    assert not (sparse.cells.data == 0).any()


@st.composite
def _two(draw):
    """(rng, k, d, a, b, a as cells, b as cells): two Counts of k classes and d features."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k, d, fill = draw(st.integers(1, 140)), draw(st.integers(1, 30)), draw(st.floats(0, 1))
    a, b = _counts(rng, k, d, fill), _counts(rng, k, d, fill)
    return rng, k, d, a, b, SparseCounts.of(a), SparseCounts.of(b)


@settings(deadline=None)
@given(_two())
def test_arithmetic_is_the_full_arrays(two):
    rng, k, _, a, b, sa, sb = two
    _same(sa, a)
    _same(sa + sb, a + b)
    for mixed in (sa + b, a + sb):  # with a full array on either side: the full arrays' sum
        assert type(mixed) is Counts
        np.testing.assert_array_equal(mixed.total, (a + b).total)
        np.testing.assert_array_equal(mixed.weight, (a + b).weight)
    _same(-sa, -a)
    np.testing.assert_array_equal(sa.min_weights(), a.min_weights())
    np.testing.assert_array_equal(sa.max_weights(), a.max_weights())
    np.testing.assert_array_equal((sa + -sb).min_weights(), (a + -b).min_weights())
    # a term's pooled count, as numpy's pairwise sum adds the full array's column
    np.testing.assert_array_equal(sa.feature_totals(), np.asfortranarray(a.total).sum(axis=0))
    np.testing.assert_array_equal(sa.feature_totals(), a.feature_totals())
    keep = np.flatnonzero(rng.random(k) < 0.7)
    for tolerance in (0.5, rng.random(k) * 3):
        _same(sa.cleaned(keep, tolerance), a.cleaned(keep, tolerance))
        np.testing.assert_array_equal(sa.seen_columns(tolerance), a.seen_columns(tolerance))
    index = np.sort(rng.choice(k + 3, size=k, replace=False))
    _same(sa.embed_classes(index, k + 3), a.embed_classes(index, k + 3))
    assert sa.overflow() is None
    assert a.overflow() is None
    arrays, meta = sa.to_arrays()  # what a model file holds: the cells
    assert set(arrays) == {"weight", "values", "classes", "pointer"}
    _same(SparseCounts.from_arrays(arrays, meta), a)


@settings(deadline=None)
@given(_two())
def test_columns_are_the_full_arrays(two):
    rng, _, d, a, b, sa, sb = two
    index = rng.integers(0, d, size=d + 2)
    found = rng.random(d + 2) < 0.8
    _same(sa.take_columns(index), a.take_columns(index))
    _same(sa.take_columns(index, found), a.take_columns(index, found))
    mask = rng.random(d) < 0.5
    _same(sa.take_columns(mask), a.take_columns(mask))
    at = np.sort(rng.choice(2 * d, size=d, replace=False))
    _same(sa.place_columns(at, 2 * d), a.place_columns(at, 2 * d))
    at_other = np.sort(rng.choice(2 * d, size=d, replace=False))
    _same(sa.merge_columns(at, sb, at_other, 2 * d), a.merge_columns(at, b, at_other, 2 * d))
    _same(sa.merge_columns(at, b, at_other, 2 * d), a.merge_columns(at, b, at_other, 2 * d))
    _same(sa.join_columns(sb), a.join_columns(b))
    _same(sa.join_columns(b), a.join_columns(b))


def test_overflow_is_found_and_named_as_in_the_full_array():
    a = Counts(np.array([1.0, 2.0]), np.array([[1.0, np.inf, 0.0], [0.0, 3.0, 1e308]]))
    assert SparseCounts.of(a).overflow() == a.overflow() == ("total", (0, 1), np.inf)
    b = Counts(np.array([1.0, 2.0]), np.array([[1.0, 0.0, 1e308], [0.0, 3.0, 1e308]]))
    with np.errstate(over="ignore"):  # (the sum over the classes that overflows)
        assert SparseCounts.of(b).overflow() == b.overflow() == ("total", (), np.inf)


def test_mismatched_shapes_are_refused():
    a = SparseCounts.of(Counts(np.ones(2), np.ones((2, 3))))
    with pytest.raises(MergeError, match="2 and 3 classes"):
        a + SparseCounts.of(Counts(np.ones(3), np.ones((3, 3))))
    with pytest.raises(MergeError, match="over 3 and 4 features"):
        a + Counts(np.ones(2), np.ones((2, 4)))
    with pytest.raises(MergeError, match="missing values"):
        SparseCounts.of(Counts(np.ones(2), np.ones((2, 3)), np.zeros((2, 3))))


def test_pickles_without_the_full_array():
    a = SparseCounts.of(Counts(np.array([1.0, 2.0]), np.array([[1.0, 0.0], [0.0, 4.0]])))
    a.total  # made  # noqa: B018
    copy = pickle.loads(pickle.dumps(a))
    assert "total" not in copy.__dict__
    _same(copy, a.dense())
    assert repr(copy) == "SparseCounts(2 classes, 2 features, 2 cells with counts)"


@settings(deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 60), st.integers(1, 40), st.integers(1, 12)),
    weighted=st.booleans(),
)
def test_the_cells_are_the_full_arrays_sums(seed, shape, weighted):
    """Summed column by column in row order: the same sums as the full array's, duplicates
    and stored zeros included."""
    n, d, k = shape
    rng = np.random.default_rng(seed)
    nnz = int(rng.integers(0, n * d + 5))
    rows, cols = rng.integers(0, n, nnz), rng.integers(0, d, nnz)
    values = np.round(rng.random(nnz) * 10, 1) * (rng.random(nnz) < 0.9)
    order = np.argsort(rows, kind="stable")  # rows in order, duplicates kept as they come
    pointer = np.searchsorted(rows[order], np.arange(n + 1))
    X = sp.csr_matrix((values[order], cols[order], pointer), shape=(n, d))
    codes = rng.integers(0, k, n)
    weight = rng.random(n) * 3 if weighted else np.ones(n)
    R = sp.csr_matrix((weight, codes, np.arange(n + 1)), shape=(n, k))
    cells = class_cells(codes, weight, X, k)
    np.testing.assert_array_equal(cells.toarray().T, class_totals(R, X))
    assert cells.has_canonical_format
    assert not (cells.data == 0).any()


@pytest.fixture
def large(monkeypatch):
    """Every count model kept as cells, however small."""
    monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1)


def _sms():
    texts, labels = load_sms_spam()
    return texts[:3000], labels[:3000], texts[3000:3600]


@pytest.mark.parametrize("model", [MultinomialNB(alpha=0.01), ComplementNB()])
def test_text_models_keep_cells_and_score_as_the_full_array(large, monkeypatch, model):
    texts, labels, test = _sms()
    cells = TextClassifier(model=model).fit(texts, labels)
    block = cells.stats_.blocks[0].keyed.block
    assert isinstance(block, SparseCounts)
    assert "total" not in block.__dict__
    monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1 << 62)
    full = TextClassifier(model=model).fit(texts, labels)
    assert type(full.stats_.blocks[0].keyed.block) is Counts
    np.testing.assert_array_equal(block.total, full.stats_.blocks[0].keyed.block.total)
    monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1)
    np.testing.assert_allclose(
        cells.predict_log_proba(test), full.predict_log_proba(test), rtol=0, atol=1e-9
    )


def _learned(texts, labels) -> TextClassifier:
    """A model learned in two batches, then the second unlearned."""
    model = TextClassifier().partial_fit(texts[:1000], labels[:1000])
    model.partial_fit(texts[1000:], labels[1000:])
    learned = model.stats_.blocks[0].keyed.block
    model.unlearn(texts[1000:], labels[1000:])
    return learned, model


def test_learning_and_unlearning_are_the_full_arrays(large, monkeypatch):
    texts, labels, test = _sms()
    learned, left = _learned(texts, labels)
    block = left.stats_.blocks[0].keyed.block
    assert isinstance(learned, SparseCounts)
    assert isinstance(block, SparseCounts)
    # learned, added, unlearned and fitted without the full array
    assert "total" not in learned.__dict__
    assert "total" not in block.__dict__
    left.predict(test)
    assert "total" not in block.__dict__
    monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1 << 62)
    full_learned, full_left = _learned(texts, labels)
    assert type(full_learned) is Counts
    np.testing.assert_array_equal(learned.total, full_learned.total)
    np.testing.assert_array_equal(block.total, full_left.stats_.blocks[0].keyed.block.total)
    np.testing.assert_array_equal(left.stats_.blocks[0].terms, full_left.stats_.blocks[0].terms)
    first = TextClassifier().fit(texts[:1000], labels[:1000])
    np.testing.assert_array_equal(left.stats_.blocks[0].terms, first.stats_.blocks[0].terms)
    np.testing.assert_array_equal(left.predict(test), first.predict(test))


def test_summaries_of_both_kinds_add(large, monkeypatch):
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.poisson(1.0, (40, 9)).astype(float))
    y = rng.integers(0, 3, 40)
    cells = MultinomialNB().summarize(X[:20], y[:20])
    monkeypatch.setattr(_structured, "STRUCTURED_CELLS", 1 << 62)
    full = MultinomialNB().summarize(X[20:], y[20:])
    assert isinstance(cells.blocks[0], SparseCounts)
    assert type(full.blocks[0]) is Counts
    both = cells + full
    assert isinstance(both, Summary)
    assert type(both.blocks[0]) is Counts
    whole = MultinomialNB().summarize(X, y)
    np.testing.assert_array_equal(both.blocks[0].total, whole.blocks[0].total)
    np.testing.assert_array_equal((full + cells).blocks[0].total, whole.blocks[0].total)


@pytest.mark.parametrize("model", [MultinomialNB(alpha=0.01), ComplementNB()])
def test_model_files_hold_the_cells(large, tmp_path, model):
    texts, labels, test = _sms()
    fitted = TextClassifier(model=model).fit(texts, labels)
    bk.save(fitted, tmp_path / "m.bk")
    loaded = bk.load(tmp_path / "m.bk")
    block = loaded.stats_.blocks[0].keyed.block
    assert isinstance(block, SparseCounts)
    assert "total" not in block.__dict__  # (the file held no full array)
    np.testing.assert_array_equal(block.total, fitted.stats_.blocks[0].keyed.block.total)
    np.testing.assert_array_equal(loaded.predict_log_proba(test), fitted.predict_log_proba(test))
    with zipfile.ZipFile(tmp_path / "m.bk") as archive:
        meta = json.loads(archive.read("meta.json"))
        names = archive.namelist()
    assert meta["format_version"] == 4
    assert not any(name.endswith(".total.npy") for name in names)
    rng = np.random.default_rng(1)  # a table's model too
    X, y = sp.csr_matrix(rng.poisson(1.0, (30, 8)).astype(float)), rng.integers(0, 3, 30)
    table = MultinomialNB().fit(X, y)
    bk.save(table, tmp_path / "t.bk")
    again = bk.load(tmp_path / "t.bk")
    assert isinstance(again.stats_.blocks[0], SparseCounts)
    np.testing.assert_array_equal(again.predict_proba(X), table.predict_proba(X))


def test_small_models_files_keep_their_version(tmp_path):
    bk.save(MultinomialNB().fit(sp.csr_matrix(np.eye(3)), ["a", "b", "a"]), tmp_path / "n.bk")
    with zipfile.ZipFile(tmp_path / "n.bk") as archive:
        assert json.loads(archive.read("meta.json"))["format_version"] == 1


def _arrays():
    a = SparseCounts.of(Counts(np.array([1.0, 2.0]), np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 0.0]])))
    return a.to_arrays()[0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a.pop("values"), "needs its arrays"),
        (lambda a: a.update(classes=a["classes"].astype(float)), "'classes' must be one"),
        (lambda a: a.update(pointer=a["pointer"][:, None]), "'pointer' must be one"),
        (lambda a: a.update(values=-a["values"]), "negative"),
        (lambda a: a.update(values=a["values"] * np.nan), "not finite"),
        (lambda a: a.update(pointer=a["pointer"] + 1), "must run from 0"),
        (lambda a: a.update(classes=a["classes"][:-1]), "one class a value"),
        (lambda a: a.update(pointer=np.array([0, 3, 1, 4])), "decreases"),
        (lambda a: a.update(classes=a["classes"] + 1), "outside 0 to 1"),
        (lambda a: a.update(classes=np.array([1, 0, 1, 0])), "not sorted and distinct"),
        (lambda a: a.update(classes=np.array([0, 0, 1, 0])), "not sorted and distinct"),
    ],
)
def test_bad_cells_in_a_file_are_refused(change, message):
    arrays = _arrays()
    assert SparseCounts.from_arrays(dict(arrays), {}).cells.nnz == 4
    change(arrays)
    with pytest.raises(ModelFileError, match=message):
        SparseCounts.from_arrays(arrays, {})


def test_the_loading_budget_counts_the_full_array():
    """What a model file's budget takes before finalize: at least the full array finalize may
    make (weight normalisation), however few cells the file holds (its temporaries too:
    tests/io/test_load_budget.py measures them)."""
    from bayeskit.families.complement import Complement

    cells = SparseCounts.of(Counts(np.ones(3), np.eye(3, 1000)))
    assert cells.cells.nnz == 3
    assert Complement(norm=True).parameter_size(cells) >= 3 * 1001
    assert Complement().parameter_size(cells.dense()) >= 3 * 1001
