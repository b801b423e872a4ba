"""A model in one line, as the command line and the model service describe it
(``SpamFilter: words (counts) + MultinomialNB()``), and the model kinds those descriptions
tell apart, by what a model declares (:mod:`bayeskit.contract`)."""

from __future__ import annotations

from typing import Any

from ..contract import contract_of, declares


def is_text_model(model: Any) -> bool:
    return declares(model) and contract_of(model).input == "documents"


def is_email_model(model: Any) -> bool:
    vectorizer = model.vectorizer_ if "vectorizer_" in model.__dict__ else model.vectorizer
    return vectorizer is not None and vectorizer.analyzer == "email"


def describe(model: Any) -> str:
    """``SpamFilter: words (counts) + MultinomialNB()``, ``MixedNB(families='auto')``; a
    calibrated SpamFilter ends with ``, calibrated``."""
    if not is_text_model(model):
        return repr(model)
    vectorizer = model.vectorizer or model.default_vectorizer()
    inner = model.model or model.default_model()
    tokens = {"email": "e-mail tokens", "word": "words"}.get(
        str(vectorizer.analyzer), f"{vectorizer.analyzer} {vectorizer.ngram_range}-grams"
    )
    if vectorizer.analyzer == "word" and tuple(vectorizer.ngram_range) != (1, 1):
        tokens = f"word {'-'.join(map(str, vectorizer.ngram_range))}-grams"
    if vectorizer.analyzer == "auto":
        tokens = f"e-mail tokens or word {'-'.join(map(str, vectorizer.ngram_range))}-grams"
    weights = vectorizer.output
    if weights == "tfidf" and not vectorizer.use_idf:
        weights = "log-tf, unit length" if vectorizer.sublinear_tf else "tf, unit length"
    # (Term weights are refused unless output="tfidf".)
    if getattr(vectorizer, "ngram_weights", None) is not None:
        by_n = ", ".join(f"{n}-grams x{w:g}" for n, w in enumerate(vectorizer.ngram_weights, 1))
        weights += f"; {by_n.removeprefix('1-grams x1, ')}"
    if getattr(vectorizer, "subject_weight", 1) != 1:
        weights += f"; subject: x{vectorizer.subject_weight:g}"
    if getattr(vectorizer, "subject_in_text", False):
        weights += "; subject line read as text"
    calibrated = ", calibrated" if getattr(model, "calibration_folds", None) else ""
    return f"{type(model).__name__}: {tokens} ({weights}) + {inner!r}{calibrated}"
