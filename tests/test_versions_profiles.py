"""Facts of one subject (cogmem.version_order.sibling_retention, cogmem.versions): a newer fact
that may update an older one keeps it at its own age only for a query it answers as well, and
a negation is a change only of what it negates."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from cogmem import CognitiveMemory
from cogmem.embedding import MiniLMEmbedder
from cogmem.lines import marks_more_than_negation
from cogmem.reader import StatementReader
from cogmem.records import MemoryRecord
from cogmem.statement_pairs import marks_a_change
from cogmem.versions import Evidence, Versions, relate
from tests.test_versions import kind, similar

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def _at(days: float) -> datetime:
    return NOW - timedelta(days=days)


def test_a_newer_fact_that_does_not_answer_the_query_leaves_the_siblings_lift() -> None:
    """ "Bramble gets a glucosamine chew" has a change verb: the reading cannot call it
    another attribute of Bramble, and it kept every older fact of Bramble at its own age,
    whatever the query asked (the breed came second, below the toy)."""
    writes = [
        ("Bramble is a three-year-old cocker spaniel.", 101),
        ("Bramble is terrified of thunderstorms.", 61),
        ("Bramble gets a glucosamine chew every morning for his joints.", 21),
        ("Bramble's favourite toy is a squeaky hedgehog.", 1),
    ]
    with CognitiveMemory(embedder=MiniLMEmbedder()) as mem:
        for text, days in writes:
            mem.write(text, memory_type="semantic", created_at=_at(days), now=_at(days))
        found = mem.search("What breed is Bramble?", now=NOW, reinforce=False)
    assert found[0].text == "Bramble is a three-year-old cocker spaniel."
    assert found[0].explanation.penalties["sibling_retention"] > 1.0


def test_a_newer_fact_that_answers_as_well_keeps_the_older_at_its_age(
    mem: CognitiveMemory,
) -> None:
    writes = [
        ("Kofi lives with our parents.", 300),
        ("Kofi's favourite band is Radiohead.", 200),
        ("Kofi finally got his own place, he lives alone.", 5),
    ]
    for text, days in writes:
        mem.write(text, memory_type="semantic", created_at=_at(days), now=_at(days))
    found = mem.search("Where does Kofi live?", now=NOW, reinforce=False)
    older = next(r for r in found if r.text == "Kofi lives with our parents.")
    assert "sibling_retention" not in older.explanation.penalties


@pytest.mark.parametrize(
    ("old", "new", "marked"),
    [
        (
            "Saffron is a ginger tabby.",
            "Saffron only drinks from the fountain, not her bowl.",
            False,
        ),
        ("I'm flying out of Gatwick.", "It's Stansted, not Gatwick.", True),
        ("I'm vegetarian.", "I'm not vegetarian.", True),
        ("The recovery takes six weeks.", "The doctor says 4 weeks, not six.", True),
        ("The plumber comes Monday.", "Wait, no, the plumber said Tuesday.", True),
        ("Our locker code is 1234.", "Not the one I said before: 4321.", True),
    ],
)
def test_a_negation_changes_only_what_it_negates(
    reader: StatementReader, old: str, new: str, marked: bool
) -> None:
    assert marks_a_change(reader.read(old), reader.read(new)) is marked


def test_a_no_that_answers_is_more_than_a_negation() -> None:
    assert marks_more_than_negation("Wait, no, it's Tuesday.")
    assert marks_more_than_negation("Switching the bake to 230C.")
    assert not marks_more_than_negation("Moving day is Saturday, not Sunday.")


def test_a_contrast_within_a_fact_is_no_correction_of_another(reader: StatementReader) -> None:
    """It was read "said to change it": an update of every close fact about Saffron."""
    assert (
        kind(
            reader,
            "Saffron is a ginger tabby, about 11 years old.",
            "Saffron only drinks from the water fountain, not her bowl.",
            0.5,
        )
        != "update"
    )


def test_one_attribute_of_two_people_competes_by_relevance_not_by_age() -> None:
    """ "My aunt ..." / "My uncle ...": other people, so neither fact outdates the other, and
    the fresher one must not take the older's question for its freshness alone."""
    writes = [
        ("My aunt works as a pharmacist in Leeds.", 240),
        ("My uncle works as a carpenter in York.", 3),
    ]
    with CognitiveMemory(embedder=MiniLMEmbedder()) as mem:
        for text, days in writes:
            mem.write(text, memory_type="semantic", created_at=_at(days), now=_at(days))
        found = mem.search("What job does my aunt have?", now=NOW, reinforce=False)
    assert found[0].text == "My aunt works as a pharmacist in Leeds."
    assert found[0].explanation.penalties["sibling_retention"] > 1.0


@pytest.mark.parametrize(
    ("new", "side_by_side"),
    [
        ("My son's dentist is on Mill Lane.", True),
        ("My son's dentist is on Mill Lane now.", False),
        ("My orthodontist is on Mill Lane.", False),
    ],
)
def test_two_subjects_of_one_kind_stand_side_by_side_only_when_told_apart(
    new: str, side_by_side: bool
) -> None:
    """One thing of two owners is two facts; but a newer that says it changes something, or
    a subject with no word in common ("my doctor" / "my GP" may be one doctor), keeps the
    older at its own age."""
    with CognitiveMemory(embedder=MiniLMEmbedder()) as mem:
        relation = mem.versions.relate("My dentist is on Queen Street.", new, cosine=0.45)
    assert (relation.kind, relation.sibling) == ("different", side_by_side)


@pytest.mark.parametrize(
    ("old", "new", "side_by_side"),
    [
        ("Marta works as a midwife in Leeds.", "Marta takes her tea with honey.", True),
        ("Priya is allergic to peanuts.", "Priya gets the early train on Fridays.", True),
        ("The gym membership is £40 a month.", "The gym closes at 10pm on weekdays.", True),
        ("The bakery on Mill Road sells sourdough.", "The bakery is closed on Mondays.", True),
        # the same verbs, said as a change: the newer may change the older
        ("Priya is allergic to peanuts.", "Priya got the early train on Friday.", False),
        ("The bakery on Mill Road sells sourdough.", "The bakery was closed last week.", False),
    ],
)
def test_a_change_verb_said_as_a_habit_changes_nothing(
    reader: StatementReader, old: str, new: str, side_by_side: bool
) -> None:
    """ "takes", "gets", "closes" in the simple present say what is usual, not that anything
    changed: the older fact is a sibling of the newer, not a fact it may update."""
    relation = relate(reader.read(old), reader.read(new), similar, 0.45)
    assert relation.kind != "update"
    assert relation.sibling is side_by_side


# ------------------------------------------------------------- subjects told by their heads
def _evidence(reader: StatementReader, old: str, new: str) -> Evidence:
    """Read-time evidence of ``old`` (100 days old) and ``new`` (10), at cosine 1."""
    records = [
        MemoryRecord(id=text, text=text, created_at=_at(days), memory_type="semantic")
        for text, days in ((old, 100), (new, 10))
    ]
    return Versions(reader, similar).pairs(records, [np.ones(4), np.ones(4)])


def test_a_word_before_another_subjects_head_does_not_make_it_that_subject(
    reader: StatementReader,
) -> None:
    """A newer memory about "the bike shed" cannot be what changed "my bike": it does not keep
    the bike at its own age (it did when any word of the subjects was shared). A key of the
    cabin is still a sibling fact of the cabin."""
    bike, shed = "My bike is a green Brompton.", "The bike shed at work takes a keypad code now."
    assert (bike, shed) not in _evidence(reader, bike, shed).unsettling
    cabin, key = "The cabin sleeps six people.", "The cabin key is under the mat."
    found = _evidence(reader, cabin, key)
    assert (cabin, key) in found.siblings
    assert (cabin, key) not in found.unsettling


def test_two_things_with_other_heads_are_apart_whatever_their_values_share(
    reader: StatementReader,
) -> None:
    """A flat and a caravan, both let for pounds: the similarity must not outdate the older
    (the shared unit kept them ``unknown``, left to the cosine)."""
    flat = "The flat in Leeds is let to students for £900 a month."
    caravan = "Our caravan in Whitby is rented out at £95 a night."
    found = _evidence(reader, flat, caravan)
    assert (flat, caravan) in found.unrelated
    assert not found.updates


def test_one_head_with_other_words_before_it_is_two_things(reader: StatementReader) -> None:
    """ "garage door code" / "shed door code": the embedder places the two words that say which
    door close (0.84 here), but they name two codes; two heads at that closeness ("lawyer" /
    "attorney") are still one thing named twice."""
    cosines = {frozenset({"garage", "shed"}): 0.84, frozenset({"lawyer", "attorney"}): 0.8}

    def near(a: str, b: str) -> float:
        return cosines.get(frozenset({a, b}), similar(a, b))

    def relation(old: str, new: str) -> str:
        return relate(reader.read(old), reader.read(new), near, 0.8).kind

    assert relation("The garage door code is 4417.", "The shed door code is 9930.") != "update"
    assert relation("My lawyer is Dana Reeve.", "My attorney is now Sam Ortiz.") == "update"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Ingrid teaches chemistry at the sixth form.", "Ingrid's sons are 9 and 12."),
        ("The user's sister is called Maud.", "The user's favourite film is Alien."),
        ("Oskar's ring size is 8.", "Oskar's parents live in Malmö."),
    ],
)
def test_two_things_of_one_owner_stand_side_by_side(
    reader: StatementReader, old: str, new: str
) -> None:
    """A person and their relative, or two things of one owner, each named by its own head:
    other attributes of one subject's world, not a version left to the cosine (they were
    ``unknown``, and the older fact took the ``newer_version`` penalty its similarity gave)."""
    relation = relate(reader.read(old), reader.read(new), similar, 0.45)
    assert (relation.kind, relation.sibling) == ("different", True)
    found = _evidence(reader, old, new)
    assert (old, new) in found.siblings
    assert (old, new) in found.unrelated


def test_a_revision_sharing_the_name_of_a_thing_updates_it(reader: StatementReader) -> None:
    """ "Finished Hyperion; now on Dune." revises what "Started Hyperion last week." says: the
    shared name is a book's, not a person's, and counts as common ground (it did not: every
    name was taken for who the two are about)."""
    old, new = "Started Hyperion last week.", "Finished Hyperion; now on Dune."
    assert kind(reader, old, new, 0.45) == "update"


def test_a_person_the_older_names_as_its_value_is_not_another_person(
    reader: StatementReader,
) -> None:
    """The newer is about Haddad, whom the older names as its value: one person, so the
    clauses decide (the two were read as about other people, and so never as versions)."""
    old = "My landlord is Mr. Haddad."
    assert kind(reader, old, "Haddad is just the caretaker; the landlord is Mrs. Novak.") == (
        "update"
    )
    assert kind(reader, "Maria lives in Nairobi.", "Aisha lives in Nairobi.") == "different"
