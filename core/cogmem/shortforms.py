"""Two wordings of one thing: abbreviations ("NYC" / "New York City"), and a name spelled
anew ("It's Thompson, with a p." after "Mr. Thomson").

A pair of texts is compared by the words each has that the other has not (canonical words,
:attr:`cogmem.statements.Statement.words`, less function words). The difference is only
abbreviations when every word of the shorter side abbreviates words of the other, and every
word of the other side is so abbreviated:

* an **initialism** of two or more words, their initials in any order ("nyc" / new york city,
  "dmv" / department of motor vehicles, "rn" / registered nurse);
* a **shortening** of one word: the same first letter, its letters in order within the word,
  which is at least twice as long ("st" / street, "appt" / appointment, "mon" / monday; not
  "ann" / anna, a name spelled another way).

Both are the matching rule of Schwartz & Hearst (2003) for an abbreviation and its long form,
taken across two texts rather than within one (the libraries that implement it look for "long
form (SF)" in one text). An abbreviation of two to five letters is read; digits never are.

A **respelling** (:func:`respelled`) gives a name of the older text another spelling and says
so: the newer text has a name within a few letters of one the older has and drops
(``difflib`` ratio ≥ 0.75, both of four letters or more), and a word about spelling ("spell",
"spelled", "typo", "with a K"). Without that word, "Maria" / "Mario" are two people.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from collections.abc import Iterable, Set

__all__ = ["RESPELLING", "only_abbreviated", "respelled"]

# Words an initialism skips ("Department of Motor Vehicles"), articles that follow the
# form ("a Master ..." / "an MBA") and the copula shorthand drops ("wifi pw: ...").
_SKIPPED = frozenset({"a", "an", "the", "of", "and", "for", "in", "on", "at", "to", "&", "be"})
_SHORTEST, _LONGEST = 2, 6


def only_abbreviated(first: Iterable[str], second: Iterable[str]) -> bool:
    """Whether two texts' words differ, and only by abbreviations (see the module docstring).

    Args:
        first: The canonical words of one text.
        second: The canonical words of the other.
    """
    a, b = _letters(frozenset(first)), _letters(frozenset(second))
    only_a, only_b = a - b, b - a
    if not only_a or not only_b:
        return False
    return _explains(only_a, only_b) or _explains(only_b, only_a)


@functools.lru_cache(maxsize=8192)
def _letters(words: frozenset[str]) -> frozenset[str]:
    """The words as letters and digits only, function words left out (kept: a text's words
    are compared with many others')."""
    out = {"".join(ch for ch in w.lower() if ch.isalnum()) for w in words}
    return frozenset(w for w in out if w and w not in _SKIPPED)


def _explains(short: Set[str], long: Set[str]) -> bool:
    """Whether each word of ``short`` abbreviates words of ``long``, using each of them once
    and all of them: some reading of every form does ("dr" as "doctor", not the initials of
    "doctor regarding", when "re" must read "regarding"). Every reading is tried, so the
    answer does not hang on which form is read first."""
    if len(short) > len(long):  # each form reads one word of ``long`` at least
        return False
    if not all(form.isalpha() and _SHORTEST <= len(form) <= _LONGEST for form in short):
        return False
    forms = sorted(short, key=lambda form: (-len(form), form))

    def fits(at: int, left: frozenset[str]) -> bool:
        if at == len(forms):
            return not left
        readings = (_initials_of(forms[at], set(left)), _shortened(forms[at], set(left)))
        return any(words and fits(at + 1, left - words) for words in readings)

    return fits(0, frozenset(long))


def _shortened(form: str, words: set[str]) -> set[str]:
    """The one word of ``words`` that ``form`` shortens (empty: none, or more than one)."""
    found = {w for w in words if _shortens(form, w)}
    return found if len(found) == 1 else set()


def _shortens(form: str, word: str) -> bool:
    """ "appt" / "appointment": the same first letter, the letters in order, the word at
    least twice as long."""
    if form[0] != word[0] or len(word) < 2 * len(form) or not word.isalpha():
        return False
    rest = iter(word[1:])
    return all(ch in rest for ch in form[1:])


def _initials_of(form: str, words: set[str]) -> set[str]:
    """Two or more of ``words`` whose initials are the letters of ``form`` ("nyc": new, york,
    city); empty when there are none, or more candidates than letters. An "o" inside the
    form may stand for the "of" that ``words`` leave out ("eod": end, day; "dob": date,
    birth)."""
    by_initial: dict[str, list[str]] = {}
    for word in sorted(words):
        if word.isalpha():
            by_initial.setdefault(word[0], []).append(word)
    needed = Counter(form)
    if "o" in form[1:] and "o" not in by_initial:
        needed -= Counter("o")  # "end of day": the "of" is no word of the comparison
    if any(len(by_initial.get(ch, ())) != n for ch, n in needed.items()):
        return set()  # too few, or more than it has letters for: which words is not clear
    found = {w for ch in needed for w in by_initial[ch]}
    return found if len(found) >= 2 else set()


#: How alike two spellings of one name are (difflib's ratio): "Thomson" / "Thompson" 0.93,
#: "Catherine" / "Katharine" 0.78; "Petrov" / "Pavlov" 0.5.
RESPELLING = 0.75
_SPELLING = re.compile(
    r"\b(?:spell|spells|spelled|spelt|spelling|typo|misspelled|misspelt)\b"
    r"|\bwith an? ['\"]?[a-z]['\"]?(?:\W|$)",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=4096)
def _speaks_of_spelling(text: str) -> bool:
    """Whether ``text`` speaks of how something is spelled (kept: a search relates each of its
    best candidates, as the newer, to several older ones)."""
    return _SPELLING.search(text) is not None


def respelled(
    old_names: Iterable[str], new_names: Iterable[str], new_text: str
) -> tuple[str, str] | None:
    """The (old, new) spelling of a name ``new_text`` spells anew, or ``None`` (see the module
    docstring).

    Args:
        old_names: The names (canonical, lowercase) of the older text.
        new_names: Those of the newer text.
        new_text: The newer text, as written.
    """
    if not _speaks_of_spelling(new_text):
        return None
    olds, news = _letters(frozenset(old_names)), _letters(frozenset(new_names))
    pairs = [
        (difflib.SequenceMatcher(None, a, b).ratio(), a, b)
        for a in olds - news
        for b in news - olds
        if len(a) >= 4 and len(b) >= 4 and a.isalpha() and b.isalpha()
    ]
    close = [(a, b) for ratio, a, b in sorted(pairs, reverse=True) if ratio >= RESPELLING]
    return close[0] if close else None
