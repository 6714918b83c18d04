"""Whether two claims on one slot say the same of it, whatever the wording of the value:

* the same value words, or the same stemmed content ("climbing gym" / "climb gym");
* abbreviations ("12 years" / "12 yrs", :mod:`cogmem.shortforms`);
* a bare hour and a clock time ("at 9" / "at 09:00": a bare hour is either 9:00 or 21:00;
  "quarter past 3" / "3:15pm", :func:`one_clock`);
* words moved from the subject into the value ("the kids' school starts at 8:45" / "school
  starts at 8:45 for the kids");

and the same negation and tense, and no object that goes the other way ("from Paris to
Berlin" / "from Berlin to Paris").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import Stemmer

from .claims import TIME_WORDS, Claim
from .shortforms import only_abbreviated

__all__ = ["agree", "one_clock", "other_voice", "same_hours"]


def agree(old: Claim, new: Claim) -> bool:
    """Whether two claims on one slot say the same of it: the same value, negation and
    tense ("lives" and "is living"; not "lived", a past that may no longer hold)."""
    return (
        (
            frozenset(old.value) == frozenset(new.value)
            or (
                _worded(old)
                and _worded(new)  # pronouns alone ("she" / "they") differ as written
                and (
                    _said(old) == _said(new)
                    or only_abbreviated(old.content, new.content)  # "12 years" / "12 yrs"
                    or same_hours(sorted(old.content), sorted(new.content))  # "at 9" / "at 9am"
                )
            )
            or _moved(old, new)
            or _moved(new, old)
        )
        and old.negated == new.negated
        and old.state == new.state
        and (not old.roles or not new.roles or _roles_agree(old, new))
    )


def _worded(claim: Claim) -> bool:
    """Whether a claim's value has a word that carries meaning (not "he/him" alone)."""
    return any(ch.isalnum() for word in claim.content for ch in word)


def other_voice(active: Claim, passive: Claim) -> bool:
    """Whether two claims are one clause in the active and the passive voice ("A contractor
    is replacing our roof" / "Our roof is being replaced by a contractor"): one predicate and
    negation, the passive's agent ("by ...") names the active's subject, and the passive's
    subject is among what the active says of it."""
    return (
        active.predicate == passive.predicate
        and active.negated == passive.negated
        and "by" in passive.value
        and bool(active.thing)
        and active.thing <= passive.content
        and bool(passive.thing)
        and passive.thing <= active.content
    )


def other_agent(active: Claim, passive: Claim) -> bool:
    """Whether two claims say one doing to one thing, in the active and the passive voice, by
    two doers: "Leonie's bakery makes our sourdough." / "Our sourdough is made by Corinne's
    bakery.", "My grandfather gave me this ring." / "This ring was given to me by my
    grandmother.". The passive's subject is among what the active says of it, its "by"
    names someone or something (not a time: "done by Friday"), and the words it adds to
    the active's are not the active subject's (the speaker's "my" aside: "my brother fixed
    the fence" / "the fence was fixed by my brother" is one doer)."""
    if active.predicate != passive.predicate or active.negated != passive.negated:
        return False
    if "by" not in passive.value or not active.thing or not passive.thing:
        return False
    if not passive.thing <= active.content:
        return False
    agent = passive.content - passive.thing - active.content
    if all(w in TIME_WORDS or any(ch.isdigit() for ch in w) for w in agent):
        return False  # none, or a time ("delivered by noon")
    doer = set(active.subject.split()) - {"user"}
    return bool(agent - doer) and bool(doer - agent)  # one replaced, not one said more fully


def _moved(a: Claim, b: Claim) -> bool:
    """Whether ``b``'s value is ``a``'s and words of ``a``'s subject ("the kids' school
    starts at 8:45" / "school starts at 8:45 for the kids")."""
    extra = b.content - a.content
    words = set(a.subject.split())
    return bool(extra) and a.content <= b.content and extra <= words


def _roles_agree(old: Claim, new: Claim) -> bool:
    """Whether no object the two share goes the other way in one ("from Paris to Berlin" /
    "from Berlin to Paris" do not agree; "in Lyon" / "Lyon", "for 5:45" / "at 5:45" do)."""
    theirs = _objects(old.roles)
    return not any(
        {theirs[o], p} & _FROM and {theirs[o], p} & _TO
        for o, p in _objects(new.roles).items()
        if o in theirs
    )


_FROM = frozenset({"from", "off", "out"})
_TO = frozenset({"to", "into", "onto", "toward", "towards"})


def same_hours(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether two word sequences are one, an hour written bare in one and as a clock time in
    the other ("at 9" / "at 09:00", "at 7" / "at 19:00": a bare hour is either)."""
    return len(a) == len(b) and all(x == y or _one_hour(x, y) for x, y in zip(a, b))


def _one_hour(x: str, y: str) -> bool:
    # isdecimal, not isdigit: "²" is a digit int() cannot read
    bare, clock = (x, y) if x.isdecimal() else (y, x)
    if not bare.isdecimal() or not (1 <= int(bare) <= 12) or not clock.endswith(":00"):
        return one_clock(x, y)
    hour = clock[:-3]
    return hour.isdecimal() and int(hour) % 12 == int(bare) % 12


def one_clock(x: str, y: str) -> bool:
    """Whether two clock times may be one: a bare ``H:MM`` (no part of the day said:
    "quarter past 3", "6:30") and ``HH:MM`` twelve hours apart or not at all ("3:15" /
    "15:15", "6:30" / "06:30"; not "06:30" / "18:30", which say the part of the day)."""
    a, b = _CLOCK.fullmatch(x), _CLOCK.fullmatch(y)
    if a is None or b is None or a["m"] != b["m"] or x == y:
        return False
    if len(a["h"]) == 2 and len(b["h"]) == 2:
        return False  # both say the part of the day
    return int(a["h"]) % 12 == int(b["h"]) % 12


_CLOCK = re.compile(r"(?P<h>\d{1,2}):(?P<m>\d\d)")


def _objects(roles: frozenset[str]) -> dict[str, str]:
    """object -> its preposition."""
    pairs = (role.split(" ", 1) for role in roles)
    return {obj: prep for prep, obj in pairs}


_STEMMER = Stemmer.Stemmer("english")


def _said(claim: Claim) -> frozenset[str]:
    """What a claim's value says, whatever the inflection, punctuation and prepositions:
    its content words, stemmed, letters and digits only ("climbing gym" / "climb gym";
    "Nebula5G." / "Nebula5 G" read as one word when the complement spells it so)."""
    words = {w for w in (re.sub(r"\W", "", w) for w in claim.content) if w}
    spelled = {w for w in (re.sub(r"\W", "", w) for w in claim.complement.split()) if w}
    if spelled and spelled == words:  # the value is the complement: read as one string
        return frozenset({"".join(re.sub(r"\W", "", claim.complement))})
    return frozenset(_STEMMER.stemWords(sorted(words)))
