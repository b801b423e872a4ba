"""Text classification: tokenizing, vectorizing, email reading and the spam filter."""

from .vectorize import TextVectorizer
from .vocabulary import VocabularyStats

__all__ = ["TextVectorizer", "VocabularyStats"]
