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

import hashlib
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
        :meth:`TextClassifier.prototypes`); made and checked once per change of the settings
        (every prediction reads the count model's prior settings several times)."""
        key = (self.vectorizer, self.model, self.useful_terms)
        cached = self.__dict__.get("_settings_cache")
        if cached is not None and all(a is b for a, b in zip(cached[0], key, strict=True)):
            return cached[1]
        settings = TextClassifier(
            vectorizer=self.vectorizer, model=self.model, useful_terms=self.useful_terms
        )
        made = settings.prototypes()
        self._settings_cache = (key, made)
        return made

    def set_params(self, **params: Any) -> TextOnTemplate:
        """Set parameters; ``model__alpha=…`` and ``vectorizer__min_df=…`` also work while
        ``model`` / ``vectorizer`` are left at their default (None), as in a grid search."""
        defaults = {
            "vectorizer": TextClassifier.default_vectorizer,
            "model": TextClassifier.default_model,
        }
        for key in params:
            head, nested, _ = key.partition("__")
            if nested and head in defaults and getattr(self, head) is None and head not in params:
                setattr(self, head, defaults[head]())
        self.__dict__.pop("_settings_cache", None)
        super().set_params(**params)
        return self

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
        """The columns the first fit chose, when the settings do not fix them (idf weights,
        or a vocabulary chosen from the corpus): their number and a SHA-256 digest of the
        terms and idf weights, made once per fit (a hashed vectorizer's million columns
        are not listed on every comparison of two parts). None when the settings fix the
        columns (hashed output or a given vocabulary, without idf) or in the per-term mode."""
        fitted = self.__dict__.get("vectorizer_")
        if fitted is None:
            return None
        cached = self.__dict__.get("_layout_cache")
        if cached is not None and cached[0] is fitted:
            return None if cached[1] is None else dict(cached[1])
        idf = fitted.__dict__.get("idf_")
        if idf is None and (fitted.output == "hashed" or fitted.vocabulary is not None):
            layout = None
        else:
            digest = hashlib.sha256()
            columns = fitted.get_feature_names_out()
            for term in columns.tolist():
                digest.update(str(term).encode("utf-8", "surrogatepass") + b"\0")
            if idf is not None:
                digest.update(np.ascontiguousarray(idf, dtype=np.float64).tobytes())
            layout = {"n_columns": len(columns), "sha256": digest.hexdigest()}
        self._layout_cache = (fitted, layout)
        return None if layout is None else dict(layout)

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
