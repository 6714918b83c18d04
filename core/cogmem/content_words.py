"""Two texts that say one thing built another way: the same words that carry meaning.

A restatement often keeps every word that carries meaning and changes only how the sentence
is built: word order, the passive voice, a cleft, tense and aspect, "there are", a framing
"I" or "the user" ("For breakfast I always have oatmeal." / "I always have oatmeal for
breakfast."; "Tariq built our bookshelves." / "Our bookshelves were built by Tariq."; "The
team has 8 people." / "There are eight people on the team."). The parse reads such pairs
apart as often as together (a passive subject is the object of the active clause), so
:func:`same_content` compares what the two are made of instead:

    content(s) = words(s) − stop words ∪ negations

``words`` are the statement's canonical lemmas (:attr:`cogmem.claims.Statement.words`:
numbers as digits, clock times as ``HH:MM``, US spelling); the stop words are spaCy's English
list and "user" (what an agent's note calls "I"), every negation kept as content. Two
statements with one content set, neither empty, say the same unless the newer says it
changes something (:attr:`~cogmem.claims.Statement.revises`), one is a state where the
other is a past event ("I was a teacher" / "I am a teacher"; a text the parse read no
claim in is not compared so), or the names they share come in
another order ("Ana called Bo." / "Bo called Ana."; the passive's "by" excepted). A value
changed, another person, another relative ("aunt" / "great-aunt") or another thing
("upstairs" / "downstairs") is a content word of one text only.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .claims import Statement

__all__ = ["content", "same_content"]

# Negations stay content words: "I eat meat" and "I don't eat meat" differ.
_NEGATIONS = frozenset({"not", "no", "never", "n't", "nor", "none", "nothing", "neither"})
# Said of the speaker in an agent's note ("The user is allergic to cats."), and a possessive.
_SPEAKER = frozenset({"user", "'s"})
_WORD = re.compile(r"\w")


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    """spaCy's English stop words (imported on first use: spaCy is loaded by the parse)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS) - _NEGATIONS | _SPEAKER


def content(statement: Statement) -> frozenset[str]:
    """The canonical lemmas of ``statement`` that carry meaning (see the module docstring)."""
    stop = _stop_words()
    return frozenset(w for w in statement.words if w not in stop and _WORD.search(w))


def same_content(old: Statement, new: Statement) -> bool:
    """Whether ``new`` restates ``old`` with the same content words (module docstring).

    >>> from cogmem.claims import Statement
    >>> def read(text, *words):
    ...     names = frozenset(w for w in words if w in ("ana", "bo"))
    ...     return Statement(text, (), anchors=names, words=frozenset(words))
    >>> called = read("Ana called Bo.", "ana", "call", "bo")
    >>> same_content(called, read("Bo called Ana.", "bo", "call", "ana"))
    False
    >>> same_content(called, read("Bo was called by Ana.", "bo", "call", "ana", "by"))
    True
    """
    if new.revises or (old.claims and new.claims and _tenses(old) != _tenses(new)):
        return False
    mine = content(old)
    if not mine or mine != content(new):
        return False
    return _names_in_order(old, new)


def _tenses(statement: Statement) -> frozenset[bool]:
    """Whether its claims are states, past events or both ("I was a teacher" / "I am a
    teacher" have one content word)."""
    return frozenset(c.state for c in statement.claims)


def _names_in_order(old: Statement, new: Statement) -> bool:
    """Whether the names both statements hold (their anchors that are words) come in one order
    in their texts, or a passive's "by" may have turned them round."""
    if re.search(r"\bby\b", f"{old.text} {new.text}", re.IGNORECASE):
        return True
    shared = [a for a in old.anchors & new.anchors if a.isalpha()]
    return _order(shared, old.text) == _order(shared, new.text)


def _order(names: list[str], text: str) -> list[str]:
    """``names`` in the order they first occur in ``text`` (case ignored)."""
    lower = text.lower()
    found = {n: m.start() for n in names if (m := re.search(rf"\b{re.escape(n)}\b", lower))}
    return sorted(found, key=found.__getitem__)
