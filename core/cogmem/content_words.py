"""Two texts that say one thing built another way: the same words that carry meaning.

A restatement often keeps every word that carries meaning and changes only how the sentence
is built: word order, the passive voice, a cleft, tense and aspect, "there are", a framing
"I" or "the user" ("For breakfast I always have oatmeal." / "I always have oatmeal for
breakfast."; "Tariq built our bookshelves." / "Our bookshelves were built by Tariq."; "The
team has 8 people." / "There are eight people on the team."). The parse reads such pairs
apart as often as together (a passive subject is the object of the active clause), so
:func:`same_content` compares what the two are made of instead:

    content(s) = words(s) − function words

``words`` are the statement's canonical lemmas (:attr:`cogmem.claims.Statement.words`:
numbers as digits, clock times as ``HH:MM``, US spelling). The function words are only
those that say nothing in a claim (:data:`cogmem.claims.FUNCTION_WORDS`: articles,
pronouns, prepositions of place and time, be / have / do), what a cleft adds ("what",
"who"), "and", "so", "because", "around", the words by which an agent's note says who said
it ("the user", "mentioned", "according to") and chat's framing ("FYI", "PSA"). A general
stop list is too wide here:
spaCy's drops "top" / "bottom", "before" / "after", "first" / "last", "call" / "see", and
"The key is in the top drawer." would restate "... the bottom drawer.". A day of the week
is one word however written ("Tuesdays", "Tues"), and words that differ only by
abbreviations (:func:`cogmem.shortforms.only_abbreviated`: "appt" / "appointment"), by
WordNet's first-sense synonyms ("start" / "begin") or by misspellings
(:func:`only_reworded`: "acountant" / "accountant") are one.

Two statements with one content set, neither empty, say the same unless the newer says it
changes something (:attr:`~cogmem.claims.Statement.revises`), one is a state where the
other is a past event ("I was a teacher" / "I am a teacher"; a text the parse read no
claim in is not compared so), or the names they share come in another order ("Ana called
Bo." / "Bo called Ana."; the passive's "by" excepted). A value changed, another person,
another relative ("aunt" / "great-aunt") or another thing ("upstairs" / "downstairs") is a
content word of one text only.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from itertools import pairwise
from typing import Any

from .canonical import weekday
from .claims import FUNCTION_WORDS, Statement
from .shortforms import only_abbreviated
from .synonyms import same_sense
from .typos import speller

__all__ = [
    "content",
    "only_reworded",
    "other_ways",
    "retyped",
    "same_content",
    "says_less",
]

# Said of the speaker in an agent's note ("The user is allergic to cats.", "According to the
# user, ...", "The user mentioned they ..."), chat's framing ("FYI", "PSA"), and a possessive.
_FRAMING = frozenset(
    {
        "user", "'s", "say", "mention", "tell", "accord", "note", "fyi", "btw", "psa",
        "headsup", "reminder", "anyway",
    }
)  # fmt: skip
_WORD = re.compile(r"\w")


# Besides the claims' function words: what a cleft or a relative clause adds ("What I'm
# allergic to is penicillin.", "It's Wiremu who picks up the kids."), and the words that only
# join clauses or round a figure ("I can't eat gluten, I'm celiac." / "... because I am
# celiac."; "around 10am").
_JOINING = frozenset({"what", "who", "whom", "whose", "which", "and", "so", "because", "around"})
_STOP = FUNCTION_WORDS | _JOINING | _FRAMING


def content(statement: Statement) -> frozenset[str]:
    """The canonical lemmas of ``statement`` that carry meaning (see the module docstring),
    a day of the week in one form ("Tuesdays", "Tues" -> "tuesday")."""
    return _content_of(statement.words)


@lru_cache(maxsize=65_536)
def _content_of(words: frozenset[str]) -> frozenset[str]:
    """:func:`content` of a statement's words (kept: a search relates each of its best
    candidates with several others)."""
    return frozenset(weekday(w) for w in words if w not in _STOP and _WORD.search(w))


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
    if not _restatable(old, new):
        return False
    mine, theirs = content(old), content(new)
    if not mine or not (
        mine == theirs
        or only_abbreviated(mine, theirs)
        or only_reworded(mine - theirs, theirs - mine, _names(old.text, new.text))
    ):
        return False
    return _same_roles(old, new)


def says_less(old: Statement, new: Statement) -> bool:
    """Whether ``new`` restates part of ``old``: every content word of ``new`` is one of
    ``old``'s, and what only ``old`` says names no subject of its claims ("I'm learning to play
    the ukulele." / "I've been learning the ukulele."; "The community centre hosts my pottery
    class." / "My pottery class is at the community center."). Merging such a ``new`` into
    ``old`` loses nothing it says. Not when ``new`` says it changes something or one is a
    state where the other is a past event (as :func:`same_content`): "I used to live in
    Paris." / "I live in Paris.". A word of a subject dropped leaves another subject: "Ana's
    sister lives in Oslo." / "Ana lives in Oslo.".

    >>> from cogmem.claims import Claim, Statement
    >>> def read(text, subject, *words):
    ...     claim = Claim(subject, "live", tuple(w for w in words if w not in subject.split()))
    ...     return Statement(text, (claim,), words=frozenset(words))
    >>> sister = read("Ana's sister lives in Oslo with Bo.", "ana sister", "ana", "sister",
    ...               "live", "oslo", "bo")
    >>> says_less(sister, read("Ana's sister lives in Oslo.", "ana sister", "ana", "sister",
    ...                        "live", "oslo"))
    True
    >>> says_less(sister, read("Ana lives in Oslo.", "ana", "ana", "live", "oslo"))
    False
    """
    if not _restatable(old, new):
        return False
    mine, theirs = content(old), content(new)
    if not theirs or not theirs < mine:
        return False
    subjects = {w for c in old.claims for w in c.subject.split()}
    return not (mine - theirs) & subjects and _same_roles(old, new)


def _restatable(old: Statement, new: Statement) -> bool:
    """Whether ``new`` may restate ``old`` at all: it says it changes nothing, and neither is
    a state where the other is a past event ("I was a teacher" / "I am a teacher")."""
    return not new.revises and not (old.claims and new.claims and _tenses(old) != _tenses(new))


def only_reworded(
    first: AbstractSet[str], second: AbstractSet[str], names: AbstractSet[str] = frozenset()
) -> bool:
    """Whether two sets of words (what each text has that the other has not) pair off as
    misspellings: each pair one edit apart (a letter added, dropped, changed, or two swapped:
    "acountant" / "accountant", "wfie" / "wife"), one of them a word the dictionary does not
    know at all and the other one it knows (seen at least ``_KNOWN`` times in its corpus).
    Two known words one letter apart ("sister" / "sitter") are two words, and so are a rare
    one ("Petersen", seen 50 times) and any of ``names`` ("Hana" / "Dana": two people); a
    name said to be spelled anew is a change (:func:`cogmem.shortforms.respelled`). A pair
    may also be WordNet's first-sense synonyms ("start" / "begin").

    The dictionary is ``pyspellchecker``'s English word frequencies (about 160,000 words,
    0.1 s to load on first use).
    """
    return _pair_off(first, second, lambda a, b: _one_word(a, b, names))


def retyped(old: Statement, new: Statement) -> bool:
    """Whether the content words of two statements differ only by misspellings
    (:func:`only_reworded`, no synonyms): "My sister lives in Manchester." / "my sistr lives
    in manchster". Typos take a text far from itself in the embedder's space (cosine 0.58
    here), so such a pair is not held to the closeness of other restatements."""
    mine, theirs = content(old), content(new)
    names = _names(old.text, new.text)
    return _pair_off(mine - theirs, theirs - mine, lambda a, b: _misspelling(a, b, names))


def _pair_off(
    first: AbstractSet[str], second: AbstractSet[str], match: Callable[[str, str], bool]
) -> bool:
    """Whether the words of ``first`` and ``second`` pair off one to one, each pair a
    ``match`` (taken in sorted order: the same answer in every process)."""
    if not first or len(first) != len(second) or len(first) > _MOST_PAIRED:
        return False
    left = sorted(second)
    for word in sorted(first):
        found = next((w for w in left if match(word, w)), None)
        if found is None:
            return False
        left.remove(found)
    return True


def _names(*texts: str) -> frozenset[str]:
    """The words written with a capital in ``texts``, lower-cased, but the names of days and
    months: "Hana" is no misspelling of "Dana", "wendesday" may be one of "Wednesday"."""
    found = {m.group(0).lower() for text in texts for m in _CAPITALISED.finditer(text)}
    return frozenset(found - _CALENDAR)


_CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
_CALENDAR = frozenset(
    name.lower() for name in (*calendar.day_name, *calendar.month_name, *calendar.day_abbr) if name
)


def _one_word(a: str, b: str, names: AbstractSet[str] = frozenset()) -> bool:
    """Whether ``a`` and ``b`` are one word: WordNet's first sense of each is one
    (:func:`cogmem.synonyms.same_sense`: "start" / "begin", "fall" / "autumn"), or one is the
    other misspelled (:func:`_misspelling`)."""
    if a in names or b in names:
        return _retyped_name(a, b, names)
    return same_sense(a, b) or _misspelled_pair(a, b)


def _misspelling(a: str, b: str, names: AbstractSet[str]) -> bool:
    """Whether one of ``a`` and ``b`` is the other misspelled: a word (:func:`_misspelled_pair`)
    or a name typed in lower case (:func:`_retyped_name`)."""
    if a in names or b in names:
        return _retyped_name(a, b, names)
    return _misspelled_pair(a, b)


def _retyped_name(a: str, b: str, names: AbstractSet[str]) -> bool:
    """Whether one of ``a`` and ``b`` is a name written with a capital and the other that
    name typed in lower case with one edit ("Manchester" / "manchster", "Westfield" /
    "westfeild"), a word the dictionary never saw. Two names are two people ("Hana" /
    "Dana"), and a word the dictionary knows is no typo ("Rose" / "rise")."""
    if (a in names) == (b in names):
        return False
    name, typo = (a, b) if a in names else (b, a)
    if len(typo) < _SHORTEST_NAME or not typo.isalpha() or _dictionary()[typo] > 0:
        return False
    return name in speller().edit_distance_1(typo)


def _misspelled_pair(a: str, b: str) -> bool:
    """Whether one of ``a`` and ``b`` is the other misspelled (see :func:`only_reworded`)."""
    if min(len(a), len(b)) < _SHORTEST_TYPO or abs(len(a) - len(b)) > 1:
        return False  # one edit changes the length by one at most
    if not (a.isalpha() and b.isalpha()):
        return False
    words = _dictionary()
    known_a, known_b = words[a] >= _KNOWN, words[b] >= _KNOWN
    if known_a == known_b or min(words[a], words[b]) > 0:
        return False  # both words, or neither
    typo, word = (b, a) if known_a else (a, b)
    return word in speller().edit_distance_1(typo)


def _dictionary() -> Any:
    return speller().word_frequency


# At most this many words of each text are paired off (a restatement rewords a few; two long
# texts that differ in many words are not compared word by word, at any cost).
_MOST_PAIRED = 3
# A misspelling is read in words of at least this many letters ("wfie" / "wife"), against a
# word seen at least this often in the dictionary's corpus ("petersen" is seen 50 times).
_SHORTEST_TYPO = 4
# A name retyped in lower case is read as misspelled from this many letters on ("manchster").
_SHORTEST_NAME = 5
_KNOWN = 100


def _tenses(statement: Statement) -> frozenset[bool]:
    """Whether its claims are states, past events or both ("I was a teacher" / "I am a
    teacher" have one content word)."""
    return frozenset(c.state for c in statement.claims)


def _same_roles(old: Statement, new: Statement) -> bool:
    """Whether the words both statements hold play the same parts in each: names in one order
    (:func:`_names_in_order`), one direction ("the shuttle to the hotel" / "the shuttle from
    the hotel"), and no subject of one the object of the other ("My mom emails me." / "I
    email my mom.")."""
    return (
        _names_in_order(old, new)
        and not _other_ways(old, new)
        and not _turned_round(old, new)
        and not _turned_round(new, old)
    )


def other_sides(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether a word of both ``a`` and ``b`` (words in order) stands on one side of a
    comparison in one and on the other side in the other ("tea over coffee" / "coffee over
    tea"; "rather take the ferry than fly" / "rather fly than take the ferry")."""
    sides_a, sides_b = _sides(a), _sides(b)
    if not (sides_a and sides_b):
        return False
    return any(sides_a[w] != sides_b[w] for w in sides_a.keys() & sides_b.keys())


def _sides(words: Sequence[str]) -> dict[str, int]:
    """For a text that compares (:data:`_COMPARING`), each other word with the number of
    comparing words before it; empty for one that does not."""
    if not _COMPARING.intersection(words):
        return {}
    sides: dict[str, int] = {}
    before = 0
    for word in words:
        if word in _COMPARING:
            before += 1
        else:
            sides.setdefault(word, before)
    return sides


# Words that set one thing against another: what stands before them is preferred, larger, ...
_COMPARING = frozenset({"than", "over", "instead", "versus", "vs"})


def _other_ways(old: Statement, new: Statement) -> bool:
    """Whether a word both give follows "to" in one and "from" (or another direction) in
    the other."""
    return other_ways(old.gist, new.gist, _DIRECTIONS)


def other_ways(a: Sequence[str], b: Sequence[str], prepositions: AbstractSet[str]) -> bool:
    """Whether a word of both ``a`` and ``b`` (words in order) follows a different one of
    ``prepositions`` in each ("flight to rome" / "flight back from rome")."""
    ways_a, ways_b = _ways(a, prepositions), _ways(b, prepositions)
    return any(ways_a[w] != ways_b[w] for w in ways_a.keys() & ways_b.keys())


def _ways(words: Sequence[str], prepositions: AbstractSet[str]) -> dict[str, str]:
    """The words that follow one of ``prepositions``, with it ("rome": "to")."""
    return {w: p for p, w in pairwise(words) if p in prepositions}


_DIRECTIONS = frozenset({"to", "from", "into", "toward", "towards"})


def _turned_round(old: Statement, new: Statement) -> bool:
    """Whether what a claim of ``old`` is about is what a claim of ``new`` with the same verb
    says of its own subject (not in the passive, whose "by" turns it round on purpose)."""
    return any(
        a.predicate == b.predicate
        and "by" not in a.value
        and "by" not in b.value
        and bool(a.thing)
        and a.thing <= set(b.value)
        and not a.thing & set(b.subject.split())
        for a in old.claims
        for b in new.claims
    )


def _names_in_order(old: Statement, new: Statement) -> bool:
    """Whether the names both statements hold (their anchors that are words) come in one order
    in their texts, or a passive's "by" may have turned them round."""
    if re.search(r"\bby\b", f"{old.text} {new.text}", re.IGNORECASE):
        return True
    shared = [a for a in old.anchors & new.anchors if a.isalpha()]
    first, second = _order(shared, old.text), _order(shared, new.text)
    written = set(first) & set(second)  # "Mon" is read as "monday" but not written so
    return [n for n in first if n in written] == [n for n in second if n in written]


def _order(names: list[str], text: str) -> list[str]:
    """``names`` in the order they first occur in ``text`` (case ignored)."""
    lower = text.lower()
    found = {n: m.start() for n in names if (m := re.search(rf"\b{re.escape(n)}\b", lower))}
    return sorted(found, key=found.__getitem__)
