"""Text classification: tokenizing, vectorizing, email reading and the spam filter."""

from .classifier import TextClassifier
from .email import Message, email_tokens, iter_folder, iter_mbox, read_email_folders, read_message
from .spam import SpamFilter
from .vectorize import TextVectorizer
from .vocabulary import VocabularyStats

__all__ = [
    "Message",
    "SpamFilter",
    "TextClassifier",
    "TextVectorizer",
    "VocabularyStats",
    "email_tokens",
    "iter_folder",
    "iter_mbox",
    "read_email_folders",
    "read_message",
]
