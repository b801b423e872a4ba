"""A text classifier is a vectorizer plus any count model: the model declares that it reads
counts (``input='counts'``) and its statistic is kept per column, and the text model keys it
by term. Nothing in ``bayeskit.text`` names a count model."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.contract import contract_of
from bayeskit.errors import ParameterError
from bayeskit.stats import ColumnStatistic, Counts, Summary, TermKeyed
from bayeskit.text import DocumentStats, TextClassifier, TextVectorizer

DOCS = [
    "cash prize now",
    "win cash cash now",
    "lunch at noon",
    "meeting at noon today",
    "free prize claim now",
    "see you at lunch",
    "cash now cash now",
    "noon meeting moved",
]
LABELS = ["spam", "spam", "ham", "ham", "spam", "ham", "spam", "ham"]
NEW = ["cash for lunch", "meeting now", "unheard words only"]

#: every count model of the registry, as the text model meets it
COUNT_MODELS = [
    name
    for name in bk.__all__
    if isinstance(getattr(bk, name), type)
    and hasattr(getattr(bk, name), "contract")
    and contract_of(getattr(bk, name)).input == "counts"
]


def _model(name: str) -> Any:
    cls = getattr(bk, name)
    return cls(n_trials=8) if name == "BinomialNB" else cls()


def test_the_registry_has_the_count_models_the_text_model_takes():
    assert {"MultinomialNB", "ComplementNB", "BernoulliNB", "PoissonNB", "BinomialNB"} <= set(
        COUNT_MODELS
    )


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_a_count_model_in_a_text_model_is_that_model_over_the_vectorizer(name, tmp_path):
    clf = TextClassifier(vectorizer=TextVectorizer(), model=_model(name)).fit(DOCS, LABELS)
    vec = TextVectorizer().fit(DOCS)
    reference = _model(name).fit(vec.transform(DOCS), LABELS)
    expected = reference.predict_joint_log_proba(vec.transform(NEW))
    np.testing.assert_allclose(clf.predict_joint_log_proba(NEW), expected, rtol=1e-12)
    # the laws of the per-term statistics, for every count model alike
    halves = TextClassifier(vectorizer=TextVectorizer(), model=_model(name))
    halves.partial_fit(DOCS[:3], LABELS[:3], classes=["ham", "spam"]).partial_fit(
        DOCS[3:], LABELS[3:]
    )
    np.testing.assert_allclose(halves.predict_joint_log_proba(NEW), expected, rtol=1e-12)
    a = TextClassifier(vectorizer=TextVectorizer(), model=_model(name)).fit(DOCS[:4], LABELS[:4])
    b = TextClassifier(vectorizer=TextVectorizer(), model=_model(name)).fit(DOCS[4:], LABELS[4:])
    np.testing.assert_allclose((a + b).predict_joint_log_proba(NEW), expected, rtol=1e-12)
    less = TextClassifier(vectorizer=TextVectorizer(), model=_model(name)).fit(DOCS[:6], LABELS[:6])
    np.testing.assert_allclose(
        clf.unlearn(DOCS[6:], LABELS[6:]).predict_joint_log_proba(NEW),
        less.predict_joint_log_proba(NEW),
        rtol=1e-12,
        atol=1e-12,
    )
    bk.save(a + b, tmp_path / "m.bkm")
    loaded = bk.load(tmp_path / "m.bkm")
    assert type(loaded.fitted_parts()[1]) is type(reference)
    np.testing.assert_array_equal(
        loaded.predict_joint_log_proba(NEW), (a + b).predict_joint_log_proba(NEW)
    )


@pytest.mark.parametrize(
    "name", [n for n in COUNT_MODELS if contract_of(getattr(bk, n)).sums_columns]
)
def test_an_out_of_vocabulary_column_is_pooled_for_a_model_that_sums_columns(name):
    vec = TextVectorizer(min_df=2, oov_token="<oov>")
    clf = TextClassifier(vectorizer=vec, model=_model(name)).fit(DOCS, LABELS)
    fixed = vec.fit(DOCS)
    X = fixed.transform(DOCS)
    assert X.shape[1] == len(fixed.terms_) + 1  # the words seen once pooled in one column
    reference = _model(name).fit(X, LABELS)
    np.testing.assert_allclose(
        clf.predict_joint_log_proba(NEW),
        reference.predict_joint_log_proba(fixed.transform(NEW)),
        rtol=1e-12,
    )


def test_a_model_that_does_not_sum_columns_is_refused_an_out_of_vocabulary_column():
    with pytest.raises(ParameterError, match=r"oov_token with BernoulliNB.*sums_columns=False"):
        TextClassifier(vectorizer=TextVectorizer(oov_token="<oov>"), model=bk.BernoulliNB()).fit(
            DOCS, LABELS
        )


@pytest.mark.parametrize(
    "model", [bk.GaussianNB(), bk.CategoricalNB(), bk.LinearDiscriminantAnalysis(), "nb"]
)
def test_a_model_that_does_not_read_counts_is_refused_by_its_declaration(model):
    with pytest.raises(ParameterError, match="declares input='counts'"):
        TextClassifier(model=model).fit(DOCS, LABELS)


def test_nothing_in_the_text_package_names_a_count_model():
    text = Path(bk.__file__).parent / "text"
    named = set()
    for path in text.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
                named |= {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
    assert not named & set(COUNT_MODELS), named & set(COUNT_MODELS)


def test_a_statistic_stored_as_it_describes_itself_loads_the_same(tmp_path):
    """A per-column statistic (here: counts with a missing-weight array) is stored as its own
    arrays and kind in the documents block, and loads the same."""
    clf = TextClassifier(vectorizer=TextVectorizer(), model=bk.BernoulliNB())
    summary = clf.summarize(DOCS, LABELS)
    (documents,) = summary.blocks
    keyed = documents.keyed
    block = keyed.block
    assert isinstance(block, Counts)
    other = Counts(block.weight, block.total, np.zeros_like(block.total))
    changed = DocumentStats(TermKeyed(keyed.terms, other), documents.vocabulary)
    clf.fit_summary(Summary(summary.classes, summary.class_count, (changed,)))
    bk.save(clf, tmp_path / "m.bkm")
    loaded = bk.load(tmp_path / "m.bkm")
    assert loaded.stats_.blocks[0].keyed.block.missing is not None
    np.testing.assert_array_equal(
        loaded.predict_joint_log_proba(NEW), clf.predict_joint_log_proba(NEW)
    )


# ---------------------------------------------------------------- the per-column convention
@dataclass(frozen=True, eq=False)
class _Runs(ColumnStatistic):
    """A per-column statistic with a trailing axis (rows holding a term at least once and at
    least twice): what a Dirichlet-compound multinomial would keep."""

    weight: np.ndarray
    at_least: np.ndarray  # (n_classes, n_terms, 2)

    @property
    def n_features(self) -> int:
        return int(self.at_least.shape[1])

    def weights(self) -> tuple[np.ndarray, ...]:
        return self.weight, self.at_least

    def with_weights(self, arrays: tuple[np.ndarray, ...]) -> _Runs:
        return _Runs(*arrays)

    def _add(self, other: _Runs) -> _Runs:
        return _Runs(self.weight + other.weight, self.at_least + other.at_least)

    def column_weight(self) -> np.ndarray:
        return self.at_least[:, :, 0]

    def pooled(self, where: np.ndarray | None = None) -> _Runs:  # pragma: no cover - not summed
        raise NotImplementedError

    def to_arrays(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return {"weight": self.weight, "at_least": self.at_least}, {}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> _Runs:
        return cls(arrays["weight"], arrays["at_least"])


def _runs(words: list[str], counts: np.ndarray) -> TermKeyed:
    """The _Runs statistic of documents of one class: ``counts`` (docs × words)."""
    at_least = np.stack([(counts >= 1).sum(0), (counts >= 2).sum(0)], axis=-1)[None]
    return TermKeyed(
        np.array(words, dtype=object), _Runs(np.array([len(counts)], float), at_least * 1.0)
    )


VOCAB = ["a", "b", "c", "d", "e", "f"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(VOCAB), min_size=1, unique=True),
    st.lists(st.sampled_from(VOCAB), min_size=1, unique=True),
    st.integers(0, 2**32 - 1),
)
def test_term_keyed_statistics_of_different_vocabularies_add_exactly(left, right, seed):
    """Statistics over different terms add as if both had counted every term (an unseen term
    is a column of zeros), whatever the block's trailing axes."""
    rng = np.random.default_rng(seed)
    left, right = sorted(left), sorted(right)
    a_counts = rng.integers(0, 3, size=(4, len(left)))
    b_counts = rng.integers(0, 3, size=(3, len(right)))

    def over_all(words: list[str], counts: np.ndarray) -> np.ndarray:
        full = np.zeros((len(counts), len(VOCAB)), dtype=np.int64)
        full[:, [VOCAB.index(w) for w in words]] = counts
        return full

    total = _runs(left, a_counts) + _runs(right, b_counts)
    both = np.vstack([over_all(left, a_counts), over_all(right, b_counts)])
    expected = _runs(VOCAB, both)
    seen = expected.block.column_weight()[0] > 0  # terms no document holds are not kept
    assert total.terms.tolist() == [w for w, s in zip(VOCAB, seen, strict=True) if s] or (
        total.terms.tolist() == sorted(set(left) | set(right))
    )
    np.testing.assert_array_equal(
        total.columns_of(np.array(VOCAB, dtype=object)).weights()[1], expected.block.at_least
    )
    # and removing one part leaves the other, emptied terms dropped
    back = Summary(np.array([0]), np.array([7.0]), (total,)) - Summary(
        np.array([0]), np.array([3.0]), (_runs(right, b_counts),)
    )
    (left_over,) = back.blocks
    a = _runs(left, a_counts).without_empty(0.0)
    assert left_over.terms.tolist() == a.terms.tolist()
    np.testing.assert_array_equal(left_over.block.at_least, a.block.at_least)


@pytest.mark.parametrize("name", COUNT_MODELS)
def test_semi_supervised_em_takes_a_text_model_of_any_count_model(name):
    """EM over a text model (Nigam et al. 2000) reads only what the text model declares, so
    every count model works inside it: the unlabelled documents are labelled as their words
    say, and the final model's statistics hold every document's share."""
    y = np.array(["spam", None, "ham", None, None, "ham", None, None], dtype=object)
    model = bk.SemiSupervisedNB(TextClassifier(vectorizer=TextVectorizer(), model=_model(name)))
    model.fit(DOCS, y)
    assert model.transduction_.tolist() == LABELS
    np.testing.assert_allclose(model.estimator_.class_count_.sum(), len(DOCS))
    assert type(model.estimator_.fitted_parts()[1]) is type(_model(name))
