"""Restatements in chat's spelling (typos, shorthand) and in other ways of writing a time, a
date or a half (cogmem.typos, cogmem.canonical), read as what they restate."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig
from cogmem.canonical import calendar_dates, canonical_text, clock_times, one_spelling, unchatted
from cogmem.differences import compare
from cogmem.embedding import MiniLMEmbedder
from cogmem.lexical import Tokenizer
from cogmem.reader import StatementReader
from cogmem.typos import mended
from cogmem.versions import Versions
from tests.test_versions import kind

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def test_a_clear_typo_is_mended() -> None:
    assert mended("im allergic to strawberies") == "im allergic to strawberries"
    assert mended("the meetng got moved") == "the meeting got moved"
    assert mended("learnign the banjo") == "learning the banjo"  # two letters swapped


@pytest.mark.parametrize(
    "text",
    [
        "Zumba on Fridays",  # a word with a capital may be a name
        "the wifi is down, lol",  # short words are one edit from too many others
        "i recieve it",  # "receive" and "relieve" are both one edit away
        "the programme starts",  # a British spelling, not "programmed"
        "my friend sipho",  # no word seen often enough one edit away ("siphon")
    ],
)
def test_a_word_is_left_as_written_where_the_dictionary_is_unsure(text: str) -> None:
    assert mended(text) == text


def test_chat_shorthand_is_read_as_words() -> None:
    assert unchatted("ur sister r here w/ me, back tmrw") == (
        "your sister are here with me, back tomorrow"
    )
    assert unchatted("coffee w/o sugar, the u.s. team, r&b") == (
        "coffee w/o sugar, the u.s. team, r&b"
    )
    assert unchatted("dentist is weds") == "dentist is wednesday"


def test_a_range_shares_the_part_of_the_day_its_end_names() -> None:
    assert clock_times("from 6:30 to 8 in the evening") == "from 18:30 to 20:00"
    assert clock_times("open 9-11am") == "open 09:00 to 11:00"
    assert clock_times("shift 10 to 2 pm") == "shift 10 to 14:00"  # 10 comes after 2 pm
    assert clock_times("at 5 to 6 pm") == "at 17:55"  # five to six, not a range
    assert clock_times("class 18:00–19:15") == "class 18:00 to 19:15"


def test_a_dotted_date_is_read_day_first() -> None:
    assert calendar_dates("due 04.09.2026") == calendar_dates("due 4 September 2026")
    assert canonical_text("from 04.09.2026 at 17.30") == "from 2026.09.04 at 17:30"


def test_and_a_half_is_a_half() -> None:
    assert canonical_text("two and a half hours") == canonical_text("2.5 hours")


@pytest.mark.parametrize(
    ("old", "new", "cosine"),
    [
        ("I'm allergic to strawberries.", "im allergic to strawberies", 0.55),
        (
            "Pottery class is from 6:30 to 8 in the evening.",
            "Pottery class runs 18:30–20:00.",
            0.85,
        ),
        (
            "The suitcase weighs 23.5 kg.",
            "The suitcase weighs twenty-three and a half kilos.",
            0.85,
        ),
    ],
)
def test_restated_in_another_spelling_is_the_same(
    reader: StatementReader, old: str, new: str, cosine: float
) -> None:
    assert kind(reader, old, new, cosine) == "same"


@pytest.mark.parametrize(
    ("first", "typed"),
    [
        ("I'm allergic to strawberries.", "im allergic to strawberies"),
        ("I'm learning to play the banjo.", "im learnign to play the banjo"),
        ("I'm training for a marathon.", "im trainng for a marathon"),
    ],
)
def test_a_restatement_with_typos_merges_with_the_real_model(first: str, typed: str) -> None:
    """Each was stored as a correction of what it restates."""
    with CognitiveMemory(embedder=MiniLMEmbedder(), config=CognitiveMemoryConfig()) as mem:
        said = mem.write(first, memory_type="semantic", now=NOW)
        again = mem.write(typed, memory_type="semantic", now=NOW)
        assert (again.action, again.existing_id) == ("merged", said.id)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("billing_currency: EUR", "billing_currency: GBP"),
        ("Preferred pronouns: he/him.", "My pronouns are now they/them."),
    ],
)
def test_a_changed_value_is_never_merged_into_what_it_changes(old: str, new: str) -> None:
    """Both were merged, and the second write lost: a value after a label was read as
    framing, and two values of pronouns alone as one."""
    with CognitiveMemory(embedder=MiniLMEmbedder(), config=CognitiveMemoryConfig()) as mem:
        mem.write(old, memory_type="semantic", now=NOW)
        assert mem.write(new, memory_type="semantic", now=NOW).action != "merged"
        assert {r.text for r in mem.memories()} == {old, new}


@pytest.mark.parametrize(
    "text",
    [
        "I'm organising the neighbourhood BBQ.",
        "FYI, the retro is at five in the evening.",  # a label the parser does not read
        "User: I have two kids\nAssistant: Noted, two kids.",  # speakers
        "im lactose intolerant lol 🥛🚫",
    ],
)
def test_a_read_keeps_the_text_in_the_spelling_dedup_compares(
    reader: StatementReader, text: str
) -> None:
    """The reader spells every text it parses; write-time dedup compares a write's neighbours
    in that spelling, so it must be the whole text's, labels and speakers included."""
    assert reader.read(text).spelled == one_spelling(canonical_text(text))


def test_dedup_compares_in_the_spelling_it_is_given_and_spells_the_rest() -> None:
    tokenizer = Tokenizer()
    old, new = "I have two kids.", "I have 2 kids."
    assert compare(old, new, tokenizer, spell=lambda text: None).kind == "same"  # spelled here
    known = {old: "I have 2 kids.", new: "I have 2 kids."}
    assert compare(old, new, tokenizer, spell=known.get).kind == "same"
    other = {old: "I have 2 kids.", new: "I have 3 kids."}
    assert compare(old, new, tokenizer, spell=other.get).kind != "same"  # what it was given


def test_a_text_not_read_has_no_known_spelling_and_is_not_parsed_for_one(
    reader: StatementReader,
) -> None:
    versions = Versions(reader, lambda a, b: 1.0 if a == b else 0.0)
    assert versions.spelled("Ingrid's colour is teal, never read.") is None
    assert reader.kept("Ingrid's colour is teal, never read.") is None
    reader.read("Ingrid's colour is teal.")
    assert versions.spelled("Ingrid's colour is teal.") == "Ingrid's color is teal."


def test_btw_inside_a_sentence_frames_it_and_is_no_part_of_its_subject(
    reader: StatementReader,
) -> None:
    assert unchatted("Ben, fyi, is vegan now") == "Ben is vegan now"
    old = "My son's swimming lesson is at the leisure centre."
    new = "Mad week, the car broke down, and oh btw swimming moved to the pool on Hill Road"
    (moved,) = [c for c in reader.read(new).claims if c.predicate == "move"]
    assert moved.subject == "swimming"
    assert kind(reader, old, new) == "update"
