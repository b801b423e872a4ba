"""DocumentStats: a text model's term-keyed count statistic and its vocabulary statistics as
one statistic that adds, subtracts and round-trips through its arrays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bayeskit.errors import MergeError, ModelFileError
from bayeskit.stats import STATISTIC_KINDS, Summary
from bayeskit.text import DocumentStats, TextClassifier, TextVectorizer
from bayeskit.text import _document_stats as document_stats

WORDS = ["cash", "free", "lunch", "meeting", "noon", "now", "prize", "report", "win", "you"]


def _documents(seed: int, n: int) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    docs = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 6)))) for _ in range(n)]
    return docs, rng.choice(np.array(["ham", "spam", "news"]), size=n)


def _part(seed: int, n: int, *, model=None, output: str = "counts") -> Summary:
    vectorizer = TextVectorizer(output=output, use_idf=False)
    clf = TextClassifier(vectorizer=vectorizer, model=model)
    return clf.summarize(*_documents(seed, n))


def _same(a: Summary, b: Summary) -> None:
    (x,), (y,) = a.blocks, b.blocks
    np.testing.assert_array_equal(a.classes, b.classes)
    np.testing.assert_allclose(a.class_count, b.class_count, rtol=1e-12)
    np.testing.assert_array_equal(x.terms, y.terms)
    for u, v in zip(x.weights(), y.weights(), strict=True):
        np.testing.assert_allclose(u, v, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(x.vocabulary.terms, y.vocabulary.terms)
    np.testing.assert_array_equal(x.vocabulary.doc_freq, y.vocabulary.doc_freq)
    np.testing.assert_array_equal(x.vocabulary.term_freq, y.vocabulary.term_freq)
    assert x.vocabulary.n_docs == y.vocabulary.n_docs


def test_it_is_a_statistic_kind():
    assert STATISTIC_KINDS["documents"] is DocumentStats


@settings(max_examples=30, deadline=None)
@given(seeds=st.tuples(st.integers(0, 99), st.integers(0, 99), st.integers(0, 99)))
def test_addition_is_commutative_and_associative(seeds):
    a, b, c = (_part(s, 1 + s % 7) for s in seeds)
    _same(a + b, b + a)
    _same((a + b) + c, a + (b + c))
    _same(sum([a, b, c]), a + b + c)


@settings(max_examples=30, deadline=None)
@given(seeds=st.tuples(st.integers(0, 99), st.integers(0, 99)))
def test_the_sum_is_what_adding_both_parts_apart_gives(seeds):
    """One merge of the terms for both parts: the same numbers as the count statistic and
    the vocabulary statistics each added on its own."""
    clf = TextClassifier.sklearn_defaults()
    pa = clf.summarize(*_documents(seeds[0], 5))
    pb = clf.summarize(*_documents(seeds[1], 3))
    got = pa + pb
    (block,) = got.blocks
    assert block.shares_terms()  # one terms array, as a model selects its vocabulary by

    def keyed(s: Summary) -> Summary:
        return Summary(s.classes, s.class_count, (s.blocks[0].keyed,))

    apart = keyed(pa) + keyed(pb)
    vocabulary = pa.blocks[0].vocabulary + pb.blocks[0].vocabulary
    _same(
        got,
        Summary(apart.classes, apart.class_count, (DocumentStats(apart.blocks[0], vocabulary),)),
    )


@settings(max_examples=30, deadline=None)
@given(seeds=st.tuples(st.integers(0, 99), st.integers(0, 99)))
def test_removing_a_part_gives_the_rest(seeds):
    a, b = _part(seeds[0], 6), _part(seeds[1], 4)
    left = (a + b) - b
    (block,) = left.blocks
    # terms only b had are dropped from both parts, as if never seen
    np.testing.assert_array_equal(block.vocabulary.terms, block.terms)
    assert (block.vocabulary.doc_freq > 0).all()
    kept = a.embed_classes(left.classes) if len(left.classes) > len(a.classes) else a
    _same(left, kept)


@pytest.mark.parametrize(
    ("model", "output"),
    [(None, "counts"), ("bernoulli", "binary"), (None, "tfidf")],
)
def test_every_count_statistic_round_trips_through_its_arrays(model, output):
    from bayeskit import BernoulliNB

    summary = _part(3, 9, model=BernoulliNB() if model else None, output=output)
    (block,) = summary.blocks
    arrays, meta = block.to_arrays()
    back = DocumentStats.from_arrays(arrays, meta)
    assert meta["vocabulary_terms"] == "same"
    _same(Summary(summary.classes, summary.class_count, (back,)), summary)


def test_negation_negates_the_vocabulary_too():
    (block,) = _part(1, 4).blocks
    neg = -block
    np.testing.assert_array_equal(neg.vocabulary.doc_freq, -block.vocabulary.doc_freq)
    assert neg.vocabulary.n_docs == -block.vocabulary.n_docs
    np.testing.assert_array_equal(neg.keyed.block.total, -block.keyed.block.total)


def test_removing_documents_never_counted_is_refused():
    a = _part(1, 4)
    (block,) = a.blocks
    v = block.vocabulary
    ghost = DocumentStats(
        block.keyed.with_weights(tuple(np.zeros_like(w) for w in block.weights())),
        type(v)(v.given_terms, v.doc_freq * 0 + 5, v.term_freq, v.n_docs),
    )
    with pytest.raises(MergeError, match="not trained on"):
        a - Summary(a.classes, a.class_count * 0.5, (ghost,))


def test_a_file_whose_frequencies_do_not_match_its_terms_is_refused():
    (block,) = _part(2, 5).blocks
    arrays, meta = block.to_arrays()
    with pytest.raises(ModelFileError, match="do not match"):
        DocumentStats.from_arrays({**arrays, "doc_freq": arrays["doc_freq"][1:]}, meta)
    with pytest.raises(ModelFileError, match="n_docs"):
        DocumentStats.from_arrays(arrays, {**meta, "n_docs": -1})
    with pytest.raises(ModelFileError, match="more than n_docs"):
        DocumentStats.from_arrays(arrays, {**meta, "n_docs": 0})
    with pytest.raises(ModelFileError, match="negative"):
        DocumentStats.from_arrays({**arrays, "term_freq": -arrays["term_freq"]}, meta)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), new=st.integers(0, 80))
@example(seed=1, new=64)  # a term of the message absent from the model besides 64 fresh
def test_a_message_into_many_terms_is_inserted_with_the_sums_of_the_merge(seed, new):
    """A few documents added to many (a learned message: fewer than 1/16 as many terms, at
    most 64 of them new) are inserted into the arrays: the same terms and the same sums,
    exactly, as the merge of both term lists; more new terms than that take the merge."""
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i:04d}" for i in range(3000)]
    many = [" ".join(rng.choice(vocabulary, size=50)) for _ in range(100)]
    # new terms that sort among the model's, some right before a term the message holds
    known = rng.choice(vocabulary, size=5)
    fresh = sorted({f"{w}a" for w in rng.choice(vocabulary, size=new)} | {f"{known[0]}"[:-1]})
    fresh = fresh[:new]
    message = " ".join([*known, *fresh])
    clf = TextClassifier.sklearn_defaults()
    big = clf.summarize(many, rng.choice(["ham", "spam"], size=len(many)))
    one = clf.summarize([message], ["spam"])
    (a,), (b,) = big.blocks, one.blocks
    # the message's terms new to the model: its fresh ones, and any of ``known`` that the
    # model's documents happen not to hold
    assert (a._insert(b) is None) == (len(set(b.terms.tolist()) - set(a.terms.tolist())) > 64)
    inserted = big + one
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(document_stats, "_INSERT_RATIO", 10**9)  # always the merge
        merged = big + one
    _same(inserted, merged)
    (x,), (y,) = inserted.blocks, merged.blocks
    assert x.shares_terms()
    for u, v in zip(x.weights(), y.weights(), strict=True):
        assert u.dtype == v.dtype
        np.testing.assert_array_equal(u, v)
    assert set(fresh) <= set(x.terms.tolist())


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), new=st.integers(0, 70), sparse_message=st.booleans())
@example(seed=1, new=40, sparse_message=False)
def test_a_message_into_cells_with_counts_is_inserted_with_the_sums_of_the_merge(
    seed, new, sparse_message
):
    """A large model's counts kept as their cells (SparseCounts): a learned message's terms
    are inserted by moving no cell, and the sum is the merge's, cell for cell."""
    from bayeskit.stats import SparseCounts, TermKeyed

    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i:04d}" for i in range(3000)]
    many = [" ".join(rng.choice(vocabulary, size=50)) for _ in range(100)]
    known = rng.choice(vocabulary, size=5)
    fresh = sorted({f"{w}a" for w in rng.choice(vocabulary, size=new)})[:new]
    clf = TextClassifier.sklearn_defaults()
    labels = np.array(["ham", "news", "spam"])
    (a,) = clf.summarize(many, rng.choice(labels, size=len(many))).blocks
    (b,) = clf.summarize([" ".join([*known, *fresh])], ["news"]).blocks
    b = b.embed_classes(np.array([1]), 3)

    def as_cells(s, cells):
        block = SparseCounts.of(s.keyed.block) if cells else s.keyed.block
        return DocumentStats(TermKeyed(s.keyed.given_terms, block), s.vocabulary)

    a, b = as_cells(a, True), as_cells(b, sparse_message)
    assert a.shares_terms()
    assert b.shares_terms()
    before = a.keyed.block.cells.copy()
    with pytest.MonkeyPatch.context() as patch:  # (a small model: a bound it can reach)
        patch.setattr(document_stats, "_INSERTED_INTO_CELLS_AT_MOST", 40)
        inserted = a._insert(b)
    assert (inserted is None) == (len(set(b.terms.tolist()) - set(a.terms.tolist())) > 40)
    if inserted is None:
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(document_stats, "_INSERT_RATIO", 10**9)  # always the merge
        merged = a + b
    np.testing.assert_array_equal(inserted.terms, merged.terms)
    x, y = inserted.keyed.block, merged.keyed.block
    assert isinstance(x, SparseCounts)
    assert isinstance(y, SparseCounts)
    np.testing.assert_array_equal(x.weight, y.weight)
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(x.cells, name), getattr(y.cells, name))
    for name in ("doc_freq", "term_freq"):
        np.testing.assert_array_equal(
            getattr(inserted.vocabulary, name), getattr(merged.vocabulary, name)
        )
    # the model's own cells are what they were (a served model's snapshot keeps them)
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(a.keyed.block.cells, name), getattr(before, name))
