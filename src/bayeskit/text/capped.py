"""A text model's term statistics with a capped number of terms: what keeps a model learned
from a long stream of documents (``bayeskit train``) in bounded memory, and how held-out
scores are taken from such a model.

A stream's vocabulary of word 1-2-grams keeps growing (10^6 short generated messages: 3.4
million distinct terms, most of them 2-grams seen once), so its statistics, and the work of
adding each batch to them, grow without bound. :func:`cap_terms` keeps the terms found in the
most documents; :func:`kept_part` is what a capped model can remove of some documents it
learned. Both take and give a text model's statistics as it keeps them
(``TextClassifier.stats_``: one :class:`~bayeskit.text._document_stats.DocumentStats` block),
which add with ``+``.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from .._values import find_sorted
from ..errors import ParameterError
from ..stats import Summary, TermKeyed
from ._document_stats import DocumentStats
from .vocabulary import VocabularyStats


def documents_block(stats: Summary) -> DocumentStats:
    """The one block of a text model's statistics kept per term (``TextClassifier.stats_``
    when ``keeps_term_statistics()``), refusing any other."""
    blocks = stats.blocks if isinstance(stats, Summary) else ()
    if len(blocks) != 1 or not isinstance(blocks[0], DocumentStats):
        raise ParameterError(
            "expected a text model's statistics kept per term (one documents block: "
            "TextClassifier.stats_ with counts, presence or tf without idf)"
        )
    return blocks[0]


def cap_terms(stats: Summary, max_terms: int) -> Summary:
    """A text model's statistics kept per term (``TextClassifier.stats_``) with at most
    ``max_terms`` terms.

    When there are more, the ``max_terms`` terms found in the most documents are kept; among
    terms found in as many documents as the last one kept, the first in alphabetical order
    (the terms are sorted), so the choice depends on the statistics alone. The class counts,
    ``n_docs`` and each kept term's counts are unchanged; with at most ``max_terms`` terms
    nothing changes at all. ``max_terms`` is a positive int (else
    :class:`~bayeskit.errors.ParameterError`).

    Examples
    --------
    >>> from bayeskit.text import TextClassifier
    >>> clf = TextClassifier.sklearn_defaults().fit(
    ...     ["cash now", "cash prize", "lunch now"], ["spam", "spam", "ham"])
    >>> vocab = cap_terms(clf.stats_, 3).blocks[0].vocabulary
    >>> vocab.terms.tolist(), vocab.doc_freq.tolist()  # 'prize' and 'lunch' tie: 'lunch'
    (['cash', 'lunch', 'now'], [2, 1, 2])
    """
    max_terms = check_positive_int(max_terms, "max_terms", "the most terms to keep")
    block = documents_block(stats)
    vocab = block.vocabulary
    if len(vocab) <= max_terms:
        return stats
    df = vocab.doc_freq
    # the max_terms-th largest document frequency: every term above it is kept, and the
    # first of those at it (in term order) up to max_terms
    cut = np.partition(df, len(df) - max_terms)[len(df) - max_terms]
    above = df > cut
    at = np.flatnonzero(df == cut)[: max_terms - int(above.sum())]
    above[at] = True
    keep = np.flatnonzero(above)
    terms = vocab.terms[keep]
    keyed = block.keyed
    where, found = find_sorted(keyed.terms, terms)
    assert found.all()  # the counts and the vocabulary statistics are of the same terms
    kept = DocumentStats(
        TermKeyed(terms, keyed.block.take_columns(where)),
        VocabularyStats(terms, df[keep], vocab.term_freq[keep], vocab.n_docs),
    )
    return Summary(stats.classes, stats.class_count, (kept,))


def kept_part(stats: Summary, part: Summary) -> Summary:
    """What statistics capped by :func:`cap_terms` (``stats``) still hold of some documents
    they learned (``part``, e.g. ``TextClassifier.summarize`` of them): their terms the
    model kept, each count at most the model's. Subtracting it gives the model without
    those documents as far as the model kept them; with nothing dropped it is ``part``'s
    numbers (exact)."""
    mine_block, part_block = documents_block(stats), documents_block(part)
    block, mine = part_block.keyed, mine_block.keyed
    vocab, part_vocab = mine_block.vocabulary, part_block.vocabulary
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
    held_part = DocumentStats(
        TermKeyed(block.terms[found], kept.with_weights(capped)),
        VocabularyStats(
            part_vocab.terms[in_vocab],
            np.minimum(part_vocab.doc_freq[in_vocab], vocab.doc_freq[at]),
            np.minimum(part_vocab.term_freq[in_vocab], vocab.term_freq[at]),
            part_vocab.n_docs,
        ),
    )
    return Summary(part.classes, part.class_count, (held_part,))
