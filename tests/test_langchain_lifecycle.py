"""The memory lifecycle through the LangChain adapters: a chat model as consolidation summarizer
and as conflict detector (``maintain``), and ``deep_recall`` on every adapter."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate
from langchain_core.runnables import RunnableLambda
from pydantic import Field

from cogmem import CogmemError, CognitiveMemory, InvalidInputError, InvalidTypeError
from cogmem.errors import JudgeError
from cogmem.testing import HashingEmbedder
from langchain_cogmem import (
    DEFAULT_CONFLICT_PROMPT,
    CognitiveConversationMemory,
    CognitiveMemoryRetriever,
    CognitiveMemoryStore,
    ConflictDetectorError,
    conflict_detector_from,
    dedup_judge_from,
    parse_yes_no,
    summarizer_from,
    version_judge_from,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore::langchain_core._api.deprecation.LangChainDeprecationWarning"
)

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
LATER = NOW + timedelta(days=300)  # episodes stored at NOW have faded below R = 0.2 by then
DAY = timedelta(days=1)

GYM = [
    "I lifted weights at the gym with Sam on Monday",
    "I lifted weights at the gym with Sam on Tuesday",
    "Lifted weights at the gym with Sam again on Wednesday",
]
GYM_SUMMARY = "Every day early in the week the user lifted weights at the gym with Sam."


class RecordingChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that also keeps every prompt it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def always(reply: str) -> RecordingChatModel:
    """A chat model that answers ``reply`` to everything, and records what it was asked."""
    return RecordingChatModel(messages=itertools.repeat(AIMessage(content=reply)))


class Clock:
    """A settable clock: ``clock()`` is the current simulated time."""

    def __init__(self, start: datetime) -> None:
        self.time = start

    def __call__(self) -> datetime:
        return self.time


@pytest.fixture
def memory() -> Iterator[CognitiveMemory]:
    mem = CognitiveMemory(embedder=HashingEmbedder())
    yield mem
    mem.close()


def gym_history(memory: CognitiveMemory, namespace: str = "default") -> list[str]:
    """Three near-identical gym episodes and one unrelated one, all formed at ``NOW``."""
    ids = [
        memory.add(text, id=f"gym{i}", memory_type="episodic", created_at=NOW, namespace=namespace)
        for i, text in enumerate(GYM)
    ]
    memory.add(
        "Paid the electricity bill online",
        id="bill",
        memory_type="episodic",
        created_at=NOW,
        namespace=namespace,
    )
    return ids


# ------------------------------------------------------------------------------ summarizer
def test_a_chat_model_summarizes_a_consolidation(memory: CognitiveMemory) -> None:
    ids = gym_history(memory)
    model = always(GYM_SUMMARY)
    report = memory.consolidate(LATER, summarizer=summarizer_from(model))
    (group,) = report.groups
    assert set(group.member_ids) == set(ids) and group.text == GYM_SUMMARY
    summary = memory.get(group.summary_id)
    assert summary.text == GYM_SUMMARY  # the summary memory is what the model answered
    assert summary.created_at == LATER and set(summary.links) == set(ids)
    assert all(memory.get(i).superseded_by == summary.id for i in ids)
    # The model was asked once, with every original as one bullet.
    (prompt,) = model.seen
    asked = str(prompt[-1].content)
    assert asked.startswith("Memories (3):")
    assert all(f"- {memory.get(i).text}" in asked for i in ids)
    assert "electricity" not in asked


def test_maintain_takes_the_summarizer_and_a_failing_model_changes_nothing(
    memory: CognitiveMemory,
) -> None:
    ids = gym_history(memory)

    def down(_: Any) -> str:
        raise ConnectionError("provider unavailable")

    with pytest.raises(CogmemError, match="provider unavailable"):
        memory.maintain(LATER, summarizer=summarizer_from(RunnableLambda(down)))
    assert all(memory.get(i).status == "active" for i in ids) and len(memory) == 4

    report = memory.maintain(LATER, summarizer=summarizer_from(always(GYM_SUMMARY)))
    (summary_id,) = report.consolidation.summary_ids
    assert memory.get(summary_id).text == GYM_SUMMARY
    hits = memory.search("gym weights Sam", now=LATER, reinforce=False)
    assert hits[0].memory.id == summary_id
    assert not {h.memory.id for h in hits} & set(ids)


# ------------------------------------------------------------------------------ conflicts
def floors(memory: CognitiveMemory) -> None:
    memory.add("The meeting room is on floor three", id="m1", memory_type="semantic", now=NOW)
    memory.add(
        "The meeting room is on floor four",
        id="m2",
        memory_type="semantic",
        confidence=0.6,
        now=NOW,
    )
    memory.add("Lunch is served at noon", id="m3", memory_type="semantic", now=NOW)


def test_a_chat_model_finds_a_contradiction_through_maintain(memory: CognitiveMemory) -> None:
    floors(memory)
    model = always("Yes.")
    report = memory.maintain(NOW, conflict_detector=conflict_detector_from(model))
    assert report.contradictions == (("m1", "m2"),) and report.pairs_checked == 1
    assert memory.get("m1").contradicts == ("m2",)
    assert memory.get("m2").contradicts == ("m1",)
    assert memory.get("m3").contradicts == ()
    # The model saw both statements, with the default instructions.
    (prompt,) = model.seen
    system, human = prompt
    assert "contradict" in str(system.content) and "yes or no" in str(system.content)
    assert "The meeting room is on floor three" in str(human.content)
    assert "The meeting room is on floor four" in str(human.content)
    # The weaker one (lower confidence) is demoted when both match.
    hits = {r.memory.id: r for r in memory.search("meeting room floor", now=NOW, reinforce=False)}
    assert hits["m2"].explanation.penalties["contradiction"] == pytest.approx(0.3)
    assert hits["m1"].score > hits["m2"].score


def test_a_no_records_nothing(memory: CognitiveMemory) -> None:
    floors(memory)
    model = always("No, they are about different things.")
    report = memory.maintain(NOW, conflict_detector=conflict_detector_from(model))
    assert report.contradictions == () and report.pairs_checked == 1
    assert memory.get("m1").contradicts == () and len(model.seen) == 1


def test_custom_prompts_llms_and_runnables() -> None:
    llm = FakeListLLM(responses=["TRUE"])
    detect = conflict_detector_from(llm, "Do '{first}' and '{second}' clash? yes/no:")
    assert detect("Ana lives in Porto", "Ana lives in Faro") is True

    seen: list[str] = []

    def judge(prompt: Any) -> str:
        seen.append(prompt.to_string())
        return "  **no** - consistent"

    template = PromptTemplate.from_template("A: {first}\nB: {second}\nContradiction?")
    assert conflict_detector_from(RunnableLambda(judge), template)("x is 1", "y is 2") is False
    assert seen == ["A: x is 1\nB: y is 2\nContradiction?"]

    blocks = RecordingChatModel(
        messages=iter([AIMessage(content=[{"type": "text", "text": "Yes, they do."}])])
    )
    assert conflict_detector_from(blocks)("a", "b") is True
    thinking = always("<think>Floor three vs four: no wait, yes.</think>\nYes")
    assert conflict_detector_from(thinking)("a", "b") is True
    assert set(DEFAULT_CONFLICT_PROMPT.input_variables) == {"first", "second"}
    chat_prompt = ChatPromptTemplate.from_messages([("human", "{first} vs {second}?")])
    assert conflict_detector_from(always("no"), chat_prompt)("a", "b") is False


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("yes", True),
        ("Yes.", True),
        ("YES, they cannot both be true", True),
        ("Answer: yes", True),
        ('"Yes"', True),
        ("true", True),
        ("No", False),
        ("no.", False),
        ("**No**, they agree", False),
        ("- no", False),
        ("False", False),
        ("<think>\nthree is not four, so yes?\n</think>\n\nNo", False),
        ("They contradict each other.", None),
        ("Maybe", None),
        ("yesterday", None),
        ("", None),
        ("   ", None),
        ("42", None),
    ],
)
def test_parse_yes_no(answer: str, verdict: bool | None) -> None:
    assert parse_yes_no(answer) is verdict


def test_an_unclear_answer_raises_naming_it_or_counts_as_no(
    memory: CognitiveMemory, caplog: pytest.LogCaptureFixture
) -> None:
    strict = conflict_detector_from(always("It depends on the building."))
    with pytest.raises(ConflictDetectorError, match="It depends on the building") as info:
        strict("The room is on floor three", "The room is on floor four")
    assert isinstance(info.value, CogmemError)
    assert info.value.answer == "It depends on the building."
    assert info.value.texts == ("The room is on floor three", "The room is on floor four")

    lenient = conflict_detector_from(always("It depends on the building."), on_unclear="no")
    with caplog.at_level(logging.WARNING, logger="langchain_cogmem"):
        assert lenient("a", "b") is False
    assert "It depends on the building" in caplog.text

    floors(memory)
    report = memory.maintain(NOW, conflict_detector=lenient)
    assert report.pairs_checked == 1 and report.contradictions == ()
    assert memory.get("m1").contradicts == ()


def test_a_failing_model_raises_a_cogmem_error() -> None:
    def down(_: Any) -> str:
        raise TimeoutError("model timed out")

    detect = conflict_detector_from(RunnableLambda(down))
    with pytest.raises(ConflictDetectorError, match="model timed out") as info:
        detect("a", "b")
    assert isinstance(info.value.__cause__, TimeoutError)
    assert info.value.answer is None and info.value.texts == ("a", "b")
    with pytest.raises(ConflictDetectorError, match="int"):
        conflict_detector_from(RunnableLambda(lambda _: 42))("a", "b")


def test_bad_arguments() -> None:
    model = FakeListLLM(responses=["yes"])
    detect = conflict_detector_from(model)
    with pytest.raises(InvalidTypeError, match="text_a"):
        detect(3, "b")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="text_b"):
        detect("a", "  ")
    with pytest.raises(InvalidInputError, match="second"):
        conflict_detector_from(model, "Does {first} contradict?")
    with pytest.raises(InvalidInputError, match="topic"):
        conflict_detector_from(model, "{first} vs {second} about {topic}")
    with pytest.raises(InvalidTypeError, match="prompt"):
        conflict_detector_from(model, 42)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="Runnable"):
        conflict_detector_from(lambda a, b: True)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="on_unclear"):
        conflict_detector_from(model, on_unclear="yes")  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ dedup judge
@pytest.mark.parametrize(("answer", "action"), [("Yes.", "merged"), ("**No**", "stored")])
def test_a_chat_model_judges_what_the_words_cannot_tell(answer: str, action: str) -> None:
    model = always(answer)
    with CognitiveMemory(embedder=HashingEmbedder(), dedup_judge=dedup_judge_from(model)) as mem:
        first = mem.add("Maria lives in Osaka.", memory_type="semantic", now=NOW)
        unclear = mem.write("Maria lived in Osaka.", memory_type="semantic", now=NOW)
        # Not near enough to be linked as a version: without a yes, simply stored.
        assert unclear.action == action
        assert unclear.existing_id == (first if action == "merged" else None)
        (prompt,) = model.seen
        system, human = prompt
        assert "restates" in str(system.content) and "yes or no" in str(system.content)
        assert str(human.content).index("Maria lives") < str(human.content).index("lived")
        # A changed detail is clear from the words: the model is not asked.
        assert mem.write("Maria lives in Kyoto.", memory_type="semantic", now=NOW).action == (
            "new_version"
        )
        assert len(model.seen) == 1


def test_a_failing_dedup_judge_loses_no_write(caplog: pytest.LogCaptureFixture) -> None:
    judge = dedup_judge_from(always("I cannot tell."))
    with pytest.raises(JudgeError, match="dedup judge") as raised:
        judge("Maria lives in Osaka.", "Maria lived in Osaka.")
    assert raised.value.answer == "I cannot tell."
    with CognitiveMemory(embedder=HashingEmbedder(), dedup_judge=judge) as mem:
        mem.add("Maria lives in Osaka.", memory_type="semantic", now=NOW)
        with caplog.at_level(logging.WARNING, logger="cogmem"):
            outcome = mem.write("Maria lived in Osaka.", memory_type="semantic", now=NOW)
        assert outcome.action == "stored" and len(mem) == 2
        assert "dedup judge failed" in caplog.text
    with pytest.raises(InvalidInputError, match="dedup judge prompt"):
        dedup_judge_from(always("yes"), "Is {first} the same?")


# ----------------------------------------------------------------------------- version judge
@pytest.mark.parametrize(("answer", "action"), [("Yes", "new_version"), ("no.", "stored")])
def test_a_chat_model_judges_a_change_the_reading_only_guesses(answer: str, action: str) -> None:
    """ "moved on to Dune" names no slot: whether it changes Chen's book club pick is asked."""
    model = always(answer)
    judge = version_judge_from(model)
    with CognitiveMemory(embedder=HashingEmbedder(), version_judge=judge) as mem:
        old = mem.add("Chen's book club pick is Neuromancer.", memory_type="semantic", now=NOW)
        later = NOW + timedelta(days=30)
        outcome = mem.write("Chen said they moved on to Dune.", memory_type="semantic", now=later)
        assert (outcome.action, outcome.existing_id) == (action, old if answer == "Yes" else None)
        ((system, human),) = model.seen
        assert "updates" in str(system.content) and "yes or no" in str(system.content)
        assert str(human.content).index("Older: Chen's") < str(human.content).index("Newer:")
    with pytest.raises(InvalidInputError, match="version judge prompt"):
        version_judge_from(always("yes"), "Does {second} update it?")


def test_corrections_through_every_langchain_adapter_are_kept() -> None:
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        chat = CognitiveConversationMemory(memory=mem, now=lambda: NOW, reinforce=False)
        chat.save_context({"input": "My flight is on May 3."}, {"output": "Noted."})
        chat.save_context({"input": "Sorry, my flight is on May 13."}, {"output": "Noted."})
        texts = [m.text for m in mem.records()]
        assert any("May 3." in t for t in texts) and any("May 13." in t for t in texts)
        store = CognitiveMemoryStore(mem, now=lambda: NOW)
        store.put(("u",), "a", {"text": "The flight is on May 3."})
        store.put(("u",), "b", {"text": "the flight is on May 3!"})  # keys are kept apart
        assert {i.key for i in store.search(("u",))} == {"a", "b"}


# ------------------------------------------------------------------------------ deep recall
def test_the_retriever_reaches_the_originals_behind_a_summary(memory: CognitiveMemory) -> None:
    ids = gym_history(memory)
    report = memory.consolidate(LATER, summarizer=summarizer_from(always(GYM_SUMMARY)))
    (summary_id,) = report.summary_ids
    retriever = CognitiveMemoryRetriever(memory=memory, k=5, reinforce=False, now=lambda: LATER)
    plain = {d.id for d in retriever.invoke("gym weights Sam")}
    assert summary_id in plain and not plain & set(ids)
    deep = {d.id: d for d in retriever.invoke("gym weights Sam", deep_recall=True)}
    assert set(ids) <= set(deep) and summary_id not in deep
    assert all(deep[i].metadata["superseded_by"] == summary_id for i in ids)


def test_conversation_memory_recalls_old_turns_only_with_deep_recall(
    memory: CognitiveMemory,
) -> None:
    clock = Clock(NOW)
    chat = CognitiveConversationMemory(memory=memory, k=6, reinforce=False, now=clock)
    for text in GYM:
        chat.save_context({"input": text}, {"output": "Nice workout at the gym!"})
    turns = {r.id for r in memory.memories()}
    clock.time = LATER
    summarize = summarizer_from(always(GYM_SUMMARY))
    report = memory.consolidate(LATER, summarize)
    assert set(report.superseded_ids) <= turns and len(report.superseded_ids) >= 3
    recalled = chat.load_memory_variables({"input": "gym with Sam"})["history"]
    assert GYM_SUMMARY in recalled
    assert not any(text in recalled for text in GYM)

    deep = CognitiveConversationMemory(
        memory=memory, k=6, reinforce=False, now=clock, deep_recall=True
    )
    recalled = deep.load_memory_variables({"input": "gym with Sam"})["history"]
    assert all(f"Human: {text}" in recalled for text in GYM)
    assert GYM_SUMMARY not in recalled  # the summary gives way to its originals


def test_the_store_lists_and_finds_superseded_items_only_with_deep_recall(
    memory: CognitiveMemory,
) -> None:
    store = CognitiveMemoryStore(memory, memory_type="episodic", fields=["text"], now=lambda: NOW)
    for i, text in enumerate(GYM):
        store.put(("user", "ana"), f"gym{i}", {"text": text, "day": i})
    store.put(("user", "ana"), "bill", {"text": "Paid the electricity bill online"})
    namespace = "lg:user/ana"
    report = memory.consolidate(LATER, summarizer_from(always(GYM_SUMMARY)), namespace=namespace)
    (summary_id,) = report.summary_ids
    assert set(report.superseded_ids) == {"gym0", "gym1", "gym2"}

    plain = CognitiveMemoryStore(memory, memory_type="episodic", reinforce=False, now=lambda: LATER)
    found = plain.search(("user",), query="gym weights Sam", limit=10)
    assert [i.key for i in found][:1] == [summary_id]
    assert found[0].value == {"text": GYM_SUMMARY}
    assert not {i.key for i in found} & {"gym0", "gym1", "gym2"}
    assert {i.key for i in plain.search(("user",), limit=10)} == {summary_id, "bill"}
    assert plain.get(("user", "ana"), "gym1").value == {"text": GYM[1], "day": 1}  # kept

    deep = CognitiveMemoryStore(
        memory, memory_type="episodic", reinforce=False, deep_recall=True, now=lambda: LATER
    )
    found = deep.search(("user",), query="gym weights Sam", limit=10)
    keys = {i.key for i in found}
    assert {"gym0", "gym1", "gym2"} <= keys and summary_id not in keys
    by_key = {i.key: i for i in found}
    assert by_key["gym1"].value == {"text": GYM[1], "day": 1}
    assert "deep_recall" in by_key["gym1"].explanation["penalties"]  # type: ignore[index]
    listed = {i.key for i in deep.search(("user",), limit=10)}
    assert listed == {summary_id, "bill", "gym0", "gym1", "gym2"}
    with pytest.raises(InvalidTypeError, match="deep_recall"):
        CognitiveMemoryStore(memory, deep_recall="yes")  # type: ignore[arg-type]
