"""Restatements told by their form (how often, dozens, grouped thousands, days of the week, a
part said again) and look-alikes that the same names and numbers must not merge
(cogmem.canonical, cogmem.content_words, cogmem.slots, cogmem.versions)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cogmem import CognitiveMemory, CognitiveMemoryConfig
from cogmem.canonical import canonical_text, dozens, rates, weekday
from cogmem.embedding import MiniLMEmbedder, embed_texts
from cogmem.phrases import Phrases
from cogmem.reader import StatementReader
from cogmem.versions import Versions, relate
from tests.test_versions import kind

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


# ----------------------------------------------------------------------- canonical forms
@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("I drink 2 L of water a day.", "I drink two liters of water daily."),
        ("Gym is €35/month.", "Gym is 35 euros every month."),
        ("I swim 3 times a week.", "I swim three times each week."),
        ("The fee is $90 annually.", "The fee is 90 dollars a year."),
        ("I walk the dog twice a day.", "I walk the dog two times daily."),
        ("We get groceries delivered weekly.", "We get groceries delivered once a week."),
    ],
)
def test_how_often_has_one_form(one: str, other: str) -> None:
    assert canonical_text(one) == canonical_text(other)


def test_how_often_is_not_read_into_a_span_of_time() -> None:
    for text in (
        "I took a day off.",
        "Back in a day or two.",
        "We met a week ago.",
        "For a year.",
        "My husband is a night owl.",
        "It was a day to remember.",
    ):
        assert rates(text) == text
    assert rates("My weekly session is long.") == "My weekly session is long."  # an adjective


def test_dozens_and_grouped_thousands_are_numbers() -> None:
    assert dozens("a dozen eggs, 2 dozen rolls, half a dozen buns") == "12 eggs, 24 rolls, 6 buns"
    assert dozens("dozens of times") == "dozens of times"
    assert canonical_text("Rent is 1,850 a month.") == canonical_text(
        "Rent is eighteen hundred fifty a month."
    )
    assert canonical_text("Tally: 1,2,3.") == "Tally: 1,2,3."


def test_a_day_of_the_week_has_one_name(reader: StatementReader) -> None:
    assert weekday("Weds") == weekday("Wednesdays") == "wednesday"
    assert weekday("sat") == "sat" and weekday("Sat", capitalised=True) == "saturday"
    weds, wednesdays = reader.read("Piano is on Weds."), reader.read("Piano is on Wednesdays.")
    assert weds.anchors == wednesdays.anchors
    assert "sunday" not in reader.read("Sun is out today.").anchors  # the star, not a day
    # short forms dateutil lacks, and "Wed." the parser reads as "We'd"
    assert canonical_text("Class is Tues and Thurs.") == "Class is Tuesday and Thursday."
    assert canonical_text("My day off is Wed.") == "My day off is Wednesday."
    assert canonical_text("Sun is out. Sat by the fire.") == "Sun is out. Sat by the fire."


# ----------------------------------------------------------------------- relations
@pytest.mark.parametrize(
    ("old", "new"),
    [
        # part of the older said again, with the same names and numbers
        ("I'm learning to play the cello.", "I've been learning the cello."),
        ("The public library hosts my chess club.", "My chess club is at the public library."),
        # how often, dozens and thousands in other forms
        ("I drink 2 L of water a day.", "I drink two liters of water daily."),
        ("I bake two dozen bagels every week.", "I bake 24 bagels each week."),
        ("Rent is 1,850 a month.", "Rent is eighteen hundred fifty a month."),
        # a day of the week in other forms, and a time that says it
        ("Chess club is on Weds.", "Chess club is on Wednesdays."),
    ],
)
def test_restatements_in_other_forms_are_the_same(
    reader: StatementReader, old: str, new: str
) -> None:
    assert kind(reader, old, new, cosine=0.85) == "same"


@pytest.mark.parametrize(
    ("old", "new", "cosine"),
    [
        # the words dropped name the subject: another person
        ("Ana's sister lives in Oslo.", "Ana lives in Oslo.", 0.9),
        # a past state against a present one
        ("I used to live in Paris.", "I live in Paris.", 0.9),
        # one subject doing two things with one value (a change, maybe; one fact, never)
        ("Walter runs 5 km every morning.", "Walter swims 5 km every morning.", 0.84),
        ("The kids go to bed at 8pm.", "The kids have dinner at 8pm.", 0.72),
        # one word after another preposition: two flights
        ("My flight to Rome is on May 3.", "My flight back from Rome is on May 3.", 0.94),
        # the same content words, in another direction or with the parts turned round
        (
            "The bus to the stadium runs every 15 min.",
            "The bus from the stadium runs every 15 min.",
            0.97,
        ),
        ("My dad texts me every Friday night.", "I text my dad every Friday night.", 0.93),
        # one verb, a word of each value the other lacks, the same names and numbers
        (
            "Priya plays squash with her cousin on Fridays.",
            "Priya plays bridge with her cousin on Fridays.",
            0.82,
        ),
    ],
)
def test_look_alikes_with_the_same_names_and_numbers_are_not_the_same(
    reader: StatementReader, old: str, new: str, cosine: float
) -> None:
    assert kind(reader, old, new, cosine) != "same"


def test_a_flight_back_is_no_version_of_the_flight_out(reader: StatementReader) -> None:
    old, new = "My flight to Rome is on May 3.", "My flight back from Rome is on May 10."
    assert kind(reader, old, new, cosine=0.91) != "update"
    # the same flight, corrected, still is
    assert kind(reader, old, "Correction: my flight to Rome is on May 4.", 0.88) == "update"


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Walter runs 5 km every morning.", "Walter swims 5 km every morning."),
        ("The kids go to bed at 8pm.", "The kids have dinner at 8pm."),
        ("My flight to Rome is on May 3.", "My flight back from Rome is on May 3."),
    ],
)
def test_a_look_alike_is_never_merged_away(minilm: MiniLMEmbedder, first: str, second: str) -> None:
    """With the real model: the second write is stored (these merged, and were lost)."""
    with CognitiveMemory(embedder=minilm, config=CognitiveMemoryConfig()) as mem:
        mem.write(first, memory_type="semantic", now=NOW)
        result = mem.write(second, memory_type="semantic", now=NOW)
        assert result.action != "merged"
        assert {r.text for r in mem.memories()} == {first, second}


def test_a_part_said_again_merges(minilm: MiniLMEmbedder) -> None:
    with CognitiveMemory(embedder=minilm, config=CognitiveMemoryConfig()) as mem:
        first = mem.write("I'm learning to play the cello.", memory_type="semantic", now=NOW)
        again = mem.write("I've been learning the cello.", memory_type="semantic", now=NOW)
        assert (again.action, again.existing_id) == ("merged", first.id)


def test_an_amount_in_another_unit_updates_it_but_another_thing_does_not(
    reader: StatementReader,
) -> None:
    """One number with another unit is a changed amount, not two things (as "a size 9 shoe" /
    "a size 9 ring" are)."""
    assert kind(reader, "Our puppy weighs 7 lbs.", "Our puppy weighs seven kilograms.", 0.9) == (
        "update"
    )
    assert kind(reader, "I wear a size 9 shoe.", "I wear a size 9 ring.", 0.75) == "different"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The old laptop runs Linux.", "The new laptop runs Linux."),
        ("My old phone is an iPhone.", "My new phone is an iPhone too."),
        ("My former boss lives in Leeds.", "My current boss lives in Leeds."),
    ],
)
def test_the_old_one_and_the_new_one_are_two_things(
    reader: StatementReader, old: str, new: str
) -> None:
    """ "old" / "new" only mark a version of one slot when the values differ ("my old number" /
    "my new number"); said of one value, they name two things, and neither is merged away."""
    assert kind(reader, old, new, cosine=0.9) != "same"


def test_an_old_value_and_a_new_one_still_update(reader: StatementReader) -> None:
    old, new = "My old number was 555-0142.", "My new number is 555-0199."
    assert kind(reader, old, new, cosine=0.88) == "update"
    old, new = "My phone number is 555-0142.", "My current phone number is 555-0142."
    assert kind(reader, old, new, cosine=0.94) == "same"


def test_a_role_after_works_as_is_what_the_person_is(reader: StatementReader) -> None:
    """An agent's note says "works as" where the user said "is"."""
    (claim,) = reader.read("The user's husband, Idris, works as a surveyor.").claims
    assert (claim.predicate, claim.complement) == ("be", "surveyor")
    old = "My wife Leila is a civil engineer."
    assert kind(reader, old, "The user's wife, Leila, works as a civil engineer.", 0.86) == "same"
    assert kind(reader, old, "The user's wife, Leila, works as a surveyor.", 0.6) == "update"


def test_a_subject_misspelled_is_the_same_subject(reader: StatementReader) -> None:
    old = "My favourite bar is The Copper Kettle."
    assert kind(reader, old, "my favrite bar is the copper pot", 0.78) == "update"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My shift ends at midnight.", "My shift finishes at 12am."),
        ("We bought a new sofa for the den.", "We got a new couch for the den."),
    ],
)
def test_verbs_that_are_no_opposites_still_say_the_same(
    minilm: MiniLMEmbedder, old: str, new: str
) -> None:
    """With the real model's phrase cosines ("end at" / "finish at" name one attribute)."""
    versions = Versions(StatementReader(), Phrases(lambda texts: embed_texts(minilm, texts)))
    assert versions.relate(old, new, 0.85).kind == "same"


def test_opposites_come_from_wordnet_through_first_senses() -> None:
    from cogmem.synonyms import opposite

    assert opposite("buy", "sell") and opposite("start", "end")  # "start" is "begin"'s sense
    assert not opposite("end", "finish") and not opposite("buy", "get")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My gym membership started on the 1st.", "My gym membership ends on the 1st."),
        ("I buy old records at the flea market.", "I sell old records at the flea market."),
        ("The pool opens at 7.", "The pool closes at 7."),
    ],
)
def test_opposite_verbs_of_one_value_are_not_the_same(
    minilm: MiniLMEmbedder, old: str, new: str
) -> None:
    """WordNet antonyms, which the real model places as close as one attribute's verbs."""
    versions = Versions(StatementReader(), Phrases(lambda texts: embed_texts(minilm, texts)))
    assert versions.relate(old, new, 0.9).kind == "different"


def test_left_handed_is_no_change(reader: StatementReader) -> None:
    """ "left" of a side ("left-handed", "my left knee") says nothing changed; the verb does."""
    from cogmem.lines import marks_change

    assert not marks_change("I write left-handed.") and not marks_change("My left knee hurts.")
    assert marks_change("I left Google last month.")
    assert kind(reader, "I write left-handed.", "User writes left-handed.", 0.81) == "same"


def test_a_past_habit_is_read_as_its_verb_and_ends_what_it_restates(
    reader: StatementReader,
) -> None:
    """ "used to" says what no longer holds: its own verb, in the past; said after the same
    state with a change mark, it updates it."""
    claims = reader.read("I used to work at Target; now I'm at Costco.").claims
    assert [(c.predicate, c.state) for c in claims] == [("work", False), ("be", True)]
    (claim,) = reader.read("We used the car to get there.").claims
    assert claim.predicate == "use"  # an object: no habit
    old, new = "I work at Target.", "I used to work at Target; now I'm at Costco."
    relation = relate(reader.read(old), reader.read(new), lambda a, b: 0.1, 0.77)
    assert (relation.kind, relation.sure) == ("update", True)


def test_a_number_word_written_as_a_name_stays_a_name() -> None:
    """ "Three" (a network) inside a sentence is no 3: read as a number, "switched to Three"
    changed a number, not the network."""
    assert canonical_text("Switched my mobile to Three.") == "Switched my mobile to Three."
    assert canonical_text("I watch Channel Four, not two.") == "I watch Channel Four, not 2."
    assert canonical_text("Three kids live here.") == "3 kids live here."


def test_a_label_with_a_possessive_is_read(reader: StatementReader) -> None:
    """ "Parents' anniversary: 24 July." names a thing in words (a possessive's apostrophe
    is no quoted key): the anniversary is 24 July, and it updates the date said before."""
    (claim,) = reader.read("Parents' anniversary: 24 July.").claims
    assert (claim.subject, claim.predicate, claim.value) == ("parent anniversary", "be", ("07.24",))
    assert reader.read('{"text": "hi"}').claims == ()
    old = "My parents' anniversary is June 24."
    assert kind(reader, old, "Parents' anniversary: 24 July.", 0.8) == "update"


def test_a_damaged_antonym_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The antonyms ship sha256-checked, as the synonyms do: a damaged file is named."""
    import cogmem.synonyms as synonyms
    from cogmem.errors import CogmemError

    synonyms.same_sense("sofa", "couch")  # the synonyms read whole first
    real = synonyms.resources.files

    class Damaged:
        def joinpath(self, name: str) -> object:
            path = real("cogmem").joinpath(name)
            return type("File", (), {"read_bytes": lambda _: path.read_bytes()[:-1] + b"x"})()

    monkeypatch.setattr(synonyms, "_antonyms", None)
    monkeypatch.setattr(synonyms.resources, "files", lambda _: Damaged())
    with pytest.raises(CogmemError, match=r"wordnet-antonyms\.txt\.gz is damaged"):
        synonyms.opposite("buy", "sell")
