"""What the names, numbers and version words of two statements say about them.

The anchors of a statement (:attr:`cogmem.claims.Statement.anchors`) are its names, numbers
and negations, canonical. Where the reading of two statements' clauses relates nothing
(:func:`cogmem.versions.relate`), these decide:

* **anchored** — the same anchors, some besides the people the two are about, and embeddings
  at cosine ≥ ``SAME_ANCHORED`` = 0.7 say one thing built two ways ("Yoga is at 6pm on
  Tuesdays." / "On Tuesdays I do yoga at 18:00."), unless the two name other relatives or say
  their one subject does two things ("Walter runs 5 km ..." / "Walter swims 5 km ...");
* **other anchors** — a name, number or negation one has and the other has not;
* **namesakes** — one name, two people, as the relatives before it say;
* **old and new** — "the old laptop" / "the new laptop": two things when they say the same of
  each.

Nothing here reads the clock or a store.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from .agreement import one_clock
from .claims import FUNCTION_WORDS, Statement
from .content_words import content
from .people import RELATIVES, people_of
from .shortforms import only_abbreviated
from .slots import opposed, two_doings, when_word

__all__ = [
    "SAME_ANCHORED",
    "anchored",
    "common_ground",
    "kin",
    "namesakes",
    "old_and_new",
    "one_time",
    "other_anchors",
    "things",
    "timed",
]

#: Two texts the reading leaves unrelated, with the same names, numbers and negations, say
#: the same at or above this cosine (the gate at which dedup compares words).
SAME_ANCHORED = 0.7


def namesakes(old: Statement, new: Statement) -> bool:
    """Whether a name both texts give is two people's, as the relatives right before it say
    ("my brother Tomás's birthday" / "my cousin Tomás's birthday"; not "my uncle Teodor" /
    "Teodor")."""

    def kin(gist: Sequence[str]) -> dict[str, str]:
        return {name: before for before, name in pairwise(gist) if before in RELATIVES}

    theirs, ours = kin(old.gist), kin(new.gist)
    return any(
        name in ours and ours[name] != relative
        for name, relative in theirs.items()
        if name in old.anchors & new.anchors
    )


def other_anchors(old: Statement, new: Statement, *, clocks: bool = True) -> bool:
    """Whether one statement has a name, number or negation the other has not (a word
    tagged a name in one text only, "MARIA" shouted, is in both; a name and its
    abbreviation, "LA" / "Los Angeles", are one; with ``clocks``, a bare time and a time
    that says its part of the day, "3:15" / "15:15", are one: :func:`one_clock`)."""
    apart = {a for a in old.anchors ^ new.anchors if a not in old.words or a not in new.words}
    if clocks:
        ours, theirs = apart & old.anchors, apart & new.anchors
        apart -= {a for a in ours for b in theirs if one_clock(a, b)}
        apart -= {b for b in theirs for a in ours if one_clock(a, b)}
    if not apart or _spaced(old.anchors, new.anchors, apart):
        return False
    return not only_abbreviated(apart & old.anchors, apart & new.anchors)


def _spaced(old: frozenset[str], new: frozenset[str], apart: set[str]) -> bool:
    """Whether the anchors the two do not share are one code written with and without a
    space ("UA 882" / "ua882"): each one-piece anchor is exactly its parts on the other side."""
    for whole, parts in ((old, new), (new, old)):
        joined = [a for a in apart & whole if len(a) > 1]
        pieces = apart & parts
        if (
            joined
            and pieces
            and all(sum(len(p) for p in pieces if p in w) == len(w) for w in joined)
        ):
            return all(any(p in w for w in joined) for p in pieces)
    return False


def old_and_new(old: Statement, new: Statement) -> bool:
    """Whether one text says "old" (or "former", "previous") where the other says "new" (or
    "current", "latest") and not "old": the words that mark a version of one slot when the
    values differ ("my old number" / "my new number") name two things when they do not."""
    return bool(
        (old.words & _OLDER and new.words & _NEWER and not new.words & _OLDER)
        or (old.words & _NEWER and new.words & _OLDER and not old.words & _OLDER)
    )


def timed(statement: Statement) -> bool:
    """Whether a text names a clock time ("13:45") or a calendar date ("2026.03.15",
    "09.02"): with the same names and numbers, two texts close in meaning that give one
    subject one time say one thing however their verbs differ ("The kids' bedtime is 8 pm." /
    "The kids go to bed at 20:00."; "Kofi was born on 12.11.2019." / "Kofi's date of birth is
    November 12, 2019.")."""
    return any(_CLOCK.fullmatch(a) or _DAY.fullmatch(a) for a in statement.anchors)


def anchored(old: Statement, new: Statement, cosine: float | None) -> bool:
    """Whether two texts the reading could not relate have the same names, numbers and
    negations, some besides the people they are about (a name of the subject pins no value:
    "Hana drinks juice" / "Hana drinks kombucha"), embeddings at cosine ≥ ``SAME_ANCHORED``,
    and no claims that say their one subject does two things (:func:`cogmem.slots.two_doings`).
    """
    if cosine is None or cosine < SAME_ANCHORED or other_anchors(old, new):
        return False
    if kin(old) != kin(new):  # "User's aunt ..." / "My great-aunt ...": two people
        return False
    if any(two_doings(a, b) for a in old.claims for b in new.claims) and not one_time(old, new):
        return False  # "Walter runs 5 km ..." / "Walter swims 5 km ...": two facts
    people = {w for p in people_of(old) | people_of(new) for w in p.split()}
    # anchors both texts read as anchors: a word tagged a name in one text only ("Preferred
    # seat: aisle" / "window (aisle people keep getting bumped)") confirms nothing
    return bool((old.anchors & new.anchors) - people)


def one_time(old: Statement, new: Statement) -> bool:
    """Whether two statements give one thing one date or clock time by verbs the reading does
    not know for one ("The fridge warranty expires 2026.12.31." / "Fridge warranty runs out
    on 2026.12.31."; "The kids' school bus comes at 07:45." / "School bus picks the kids up
    at 07:45."): both timed, the things one speaks of all among the other's (:func:`things`),
    and no two verbs opposites ("The pool opens at 06:00." / "The pool closes at 06:00.")."""
    if not (timed(old) and timed(new)):
        return False
    ours, theirs = things(old), things(new)
    if not (ours and theirs and (ours <= theirs or theirs <= ours)):
        return False
    return not any(opposed(a, b) for a in old.claims for b in new.claims)


def things(statement: Statement) -> frozenset[str]:
    """The things a statement speaks of: the content words of its claims' subjects (not the
    speaker) and the common nouns of their values, besides numbers and time words."""
    said = {
        w
        for c in statement.claims
        for w in (*c.subject.split(), *c.nouns)
        if w not in _SPEAKERS and w not in FUNCTION_WORDS and not when_word(w)
    }
    return frozenset(said)


def common_ground(old: Statement, new: Statement) -> bool:
    """Whether the two share more than who they are about: a content word besides the people
    they speak of and relatives ("gate", "room", "kg"; a thing's name counts: "the Lantern
    Café" / "the Lantern Bistro"), or a number each ("the 38" / "the 41 now")."""
    people = {w for p in people_of(old) | people_of(new) for w in p.split()}
    if (content(old) & content(new)) - people - kin(old) - kin(new):
        return True
    return any(map(_numeric, old.anchors)) and any(map(_numeric, new.anchors))


def _numeric(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def kin(statement: Statement) -> frozenset[str]:
    """The words of ``statement`` that name a relative, compounds too ("greataunt",
    "stepbrother")."""
    return frozenset(w for w in statement.words if _KIN.fullmatch(w))


_OLDER = frozenset({"old", "former", "previous", "ex"})
_SPEAKERS = frozenset({"user", "i", "we"})
_NEWER = frozenset({"new", "current", "latest", "newest"})

_CLOCK = re.compile(r"\d{1,2}:\d\d")
# A calendar date as :func:`cogmem.canonical.calendar_dates` writes it: [YYYY.]MM.DD.
_DAY = re.compile(r"(?:\d{4}\.)?(?:0[1-9]|1[0-2])\.(?:0[1-9]|[12]\d|3[01])")

# A relative, with the prefixes that make another one ("great-aunt", "half-brother").
_KIN = re.compile(rf"(?:great|grand|step|half|god)*(?:{'|'.join(sorted(RELATIVES))})")
