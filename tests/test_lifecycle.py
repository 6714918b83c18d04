"""The memory lifecycle (design §2, §6) over simulated months, on real embedded Chroma."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import timedelta

import pytest

from cogmem import (
    CognitiveMemory,
    CognitiveMemoryConfig,
    InvalidInputError,
    MemoryInput,
    MemoryNotFoundError,
)
from cogmem.consolidation import ExtractiveSummarizer, summary_id, summary_record
from cogmem.testing import HashingEmbedder
from tests.conftest import NOW

DAY = timedelta(days=1)
SECOND = timedelta(seconds=1)


@pytest.fixture
def memory(embedder: HashingEmbedder) -> Iterator[CognitiveMemory]:
    with CognitiveMemory(embedder=embedder) as mem:
        yield mem


# ------------------------------------------------------------------------------ write-time dedup
def test_a_repeated_memory_reinforces_the_stored_one(memory: CognitiveMemory) -> None:
    first = memory.add("User prefers dark mode", memory_type="semantic", now=NOW)
    before = memory.get(first)
    again = memory.add(
        "user prefers dark mode", memory_type="semantic", confidence=0.95, now=NOW + DAY
    )
    assert again == first and len(memory) == 1
    after = memory.get(first)
    assert after.stability == pytest.approx(before.stability + 0.05)
    assert after.confidence == 0.95
    other = memory.add("User prefers light mode in the morning", now=NOW)
    assert other != first and len(memory) == 2


def test_add_many_dedups_within_the_batch_and_keeps_chosen_ids(memory: CognitiveMemory) -> None:
    ids = memory.add_many(
        ["The launch is on Friday", "the launch is on friday", "Budget approved", "the budget"],
        now=NOW,
    )
    assert ids[0] == ids[1] and len(set(ids)) == 3 and len(memory) == 3
    assert memory.get(ids[0]).stability == pytest.approx(memory.get(ids[2]).stability + 0.05)
    # A caller-chosen id is a record of its own (e.g. a LangGraph store key): never merged.
    chosen = memory.add_many(
        [
            MemoryInput("The launch is on Friday", id="k1"),
            MemoryInput("The launch is on Friday", id="k2"),
        ],
        now=NOW,
    )
    assert chosen == ["k1", "k2"] and len(memory) == 5


def test_dedup_can_be_turned_off(embedder: HashingEmbedder) -> None:
    config = CognitiveMemoryConfig(dedup_threshold=None)
    with CognitiveMemory(embedder=embedder, config=config) as mem:
        ids = mem.add_many(["same words here", "same words here"], now=NOW)
        assert ids[0] != ids[1] and len(mem) == 2


# ------------------------------------------------------------------------------- consolidation
def _faded_history(memory: CognitiveMemory) -> dict[str, list[str]]:
    """Three episodes about the gym, two about the dentist, one unrelated, one pinned."""
    gym = [
        "I went to the gym on Monday and lifted weights with Sam.",
        "I went to the gym on Tuesday and lifted weights with Sam again.",
        "Went to the gym Wednesday, lifted weights with Sam.",
    ]
    dentist = [
        "Dentist appointment moved to next Thursday afternoon.",
        "Dentist appointment moved to next Thursday afternoon at three.",
    ]
    ids = {
        "gym": [memory.add(t, id=f"gym{i}", created_at=NOW) for i, t in enumerate(gym)],
        "dentist": [memory.add(t, id=f"den{i}", created_at=NOW) for i, t in enumerate(dentist)],
        "other": [memory.add("Paid the electricity bill online", id="bill", created_at=NOW)],
        "pinned": [
            memory.add(
                "I went to the gym on Monday and lifted weights with Sam, pinned.",
                id="pin",
                pinned=True,
                created_at=NOW,
            )
        ],
    }
    return ids


def test_consolidation_merges_faded_similar_memories(memory: CognitiveMemory) -> None:
    ids = _faded_history(memory)
    later = NOW + 300 * DAY  # episodic memories are far below R = 0.2 by now
    report = memory.consolidate(later)
    groups = {frozenset(g.member_ids): g for g in report.groups}
    assert set(groups) == {frozenset(ids["gym"]), frozenset(ids["dentist"])}
    assert report.candidates == 6  # the pinned memory is never a candidate
    gym = groups[frozenset(ids["gym"])]
    summary = memory.get(gym.summary_id)
    members = [memory.get(i) for i in ids["gym"]]
    assert summary.text == gym.text and summary.created_at == later
    assert summary.links == {i: 0.8 for i in ids["gym"]}
    assert summary.importance == max(m.importance for m in members)
    assert summary.stability == pytest.approx(sum(m.stability for m in members) / 3)
    assert all(m.status == "superseded" and m.superseded_by == summary.id for m in members)
    # Extractive, not a concatenation: shorter than the originals together.
    assert len(summary.text) < sum(len(m.text) for m in members)
    assert memory.get("bill").status == "active" and memory.get("pin").status == "active"
    # Originals are never deleted; a normal search skips them, deep recall finds them.
    hits = memory.search("gym weights Sam", top_k=10, now=later, reinforce=False)
    assert not set(ids["gym"]) & {r.memory.id for r in hits}
    deep = memory.search("gym weights Sam", top_k=10, now=later, deep_recall=True, reinforce=False)
    found = {r.memory.id: r for r in deep}
    assert set(ids["gym"]) <= set(found)
    # Episodes: α · 0.1 = 0.03, so the archived originals are scored × 0.5^0.03.
    assert all(
        found[i].explanation.penalties["deep_recall"] == pytest.approx(0.5**0.03)
        for i in ids["gym"]
    )
    # Deep recall opens the summary: its originals are shown in its place.
    assert gym.summary_id not in found
    plain = {r.memory.id for r in hits}
    assert gym.summary_id in plain
    # A second run at the same time changes nothing.
    size = len(memory)
    assert memory.consolidate(later).groups == ()
    assert len(memory) == size


def test_dry_run_writes_nothing_and_a_half_done_run_is_completed(
    memory: CognitiveMemory,
) -> None:
    ids = _faded_history(memory)
    later = NOW + 300 * DAY
    plan = memory.consolidate(later, dry_run=True)
    assert plan.dry_run and len(plan.groups) == 2 and len(memory) == 7
    assert all(memory.get(i).status == "active" for i in plan.superseded_ids)
    # A crash after the summaries were written but before the originals were marked:
    members = [memory.get(i) for i in ids["gym"]]
    (gym,) = [g for g in plan.groups if set(g.member_ids) == set(ids["gym"])]
    written = summary_record(members, gym.text, later, memory.config)
    assert written.id == summary_id(reversed(ids["gym"]))
    memory.restore([written])
    report = memory.consolidate(later)
    assert set(report.summary_ids) == set(plan.summary_ids)
    assert len(memory) == 7 + 2  # one summary per group, not two for the gym
    assert all(memory.get(i).status == "superseded" for i in report.superseded_ids)


def test_the_summarizer_is_pluggable(memory: CognitiveMemory) -> None:
    _faded_history(memory)
    seen: list[list[str]] = []

    def summarize(texts: list[str]) -> str:
        seen.append(texts)
        return f"{len(texts)} related episodes"

    report = memory.consolidate(NOW + 300 * DAY, summarize)
    assert sorted(len(t) for t in seen) == [2, 3]
    assert sorted(g.text for g in report.groups) == ["2 related episodes", "3 related episodes"]
    memory.add("x y z", created_at=NOW)
    memory.add("x y z w", created_at=NOW, id="xyzw")
    with pytest.raises(InvalidInputError, match="empty summary"):
        memory.consolidate(NOW + 400 * DAY, lambda texts: "  ")


def test_extractive_summary_keeps_central_sentences_in_order(embedder: HashingEmbedder) -> None:
    summarize = ExtractiveSummarizer(embedder, max_chars=120)
    text = summarize(
        [
            "Sam and I lifted weights at the gym. The weather was awful.",
            "We lifted weights at the gym again. Sam lifted more weights than me.",
            "Gym with Sam: weights. Then pizza.",
        ]
    )
    assert len(text) <= 120
    assert "weather" not in text and "pizza" not in text  # the outliers are left out
    assert "weights" in text


# -------------------------------------------------------------------------------- contradictions
def test_the_weaker_of_a_contradicting_pair_is_demoted(memory: CognitiveMemory) -> None:
    a = memory.add("The office is in Berlin", memory_type="semantic", confidence=0.9, now=NOW)
    b = memory.add("The office is in Munich", memory_type="semantic", confidence=0.5, now=NOW)
    first, second = memory.contradict(a, b)
    assert first.contradicts == (b,) and second.contradicts == (a,)
    assert memory.contradict(b, a) == (second, first)  # recorded once
    hits = {r.memory.id: r for r in memory.search("office", now=NOW, reinforce=False)}
    assert hits[b].explanation.penalties["contradiction"] == 0.3
    assert "contradiction" not in hits[a].explanation.penalties
    assert hits[a].score > hits[b].score
    with pytest.raises(InvalidInputError, match="itself"):
        memory.contradict(a, a)
    with pytest.raises(MemoryNotFoundError):
        memory.contradict(a, "nope")


# ---------------------------------------------------------------------------------- associations
def test_co_recalled_memories_link_and_then_spread(memory: CognitiveMemory) -> None:
    alarm = memory.add("Alarm code for the lab door", id="alarm", memory_type="semantic", now=NOW)
    pin = memory.add("Door code 4711 for the lab", id="pin", memory_type="semantic", now=NOW)
    memory.add("Grocery list: apples", id="groceries", now=NOW)
    memory.search("lab door code", top_k=2, now=NOW, reinforce=False)
    assert memory.get(alarm).links == {}  # a read without reinforcement changes nothing
    expected = 0.0
    for day in (1, 2, 3, 4):
        memory.search("lab door code", top_k=2, now=NOW + day * DAY)
        expected = expected * math.exp(-(1 if day > 1 else 0) / 90) + 0.1
    weight = memory.get(alarm).links[pin]
    assert weight == pytest.approx(expected) and weight >= 0.3
    assert memory.get(pin).links == {alarm: pytest.approx(expected)}
    # "alarm" matches the pin memory by no word; the link brings it.
    later = NOW + 5 * DAY
    hits = {r.memory.id: r for r in memory.search("alarm", top_k=5, now=later, reinforce=False)}
    assert hits[pin].explanation.via == "association"
    assert hits[pin].explanation.source_id == alarm
    assert hits[pin].explanation.relevance == pytest.approx(
        hits[alarm].explanation.relevance * weight * math.exp(-1 / 90) * 0.5
    )
    before = memory.get(pin).stability
    memory.search("alarm", top_k=5, now=later)
    # Reached through a link: the smaller gain, 0.05 · min(2, Δt / 7 days).
    assert memory.get(pin).stability == pytest.approx(before + 0.05 * (1 / 7))


def test_maintain_decays_links_and_is_idempotent(memory: CognitiveMemory) -> None:
    a = memory.add("alpha beta", id="a", memory_type="semantic", now=NOW)
    memory.add("alpha gamma", id="b", memory_type="semantic", now=NOW)
    memory.search("alpha", top_k=2, now=NOW)
    assert memory.get(a).links == {"b": pytest.approx(0.1)}
    later = NOW + 90 * DAY
    report = memory.maintain(later)
    assert report.links_decayed == 2
    assert memory.get(a).links == {"b": pytest.approx(0.1 * math.exp(-1))}
    again = memory.maintain(later)
    assert again.links_decayed == 0 and again.consolidation.groups == ()
    assert memory.get(a).links == {"b": pytest.approx(0.1 * math.exp(-1))}


def test_maintain_runs_the_conflict_detector_on_close_pairs_once(
    memory: CognitiveMemory,
) -> None:
    memory.add("The meeting room is on floor three", id="m1", memory_type="semantic", now=NOW)
    memory.add("The meeting room is on floor four", id="m2", memory_type="semantic", now=NOW)
    memory.add("Lunch is served at noon", id="m3", memory_type="semantic", now=NOW)
    asked: list[tuple[str, str]] = []

    def detector(a: str, b: str) -> bool:
        asked.append((a, b))
        return "three" in a + b and "four" in a + b

    report = memory.maintain(NOW, conflict_detector=detector)
    assert report.contradictions == (("m1", "m2"),) and report.pairs_checked == 1
    assert memory.get("m1").contradicts == ("m2",)
    assert memory.maintain(NOW, conflict_detector=detector).pairs_checked == 0
    assert len(asked) == 1


# ------------------------------------------------------------------------------- core promotion
def test_spaced_recall_over_sessions_promotes_to_core(memory: CognitiveMemory) -> None:
    fact = memory.add("Project codename is Heron", memory_type="semantic", importance=0.9, now=NOW)
    moment = NOW
    for n in range(12):
        moment += 14 * DAY
        memory.search("codename Heron", top_k=1, now=moment, session_id=f"s{n % 3}")
    promoted = memory.get(fact)
    assert promoted.memory_type == "core" and promoted.access_count == 12
    # Core memories keep at least R = 0.6, however long they go unused.
    hits = memory.search("codename Heron", now=moment + 3000 * DAY, reinforce=False)
    assert hits[0].explanation.retention == pytest.approx(0.6)


def test_the_same_words_weeks_apart_are_two_episodes(memory: CognitiveMemory) -> None:
    first = memory.add("Standup: billing migration on track", now=NOW)
    later = memory.add("Standup: billing migration on track", now=NOW + 40 * DAY)
    assert later != first and len(memory) == 2
    retry = memory.add("standup: billing migration on track", now=NOW + 40 * DAY + 60 * SECOND)
    assert retry == later and len(memory) == 2  # a repeated write minutes later: one memory
    fact = memory.add("Billing runs on CockroachDB", memory_type="semantic", now=NOW)
    again = memory.add("billing runs on cockroachdb", memory_type="semantic", now=NOW + 90 * DAY)
    assert again == fact  # a fact restated is the same fact, whenever


def test_summaries_are_semantic_and_bring_no_temporal_context(memory: CognitiveMemory) -> None:
    _faded_history(memory)
    later = NOW + 300 * DAY
    report = memory.consolidate(later)
    assert {memory.get(i).memory_type for i in report.summary_ids} == {"semantic"}
    hits = memory.search("gym weights Sam", top_k=10, now=later, reinforce=False)
    dentist = next(g.summary_id for g in report.groups if "den0" in g.member_ids)
    assert dentist not in {r.memory.id for r in hits if r.explanation.via == "context"}


def test_a_failing_conflict_detector_is_reported_and_asked_again(memory: CognitiveMemory) -> None:
    memory.add("The meeting room is on floor three", id="m1", memory_type="semantic", now=NOW)
    memory.add("The meeting room is on floor four", id="m2", memory_type="semantic", now=NOW)
    memory.add("alpha beta", id="a", memory_type="semantic", now=NOW)
    memory.add("alpha gamma", id="b", memory_type="semantic", now=NOW)
    memory.search("alpha", top_k=2, now=NOW)

    def timing_out(a: str, b: str) -> bool:
        raise TimeoutError("LLM provider timed out")

    report = memory.maintain(NOW + DAY, conflict_detector=timing_out)
    assert report.contradictions == () and report.links_decayed == 2
    assert [(a, b) for a, b, _ in report.conflict_errors] == [("m1", "m2")]
    assert "TimeoutError: LLM provider timed out" in report.conflict_errors[0][2]
    again = memory.maintain(NOW + DAY, conflict_detector=lambda a, b: True)
    assert again.contradictions == (("m1", "m2"),) and again.conflict_errors == ()
