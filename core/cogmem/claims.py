"""A statement as the version logic reads it: its claims, and the word classes they use.

The data of :mod:`cogmem.statements` (which reads them from a dependency parse), kept apart from
the reading so that what compares claims (:mod:`cogmem.versions`, :mod:`cogmem.agreement`,
:mod:`cogmem.people`) needs none of the parser's machinery.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass

__all__ = [
    "BARE_CHANGES",
    "CHANGE_VERBS",
    "FUNCTION_WORDS",
    "PRONOUNS",
    "TIME_WORDS",
    "Claim",
    "Statement",
]

#: Words that name a time: months, weekdays, "today", "week", "morning", seasons.
TIME_WORDS = frozenset(
    {m.lower() for m in (*calendar.month_name[1:], *calendar.day_name)}
    | {d.lower() + "s" for d in calendar.day_name}
    | {
        "today",
        "tomorrow",
        "yesterday",
        "week",
        "month",
        "year",
        "weekend",
        "morning",
        "evening",
        "night",
        "afternoon",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
    }
)

#: Verbs whose past tense states a change that still holds ("I moved", "I quit").
CHANGE_VERBS = frozenset(
    {
        "move", "relocate", "join", "leave", "quit", "switch", "change", "start", "begin",
        "become", "get", "marry", "divorce", "adopt", "buy", "sell", "retire", "transfer",
        "promote", "hire", "rename", "upgrade", "downgrade", "resign", "graduate", "settle",
        "stop", "cancel", "reschedule", "postpone", "push", "replace", "lose", "break",
        "engage", "sign", "decide", "give", "drop", "take", "pick", "finish", "end",
        "shift", "bump", "raise", "cut", "increase", "decrease", "reduce", "grow", "fire",
        "lay", "swap", "trade", "convert", "turn", "migrate", "transition", "remove",
        "double", "triple", "halve", "lower", "shorten", "lengthen", "extend", "up",
        "boost", "trim", "rebook", "rearrange", "redo", "reset", "set", "update",
        "expire", "renew", "reopen", "close", "subscribe", "unsubscribe", "enroll",
        "register", "purchase",
    }
)  # fmt: skip

#: Predicates that say something changed but not what ("Victor switched; now Drone.").
BARE_CHANGES = frozenset({"switch", "move on", "change", "switch over", "transition", "go"})


@dataclass(frozen=True, slots=True)
class Claim:
    """One clause of a statement: who it is about, what is said of them, and how.

    Attributes:
        subject: The noun phrase it is about, canonical ("user", "user sister", "ana").
        owner: Who owns what the subject names ("user" in "my sister"), empty when nobody
            is named as its owner ("the dentist appointment").
        predicate: The verb's lemma, with its particle ("live", "be", "pick up").
        value: The canonical words of what is said of the subject, sorted.
        complement: The complement or object phrase ("vegetarian", "nurse", "senior
            engineer", "celiac disease"), telling "Ana is vegetarian" from "Ana is a nurse"
            and "I have celiac disease" from "I have two guinea pigs".
        complement_kind: ``name`` (a proper noun), ``number`` (has a digit) or ``word``.
        value_kind: The same for the value as a whole.
        negated: The clause is negated ("not", "no longer", "never").
        state: It says how things are (see the module docstring), not a past event.
        person: The subject is a person or thing named as itself (I, a name, a pronoun), not
            a possession or property of one ("my phone number").
        roles: Each preposition of the value with its object ("from paris", "to berlin"):
            "moved from Paris to Berlin" and "from Berlin to Paris" have one value, not one
            meaning.
        nouns: The words of the value the parser tagged common nouns ("physician" of "is a
            physician"; not "older", "upstairs").
        modifiers: The words of the subject the parser tagged adjectives or adverbs
            ("upstairs" of "the upstairs thermostat").
        habitual: Said in the simple present, active or passive ("takes", "gets home",
            "is closed on Mondays"): of a change verb, a habit or a schedule, not a change.
    """

    subject: str
    predicate: str
    value: tuple[str, ...]
    owner: str = ""
    complement: str = ""
    complement_kind: str = ""
    value_kind: str = ""
    negated: bool = False
    state: bool = True
    person: bool = False
    roles: frozenset[str] = frozenset()
    nouns: frozenset[str] = frozenset()
    modifiers: frozenset[str] = frozenset()
    habitual: bool = False

    @property
    def thing(self) -> frozenset[str]:
        """The subject's words without its owner ("user sister" -> {"sister"})."""
        words = self.subject.split()
        if self.owner and self.subject.startswith(self.owner + " "):
            words = self.subject[len(self.owner) + 1 :].split()
        return frozenset(w for w in words if w not in FUNCTION_WORDS)

    @property
    def content(self) -> frozenset[str]:
        """The value's words that carry meaning (prepositions and pronouns dropped)."""
        return frozenset(w for w in self.value if w not in FUNCTION_WORDS)

    def describe(self) -> str:
        """``subject predicate value`` as one readable phrase."""
        negation = "not " if self.negated else ""
        return f"{self.subject} {negation}{self.predicate} {' '.join(self.value)}".strip()


PRONOUNS = frozenset(
    {"he", "she", "they", "it", "you", "this", "that", "these", "those", "him", "her", "them"}
)

#: Words that say nothing of their own in a claim: prepositions of place and time,
#: pronouns, articles, and the verbs that only join (be, have, do).
FUNCTION_WORDS = frozenset(
    {
        "in", "at", "on", "to", "for", "of", "from", "with", "by", "as", "into", "about",
        "it", "that", "this", "them", "they", "he", "she", "him", "her", "there", "here",
        "their", "his", "its", "my", "our", "your", "user", "i", "we", "me", "us",
        "a", "an", "the", "be", "have", "do",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Statement:
    """A text as the version logic reads it.

    Attributes:
        text: The text read.
        claims: Its claims, in order (empty when no clause has a subject).
        marked: It says that it changes something (:func:`marks_change`: "actually",
            "correction", "no longer", "new", "now", ...).
        anchors: Its names, numbers and negations, canonical: two texts that differ in one
            of these never say the same thing, however their clauses read.
        words: Every word of it, canonical (lemmas, US spelling).
        spoken: A line of it names its speaker ("Mira: ..."): a turn of a conversation.
        revises: It says that it corrects or changes something, by more than a negation
            (:func:`marks_revision`: "actually", "I was wrong", "switched", "no longer").
        gist: Its canonical words in order, without those chat drops and that say nothing
            here (articles, "I", "my", a present "is" or "have"): "my favourite colour is
            green" and "Favorite color: green" have one gist. A past "was" stays.
        spelled: The text in one spelling (:func:`cogmem.canonical.one_spelling`), as
            write-time dedup compares it word by word; empty when not read.
    """

    text: str
    claims: tuple[Claim, ...]
    marked: bool = False
    anchors: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()
    spoken: bool = False
    revises: bool = False
    gist: tuple[str, ...] = ()
    spelled: str = ""

    @property
    def readable(self) -> bool:
        """At least one claim was found."""
        return bool(self.claims)

    @property
    def fact(self) -> bool:
        """It states how things are: a bare statement (no speaker's turn, no question) with a
        claim of a state ("I live in Berlin.", "Ana is vegetarian."), or a claim it says
        corrects or changes something ("I was wrong about my blood type: it's O positive.",
        "Priya made partner - no longer an associate."); not only past events."""
        if self.spoken or not self.claims:
            return False
        return self.revises or any(c.state for c in self.claims)
