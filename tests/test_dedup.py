"""Write-time dedup tells a restatement from an update (cogmem.dedup), and the write path and
scoring keep what the agent was told last first."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogmem import CognitiveMemory, CognitiveMemoryConfig, DuplicateIdError, MemoryInput
from cogmem.chroma_layout import PACKED_KEY
from cogmem.dedup import Neighbour, compare, decide, merged
from cogmem.lexical import Tokenizer
from cogmem.records import MemoryRecord
from cogmem.testing import HashingEmbedder
from cogmem.transfer import export_jsonl, import_jsonl
from cogmem.versions import Relation
from tests import internals
from tests.conftest import NOW

DAY = timedelta(days=1)
TOKENIZER = Tokenizer()
CONFIG = CognitiveMemoryConfig()


@pytest.fixture
def memory(embedder: HashingEmbedder) -> Iterator[CognitiveMemory]:
    with CognitiveMemory(embedder=embedder) as mem:
        yield mem


# ------------------------------------------------------------------------------ compare
FLIGHT = "The user's flight to Lisbon is on May 3."


@pytest.mark.parametrize(
    "again",
    [
        FLIGHT,
        "the user's flight to lisbon is on may 3!",
        "  The user's   flight to Lisbon is on May 3  ",
        "The user's flight to Lisbon is on May 3",
        "Note: the user's flight to Lisbon is on May 3.",
        "FYI, the user's flight to Lisbon is on May 3.",
        "Heads up - the user's flight to Lisbon is on May 3.",
        "Just so you know, the user's flight to Lisbon is on May 3.",
        "Don't forget: the user's flight to Lisbon is on May 3.",
        "Remember that the user's flight to Lisbon is on May 3.",
        "As I said, the user's flight to Lisbon is on May 3.",
        "The user's flight to Lisbon is on May 3, as mentioned.",
        "The user's flight to Lisbon is on May 3 (again).",
        "User's flight to Lisbon is on May 3.",  # an article dropped
    ],
)
def test_a_restatement_is_the_same(again: str) -> None:
    assert compare(FLIGHT, again, TOKENIZER).kind == "same"
    assert compare(again, FLIGHT, TOKENIZER).kind == "same"


@pytest.mark.parametrize(
    ("old", "new", "change"),
    [
        (FLIGHT, "The user's flight to Lisbon is on May 13.", "'3' -> '13'"),
        (FLIGHT, "The user's flight to Lisbon is on June 3.", "'May' -> 'June'"),
        (FLIGHT, "The user's flight to Porto is on May 3.", "'Lisbon' -> 'Porto'"),
        ("The database runs Postgres 15.", "The database runs Postgres 16.", "'15' -> '16'"),
        ("Standup is at 8am.", "Standup is at 9am.", "'8am' -> '9am'"),
        ("Rent is 1200 euros.", "Rent is 1250 euros.", "'1200' -> '1250'"),
        ("Maria's manager is Elena.", "Maria's manager is Raj.", "'Elena' -> 'Raj'"),
        ("The user is allergic to peanuts.", "The user is not allergic to peanuts.", "+'not'"),
        ("The user is allergic to peanuts.", "The user isn't allergic to peanuts.", "+'not'"),
        ("The user is allergic to peanuts.", "The user is no longer allergic to peanuts.", None),
        ("The user is not allergic to peanuts.", "The user is allergic to peanuts.", "-'not'"),
        ("The editor theme is dark.", "The editor theme is light.", "'dark' -> 'light'"),
        ("Gym class is on Mondays.", "Gym class is on Fridays.", "'Mondays' -> 'Fridays'"),
        ("The review is in the second week.", "The review is in the third week.", None),
        ("Note 31 was filed on day 31.", "Note 33 was filed on day 33.", None),
    ],
)
def test_a_changed_detail_is_a_change(old: str, new: str, change: str | None) -> None:
    comparison = compare(old, new, TOKENIZER)
    assert comparison.kind == "changed"
    if change is not None:
        assert change in comparison.changes


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Maria lives in Osaka.", "Maria lived in Osaka."),  # inflection: same stem
        ("Maria lives in Osaka.", "Maria still lives in Osaka."),  # a plain word inside
        ("Maria likes tea.", "Maria likes green tea."),
    ],
)
def test_other_differences_are_unclear(old: str, new: str) -> None:
    assert compare(old, new, TOKENIZER).kind == "unclear"


@pytest.mark.parametrize(
    "framed",
    [
        "Yesterday, the standup is at 8am.",
        "In Berlin, the standup is at 8am.",
        "Until Friday, the standup is at 8am.",
        "Wrong: the standup is at 8am.",
        "Maybe the standup is at 8am.",
        "Not true: the standup is at 8am.",
    ],
)
def test_a_phrase_that_carries_meaning_is_no_frame(framed: str) -> None:
    assert compare("The standup is at 8am.", framed, TOKENIZER).kind != "same"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The Wi-Fi network is called Nebula5G.", "the wifi network is called Nebula5G"),
        ("My e-mail is kim@example.com.", "My email is kim@example.com."),
        ("For breakfast I always have oatmeal.", "I always have oatmeal for breakfast."),
        ("I swim at the lake on Tuesdays.", "On Tuesdays I swim at the lake."),
        (
            "Soraya visits her grandparents twice a month.",
            "Twice a month, Soraya visits her grandparents.",
        ),
        # in one spelling: number words, clock times, UK/US, contractions that say one word
        ("I have two kids.", "I have 2 kids."),
        ("Dinner is at 5 pm.", "Dinner is at 17:00."),
        ("The retro is at five in the evening.", "The retro is at 17:00."),
        ("My favourite colour is green.", "My favorite color is green."),
        ("I'm vegetarian.", "I am vegetarian."),
    ],
)
def test_a_compound_joined_a_moved_phrase_or_another_spelling_is_the_same(
    old: str, new: str
) -> None:
    assert compare(old, new, TOKENIZER).kind == "same"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Ana owes Bo 5 dollars.", "Bo owes Ana 5 dollars."),  # names moved: roles swapped
        ("I swim on Tuesdays.", "On Thursdays I swim."),  # moved, and another day
        ("The standup is at 8am.", "In Berlin, the standup is at 8am."),  # added, not moved
        ("I have two kids.", "I have 3 kids."),
    ],
)
def test_a_move_that_changes_what_is_said_is_no_restatement(old: str, new: str) -> None:
    assert compare(old, new, TOKENIZER).kind != "same"


def test_a_change_of_subject_is_told_from_a_change_of_value() -> None:
    assert compare("Lena's theme is dark.", "Maria's theme is dark.", TOKENIZER).subject_changed
    assert compare("Maria lives in Nairobi.", "Aisha lives in Nairobi.", TOKENIZER).subject_changed
    value = compare("Maria's manager is Elena.", "Maria's manager is Raj.", TOKENIZER)
    assert value.one_detail and not value.subject_changed


# ------------------------------------------------------------------------------ decide
def _record(text: str, memory_id: str, **fields: object) -> MemoryRecord:
    values: dict[str, object] = {"memory_type": "semantic", "created_at": NOW}
    values.update(fields)
    return MemoryRecord(id=memory_id, text=text, **values)  # type: ignore[arg-type]


def test_decide_merges_a_restatement_and_keeps_what_it_carried() -> None:
    stored = _record(FLIGHT, "a", tags=("travel",), metadata={"src": "chat"}, session_ids=("s1",))
    new = _record(
        "Note: " + FLIGHT,
        "b",
        created_at=NOW + DAY,
        tags=("urgent",),
        metadata={"trip": 7},
        session_ids=("s2",),
        importance=0.9,
    )
    decision = decide(new, [Neighbour(stored, 0.95)], CONFIG, TOKENIZER)
    assert decision.action == "merged" and decision.record is None
    (kept,) = decision.rewritten
    assert kept.id == "a" and kept.text == FLIGHT
    assert kept.tags == ("travel", "urgent")
    assert dict(kept.metadata) == {"src": "chat", "trip": 7}
    assert kept.session_ids == ("s1", "s2")
    assert kept.importance == 0.9
    assert kept.stability == pytest.approx(stored.stability + CONFIG.dedup_stability_gain)
    assert kept.last_accessed_at == NOW + DAY  # being told again is a rehearsal


def test_a_restatement_that_would_overwrite_metadata_or_type_is_a_new_version() -> None:
    stored = _record(FLIGHT, "a", metadata={"src": "chat"})
    other_value = _record(FLIGHT, "b", metadata={"src": "email"})
    decision = decide(other_value, [Neighbour(stored, 1.0)], CONFIG, TOKENIZER)
    assert decision.action == "new_version" and decision.existing_id == "a"
    assert decision.record is not None and decision.record.previous_version == "a"
    assert decision.changes == ("metadata 'src': 'chat' -> 'email'",)
    other_type = _record(FLIGHT, "c", memory_type="procedural")
    assert decide(other_type, [Neighbour(stored, 1.0)], CONFIG, TOKENIZER).action == "new_version"


def test_decide_stores_what_is_not_near_or_not_comparable() -> None:
    new = _record("The user's flight to Lisbon is on May 13.", "b")
    assert decide(new, [], CONFIG, TOKENIZER).action == "stored"
    far = Neighbour(_record(FLIGHT, "a"), CONFIG.dedup_candidate_similarity - 0.01)
    assert decide(new, [far], CONFIG, TOKENIZER).action == "stored"
    archived = Neighbour(_record(FLIGHT, "a", status="superseded"), 0.99)
    assert decide(_record(FLIGHT, "c"), [archived], CONFIG, TOKENIZER).action == "stored"
    # The same words as an episode weeks later: another event.
    episode = _record(FLIGHT, "a", memory_type="episodic")
    later = _record(FLIGHT, "d", memory_type="episodic", created_at=NOW + 20 * DAY)
    assert decide(later, [Neighbour(episode, 1.0)], CONFIG, TOKENIZER).action == "stored"
    off = CONFIG.replace(dedup_threshold=None)
    assert decide(_record(FLIGHT, "e"), [Neighbour(_record(FLIGHT, "a"), 1.0)], off, TOKENIZER)


def test_the_judge_is_asked_only_about_unclear_pairs() -> None:
    asked: list[tuple[str, str]] = []

    def judge(first: str, second: str) -> bool:
        asked.append((first, second))
        return True

    stored = _record("Maria lives in Osaka.", "a")
    unclear = _record("Maria still lives in Osaka.", "b")
    assert decide(unclear, [Neighbour(stored, 0.95)], CONFIG, TOKENIZER).action == "new_version"
    decision = decide(unclear, [Neighbour(stored, 0.95)], CONFIG, TOKENIZER, judge)
    assert decision.action == "merged" and asked == [(stored.text, unclear.text)]
    changed = _record("Maria lives in Kyoto.", "c")
    assert decide(changed, [Neighbour(stored, 0.9)], CONFIG, TOKENIZER, judge).action == (
        "new_version"
    )
    assert len(asked) == 1  # a clear change is never put to the judge


def test_a_failing_judge_stores_the_write(caplog: pytest.LogCaptureFixture) -> None:
    def judge(first: str, second: str) -> bool:
        raise TimeoutError("model timed out")

    stored = _record("Maria lives in Osaka.", "a")
    with caplog.at_level(logging.WARNING, logger="cogmem"):
        decision = decide(
            _record("Maria still lives in Osaka.", "b"),
            [Neighbour(stored, 0.95)],
            CONFIG,
            TOKENIZER,
            judge,
        )
    assert decision.action == "new_version"
    assert "dedup judge failed" in caplog.text and "model timed out" in caplog.text


def test_a_new_version_attaches_to_the_newest_version_of_its_fact() -> None:
    v1 = _record("Standup is at 8am.", "v1")
    v2 = _record("Standup is at 9am.", "v2", previous_version="v1")
    newer = {"v1": [v2]}
    decision = decide(
        _record("Standup is at 10am.", "v3"),
        [Neighbour(v1, 0.97)],  # v1 is nearest, but v2 updated it since
        CONFIG,
        TOKENIZER,
        newer=lambda memory_id: newer.get(memory_id, []),
    )
    assert decision.action == "new_version" and decision.existing_id == "v2"
    assert decision.record is not None and decision.record.previous_version == "v2"
    assert decision.changes == ("'9am' -> '10am'",)


def test_restating_an_updated_version_makes_it_the_newest_again() -> None:
    old = _record("Standup is at 8am.", "old", previous_version="x")
    update = _record("Standup is at 11am.", "upd", previous_version="old")
    newer = {"x": [old], "old": [update]}
    decision = decide(
        _record("Standup is at 8am!", "again", created_at=NOW + DAY),
        [Neighbour(old, 1.0), Neighbour(update, 0.96)],
        CONFIG,
        TOKENIZER,
        newer=lambda memory_id: newer.get(memory_id, []),
    )
    assert decision.action == "merged" and decision.existing_id == "old"
    by_id = {r.id: r for r in decision.rewritten}
    # x <- old <- upd  becomes  x <- upd <- old
    assert by_id["old"].previous_version == "upd" and by_id["upd"].previous_version == "x"


def test_merged_never_loses_a_flag_or_a_later_rehearsal() -> None:
    stored = _record(FLIGHT, "a", last_accessed_at=NOW + 5 * DAY)
    pinned = _record(FLIGHT, "b", created_at=NOW + DAY, pinned=True, confidence=0.99)
    out = merged(stored, pinned, CONFIG)
    assert out.pinned and out.confidence == 0.99
    assert out.last_accessed_at == NOW + 5 * DAY  # an older restatement does not move it back


# ------------------------------------------------------------------------------ the write path
def test_a_correction_is_kept_and_answers_first(memory: CognitiveMemory) -> None:
    old = memory.write(FLIGHT, memory_type="semantic", now=NOW - 9 * DAY)
    new = memory.write("The user's flight to Lisbon is on May 13.", memory_type="semantic", now=NOW)
    assert old.action == "stored" and new.action == "new_version"
    assert new.existing_id == old.id and new.changes == ("'3' -> '13'",)
    assert new.id != old.id and len(memory) == 2
    assert memory.get(new.id).previous_version == old.id
    hits = memory.search("When is the user's flight to Lisbon?", now=NOW, reinforce=False)
    assert [h.id for h in hits[:2]] == [new.id, old.id]
    assert hits[1].explanation.newer_version_id == new.id
    assert hits[1].explanation.penalties["newer_version"] < 1


def test_a_negation_is_kept_and_answers_first(memory: CognitiveMemory) -> None:
    memory.add("The user is allergic to peanuts.", memory_type="semantic", now=NOW - DAY)
    new = memory.add("The user is not allergic to peanuts.", memory_type="semantic", now=NOW)
    hits = memory.search("Is the user allergic to peanuts?", now=NOW, reinforce=False)
    assert hits[0].id == new and len(memory) == 2


def test_a_restatement_merges_and_says_so(memory: CognitiveMemory) -> None:
    first = memory.add(FLIGHT, memory_type="semantic", tags=["travel"], now=NOW - DAY)
    outcome = memory.write(
        "FYI, the user's flight to Lisbon is on May 3!",
        memory_type="semantic",
        tags=["urgent"],
        metadata={"source": "email"},
        session_id="s9",
        now=NOW,
    )
    assert outcome.action == "merged" and outcome.id == first == outcome.existing_id
    assert len(memory) == 1
    kept = memory.get(first)
    assert kept.text == FLIGHT and kept.tags == ("travel", "urgent")
    assert kept.metadata == {"source": "email"} and kept.session_ids == ("s9",)
    assert memory.add(FLIGHT.lower(), memory_type="semantic", now=NOW) == first


def test_a_plain_restatement_is_written_behind_as_a_recall_is(
    tmp_path: Path, embedder: HashingEmbedder
) -> None:
    """A merge that carries nothing but reinforcement costs no Chroma write (a Chroma write
    costs more than the whole rest of a write); one that carries a tag is written through."""

    def in_chroma(mem: CognitiveMemory, memory_id: str) -> dict[str, object]:
        raw = internals.store(mem, flush=False).collection.get(ids=[memory_id])
        return dict(json.loads(raw["metadatas"][0][PACKED_KEY]))  # stability, tags, ...

    mem = CognitiveMemory(path=tmp_path, embedder=embedder)
    first = mem.add(FLIGHT, memory_type="semantic", now=NOW - DAY)
    mem.flush()
    before = in_chroma(mem, first)
    again = mem.write(FLIGHT.lower(), memory_type="semantic", now=NOW)
    assert again.action == "merged" and mem.get(first).stability > before["stab"]
    assert in_chroma(mem, first) == before  # behind: not yet in Chroma
    del mem  # dies without close: the reinforcement is lost, as a recall would be
    with CognitiveMemory(path=tmp_path, embedder=embedder) as mem:
        assert len(mem) == 1 and mem.get(first).stability == before["stab"]
        mem.write(FLIGHT.lower(), memory_type="semantic", now=NOW)
        mem.flush()
        assert in_chroma(mem, first)["stab"] == mem.get(first).stability > before["stab"]
        other = mem.add("The user's cat is called Miso.", memory_type="semantic", now=NOW)
        tagged = mem.write(FLIGHT, memory_type="semantic", tags=["travel"], now=NOW)
        assert tagged.action == "merged"
        assert in_chroma(mem, first)["tags"] == ["travel"]  # through: at once
        assert internals.namespace(mem).held_ids == [other]  # not made to wait for it


def test_what_was_told_last_comes_first_without_a_third_copy(memory: CognitiveMemory) -> None:
    eight = memory.add("The team standup is at 8am.", memory_type="semantic", now=NOW - 30 * DAY)
    eleven = memory.add("The team standup is at 11am.", memory_type="semantic", now=NOW - 9 * DAY)
    again = memory.write("the team standup is at 8am!", memory_type="semantic", now=NOW)
    assert again.action == "merged" and again.id == eight and len(memory) == 2
    assert memory.get(eight).previous_version == eleven
    hits = memory.search("When is the team standup?", now=NOW, reinforce=False)
    assert [h.id for h in hits[:2]] == [eight, eleven]


def test_another_subject_is_not_an_older_version(memory: CognitiveMemory) -> None:
    maria = memory.add("Maria lives in Nairobi.", memory_type="semantic", now=NOW - 5 * DAY)
    aisha = memory.write("Aisha lives in Nairobi.", memory_type="semantic", now=NOW)
    assert aisha.action == "stored" and memory.get(aisha.id).previous_version is None
    assert memory.search("Where does Maria live?", now=NOW, reinforce=False)[0].id == maria


def test_add_many_decides_among_its_items(memory: CognitiveMemory) -> None:
    outcomes = memory.write_many(
        [
            MemoryInput("Kenji's phone extension is 153.", memory_type="semantic"),
            MemoryInput("kenji's phone extension is 153!", memory_type="semantic"),
            MemoryInput("Kenji's phone extension is 43.", memory_type="semantic"),
            MemoryInput("Kenji's phone extension is 43.", memory_type="semantic", id="k"),
        ],
        now=NOW,
    )
    assert [o.action for o in outcomes] == ["stored", "merged", "new_version", "new_version"]
    assert outcomes[1].id == outcomes[0].id
    assert memory.get(outcomes[2].id).previous_version == outcomes[0].id
    assert outcomes[3].id == "k" and len(memory) == 3  # a chosen id is never merged,
    assert memory.get("k").previous_version == outcomes[2].id  # only linked: said last


def test_a_refused_call_changes_nothing(memory: CognitiveMemory) -> None:
    memory.add("0", id="seed-0", now=NOW)
    memory.add("0", now=NOW)
    before = [(r.id, r.stability, r.session_ids) for r in memory.records()]
    with pytest.raises(DuplicateIdError):
        # The first item restates a stored memory; the second reuses a stored id.
        memory.add_many(["0", {"text": "0", "id": "seed-0"}], now=NOW + DAY)
    assert [(r.id, r.stability, r.session_ids) for r in memory.records()] == before


def test_versions_survive_a_reopen_and_an_export(tmp_path: Path) -> None:
    with CognitiveMemory(path=tmp_path / "a", embedder=HashingEmbedder()) as mem:
        old = mem.add("Rent is 1200 euros a month.", memory_type="semantic", now=NOW - DAY)
        new = mem.add("Rent is 1250 euros a month.", memory_type="semantic", now=NOW)
        export_jsonl(mem, tmp_path / "m.jsonl")
    with CognitiveMemory(path=tmp_path / "a", embedder=HashingEmbedder()) as mem:
        assert mem.get(new).previous_version == old
    (tmp_path / "a" / "cogmem-index").rename(tmp_path / "gone")  # rebuilt from Chroma
    with CognitiveMemory(path=tmp_path / "a", embedder=HashingEmbedder()) as mem:
        assert mem.get(new).previous_version == old
        assert mem.search("rent", now=NOW, reinforce=False)[0].id == new
    with CognitiveMemory(embedder=HashingEmbedder()) as copy:
        import_jsonl(copy, tmp_path / "m.jsonl")
        assert copy.get(new).previous_version == old


def test_a_recorded_contradiction_outweighs_the_write_order(memory: CognitiveMemory) -> None:
    sure = memory.add("The office is in Berlin", memory_type="semantic", confidence=0.9, now=NOW)
    unsure = memory.add("The office is in Munich", memory_type="semantic", confidence=0.5, now=NOW)
    assert memory.get(unsure).previous_version == sure
    memory.contradict(sure, unsure)
    hits = memory.search("office", now=NOW, reinforce=False)
    assert hits[0].id == sure


# ------------------------------------------------------------------------------ property
_NAMES = ("Maria", "Tom", "Priya", "Kwame", "Ingrid", "Diego")
_FACTS = (
    ("{n}'s flight to {c} is on {m} {d}.", "d"),
    ("{n}'s phone extension is {x}.", "x"),
    ("The build for {n}'s team takes {x} minutes.", "x"),
    ("{n} moved to {c} in {m}.", "c"),
)
_CITIES = ("Lisbon", "Osaka", "Quito", "Tallinn", "Accra")
_MONTHS = ("March", "April", "June", "July")
_FRAMES = ("Note: {}", "FYI, {}", "Reminder: {}", "Just so you know, {}", "{} (again)")


@st.composite
def _fact(draw: st.DrawFn) -> tuple[str, dict[str, str], str]:
    template, slot = draw(st.sampled_from(_FACTS))
    values = {
        "n": draw(st.sampled_from(_NAMES)),
        "c": draw(st.sampled_from(_CITIES)),
        "m": draw(st.sampled_from(_MONTHS)),
        "d": str(draw(st.integers(1, 28))),
        "x": str(draw(st.integers(2, 2999))),
    }
    return template, values, slot


def _changed(template: str, values: dict[str, str], slot: str, how: str) -> str:
    if how == "negation":
        return (
            template.format(**values)
            .replace(" is ", " is not ", 1)
            .replace(" moved ", " never moved ", 1)
            .replace(" takes ", " no longer takes ", 1)
        )
    pools = {"c": _CITIES, "m": _MONTHS, "n": _NAMES}
    other = dict(values)
    if how == "name":
        slot = "c" if "{c}" in template else "m" if "{m}" in template else "x"
    if slot in pools:
        other[slot] = next(v for v in pools[slot] if v != values[slot])
    else:
        other[slot] = str(int(values[slot]) + 1)
    return template.format(**other)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fact=_fact(),
    how=st.sampled_from(["number", "name", "negation"]),
    frame=st.sampled_from(_FRAMES),
    shout=st.booleans(),
)
def test_property_changes_are_kept_and_restatements_merge(
    fact: tuple[str, dict[str, str], str], how: str, frame: str, shout: bool
) -> None:
    template, values, slot = fact
    text = template.format(**values)
    changed = _changed(template, values, slot, how)
    assert changed != text
    restated = frame.format(text[0].lower() + text[1:] if frame[0] != "{" else text)
    if shout:
        restated = restated.lower().rstrip(".") + "!"
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        first = mem.write(text, memory_type="semantic", now=NOW - DAY)
        again = mem.write(restated, memory_type="semantic", now=NOW - DAY / 2)
        update = mem.write(changed, memory_type="semantic", now=NOW)
        assert again.action == "merged" and again.id == first.id
        assert update.action != "merged" and update.id != first.id
        assert {m.text for m in mem.memories()} == {text, changed}


def test_turning_dedup_off_stores_every_write(embedder: HashingEmbedder) -> None:
    with CognitiveMemory(
        embedder=embedder, config=CognitiveMemoryConfig(dedup_threshold=None)
    ) as mem:
        outcomes = mem.write_many([FLIGHT, FLIGHT, FLIGHT.replace("3", "13")], now=NOW)
        assert [o.action for o in outcomes] == ["stored"] * 3 and len(mem) == 3
        assert all(r.previous_version is None for r in mem.records())


def test_records_keep_their_version_when_replaced() -> None:
    record = _record(FLIGHT, "a", previous_version="z")
    assert replace(record, text="x").previous_version == "z"


# ------------------------------------------------------------------------------ the real model
@pytest.mark.model
def test_generated_corrections_through_the_real_model() -> None:
    """The corrections benchmark's generated cases (other templates, names and framings than
    the dev set), on all-MiniLM-L6-v2: the figures the issue asks of the dev set hold."""
    from benchmarks.corrections import evaluate, generate
    from cogmem import MiniLMEmbedder

    result = evaluate(generate(120, seed=11), MiniLMEmbedder())
    assert result["kept"] >= 0.99
    assert result["current_first"] >= 0.95
    assert result["merged"] >= 0.95


def test_a_slot_the_reading_is_sure_of_beats_a_rewording_of_one_detail() -> None:
    """The nearest neighbour rewords the write with one detail changed, but the reading is
    sure another neighbour's slot is what the write updates: the write is that one's version."""
    reworded = _record(FLIGHT, "a")
    updated = _record("The user's flight home is booked for May 2.", "b")
    new = _record(FLIGHT.replace("3", "13"), "c", created_at=NOW + DAY)

    def relate(old: str, text: str, cosine: float) -> Relation:
        return (
            Relation("update", ("booked for May 2 -> May 13",), sure=True)
            if old == updated.text
            else Relation("unknown")
        )

    decision = decide(
        new, [Neighbour(reworded, 0.95), Neighbour(updated, 0.8)], CONFIG, TOKENIZER, relate=relate
    )
    assert (decision.action, decision.existing_id) == ("new_version", "b")
