"""Restatements as people speak them (cogmem.disfluency), with a bare clock time, a date given
by other verbs, a name retyped in lower case, or a quantity in other units: read as what they
restate, and the look-alikes and corrections among them still told apart."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig
from cogmem.agreement import one_clock
from cogmem.anchoring import anchored
from cogmem.canonical import canonical_text, clock_times
from cogmem.claims import Statement
from cogmem.disfluency import fluent, unhedged
from cogmem.embedding import MiniLMEmbedder
from cogmem.people import people_of
from cogmem.reader import StatementReader
from cogmem.typos import mended
from cogmem.units import units
from tests.test_versions import kind

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


# ---------------------------------------------------------------------------- the forms
def test_what_speech_adds_to_a_statement_is_dropped() -> None:
    assert fluent("Um, so basically my landlord is, like, Mr Osei, yeah.") == (
        "my landlord is Mr Osei."
    )
    assert fluent("Okay so I'm sort of, you know, learning Greek.") == "I'm learning Greek."
    assert fluent("Well, our cat, she's a Maine Coon.") == "our cat is a Maine Coon."
    assert fluent("Oh and my boss, her name's Ines.") == "my boss's name's Ines."


@pytest.mark.parametrize(
    "text",
    [
        "I mean Tuesday, not Monday.",  # a correction's "I mean" has no comma
        "Roquefort is a kind of cheese.",  # "kind of" as a noun
        "Do you know a good plumber?",
        "According to the user, their brother lives in Riga.",  # no subject said twice
        "So far the new job is fine.",
    ],
)
def test_words_that_say_something_are_kept(text: str) -> None:
    assert fluent(text) == text


def test_an_approximate_number_is_the_number() -> None:
    assert unhedged("around 3 hour, roughly 40 minute, approx 2 liter, ~5") == (
        "3 hour, 40 minute, 2 liter, 5"
    )
    assert unhedged("a film about 1917") == "a film about 1917"  # a year is no amount


def test_a_time_that_does_not_say_its_part_of_the_day_is_bare() -> None:
    assert clock_times("at quarter past 4, at half 6, at 9:10, at 09:10, at 9:10pm") == (
        "at 4:15, at 6:30, at 9:10, at 09:10, at 21:10"
    )
    assert one_clock("4:15", "16:15") and one_clock("4:15", "04:15")
    assert not one_clock("04:15", "16:15")  # both say the part of the day
    assert not one_clock("4:15", "16:45")


def test_quantities_have_one_unit() -> None:
    assert units("0.75 m, 75 cm, 750 mm") == "75 centimeter, 75 centimeter, 75 centimeter"
    assert units("1200 g, 1.2 kg") == "1.2 kilogram, 1.2 kilogram"
    assert units("a 3% fee, a 3 percent fee") == "a 3 percent fee, a 3 percent fee"
    assert units('a 65" screen, she is 5\'7"') == "a 65 inch screen, she is 5 foot 7 inch"
    assert units("the desk is 160 x 80 cm") == units("the desk is 1.6 m by 0.8 m")
    assert units("ran a 10k, 3 k") == "ran a 10k, 3 k"  # "k" is no Boltzmann constant
    assert canonical_text("a session of an hour and a half") == "a session of 1.5 hour"
    assert canonical_text("Twice a month I see a physio.") == canonical_text(
        "I see a physio twice a month."
    )


def test_every_few_periods_is_one_rate() -> None:
    said = {
        canonical_text(f"The gutters are cleared {rate}.")
        for rate in ("every fortnight", "fortnightly", "every two weeks", "every other week")
    }
    assert said == {"The gutters are cleared per 2 week."}
    assert canonical_text("We stayed for a fortnight.") == "We stayed for a fortnight."
    assert canonical_text("every three days") != canonical_text("every day")


def test_a_function_word_typed_with_two_letters_swapped_is_mended() -> None:
    assert mended("i left teh keys") == "i left the keys"
    for text in ("my chem exam", "an intro class", "2 wks", "vit d", "a bowl of pho"):
        assert mended(text) == text  # short words, one edit from too much


# ------------------------------------------------------------------------ the relation
@pytest.mark.parametrize(
    ("old", "new", "cosine"),
    [
        ("I cycle to the office.", "So, um, basically I cycle to the office, yeah.", 0.9),
        (
            "I'm training for a half marathon.",
            "Honestly I'm kind of, you know, training for a half marathon at the moment.",
            0.8,
        ),
        ("Our parrot is an African grey.", "Well, our parrot, he's an African grey, right.", 0.9),
        ("I sleep about 7 hours a night.", "I sleep roughly seven hours per night.", 0.95),
        ("Choir practice is at half past six.", "Choir practice: 6:30pm.", 0.75),
        ("The car insurance renews on 2027-02-01.", "Car insurance runs out on 1 Feb 2027.", 0.8),
        ("Amara was born on 03.05.2018.", "Amara's date of birth is May 3, 2018.", 0.85),
        ("My aunt lives in Birmingham.", "my aunt lives in birmingam", 0.55),
        ("My sister-in-law Ines teaches music.", "my sister in law ines teaches music", 0.8),
        ("Dario has visited 12 countries.", "Dario has visited twelve countries so far.", 0.95),
        ("Dario has visited 12 countries.", "To date, Dario has visited 12 countries.", 0.95),
        ("Bea is my godmother.", "Not sure if I mentioned it, but Bea is my godmother.", 0.85),
        (
            "Our cat Miso is afraid of the hoover.",
            "Just a heads-up, Miso is afraid of the hoover.",
            0.8,
        ),
        ("The shed is 2.4 m by 1.8 m.", "The shed measures 240 x 180 cm.", 0.75),
        ("My commute takes 1.5 hrs.", "My commute takes an hour and a half.", 0.85),
        ("My alarm is set for 5:45 in the morning.", "Alarm goes off at 05:45.", 0.78),
        (
            "The hedge is trimmed by Tomasz every fortnight.",
            "Tomasz trims the hedge every two weeks.",
            0.85,
        ),
    ],
)
def test_restated_as_spoken_or_in_other_units_is_the_same(
    reader: StatementReader, old: str, new: str, cosine: float
) -> None:
    assert kind(reader, old, new, cosine) == "same"


@pytest.mark.parametrize(
    ("old", "new", "cosine"),
    [
        ("The last train leaves at 10:45.", "Actually, the last train leaves at 22:45.", 0.9),
        ("The pool opens at 06:00.", "The pool closes at 06:00.", 0.85),
        ("My passport expires on 15 March 2026.", "My visa expires on 15 March 2026.", 0.75),
        ("My yoga class is at 6pm on Tuesdays.", "My pilates class is at 6pm on Tuesdays.", 0.75),
        ("The kids go to bed at 8pm.", "The kids have dinner at 8pm.", 0.75),
        ("My friend Hana lives in Oslo.", "my friend dana lives in oslo", 0.6),
        ("The shed is 2.4 m by 1.8 m.", "The shed is 2.4 m by 1.9 m.", 0.95),
        ("The hedge is trimmed every fortnight.", "The hedge is trimmed every three weeks.", 0.9),
        ("Dario has visited 12 countries.", "Dario has visited 14 countries so far.", 0.95),
    ],
)
def test_a_change_or_another_thing_stays_apart(
    reader: StatementReader, old: str, new: str, cosine: float
) -> None:
    assert kind(reader, old, new, cosine) != "same"


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("I drive a grey Skoda.", "So, um, basically I drive a grey Skoda, yeah."),
        ("My sister lives in Edinburgh.", "my sistr lives in edinburg"),
        ("The hallway rug is 2.5 m long.", "The hallway rug is 250 cm long."),
        ("I see a physio twice a month.", "Twice a month I see a physio."),
    ],
)
def test_restated_as_spoken_merges_with_the_real_model(first: str, again: str) -> None:
    """Each was stored a second time, as a new memory or as a correction of the first."""
    with CognitiveMemory(embedder=MiniLMEmbedder(), config=CognitiveMemoryConfig()) as mem:
        said = mem.write(first, memory_type="semantic", now=NOW)
        written = mem.write(again, memory_type="semantic", now=NOW)
        assert (written.action, written.existing_id) == ("merged", said.id)


def test_opposite_verbs_with_other_values_are_two_facts_with_the_real_model() -> None:
    """ "The library opens at 9." / "The library closes at 17:00.": the embedder puts the two
    verbs in one slot, and the other time read as that slot changed, a sure update linked
    at write time. Opposite verbs say two facts of the slot; the same verb with another
    time still updates it."""
    with CognitiveMemory(embedder=MiniLMEmbedder(), config=CognitiveMemoryConfig()) as mem:
        opens = mem.write("The bakery opens at 7.", memory_type="semantic", now=NOW)
        closes = mem.write("The bakery shuts at 15:00.", memory_type="semantic", now=NOW)
        assert closes.action == "stored"
        later = mem.write("The bakery opens at 8 now.", memory_type="semantic", now=NOW)
        assert (later.action, later.existing_id) == ("new_version", opens.id)


def test_a_word_tagged_a_name_in_one_text_only_is_no_shared_anchor() -> None:
    """ "Preferred seat: aisle" / "Preferred seat: window (aisle people keep getting bumped)"
    was read "same" and the correction merged away (heldout7): "aisle", tagged a name in the
    first only, was the one anchor that made the two "anchored"."""
    old = Statement("Preferred seat: aisle", (), anchors=frozenset({"aisle"}),
                    words=frozenset({"preferred", "seat", "aisle"}))  # fmt: skip
    new = Statement("Preferred seat: window (aisle people keep getting bumped)", (),
                    words=frozenset({"seat", "window", "aisle", "people"}))  # fmt: skip
    assert not anchored(old, new, 0.9)
    named = Statement("Alarm: 06:30", (), anchors=frozenset({"06:30", "alarm"}),
                      words=frozenset({"alarm", "06:30"}))  # fmt: skip
    said = Statement("My alarm is set for 06:30.", (), anchors=frozenset({"06:30"}),
                     words=frozenset({"my", "alarm", "be", "set", "for", "06:30"}))  # fmt: skip
    assert anchored(said, named, 0.9)  # the time both read is shared


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # it names what it replaces: near enough, though below the closeness a mark needs
        (
            "I'm flying out of Heathrow for the Porto trip.",
            "actually it's Luton, not Heathrow",
            "update",
        ),
        # the same negation of another person's fact is no change of it
        ("My uncle lives in Bergen.", "Actually my aunt lives in Oslo, not Bergen.", "different"),
    ],
)
def test_a_correction_that_names_what_it_replaces_needs_only_be_near(
    reader: StatementReader, old: str, new: str, expected: str
) -> None:
    assert kind(reader, old, new, 0.42) == expected


def test_lets_is_a_plan_of_ours() -> None:
    """ "Let's ..." was read with "'s" as its subject: another subject than "we are ..."."""
    assert canonical_text("Let's get pizza on Friday. OK, let's go.") == (
        "We will get pizza on Friday. we will go."
    )
    assert canonical_text("Let Sam know. She lets the cat out.") == (
        "Let Sam know. She lets the cat out."
    )


def test_a_thing_that_starts_a_sentence_is_no_person(reader: StatementReader) -> None:
    """ "Violin" opening the newer text was read as a person, and so as another subject than
    the older's "my violin": a move of the violin stood beside where it was."""
    old, new = "I keep my violin at my mum's.", "Violin now lives at my flat."
    assert kind(reader, old, new, 0.6) == "update"
    assert people_of(reader.read(new)) == {"violin"}  # as read alone
    assert people_of(reader.read(new), reader.read(old)) == set()  # beside "my violin"
