"""Text classification: tokenizing, vectorizing, email reading and the spam filter.

The public names load on first use (as :mod:`bayeskit`'s do): the analyzers and the e-mail
reader need neither numpy nor scikit-learn, so ``bayeskit filter``'s one-message path imports
them without the estimators.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from typing import Any

_LAZY: dict[str, str] = {
    "DocumentStats": "._document_stats",
    "Message": ".email",
    "SpamFilter": ".spam",
    "TextClassifier": ".classifier",
    "TextVectorizer": ".vectorize",
    "VocabularyStats": ".vocabulary",
    "email_tokens": ".email",
    "iter_folder": ".email",
    "iter_mbox": ".email",
    "read_email_folders": ".email",
    "read_message": ".email",
    "reader_counts": ".email",
    "reset_reader_counts": ".email",
}

if TYPE_CHECKING:  # what type checkers and IDEs see (``X as X``: a re-export)
    from ._document_stats import DocumentStats as DocumentStats
    from .classifier import TextClassifier as TextClassifier
    from .email import Message as Message
    from .email import email_tokens as email_tokens
    from .email import iter_folder as iter_folder
    from .email import iter_mbox as iter_mbox
    from .email import read_email_folders as read_email_folders
    from .email import read_message as read_message
    from .email import reader_counts as reader_counts
    from .email import reset_reader_counts as reset_reader_counts
    from .spam import SpamFilter as SpamFilter
    from .vectorize import TextVectorizer as TextVectorizer
    from .vocabulary import VocabularyStats as VocabularyStats

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    """Load a public name on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
