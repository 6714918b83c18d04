"""Who a statement is about: the people it names, and relatives as people of their own.

Used by :mod:`cogmem.versions`: statements that name no person in common are never versions
of one fact, whatever their clauses say ("Chen's phone number" / "Dana's phone number"), and
"my sister" / "my brother" are two people however alike the sentences are.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .claims import PRONOUNS, Claim, Statement

__all__ = [
    "RELATIVES",
    "is_pronoun",
    "named_in",
    "people_of",
    "relatives_of",
    "share_a_person",
]


def is_pronoun(claim: Claim) -> bool:
    """Whether a claim's subject is a pronoun ("it", "she"): who or what is not known."""
    return claim.subject in PRONOUNS


def people_of(statement: Statement, beside: Statement | None = None) -> set[str]:
    """Who a statement is about or whose things it speaks of: its named subjects and owners;
    not one the text ``beside`` it writes in lower case, a thing there ("Passport now lives
    in the fire safe." beside "I keep my passport in the drawer.": a sentence's first word
    the parser took for a name)."""
    found: set[str] = set()
    for claim in statement.claims:
        if claim.person and not is_pronoun(claim):
            found.add(claim.subject)
        if claim.owner:
            found.add(claim.owner.split()[0])
            found |= _apposed(claim, statement)
    if beside is None:
        return found
    return {p for p in found if p == "user" or not _written_in_lower_case(p, beside.text)}


def _apposed(claim: Claim, statement: Statement) -> set[str]:
    """The name in apposition to what someone owns, as a person ("Marisol" of "my
    sister-in-law Marisol"): the subject's last word, when it is a name of the text."""
    last = claim.subject.split()[-1]
    return {last} if len(claim.thing) > 1 and last in statement.anchors else set()


def named_in(statement: Statement, beside: Statement | None = None) -> set[str]:
    """:func:`people_of` that are the user or written with a capital ("Nadia", not "kid",
    nor a relative that starts a sentence: "Parents' anniversary: 8 July."), and not written
    in lower case in the text ``beside`` it ("Alarm goes off at 06:30." beside "My alarm is
    set for 6:30.": a sentence's first word the parser took for a name)."""
    return {
        p
        for p in people_of(statement, beside)
        if p == "user" or _written_as_name(p, statement.text)
    }


def _written_in_lower_case(person: str, text: str) -> bool:
    """Whether every word of ``person`` is written in lower case in ``text``."""
    return all(_as_written(w).search(text) for w in person.split())


def _written_as_name(person: str, text: str) -> bool:
    """Whether a word of ``person`` other than a relative is written with a capital in
    ``text`` ("grandmother june" of "Grandma June")."""
    return any(_capitalised(w).search(text) for w in person.split() if w not in RELATIVES)


@lru_cache(maxsize=8192)
def _as_written(word: str) -> re.Pattern[str]:
    """``word`` as a word of its own, not part of another (kept: a name is looked for in
    every text it is compared with)."""
    return re.compile(rf"(?<![\w'’-]){re.escape(word)}(?![\w'’-])")


@lru_cache(maxsize=8192)
def _capitalised(word: str) -> re.Pattern[str]:
    """``word`` written with a capital, at the start of a word."""
    return re.compile(rf"\b{re.escape(word[:1].upper() + word[1:])}")


#: Words for relatives: a closed class, each a person of its own.
RELATIVES = frozenset(
    {
        "mother", "father", "mom", "mum", "dad", "parent", "sister", "brother", "sibling",
        "son", "daughter", "child", "kid", "aunt", "uncle", "cousin", "niece", "nephew",
        "grandmother", "grandfather", "grandma", "grandpa", "granny", "grandparent",
        "grandson", "granddaughter", "grandchild", "wife", "husband", "spouse", "partner",
        "boyfriend", "girlfriend", "fiance", "fiancee", "godmother", "godfather", "stepmother",
        "stepfather", "stepson", "stepdaughter", "motherinlaw", "fatherinlaw", "sisterinlaw",
        "brotherinlaw", "soninlaw", "daughterinlaw", "twin",
    }
)  # fmt: skip


def relatives_of(claim: Claim) -> frozenset[str]:
    """The relatives a claim's subject names ("user wife cousin" -> {"wife", "cousin"})."""
    return frozenset(w for w in claim.subject.split() if w in RELATIVES)


def share_a_person(a: set[str], b: set[str]) -> bool:
    """Whether two sets of names share a person ("ana silva" and "ana" are one)."""
    words_a = {w for name in a for w in name.split()}
    return any(w in words_a for name in b for w in name.split())
