"""Text to BM25 tokens: lowercase ``\\w+`` words, stop words dropped, Snowball stems
(PyStemmer), order and repeats kept."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import Stemmer

from cogmem.errors import InvalidInputError, InvalidTypeError

__all__ = ["STOPWORDS_EN", "Tokenizer", "word_spans"]

_WORD_RE = re.compile(r"\w+")

STOPWORDS_EN: frozenset[str] = frozenset(
    {
        "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours",
        "yourself", "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself",
        "it", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which",
        "who", "whom", "this", "that", "these", "those", "am", "is", "are", "was", "were", "be",
        "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "a", "an",
        "the", "and", "but", "if", "or", "because", "as", "until", "while", "of", "at", "by",
        "for", "with", "about", "against", "between", "into", "through", "during", "before",
        "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over",
        "under", "again", "further", "then", "once", "here", "there", "when", "where", "why",
        "how", "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no",
        "nor", "not", "only", "own", "same", "so", "than", "too", "very", "s", "t", "can", "will",
        "just", "don", "should", "now", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren",
        "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "ma", "mightn", "mustn",
        "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn",
    }
)  # fmt: skip
"""English stop words: NLTK's English list (its 153 plain words; data only), as ``bm25s`` ships for
``"en"`` in its fuller list. Removed before stemming."""


class Tokenizer:
    """Text to BM25 tokens: lowercase, ``\\w+`` words, stop words dropped, Snowball stems.

    Token order and repeats are kept (BM25 counts them). Stop words are compared with the
    lowercased word before stemming.

    Args:
        language: A Snowball algorithm name known to PyStemmer, e.g. ``"english"``.
        stopwords: Words to drop (compared lowercased); ``None`` drops nothing.
        stem: Whether to stem the words.

    Raises:
        InvalidTypeError: An argument has the wrong type.
        InvalidInputError: ``language`` is not a PyStemmer algorithm.

    Example:
        >>> Tokenizer()("The runner was running, and runs!")
        ['runner', 'run', 'run']
    """

    __slots__ = ("_language", "_stem", "_stemmer", "_stopwords")

    def __init__(
        self,
        language: str = "english",
        stopwords: Iterable[str] | None = STOPWORDS_EN,
        stem: bool = True,
    ) -> None:
        if not isinstance(language, str):
            raise InvalidTypeError(f"language must be a str, got {type(language).__name__}")
        if not isinstance(stem, bool):
            raise InvalidTypeError(f"stem must be a bool, got {type(stem).__name__}")
        if language not in Stemmer.algorithms():
            raise InvalidInputError(
                f"language {language!r} is not a PyStemmer algorithm; "
                f"choose one of {sorted(Stemmer.algorithms())}"
            )
        if stopwords is None:
            words: frozenset[str] = frozenset()
        elif isinstance(stopwords, str) or not isinstance(stopwords, Iterable):
            raise InvalidTypeError(
                f"stopwords must be an iterable of str or None, got {type(stopwords).__name__}"
            )
        else:
            items = list(stopwords)
            for word in items:
                if not isinstance(word, str):
                    raise InvalidTypeError(f"stopwords must contain str, got {type(word).__name__}")
            words = frozenset(word.lower() for word in items)
        self._language = language
        self._stopwords = words
        self._stem = stem
        self._stemmer: Any = Stemmer.Stemmer(language) if stem else None

    @property
    def language(self) -> str:
        """The Snowball algorithm name."""
        return self._language

    @property
    def stopwords(self) -> frozenset[str]:
        """The (lowercased) stop words."""
        return self._stopwords

    @property
    def stem(self) -> bool:
        """Whether words are stemmed."""
        return self._stem

    def __call__(self, text: str) -> list[str]:
        """Tokenize one text.

        Args:
            text: Any text.

        Returns:
            The tokens, in order, repeats kept.

        Raises:
            InvalidTypeError: ``text`` is not a str.
        """
        if not isinstance(text, str):
            raise InvalidTypeError(f"text must be a str, got {type(text).__name__}")
        words = _WORD_RE.findall(text.lower())
        if self._stopwords:
            stop = self._stopwords
            words = [word for word in words if word not in stop]
        if self._stemmer is not None and words:
            stemmed: list[str] = self._stemmer.stemWords(words)
            return stemmed
        return words

    def stems(self, words: Sequence[str]) -> list[str]:
        """The stems of ``words`` (lowercased first; no stop word is dropped).

        Example:
            >>> Tokenizer().stems(["Lives", "lived", "living"])
            ['live', 'live', 'live']
        """
        lowered = [word.lower() for word in words]
        if self._stemmer is None or not lowered:
            return lowered
        stemmed: list[str] = self._stemmer.stemWords(lowered)
        return stemmed

    def tokenize_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Tokenize several texts.

        Args:
            texts: The texts.

        Returns:
            One token list per text, in order.

        Raises:
            InvalidTypeError: ``texts`` is a str, or an item is not a str.
        """
        if isinstance(texts, str) or not isinstance(texts, Iterable):
            raise InvalidTypeError(f"texts must be an iterable of str, got {type(texts).__name__}")
        return [self(text) for text in texts]

    def __reduce__(self) -> tuple[Any, ...]:
        # The PyStemmer object cannot be pickled; rebuild from the settings instead.
        return (Tokenizer, (self._language, self._stopwords, self._stem))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tokenizer):
            return NotImplemented
        return (self._language, self._stopwords, self._stem) == (
            other._language,
            other._stopwords,
            other._stem,
        )

    def __hash__(self) -> int:
        return hash((self._language, self._stopwords, self._stem))

    def __repr__(self) -> str:
        return (
            f"Tokenizer(language={self._language!r}, stopwords=<{len(self._stopwords)} words>, "
            f"stem={self._stem})"
        )


def word_spans(text: str) -> list[tuple[str, int]]:
    """The words :class:`Tokenizer` splits ``text`` into (``\\w+``), case kept, each with the
    offset it starts at.

    Example:
        >>> word_spans("Note: Maria's flight")
        [('Note', 0), ('Maria', 6), ('s', 12), ('flight', 14)]
    """
    return [(m.group(), m.start()) for m in _WORD_RE.finditer(text)]
