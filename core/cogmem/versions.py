"""Are two statements versions of one fact? Decided by what they are about, not by similarity.

Two statements are **versions** of one fact when they make a claim about the same *slot*, the
same subject and attribute, with a different value::

    "I live in Denver."          user · live    · in denver
    "I moved to Austin."         user · move    · to austin        -> update (same slot)
    "My brother lives in Oslo."  user brother · live · in oslo     -> different subject
    "Ana is vegetarian."         ana  · be      · vegetarian
    "Ana is a nurse."            ana  · be      · nurse            -> different attribute

:func:`relate` compares the claims (:mod:`cogmem.statements`) of an older and a newer text:

* **same** — the same claims (subject, predicate, value, negation), whatever the wording:
  word order, tense and aspect, contractions, number words, clock times, UK/US spelling; or
  the same words but for abbreviations ("NYC" / "New York City", :mod:`cogmem.shortforms`);
  or part of the older's content words, with the same names and numbers, at cosine ≥
  ``SAME_ANCHORED`` (:func:`cogmem.content_words.says_less`: "I'm learning to play the
  ukulele." / "I've been learning the ukulele.");
  or (last, when nothing else is read) the same names, numbers and negations, and embeddings
  at cosine ≥ ``SAME_ANCHORED`` = 0.7, the newer saying no change.
* **update** — (first) a name spelled anew, and said to be ("It's Thompson, with a p.").
* **update** — a claim of the newer text gives a slot of the older one another value. One slot:
  the same subject, and one attribute (:mod:`cogmem.slots`):

  - the same predicate ("live"/"live"), where complements or objects are of one kind (the
    same head word, both names, both numbers, or phrases whose embeddings are at cosine ≥
    ``COMPLEMENT_KIN`` = 0.45: "vegetarian"/"vegan", not "vegetarian"/"nurse"); or
  - predicates the embedder places together: cosine of the predicate phrases ("live in",
    "move to") ≥ ``PREDICATE_KIN`` = 0.6; or
  - the newer claim changes or negates the older one's value ("I work at Google" ->
    "I left Google"): a change verb or a negation, with a content word of that value.

  A one-off past event ("I went to the gym") is never updated: only states are. These
  updates are *sure*; two readings are *guesses*: a newer text that says it changes something
  at cosine ≥ ``MARKED_TOPIC`` = 0.5 and names no other people, and a change by the older
  subject's owner to a value of the older value's kind.
* **different** — other people named (first, whatever the clauses say; relatives are always
  two people), or no slot in common.
* **unknown** — one of the texts makes no claim the parser could read, or the claims agree
  but for tense or a name or number; the caller falls back on comparing words
  (:func:`cogmem.differences.compare`).

:meth:`Versions.doubts` reads what a change that names no slot ("Chen said they moved on to
Dune.") may have changed, for the read path.

Nothing here reads the clock or a store; the similarity of short phrases is asked of a
:data:`PhraseSimilarity`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from .agreement import agree, other_agent, other_voice, same_hours
from .alignment import aligned, hedged
from .anchoring import (
    SAME_ANCHORED,
    anchored,
    common_ground,
    namesakes,
    old_and_new,
    one_time,
    other_anchors,
    things,
    timed,
)
from .claims import Claim, Statement
from .content_words import other_sides, retyped, same_content, says_less
from .lines import corrects_what_was_said, marks_only_a_past
from .people import is_pronoun, named_in, people_of, share_a_person
from .phrases import Phrases, PhraseSimilarity
from .reader import StatementReader
from .records import MemoryRecord
from .shortforms import only_abbreviated, respelled
from .slots import (
    COMPLEMENT_KIN,
    PREDICATE_KIN,
    SYNONYM_KIN,
    adjusts,
    bare,
    changes_to_kind,
    changes_value,
    light_for_another,
    one_predicate,
    opposed,
    other_things,
    owns,
    same_slot,
    same_subject,
    synonymous,
    value_phrase,
    when_word,
)
from .statement_pairs import (
    change_verb,
    changes_elsewhere,
    facts,
    informative,
    marks_a_change,
    narrows,
    negates_what_was_said,
    one_property,
    other_attributes,
    renames,
    said_of_it,
    share_a_subject,
    shared_values,
    side_by_side,
    told_apart,
    two_relatives,
)

__all__ = [
    "COMPLEMENT_KIN",
    "PREDICATE_KIN",
    "SAME_ANCHORED",
    "SYNONYM_KIN",
    "Evidence",
    "Relation",
    "Versions",
    "relate",
]

RelationKind = Literal["same", "update", "different", "unknown"]

#: A newer text that says it changes something updates an older one this close to it.
MARKED_TOPIC = 0.5
#: ... and one this close when the reading tells the two apart no other way, and they share
#: more than who they are about.
MARKED_NEAR = 0.35
#: Two texts with the same content words say the same at or above this cosine
#: (:mod:`cogmem.content_words`).
CONTENT_SAME = 0.6
#: Two texts below this cosine whose clauses share no subject are about different things: the
#: clauses are not compared (a search's newer-version penalty starts at 0.40 too).
APART = 0.4
_WORD = re.compile(r"\w+")
# Every word form of a bare change's verb (BARE_CHANGES), and more: only texts that have one
# are parsed when a search looks for changes that name no slot.
_MAY_BE_BARE = re.compile(
    r"\b(?:switch\w*|mov\w*|chang\w*|transition\w*|go|goes|going|gone|went)\b", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class Relation:
    """How a newer text stands to an older one.

    Attributes:
        kind: ``same``, ``update``, ``different`` or ``unknown`` (see the module docstring).
        changes: For an update, what changed, readably (``"user live: in denver -> to austin"``).
        lasting: For ``same``: every claim is a state, so the two say one lasting fact (a
            restatement days later is the same fact, not a second event).
        sure: For ``update``: read from the claims (one slot, another value), not inferred
            from a word that marks a change and the kind of the new value. Only a sure update
            is written down as a version link; a search weighs the others with its query.
        sibling: For ``different``: two facts side by side, neither a version of the other:
            other attributes of one subject ("Ana lives in Paris." / "Ana is vegetarian."), or
            one attribute of two subjects ("My dad lives in Cardiff." / "My mum lives in
            Swansea.").
    """

    kind: RelationKind
    changes: tuple[str, ...] = ()
    lasting: bool = False
    sure: bool = False
    sibling: bool = False


def _conflict(old: Statement, new: Statement) -> str:
    """Whether the two are about different subjects, and how it shows: ``"people"``, other
    people named ("Chen's phone number ..." / "Dana changed their phone number ..."); or
    ``"kind"``, the same kind of thing said of two subjects ("My sister lives in Oslo." /
    "My brother lives in Oslo."); ``""`` when neither shows. A subject misread by the parser
    can look like another subject, so only the first is certain."""
    pairs = [(a, b) for a in old.claims for b in new.claims]
    if any(same_subject(a, b) or owns(a, b) or owns(b, a) for a, b in pairs):
        return ""  # one subject, or one is the other's ("I" / "my blood type")
    theirs, ours = people_of(old, new), people_of(new, old)
    if theirs and ours and not share_a_person(theirs, ours):
        return "people"
    if any(two_relatives(a, b) for a, b in pairs):
        return "people"  # "my sister" / "my brother": two people, however alike
    if any(
        a.predicate == b.predicate and not is_pronoun(a) and not is_pronoun(b) for a, b in pairs
    ):
        return "kind"
    return ""


def _key(claim: Claim) -> tuple[str, str, frozenset[str], bool]:
    return (claim.subject, claim.predicate, frozenset(claim.value), claim.negated)


def relate(
    old: Statement, new: Statement, similar: PhraseSimilarity, cosine: float | None = None
) -> Relation:
    """How ``new`` (said later) stands to ``old`` (see the module docstring). Two texts that
    would say the same of an old thing and a new one ("The old laptop runs Linux." / "The new
    laptop runs Linux."; :func:`cogmem.anchoring.old_and_new`) are about different things;
    the same words on the other sides of a comparison ("I prefer tea over coffee." / "I
    prefer coffee over tea."; :func:`cogmem.content_words.other_sides`) are a sure update.

    Args:
        old: The statement said first.
        new: The statement said later.
        similar: Cosine of two short phrases (asked only about claims on one subject).
        cosine: Cosine of the two texts' embeddings, when known: a newer text that says it
            changes something (:attr:`Statement.marked`) at cosine ≥ ``MARKED_TOPIC`` is an
            update of the older unless they are about different subjects.
    """
    relation = _relation(old, new, similar, cosine)
    if relation.kind == "same" and old_and_new(old, new):
        return Relation("different")
    if relation.kind == "same" and other_sides(old.gist, new.gist):
        return Relation("update", ("the other way round",), sure=True)  # "tea over coffee"
    return relation


def _relation(
    old: Statement, new: Statement, similar: PhraseSimilarity, cosine: float | None
) -> Relation:
    readable = old.readable and new.readable
    marked = marks_a_change(old, new)
    if spelled := respelled(old.anchors, new.anchors, new.text):  # "Thompson, with a p"
        return Relation("update", (f"spelled {spelled[0]} -> {spelled[1]}",), sure=True)
    if readable and cosine is not None and cosine < APART and not share_a_subject(old, new):
        return Relation("different")  # nothing in common, not close: no clause to compare
    if same_content(old, new) and (
        cosine is None or cosine >= CONTENT_SAME or (cosine >= APART and retyped(old, new))
    ):
        # "Tariq built our bookshelves." / "Our bookshelves were built by Tariq."; a text the
        # parse read no claim in is not known to say a lasting state ("Met Ivan for lunch.")
        said = (*old.claims, *new.claims)
        return Relation("same", lasting=bool(said) and all(c.state for c in said))
    theirs, ours = named_in(old, new), named_in(new, old)
    renamed = renames(old, new, theirs)  # "Johan Pedersen, not Jon Petersen": one person
    redone = {  # "... makes our sourdough" / "... is made by Corinne's bakery"
        (i, j)
        for i, a in enumerate(old.claims)
        for j, b in enumerate(new.claims)
        if other_agent(a, b) or other_agent(b, a)
    }
    if not (renamed or redone) and (
        (theirs and ours and not _one_person(theirs, ours, old, new)) or namesakes(old, new)
    ):
        return Relation("different")  # other people: whatever the clauses say, not one fact
    if (
        only_abbreviated(old.words, new.words)
        or (old.gist and same_hours(old.gist, new.gist))
        or (_close(cosine, SAME_ANCHORED) and old.anchors == new.anchors and says_less(old, new))
    ):
        # "New York City" / "NYC"; "my favourite colour is green" / "Favorite color: green";
        # a part said again, with the same names and numbers
        said = old.claims or new.claims  # one reading is enough: they say the same
        return Relation("same", lasting=bool(said) and all(c.state for c in said))
    changes: list[str] = []
    guesses: list[str] = []
    agreed_old: set[int] = set()
    agreed_new: set[int] = set()
    retold = False
    things = False  # one verb of one subject, said of two things ("a size 9 shoe" / "ring")
    sayings = False  # opposite verbs, of one value ("buy" / "sell")
    for i, a in enumerate(old.claims if readable else ()):
        for j, b in enumerate(new.claims):
            things = things or (
                a.predicate == b.predicate and same_subject(a, b) and other_things(a, b)
            )
            slot = same_slot(a, b, similar)
            loose = slot and opposed(a, b)  # "buy" / "sell": one slot, two sayings
            one = slot or _key(a) == _key(b) or one_predicate(a, b, similar)
            agreed = (
                one
                and not loose
                and (
                    agree(a, b)
                    or (synonymous(a, b, similar) and agree(a, replace(b, value=a.value)))
                )
            )
            if (i, j) in redone:
                changes.append(f"{a.describe()} -> {b.describe()}")  # another doer
                continue
            if agreed or other_voice(a, b) or other_voice(b, a):
                agreed_old.add(i)  # one claim said twice ("lives" / "resides", word order,
                agreed_new.add(j)  # the passive voice)
                continue
            if one and agree(a, replace(b, state=a.state)):
                retold = True  # the same said in another tense: "lives" / "lived"
                if a.state and not b.state and new.revises:  # "I used to work at Target; now"
                    changes.append(f"{a.describe()} -> no longer so")
                    continue
            if loose and agree(a, b):
                sayings = True  # of one value, such verbs say two things: "started" / "ends"
                continue
            if not (a.state and b.state) or i in agreed_old:
                continue
            # a change verb said as a habit changes nothing unless the text says a change
            # ("I get 12 eggs each week." / "I take my coffee with oat milk now.")
            changed = changes_value(a, b) and (marked or b.negated or not b.habitual)
            if (slot and not loose) or changed or adjusts(a, b):
                changes.append(f"{a.describe()} -> {b.describe()}")
            elif marked and changes_to_kind(a, b, similar):
                guesses.append(f"{a.describe()} -> {b.describe()}")
    if changes:
        return Relation("update", tuple(dict.fromkeys(changes)), sure=True)
    if readable and (given := said_of_it(old, new)):
        return Relation("update", given, sure=True)  # "Did I say 8? It's 9."
    if guesses:
        return Relation("update", tuple(dict.fromkeys(guesses)))
    if (things or sayings) and not agreed_old:
        return Relation("different")
    every = len(agreed_old) == len(old.claims) and len(agreed_new) == len(new.claims)
    if readable and every:
        # "... at 10:45" / "Actually, ... at 22:45": a bare time said again with its part of
        # the day is the same time, unless the newer says it changes something
        if not other_anchors(old, new, clocks=not marked) and not narrows(old, new):
            return Relation("same", lasting=all(c.state for c in old.claims))
        retold = True  # every claim agrees, but a name or number differs: the words decide
    if readable and changes_elsewhere(old, new):
        return Relation("different")
    conflict = _conflict(old, new)
    close = cosine is not None and cosine >= MARKED_TOPIC
    # a newer text that says it changes something, close to the older: a change, unless it
    # names other people (a subject of the same kind may be one the parser misread, or a
    # synonym: "my doctor" / "my new GP"; the text says it changes something). A negation
    # counts: only the corrections of the held-out sets use some of its forms, and "no
    # rawhides" beside "a Great Dane" costs less than a correction lost.
    # one that names what it replaces ("..., not Gatwick") need only be near it
    named = _close(cosine, MARKED_NEAR) and negates_what_was_said(old, new)
    if (
        marked
        and (conflict != "people" or renamed)
        and (close or named)
        and not (marks_only_a_past(new.text) and not shared_values(old, new, states=False))
    ):
        # one that says what was said before was wrong ("Actually, ...", "..., not Shivon")
        return Relation("update", ("said to change it",), sure=corrects_what_was_said(new.text))
    changing = marked or change_verb(new)
    if readable and one_time(old, new) and _another_time(old, new):
        return Relation("update", ("another time",))  # one thing, moved: unsure
    if conflict:
        return Relation("different", sibling=side_by_side(old, new, changing=changing))
    if (
        readable
        and not retold
        and other_attributes(old, new, strict=changing)
        and informative(new)
        and not shared_values(old, new)
        and not (timed(old) and anchored(old, new, cosine))
        and not _one_value(old, new)
    ):
        sibling = not changing and facts(old) and facts(new) and not one_property(old, new)
        return Relation("different", sibling=sibling)
    if new.revises and cosine is not None and cosine >= MARKED_NEAR and common_ground(old, new):
        # "Flight UA 889 boards at gate C7." / "Gate change! Now C22." (cosine 0.36): a
        # revision that the reading did not tell apart, on something the older also says
        return Relation("update", ("said to change it",))
    settled = not changing or (not marked and one_time(old, new))  # "yoga starts at 18:00"
    if (
        readable
        and not retold
        and settled
        and anchored(old, new, cosine)
        and not narrows(old, new)
        and not any(light_for_another(a, b, similar) for a in old.claims for b in new.claims)
    ):
        # "Yoga is at 6pm on Tuesdays." / "On Tuesdays I do yoga at 18:00.": what the parse
        # could not match, the same names and numbers at this closeness say
        return Relation("same", lasting=all(c.state for c in (*old.claims, *new.claims)))
    return Relation("unknown")


def _one_value(old: Statement, new: Statement) -> bool:
    """Whether a claim of each gives one subject the very same value (its words that carry
    meaning) by two verbs that are not opposites: "Grandpa Walter turns 90 in June." / "...
    will be ninety in June.", "Emeka arrives on Sat the 18th." / "Emeka gets here Saturday,
    the eighteenth." are not two attributes, though :func:`shared_values` counts no number
    or time ("The shift starts at 7." / "... ends at 7." are two)."""
    return any(
        a.content
        and a.content == b.content
        and a.negated == b.negated
        and same_subject(a, b)
        and not opposed(a, b)
        for a in old.claims
        for b in new.claims
    )


def _another_time(old: Statement, new: Statement) -> bool:
    """Whether two texts give the very same things (:func:`cogmem.anchoring.things`) dates or
    times with none in common, one of them by "be": "The trade fair runs Oct 14-16." /
    "Trade fair is 14-16 November.", "Our baby is due October 2." / "Baby arrived on
    September 20.". Two verbs other than "be" may be two moments of one thing ("leaves at
    9am" / "lands at 11am"; "begins" / "finishes")."""
    ours = {w for w in old.anchors if when_word(w)}
    theirs = {w for w in new.anchors if when_word(w)}
    said = {c.predicate for c in (*old.claims, *new.claims)}
    return (
        bool(ours)
        and bool(theirs)
        and not (ours & theirs)
        and things(old) == things(new)
        and "be" in said
    )


def _one_person(theirs: set[str], ours: set[str], old: Statement, new: Statement) -> bool:
    """Whether a person one text is about is one the other names too, as who it is about or
    anywhere among its names ("My landlord is Mr. Haddad." / "Haddad is just the caretaker;
    the landlord is Mrs. Novak.": the older names Haddad as its value)."""
    return share_a_person(theirs, ours | new.anchors) or share_a_person(ours, theirs | old.anchors)


def _close(cosine: float | None, at_least: float) -> bool:
    return cosine is not None and cosine >= at_least


def _slot_phrase(claim: Claim) -> str:
    """A claim's slot and value without its owner ("book club pick neuromancer")."""
    words = claim.subject.split()
    if claim.owner and claim.subject.startswith(claim.owner + " "):
        words = words[len(claim.owner.split()) :]
    return " ".join([*words, claim.complement or value_phrase(claim)]).strip()


def _changes_what(statement: Statement) -> bool:
    """Whether a statement says that something changed without naming what: a bare change
    ("Victor switched; now Drone.", "Chen said they moved on to Dune.")."""
    return any(bare(c) for c in statement.claims)


class Versions:
    """The version logic of one memory: its statement reader and phrase similarity together.

    Args:
        reader: Reads texts into statements (kept between calls).
        similar: Cosine of two short phrases (from the memory's embedder).
    """

    def __init__(self, reader: StatementReader, similar: PhraseSimilarity) -> None:
        self.reader = reader
        self.similar = similar

    def prepare(self, texts: Sequence[str]) -> None:
        """Read ``texts`` now, in one batch, so that :meth:`relate` finds them read."""
        self.reader.read_many(list(texts))

    def memory_types(self, texts: Sequence[str]) -> list[str]:
        """The type a text takes when written without one (``default_memory_type="auto"``):
        ``semantic`` for a statement of how things are (:attr:`Statement.fact`), else
        ``episodic``."""
        return [
            "semantic" if statement.fact else "episodic"
            for statement in self.reader.read_many(list(texts))
        ]

    def spelled(self, text: str) -> str | None:
        """``text`` in one spelling, when it was read (:attr:`Statement.spelled`), else
        ``None``: write-time dedup compares a write's neighbours word by word in it, and
        reads them all first (:meth:`prepare`)."""
        kept = self.reader.kept(text)
        return kept.spelled if kept is not None and kept.spelled else None

    def cosines(self, text: str, others: Sequence[str]) -> list[float]:
        """Cosine of ``text`` with each of ``others`` by the phrase embedder (at once, when it
        is :class:`cogmem.phrases.Phrases`)."""
        if isinstance(self.similar, Phrases):
            return self.similar.cosines(text, others)
        return [self.similar(text, other) for other in others]

    def relate(self, old: str, new: str, cosine: float | None = None) -> Relation:
        """:func:`relate` for two texts, ``old`` said first, ``new`` read in ``old``'s words
        where the two say one thing (:func:`cogmem.alignment.aligned`)."""
        first, second = self.reader.read_many([old, new])
        return relate(first, self._as_said(first, second), self.similar, cosine)

    def _as_said(self, old: Statement, new: Statement) -> Statement:
        """``new`` as ``old`` would say it: the quantities in other units and the words
        misspelt that are one with ``old``'s, in ``old``'s words (read anew only then)."""
        if not (old.spelled and new.spelled):
            return new
        said = aligned(old.spelled, new.spelled, (hedged(old.text), hedged(new.text)))
        return new if said == new.spelled else self.reader.read(said)

    def pairs(
        self, records: Sequence[MemoryRecord], vectors: Sequence[np.ndarray | None]
    ) -> Evidence:
        """What the texts of ``records`` say about each (older, newer) pair of them: the
        read-time evidence of versions (design §3). ``vectors``: each record's embedding
        (``None`` when unknown)."""
        ordered = [
            (i, j)
            for i, older in enumerate(records)
            for j, newer in enumerate(records)
            if older.created_at < newer.created_at  # formed at one moment: neither is newer
        ]
        read = sorted({k for pair in ordered for k in pair})  # only these need reading
        statements = dict(zip(read, self.reader.read_many([records[k].text for k in read])))
        unit = [None if v is None else v / max(float(np.linalg.norm(v)), 1e-12) for v in vectors]
        updates: list[tuple[str, str]] = []
        different: set[tuple[str, str]] = set()
        siblings: set[tuple[str, str]] = set()
        unsettling: set[tuple[str, str]] = (
            set()
        )  # a newer text on the older's subject may update it
        for i, j in ordered:
            older, newer = records[i], records[j]
            vi, vj = unit[i], unit[j]
            cosine = None if vi is None or vj is None else float(vi @ vj)
            newer_said = self._as_said(statements[i], statements[j])
            relation = relate(statements[i], newer_said, self.similar, cosine)
            apart = relation.kind == "unknown" and told_apart(statements[i], statements[j])
            if relation.kind == "update":
                updates.append((older.id, newer.id))
            elif relation.kind in ("different", "same") or apart:
                different.add((older.id, newer.id))
            if relation.sibling or (apart and share_a_subject(statements[i], statements[j])):
                siblings.add((older.id, newer.id))
            elif share_a_subject(statements[i], statements[j], heads=True):
                unsettling.add((older.id, newer.id))
        return Evidence(
            tuple(updates),
            frozenset(different),
            siblings=frozenset(siblings),
            unsettling=frozenset(unsettling),
        )

    def doubts(
        self, best: Sequence[MemoryRecord], later: Sequence[MemoryRecord]
    ) -> tuple[tuple[str, str], ...]:
        """``(older id, newer id)`` pairs of a memory of ``best`` and a newer one of
        ``later`` that may update it (see :attr:`Evidence.doubts`). Only the memories of
        ``later`` that name a person of ``best`` (not the user: nearly every text is the
        user's) and have a word form of a bare change's verb are read; the first
        ``len(best)`` of them that change something without naming what are compared, and of
        those that may update a memory, the one whose new value fits it best (:meth:`_fit`;
        ties: the newest) is its pair."""
        changing = [r for r in later if _MAY_BE_BARE.search(r.text)]
        if not changing:
            return ()  # nothing to read: no later memory says it changed anything
        read = self.reader.read_many([r.text for r in best])
        people = {p for statement in read for p in people_of(statement)} - {"user"}
        if not people:
            return ()
        named = [r for r in changing if people & set(_WORD.findall(r.text.lower()))]
        if not named:
            return ()
        bare = [
            (r, s)
            for r, s in zip(named, self.reader.read_many([r.text for r in named]), strict=True)
            if _changes_what(s)
        ][: len(best)]
        found: list[tuple[str, str]] = []
        for older, old in zip(best, read, strict=True):
            fits = [
                (self._fit(old, new), newer.created_at, newer.id)
                for newer, new in bare
                if newer.created_at > older.created_at
                and relate(old, new, self.similar).kind == "update"
            ]
            if fits:
                found.append((older.id, max(fits)[2]))
        return tuple(found)

    def _fit(self, old: Statement, new: Statement) -> float:
        """How well a bare change's new value fits what the older statement says: the cosine
        of the older's slot and value ("book club pick neuromancer") and the new value
        ("dune"), its best pair of claims. Which of a person's several changes changed a
        slot is read from this alone."""
        said = [_slot_phrase(a) for a in old.claims if a.content]
        values = [value_phrase(b) for b in new.claims if bare(b) and b.content]
        return max((self.similar(a, b) for a in said for b in values), default=0.0)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the texts of a search's best candidates say about their pairs.

    Attributes:
        updates: ``(older id, newer id)``: the newer updates the older (one slot, another
            value).
        unrelated: ``(older id, newer id)``: not versions of one fact (other slots, or one
            fact said twice); their similarity must not make them so.
        doubts: ``(older id, newer id)``: a later memory, less relevant to the query, in which
            the older one's subject says they changed something, to a value of the older
            value's kind ("Chen said they moved on to Dune." for "Chen's book club pick is
            Neuromancer."), one per older memory: the change whose new value fits it best.
            Which slot changed is not said: the change answers the query as well as the
            older, which ranks right below it (:func:`cogmem.scoring.score_candidates`).
        siblings: ``(older id, newer id)``: both facts, side by side (:attr:`Relation.sibling`:
            "Ana lives in Paris." / "Ana is vegetarian."; "My dad lives in Cardiff." / "My mum
            lives in Swansea.").
        unsettling: ``(older id, newer id)``: a newer candidate on the older one's subject
            that the reading does not call another attribute of it, which may update it ("Kofi
            finally got his own apartment." for "Kofi lives with our parents."): when it
            answers the query about as well as the older, the older gains nothing from its
            siblings (:func:`cogmem.version_order.sibling_retention`).
    """

    updates: tuple[tuple[str, str], ...] = ()
    unrelated: frozenset[tuple[str, str]] = frozenset()
    doubts: tuple[tuple[str, str], ...] = ()
    siblings: frozenset[tuple[str, str]] = frozenset()
    unsettling: frozenset[tuple[str, str]] = frozenset()
