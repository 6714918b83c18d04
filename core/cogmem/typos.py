"""Misspelled words mended before a text is read: "i cant stand mushroms" reads as "... mushrooms".

The embedder puts a text with typos far from the same text spelled right ("I can't stand
mushrooms." / "i cant stand mushroms" are at cosine 0.34), and the parser reads an unknown word
as a name or a noun ("im learnign to play" has no verb "learn"). A word is mended only where
the dictionary leaves little doubt:

* it is written in lower case (a word with a capital may be a name) and has at least
  ``_SHORTEST`` letters ("wifi", "lol" and "btw" are one edit from "wife", "lot" and "bow"),
  or at least ``_SHORT`` when two neighbouring letters swapped make a function word ("teh",
  "jsut": spaCy's stop words; "chem" is no "them");
* the dictionary has never seen it, and it is no British spelling (the dictionary is
  American: "programme" is one edit from "programmed"; :func:`cogmem.canonical.us_spelling`
  spells those);
* one known word is one edit from it (a letter added, dropped, changed, or two swapped), seen
  at least ``_COMMON`` times, and at least ``_CLEAR`` times as often as any other such word
  ("recieve" is one edit from "receive" and from "relieve": left as it is).

The dictionary is ``pyspellchecker``'s English word frequencies (about 160,000 words from
subtitles, 0.1 s to load on first use), so most names, brands and slang are known words.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from .units import stop_words

__all__ = ["mended", "speller"]

# A word is mended from this many letters on ...
_SHORTEST = 6
# ... and a shorter one from this many, into a function word ("teh", "adn", "jsut").
_SHORT = 3
# The mended form is seen at least this often in the dictionary's corpus ...
_COMMON = 1000
# ... and this many times as often as any other word one edit away.
_CLEAR = 10
_LOWER_WORD = re.compile(rf"(?<![\w'’-])[a-z]{{{_SHORT},}}(?![\w'’-])")


@lru_cache(maxsize=1)
def speller() -> Any:
    """``pyspellchecker``'s English checker, at most one edit away (loaded once)."""
    from spellchecker import SpellChecker

    return SpellChecker(distance=1)


def mended(text: str) -> str:
    """``text`` with its clearly misspelled lower-case words spelled right (module docstring).

    >>> mended("i cant stand mushroms, meetng w the architect, Zumba at 6")
    'i cant stand mushrooms, meeting w the architect, Zumba at 6'
    >>> mended("i jsut play teh cello, the wifi is down btw")
    'i just play the cello, the wifi is down btw'
    """
    return _LOWER_WORD.sub(lambda m: _mend(m[0]), text)


@lru_cache(maxsize=65_536)
def _mend(word: str) -> str:
    """The word ``word`` misspells, or ``word`` itself."""
    from .canonical import us_spelling

    frequency = speller().word_frequency
    if frequency[word] > 0 or us_spelling(word) != word:
        return word
    near = sorted(
        ((frequency[w], w) for w in speller().edit_distance_1(word) if frequency[w] > 0),
        reverse=True,
    )
    if not near or near[0][0] < _COMMON:
        return word
    if len(near) > 1 and near[0][0] < _CLEAR * near[1][0]:
        return word
    best = str(near[0][1])
    if len(word) < _SHORTEST and not (best in stop_words() and _swapped(word, best)):
        return word  # "wifi" is no "wife", "btw" no "bow", "chem" no "them"
    return best


def _swapped(typo: str, word: str) -> bool:
    """Whether ``typo`` is ``word`` with two neighbouring letters swapped ("teh" / "the")."""
    if len(typo) != len(word):
        return False
    at = [i for i, (a, b) in enumerate(zip(typo, word, strict=True)) if a != b]
    if len(at) != 2 or at[1] != at[0] + 1:
        return False
    i, j = at
    return typo[i] == word[j] and typo[j] == word[i]
