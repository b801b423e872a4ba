"""A text model's term statistics with a capped number of terms: what keeps a model learned
from a long stream of documents (``bayeskit train``) in bounded memory, and how held-out
scores are taken from such a model.

A stream's vocabulary of word 1-2-grams keeps growing (10^6 short generated messages: 3.4
million distinct terms, most of them 2-grams seen once), so its statistics, and the work of
adding each batch to them, grow without bound. :func:`cap_terms` keeps the terms found in the
most documents; :func:`kept_part` is what a capped model can remove of some documents it learned.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from .._values import find_sorted
from ..stats import Summary, TermKeyed, keyed_block
from ._document_stats import DocumentStats
from .vocabulary import VocabularyStats


def cap_terms(
    stats: Summary, vocab: VocabularyStats, max_terms: int
) -> tuple[Summary, VocabularyStats]:
    """Term-keyed statistics (``TextClassifier.stats_``, ``vocabulary_stats_``) with at most
    ``max_terms`` terms.

    When there are more, the ``max_terms`` terms found in the most documents are kept; among
    terms found in as many documents as the last one kept, the first in alphabetical order
    (the terms are sorted), so the choice depends on the statistics alone. The class counts,
    ``n_docs`` and each kept term's counts are unchanged; with at most ``max_terms`` terms
    nothing changes at all.

    Examples
    --------
    >>> from bayeskit.text import TextClassifier
    >>> clf = TextClassifier.sklearn_defaults().fit(
    ...     ["cash now", "cash prize", "lunch now"], ["spam", "spam", "ham"])
    >>> stats, vocab = cap_terms(clf.stats_, clf.vocabulary_stats_, 3)
    >>> vocab.terms.tolist(), vocab.doc_freq.tolist()  # 'prize' and 'lunch' tie: 'lunch'
    (['cash', 'lunch', 'now'], [2, 1, 2])
    """
    if len(vocab) <= max_terms:
        return stats, vocab
    df = vocab.doc_freq
    # the max_terms-th largest document frequency: every term above it is kept, and the
    # first of those at it (in term order) up to max_terms
    cut = np.partition(df, len(df) - max_terms)[len(df) - max_terms]
    above = df > cut
    at = np.flatnonzero(df == cut)[: max_terms - int(above.sum())]
    above[at] = True
    keep = np.flatnonzero(above)
    terms = vocab.terms[keep]
    keyed = keyed_block(stats)
    where, found = find_sorted(keyed.terms, terms)
    assert found.all()  # the counts and the vocabulary statistics are of the same terms
    kept = TermKeyed(terms, keyed.block.take_columns(where))
    return (
        Summary(stats.classes, stats.class_count, (kept,)),
        VocabularyStats(terms, df[keep], vocab.term_freq[keep], vocab.n_docs),
    )


def add_terms(
    a: tuple[Summary, VocabularyStats], b: tuple[Summary, VocabularyStats]
) -> tuple[Summary, VocabularyStats]:
    """``(a[0] + b[0], a[1] + b[1])``: two parts of a text model's statistics added as one
    :class:`~bayeskit.text._document_stats.DocumentStats` each, whose ``+`` merges their
    sorted terms once for both sums (each ``+`` apart would merge them again: on a long
    stream, binary searches among the terms are most of the time of adding a batch), the
    two sums holding one terms array (a learned message, a stream's batches)."""
    total = _as_documents(*a) + _as_documents(*b)
    documents = cast(DocumentStats, total.blocks[0])
    return Summary(total.classes, total.class_count, (documents.keyed,)), documents.vocabulary


def _as_documents(stats: Summary, vocab: VocabularyStats) -> Summary:
    return Summary(stats.classes, stats.class_count, (DocumentStats(keyed_block(stats), vocab),))


def kept_part(
    stats: Summary, vocab: VocabularyStats, part: Summary, part_vocab: VocabularyStats
) -> tuple[Summary, VocabularyStats]:
    """What statistics capped by :func:`cap_terms` (``stats``, ``vocab``) still hold of some
    documents they learned (``part``, ``part_vocab``): their terms the model kept, each
    count at most the model's. Subtracting it gives the model without those documents as
    far as the model kept them; with nothing dropped it is ``part`` itself (exact)."""
    block, mine = keyed_block(part), keyed_block(stats)
    where, found = find_sorted(mine.terms, block.terms)
    rows = np.searchsorted(stats.classes, part.classes)
    kept = block.block.take_columns(np.flatnonzero(found))
    held = mine.block.take_columns(where[found]).weights()
    # each column array at most the model's; the class weights are the part's own
    capped = tuple(
        np.minimum(w, h[rows]) if w.ndim > 1 else w
        for w, h in zip(kept.weights(), held, strict=True)
    )
    at, in_vocab = find_sorted(vocab.terms, part_vocab.terms)
    at = at[in_vocab]
    return (
        Summary(
            part.classes,
            part.class_count,
            (TermKeyed(block.terms[found], kept.with_weights(capped)),),
        ),
        VocabularyStats(
            part_vocab.terms[in_vocab],
            np.minimum(part_vocab.doc_freq[in_vocab], vocab.doc_freq[at]),
            np.minimum(part_vocab.term_freq[in_vocab], vocab.term_freq[at]),
            part_vocab.n_docs,
        ),
    )
