"""A newer text read in an older one's words where the two say one thing (cogmem.alignment)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cogmem import CognitiveMemory
from cogmem.alignment import aligned
from cogmem.canonical import canonical_text
from cogmem.differences import compare
from cogmem.lexical import Tokenizer
from cogmem.testing import HashingEmbedder

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def said(old: str, new: str) -> str:
    return aligned(canonical_text(old), canonical_text(new))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I'm 6 ft tall.", "I'm about 183 cm tall."),
        ("My daughter is 5'4\" tall.", "My daughter is 163 cm tall."),
        ("Our dog weighs 30 kg.", "Our dog weighs about 66 pounds."),
        ("The bread bakes at 180°C.", "The bread bakes at 356°F."),
        ("The hike takes 1.5 hours.", "The hike takes 90 minutes."),
        ("Our living room is 20 square meters.", "Our living room is 215 square feet."),
        ("I drink 2 liters of water a day.", "I drink 68 fluid ounces of water a day."),
        ("My commute is 12 miles each way.", "My commute is 19.3 km each way."),
    ],
)
def test_a_quantity_in_other_units_is_said_as_the_older_says_it(old: str, new: str) -> None:
    assert said(old, new) != canonical_text(new)
    assert compare(old, new, Tokenizer()).kind == "same"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I'm 6 ft tall.", "I'm 185 cm tall."),  # 182.88 cm is 183 to the centimetre
        ("The hike takes 2 hours.", "The hike takes 90 minutes."),
        ("The bread bakes at 20°C.", "The bread bakes at 70°F."),  # 68 °F
        ("My suitcase weighs 23 kg.", "My suitcase weighs 23 lbs."),
        ("Our room is 20 square meters.", "Our room is 25 square meters."),  # one unit: as said
    ],
)
def test_another_amount_is_left_as_it_is(old: str, new: str) -> None:
    assert said(old, new) == canonical_text(new)
    assert compare(old, new, Tokenizer()).kind != "same"


def test_a_round_number_said_roughly_is_said_to_its_last_digit_that_is_not_zero() -> None:
    tokenizer = Tokenizer()
    old = "My bag limit is 23 kg."
    assert compare(old, "My bag limit is about 50 lb.", tokenizer).kind == "same"
    assert compare(old, "My bag limit is 50 lb.", tokenizer).kind != "same"  # 50.7 lb
    assert compare(old, "My bag limit is about 60 lb.", tokenizer).kind != "same"


def test_a_lower_case_word_the_dictionary_never_saw_is_the_word_of_the_other_text() -> None:
    assert said("My gym is Planet Fitness.", "my gym is planet fitnes") == (
        "my gym is planet Fitness"
    )
    # either side may hold the misspelt word
    assert said("my favorite band is radiohaed", "My favorite band is Radiohead.") == (
        "My favorite band is radiohaed."
    )


def test_words_the_dictionary_knows_and_names_are_never_respelled() -> None:
    assert said("My sister lives in Oslo.", "My sitter lives in Oslo.") == (
        "My sitter lives in Oslo."
    )
    assert said("Ana Kowalsky called.", "Ana Kowalski called.") == "Ana Kowalski called."


def test_a_place_in_a_row_by_its_ordinal_or_its_number_is_one_place() -> None:
    assert said("The printer is on the third floor.", "The printer is on floor 3.") == (
        "The printer is on 3rd floor."
    )
    assert said("Lucas is in grade 5.", "Lucas is in fifth grade.") == "Lucas is in grade 5."
    # another number, or another noun, is another place
    assert said("The printer is on the third floor.", "The printer is on floor 4.") == (
        "The printer is on floor 4."
    )
    assert said("It is my third time.", "It is room 3.") == "It is room 3."


def test_a_compound_written_apart_or_as_one_word_is_written_as_the_older_writes_it() -> None:
    assert said("Blood type: O negative", "My blood type is O-negative.") == (
        "My blood type is O negative."
    )
    assert said("I work in healthcare.", "I work in health care.") == "I work in healthcare."
    assert said("He is a firefighter.", "He is a fire fighter.") == "He is a firefighter."


def test_the_word_comparison_reads_the_newer_text_in_the_older_ones_words() -> None:
    tokenizer = Tokenizer()
    assert compare("My run is 5 km.", "My run is 3.1 miles.", tokenizer).kind == "same"
    assert compare("My run is 5 km.", "My run is 4 miles.", tokenizer).kind != "same"


def test_a_height_restated_in_other_units_merges_and_another_height_does_not() -> None:
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        first = mem.write("I'm 6 ft tall.", memory_type="semantic", now=NOW)
        again = mem.write("I'm about 183 cm tall.", memory_type="semantic", now=NOW)
        assert (again.action, again.existing_id) == ("merged", first.id)
        other = mem.write("I'm 190 cm tall.", memory_type="semantic", now=NOW)
        assert other.action != "merged"
        assert len(mem) == 2
