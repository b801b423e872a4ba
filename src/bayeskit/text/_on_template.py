"""The text classifier on the one template: a generative classifier whose single block is
documents read by a vectorizer and scored by a count family (:mod:`._documents`).

This is where :class:`~bayeskit.text.TextClassifier` is moving: here ``fit``,
``partial_fit``, ``unlearn``, merging (``+``), ``summarize`` / ``fit_summary`` and every
prediction are the template's own (:mod:`bayeskit._base`), and any model that declares
``input="counts"`` plugs in. Its settings and numbers are TextClassifier's (tested side by
side); what still reads TextClassifier's own statistics (model files, the command line's
stream, the cluster rounds, the spam filter's calibration) moves with it.

The class prior and the decision are the count model's settings (``fit_prior``,
``class_prior``, ``prior_alpha``, ``class_weight``, ``loss``), and so is whether the scores
include the prior (ComplementNB's do not). With a fixed vocabulary (idf, hashed output, a
given vocabulary) the first fit fits the vectorizer on its documents and keeps it
(``vectorizer_``): the column layout the fit chose, which merging compares.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._base import GenerativeClassifier
from .._params import clone
from ..contract import Contract, contract_of
from ..families import Family
from ..stats import Summary
from ._documents import DocumentsFamily, as_documents, keeps_term_statistics
from .classifier import TextClassifier
from .vectorize import TextVectorizer
from .vocabulary import VocabularyStats

__all__ = ["TextOnTemplate"]


class TextOnTemplate(GenerativeClassifier):
    """A naive Bayes text classifier on the generative template (see the module docstring);
    the same parameters as :class:`~bayeskit.text.TextClassifier`.

    Examples
    --------
    >>> clf = TextOnTemplate().fit(
    ...     ["win cash now", "free cash prize", "lunch at noon", "see you at lunch"],
    ...     ["spam", "spam", "ham", "ham"])
    >>> clf.predict(["cash prize", "lunch tomorrow"])
    array(['spam', 'ham'], dtype='<U4')
    """

    contract: ClassVar[Contract] = Contract(input="documents", served_learnable=True)

    def __init__(
        self,
        *,
        vectorizer: TextVectorizer | None = None,
        model: Any = None,
        useful_terms: int | None = None,
    ):
        self.vectorizer = vectorizer
        self.model = model
        self.useful_terms = useful_terms

    # ------------------------------------------------------------------ settings
    def prototypes(self) -> tuple[TextVectorizer, GenerativeClassifier]:
        """The vectorizer and count model the settings stand for, checked (as
        :meth:`TextClassifier.prototypes`)."""
        settings = TextClassifier(
            vectorizer=self.vectorizer, model=self.model, useful_terms=self.useful_terms
        )
        return settings.prototypes()

    def _count_model(self) -> GenerativeClassifier:
        return self.prototypes()[1]

    # the class prior and the decision rule are the count model's settings
    @property
    def fit_prior(self) -> bool:  # type: ignore[override]
        return bool(self._count_model().fit_prior)

    @property
    def class_prior(self) -> Any:
        return self._count_model().class_prior

    @property
    def prior_alpha(self) -> float:  # type: ignore[override]
        return float(self._count_model().prior_alpha)

    @property
    def class_weight(self) -> Any:
        return self._count_model().class_weight

    @property
    def loss(self) -> Any:
        return self._count_model().loss

    def scores_include_prior(self) -> bool:
        return contract_of(self._count_model()).prior_in_scores

    # ------------------------------------------------------------------ template hooks
    def _families(self) -> list[Family]:
        vec, model = self.prototypes()
        (count,) = model.configured_families()
        fitted = self.__dict__.get("vectorizer_")
        if fitted is not None:
            return [DocumentsFamily(fitted, count, fitted=True)]
        return [DocumentsFamily(vec, count, useful_terms=self.useful_terms)]

    def _check_X(self, X: Any, *, reset: bool) -> Any:
        docs = as_documents(X)
        if reset:
            self.__dict__.pop("vectorizer_", None)
            vec = self.prototypes()[0]
            if not keeps_term_statistics(vec):
                # idf (or hashed columns, or a given vocabulary): fitted once, on this corpus
                fixed = clone(vec)
                self.vectorizer_ = fixed.fit([]) if fixed.output == "hashed" else fixed.fit(docs)
        return docs

    def layout_state(self) -> dict[str, Any] | None:
        fitted = self.__dict__.get("vectorizer_")
        if fitted is None:
            return None
        idf = fitted.__dict__.get("idf_")
        return {
            "columns": fitted.get_feature_names_out().tolist(),
            "idf": None if idf is None else np.asarray(idf).tolist(),
        }

    # ------------------------------------------------------------------ fitted parts
    @property
    def vocabulary_stats_(self) -> VocabularyStats:
        """The vocabulary statistics of the documents learned (per-term mode)."""
        (block,) = self.statistics().blocks
        return block.vocabulary  # type: ignore[attr-defined]

    def fitted_parts(self) -> tuple[TextVectorizer, GenerativeClassifier]:
        """The fitted vectorizer and the count model its columns' statistics give."""
        (params,) = self._fitted().params
        summary = self.statistics()
        model = clone(self._count_model()).fit_summary(
            Summary(summary.classes, summary.class_count, (params.columns,))
        )
        return params.vectorizer, model
