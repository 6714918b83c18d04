"""What two statements share, and what tells them apart: the small readings of a pair that
:func:`cogmem.versions.relate` decides by (whether the newer says it changes something,
whether the two speak of one subject, of other attributes of it, or side by side).

Each is a pure function of two :class:`~cogmem.claims.Statement` objects, the older first.
"""

from __future__ import annotations

import re

import Stemmer
from spacy.lang.en.lex_attrs import like_num
from spacy.lang.en.stop_words import STOP_WORDS

from .claims import CHANGE_VERBS, Claim, Statement
from .lines import marks_more_than_negation
from .people import RELATIVES, is_pronoun, relatives_of
from .slots import bare, one_verb, owns, same_subject, subject_head, when_word

__all__ = [
    "change_verb",
    "changes_elsewhere",
    "facts",
    "informative",
    "marks_a_change",
    "narrows",
    "negates_what_was_said",
    "one_property",
    "other_attributes",
    "renames",
    "said_of_it",
    "share_a_subject",
    "shared_values",
    "side_by_side",
    "told_apart",
    "two_relatives",
]

_WORD = re.compile(r"\w+")
# A negation and the few words it names ("not Gatwick", "don't call — ...": "call").
_NEGATED = re.compile(
    r"\b(?:not|no|never|isn't|aren't|wasn't|don't|doesn't)\b"
    r"(?P<what>(?:\s+(?:(?:dr|mr|mrs|ms|st)\.|[\w'’-]+)){1,3})",  # "not Dr. Harlow"
    re.IGNORECASE,
)
_STEMMER = Stemmer.Stemmer("english")
_STOP_WORDS = frozenset(w for w in STOP_WORDS if not like_num(w)) | {"user"}  # type: ignore[no-untyped-call]


def marks_a_change(old: Statement, new: Statement) -> bool:
    """Whether ``new`` says it changes something ``old`` says: a mark that says more than a
    negation ("actually", "now", "switched": :func:`cogmem.lines.marks_more_than_negation`),
    or a negation of a word of ``old`` ("It's Stansted, not Gatwick." after "... from
    Gatwick."; "I'm not vegetarian."). A negation of what ``old`` never mentions contrasts
    within ``new`` itself: "Saffron only drinks from the fountain, not her bowl." changes
    nothing of "Saffron is a ginger tabby."."""
    if not new.marked or marks_more_than_negation(new.text):
        return new.marked
    return negates_what_was_said(old, new)


def negates_what_was_said(old: Statement, new: Statement) -> bool:
    """Whether ``new`` negates a word ``old`` says: it names what it replaces ("It's
    Stansted, not Gatwick." after "I'm flying out of Gatwick.")."""
    if not new.marked:
        return False
    said = {w for w in (*old.words, *_WORD.findall(old.text.lower())) if w not in _STOP_WORDS}
    return bool(_negated(new) & set(_STEMMER.stemWords(sorted(said))))


def renames(old: Statement, new: Statement, people: set[str]) -> bool:
    """Whether ``new`` says it changes something and negates a name ``old`` gives, where
    ``old`` speaks of no one but the user (``people``, the people it names): "Neighbor is
    actually Johan Pedersen, not Jon Petersen" after "Our neighbor's name is Jon Petersen."
    corrects the name, whoever the parser takes the newer to be about. Beside an older text
    about someone named, or beside another relative, a negated name is that person's value,
    said of another: "Tom works at KPMG, not Deloitte." after "Priya works at Deloitte.";
    "Actually my aunt lives in Oslo, not Bergen." after "My uncle lives in Bergen."."""
    if not new.marked or not people <= {"user"}:
        return False
    if any(two_relatives(a, b) for a in old.claims for b in new.claims):
        return False  # "my uncle" / "my aunt": two people, "Bergen" the uncle's value
    names = {w for w in old.anchors if w.isalpha()}
    return bool(_negated(new) & set(_STEMMER.stemWords(sorted(names))))


def _negated(statement: Statement) -> set[str]:
    """The stems of the words a statement negates ("not Gatwick": "gatwick")."""
    negated = {
        w
        for m in _NEGATED.finditer(statement.text)
        for w in _WORD.findall(m["what"].lower())
        if w not in _STOP_WORDS
    }
    return set(_STEMMER.stemWords(sorted(negated)))


def narrows(old: Statement, new: Statement) -> bool:
    """Whether ``new`` names a subject of ``old`` by more words, one of which ``old`` never
    says: "My skip-level manager is ..." after "My manager is ...", "the upstairs
    thermostat" after "the thermostat". The narrower may be another person or thing, and a
    merge, which keeps the older text, would drop the word that says which (a narrower
    older, "the upstairs thermostat" then "the thermostat", loses nothing)."""
    return any(
        subject_head(a) == subject_head(b) and a.thing < b.thing and bool(b.thing - old.words)
        for a in old.claims
        for b in new.claims
    )


def share_a_subject(old: Statement, new: Statement, *, heads: bool = False) -> bool:
    """Whether the two may speak of one subject: a word in common among their clauses'
    subjects and owners ("user" of "I" and of "my sister"), or a pronoun subject (who or what
    it is, is not known). ``heads``: of a subject that is not a person, only its head counts
    (:func:`cogmem.slots.subject_head`): "The cabin key ..." speaks of the cabin, but it is a
    key; "The car park ticket machine ..." is a machine, whatever "My car ..." says."""
    if any(is_pronoun(c) for c in (*old.claims, *new.claims)):
        return True
    theirs = {w for c in old.claims for w in _subject_words(c, heads=heads)}
    return any(w in theirs for c in new.claims for w in _subject_words(c, heads=heads))


def _subject_words(claim: Claim, *, heads: bool) -> set[str]:
    """A claim's owner's words and its subject's (only its head, with ``heads``, unless the
    subject is a person: every word of a name is the person)."""
    subject = [subject_head(claim)] if heads and not claim.person else claim.subject.split()
    return {w for w in (*claim.owner.split(), *subject) if w}


def told_apart(old: Statement, new: Statement) -> bool:
    """Whether two facts the reading left ``unknown`` are still not versions of one: both
    read, every claim a state, the newer says nothing of a change (no revision, no change
    verb), and either their subjects share no head (nor owner) or no two of their claims
    have one verb or share a word of their values. "Ananya's favourite flowers are
    marigolds." says nothing of where Ananya is moving, however close the two embeddings
    are, and "Our caravan in Whitby is rented out at £95 a night." nothing of "The flat in
    Leeds ..." for the pounds both ask; "I'm down to 9 vacation days." may well change "I
    have 14 vacation days left.".

    Nor is a one-off past event a version of a newer text that does not say it corrects
    something: what happened stays so ("Ananya and I met at a pottery class in 2019." is
    not outdated by "Ananya doesn't drink, so I should get her mocktails.")."""
    if old.readable and events(old) and not (marks_a_change(old, new) or new.revises):
        return True
    if not (old.readable and new.readable and facts(old) and facts(new)):
        return False
    if new.revises or change_verb(new):
        return False
    if not share_a_subject(old, new, heads=True):
        return True  # "The flat in Leeds ..." / "Our caravan in Whitby ...": two things
    return not any(one_verb(a, b) or a.content & b.content for a in old.claims for b in new.claims)


def change_verb(statement: Statement) -> bool:
    """Whether a claim of a statement has a change verb ("moved", "switched"), not said as a
    habit ("Jonah takes his coffee black.", "The lease renews every August.")."""
    return any(c.predicate.split()[0] in CHANGE_VERBS and not c.habitual for c in statement.claims)


def side_by_side(old: Statement, new: Statement, *, changing: bool) -> bool:
    """Whether two facts the reading holds to be about different subjects give one attribute
    of each, side by side, so that neither outdates the other: two relatives ("My dad lives
    in Cardiff." / "My mum lives in Swansea."); or, while the newer says no change, one thing
    of two owners or places ("My blood type ..." / "My husband's blood type ...", "Home Wi-Fi
    password ..." / "Office guest Wi-Fi password ..."). Subjects with no word in common
    ("my doctor" / "my GP") may be one thing named twice, and a name the parser found may be
    a misread word ("Piano moved to Thursdays."): neither is enough."""
    if not (facts(old) and facts(new)):
        return False
    pairs = [(a, b) for a in old.claims for b in new.claims]
    if any(two_relatives(a, b) for a, b in pairs):
        return True
    return not changing and any(
        a.predicate == b.predicate
        and (relatives_of(a) != relatives_of(b) or (a.thing - {"user"}) & (b.thing - {"user"}))
        for a, b in pairs
    )


def two_relatives(a: Claim, b: Claim) -> bool:
    """Whether the two claims' subjects name relatives, and other ones ("my sister" / "my
    brother")."""
    x, y = relatives_of(a), relatives_of(b)
    return bool(x and y and x != y)


def facts(statement: Statement) -> bool:
    """Whether every claim of a statement says how things are (no one-off event)."""
    return all(c.state for c in statement.claims)


def events(statement: Statement) -> bool:
    """Whether a statement tells of one-off past events only: claims, none a state, and none
    a past state ("My SAT score was 1340." may be retaken)."""
    return bool(statement.claims) and not any(
        c.state or c.predicate == "be" for c in statement.claims
    )


def one_property(old: Statement, new: Statement) -> bool:
    """Whether a claim of each gives one property of something (not a person) by one verb:
    "Kwame's favourite colour is yellow." / "... is teal." hold one value, whatever the
    reading makes of the two values' kinds (two attributes of a person, "Ana is vegetarian."
    / "Ana is a nurse.", are not so)."""
    return any(
        a.predicate == b.predicate and not (a.person or b.person) and same_subject(a, b)
        for a in old.claims
        for b in new.claims
    )


def shared_values(old: Statement, new: Statement, *, states: bool = True) -> bool:
    """Whether a state claimed by ``new`` holds a word of what a state claimed by ``old`` says
    (not a number or a time word): "I drink 2 litres of water a day." / "Upped it to 3
    litres of water." (one-off past events are never updated, whatever they share).
    ``states=False``: any claims, whatever the tense ("I used to be at Google." names what
    "I work at Google." says; "Granny used to be a seamstress." nothing "Granny is 94."
    says)."""
    said = {w for c in old.claims if c.state or not states for w in c.content if not when_word(w)}
    return any(
        w in said
        for c in new.claims
        if c.state or not states
        for w in c.content
        if not when_word(w)
    )


def changes_elsewhere(old: Statement, new: Statement) -> bool:
    """Whether ``new`` is a bare change to a value of another kind than every value the older
    says of that subject or of what it owns, one of them a number: "Chen switched; now
    Around." changes neither "Chen's phone number is 555-0110" nor "Chen switched; now 9:30",
    so it changes another of Chen's attributes. (Words and names are not told apart so: "a
    flat white" / "Starbucks".)"""
    held = [
        (a.complement_kind if a.complement else a.value_kind, b.value_kind)
        for b in new.claims
        if bare(b) and b.content and b.state
        for a in old.claims
        if a.content and a.state and (same_subject(a, b) or owns(b, a))
    ]
    return bool(held) and all(x != y and "number" in (x, y) for x, y in held)


def informative(statement: Statement) -> bool:
    """Whether every claim says something of its subject ("Chen switched" says nothing)."""
    return all(c.value or c.complement for c in statement.claims)


def other_attributes(old: Statement, new: Statement, *, strict: bool) -> bool:
    """Whether the two speak of one subject, and of different attributes of it ("Ana lives
    in Paris." / "Ana is vegetarian." / "Ana's birthday is May 3."; two things of one owner,
    "Heron's launch date ..." / "Heron's backend ...", :func:`_one_owners`): the claims were
    compared and none updates another. ``strict``: the newer says it changes something, so
    only the same subject counts ("Rina moved on to 555-0110" may well change "Rina's phone
    number")."""
    return any(
        same_subject(a, b) or (not strict and (owns(a, b) or owns(b, a) or _one_owners(a, b)))
        for a in old.claims
        for b in new.claims
    )


def _one_owners(a: Claim, b: Claim) -> bool:
    """Whether two claims speak of two things of one owner, each named by its own head
    ("Heron's launch target" / "Heron's backend"; "my sister" / "my favourite film"), or of a
    person and a relative of theirs ("Tobias" / "Tobias's kids", a person of their own:
    :func:`cogmem.slots.owns`). Two heads the reading takes for one thing ("my lawyer" / "my
    attorney", synonyms: :func:`cogmem.slots.same_slot`) never get this far: their claims
    were compared as one slot first."""
    if a.owner and a.owner == b.owner:
        return subject_head(a) != subject_head(b)
    return any(
        x.person and y.owner == x.subject and bool(y.thing & RELATIVES) for x, y in ((a, b), (b, a))
    )


def said_of_it(old: Statement, new: Statement) -> tuple[str, ...]:
    """What ``new`` gives anew, saying only "it is ...", of a value of ``old`` with numbers:
    "it's 9, sorry" after "Sven's party starts at 8.", "Wait, no, it's level 4." after "I
    parked on level 3, spot C12.". The pronoun stands for the older subject when the newer
    says nothing of another one (every subject of its claims is "it" or a word of the older
    text) and either repeats a number of the older value ("Did I say January 31? It's January
    15.") or says it changes something (:func:`marks_a_change`); the new value has numbers,
    and no two the same as the older's. The older may tell of an event: what the newer
    corrects is what was said of it ("I parked on level 3"). Each change as ``"old claim ->
    new claim"``."""
    if any(c.subject != "it" and not set(c.subject.split()) <= old.words for c in new.claims):
        return ()
    its = [
        b
        for b in new.claims
        if b.subject == "it" and b.predicate == "be" and not b.negated and b.state
        if _numbers(b.value)
    ]
    if not its:
        return ()
    changing = marks_a_change(old, new)
    changes = []
    for b in its:
        ours = _numbers(b.value)
        for a in old.claims:
            theirs = _numbers(a.value)
            if is_pronoun(a) or a.negated or not theirs or ours & theirs:
                continue
            if changing or theirs & (new.words - set(b.value)):  # said, or the old repeated
                changes.append(f"{a.describe()} -> {b.describe()}")
    return tuple(dict.fromkeys(changes))


def _numbers(words: tuple[str, ...] | frozenset[str]) -> frozenset[str]:
    """The words of ``words`` with a digit (numbers, dates and times, canonical)."""
    return frozenset(w for w in words if any(ch.isdigit() for ch in w))
