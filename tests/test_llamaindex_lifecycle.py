"""The memory lifecycle through the LlamaIndex adapters: an LLM as consolidation summarizer and
as conflict detector (``maintain``), and ``deep_recall`` on the retriever and the memory block."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import pytest
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    MessageRole,
)
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.mock import MockLLM
from llama_index.core.prompts import PromptTemplate
from pydantic import Field

from cogmem import CogmemError, CognitiveMemory, InvalidInputError, InvalidTypeError
from cogmem.errors import JudgeError
from cogmem.testing import HashingEmbedder
from llamaindex_cogmem import (
    DEFAULT_CONFLICT_PROMPT,
    CognitiveMemoryBlock,
    CognitiveMemoryRetriever,
    ConflictDetectorError,
    conflict_detector_from,
    dedup_judge_from,
    parse_yes_no,
    summarizer_from,
    version_judge_from,
)
from tests.llamaindex_fixtures import NOW

LATER = NOW + timedelta(days=300)  # episodes stored at NOW have faded below R = 0.2 by then
GYM = [
    "I lifted weights at the gym with Sam on Monday",
    "I lifted weights at the gym with Sam on Tuesday",
    "Lifted weights at the gym with Sam again on Wednesday",
]
GYM_SUMMARY = "Early every week the user lifted weights at the gym with Sam."


class FixedLLM(MockLLM):
    """A completion (or, with ``is_chat_model=True``, chat) LLM with one fixed reply that keeps
    what it was sent."""

    reply: str = "No."
    prompts: list[str] = Field(default_factory=list)
    chats: list[list[ChatMessage]] = Field(default_factory=list)
    error: str | None = None

    def __init__(self, reply: str = "No.", error: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # MockLLM's own __init__ takes only its own fields
        self.reply = reply
        self.error = error

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        if self.error:
            raise RuntimeError(self.error)
        self.prompts.append(prompt)
        return CompletionResponse(text=self.reply)

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        if self.error:
            raise RuntimeError(self.error)
        self.chats.append(list(messages))
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=self.reply))


@pytest.fixture
def memory() -> Iterator[CognitiveMemory]:
    mem = CognitiveMemory(embedder=HashingEmbedder())
    yield mem
    mem.close()


def gym_history(memory: CognitiveMemory) -> list[str]:
    """Three near-identical gym episodes and one unrelated one, all formed at ``NOW``."""
    ids = [
        memory.add(text, id=f"gym{i}", memory_type="episodic", created_at=NOW)
        for i, text in enumerate(GYM)
    ]
    memory.add("Paid the electricity bill online", id="bill", memory_type="episodic", now=NOW)
    return ids


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


# ------------------------------------------------------------------------------ summarizer
@pytest.mark.parametrize("chat", [False, True])
def test_an_llm_summarizes_a_consolidation(memory: CognitiveMemory, chat: bool) -> None:
    ids = gym_history(memory)
    llm = FixedLLM(reply=GYM_SUMMARY, is_chat_model=chat)
    report = memory.consolidate(LATER, summarizer=summarizer_from(llm))
    (group,) = report.groups
    assert set(group.member_ids) == set(ids)
    summary = memory.get(group.summary_id)
    assert summary.text == GYM_SUMMARY  # the summary memory is what the LLM answered
    assert all(memory.get(i).superseded_by == summary.id for i in ids)
    asked = str(llm.chats[0][-1].content) if chat else llm.prompts[0]
    assert len(llm.chats if chat else llm.prompts) == 1
    assert "Memories (3):" in asked and all(f"- {t}" in asked for t in GYM)
    assert "electricity" not in asked


def test_maintain_takes_the_summarizer_and_a_failing_llm_changes_nothing(
    memory: CognitiveMemory,
) -> None:
    ids = gym_history(memory)
    with pytest.raises(CogmemError, match="model offline"):
        memory.maintain(LATER, summarizer=summarizer_from(FixedLLM(error="model offline")))
    assert all(memory.get(i).status == "active" for i in ids) and len(memory) == 4
    report = memory.maintain(LATER, summarizer=summarizer_from(FixedLLM(reply=GYM_SUMMARY)))
    (summary_id,) = report.consolidation.summary_ids
    assert memory.get(summary_id).text == GYM_SUMMARY


# ------------------------------------------------------------------------------ dedup judge
@pytest.mark.parametrize("chat", [False, True])
@pytest.mark.parametrize(("answer", "action"), [("Yes", "merged"), ("No.", "stored")])
def test_an_llm_judges_what_the_words_cannot_tell(chat: bool, answer: str, action: str) -> None:
    llm = FixedLLM(reply=answer, is_chat_model=chat)
    with CognitiveMemory(embedder=HashingEmbedder(), dedup_judge=dedup_judge_from(llm)) as mem:
        first = mem.add("Maria lives in Osaka.", memory_type="semantic", now=NOW)
        unclear = mem.write("Maria lived in Osaka.", memory_type="semantic", now=NOW)
        # Not near enough to be linked as a version: without a yes, simply stored.
        assert unclear.action == action
        assert unclear.existing_id == (first if action == "merged" else None)
        asked = str(llm.chats[0][1].content) if chat else llm.prompts[0]
        assert "Maria lives in Osaka." in asked and "Maria lived in Osaka." in asked
        assert mem.write("Maria lives in Kyoto.", memory_type="semantic", now=NOW).action == (
            "new_version"
        )
        assert len(llm.chats if chat else llm.prompts) == 1  # a clear change is not asked


def test_a_failing_dedup_llm_loses_no_write() -> None:
    judge = dedup_judge_from(FixedLLM(error="rate limited"))
    with pytest.raises(JudgeError, match="rate limited"):
        judge("Maria lives in Osaka.", "Maria lived in Osaka.")
    with CognitiveMemory(embedder=HashingEmbedder(), dedup_judge=judge) as mem:
        mem.add("Maria lives in Osaka.", memory_type="semantic", now=NOW)
        outcome = mem.write("Maria lived in Osaka.", now=NOW, memory_type="semantic")
        assert outcome.action == "stored" and len(mem) == 2


# ------------------------------------------------------------------------------ version judge
@pytest.mark.parametrize(("answer", "action"), [("Yes.", "new_version"), ("No", "stored")])
def test_an_llm_judges_a_change_the_reading_only_guesses(answer: str, action: str) -> None:
    llm = FixedLLM(reply=answer)
    with CognitiveMemory(embedder=HashingEmbedder(), version_judge=version_judge_from(llm)) as mem:
        old = mem.add("Chen's book club pick is Neuromancer.", memory_type="semantic", now=NOW)
        later = NOW + timedelta(days=30)
        outcome = mem.write("Chen said they moved on to Dune.", memory_type="semantic", now=later)
        assert (outcome.action, outcome.existing_id) == (
            action,
            old if action != "stored" else None,
        )
        (asked,) = llm.prompts
        assert asked.index("Neuromancer") < asked.index("Dune") and "update" in asked
    failing = version_judge_from(FixedLLM(error="rate limited"))
    with CognitiveMemory(embedder=HashingEmbedder(), version_judge=failing) as mem:
        mem.add("Chen's book club pick is Neuromancer.", memory_type="semantic", now=NOW)
        outcome = mem.write("Chen said they moved on to Dune.", memory_type="semantic", now=LATER)
        assert outcome.action == "stored" and len(mem) == 2  # a failing model loses no write


def test_a_flushed_correction_is_kept_by_the_memory_block() -> None:
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        block = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False)
        asyncio.run(block.aput([ChatMessage(role=MessageRole.USER, content="My flight is May 3.")]))
        asyncio.run(
            block.aput([ChatMessage(role=MessageRole.USER, content="My flight is May 13.")])
        )
        assert sorted(m.text for m in mem.records()) == [
            "user: My flight is May 13.",
            "user: My flight is May 3.",
        ]


# ------------------------------------------------------------------------------ conflicts
@pytest.mark.parametrize("chat", [False, True])
def test_an_llm_finds_a_contradiction_through_maintain(memory: CognitiveMemory, chat: bool) -> None:
    floors(memory)
    llm = FixedLLM(reply="Yes", is_chat_model=chat)
    report = memory.maintain(NOW, conflict_detector=conflict_detector_from(llm))
    assert report.contradictions == (("m1", "m2"),) and report.pairs_checked == 1
    assert memory.get("m1").contradicts == ("m2",) and memory.get("m2").contradicts == ("m1",)
    assert memory.get("m3").contradicts == ()
    if chat:
        ((system, user),) = llm.chats
        assert system.role == MessageRole.SYSTEM and "yes or no" in str(system.content)
        asked = str(user.content)
    else:
        (asked,) = llm.prompts
        assert "yes or no" in asked
    assert "The meeting room is on floor three" in asked
    assert "The meeting room is on floor four" in asked
    hits = {r.memory.id: r for r in memory.search("meeting room floor", now=NOW, reinforce=False)}
    assert hits["m2"].explanation.penalties["contradiction"] == pytest.approx(0.3)
    assert hits["m1"].score > hits["m2"].score
    # Judged once: a second run asks nothing.
    assert memory.maintain(NOW, conflict_detector=conflict_detector_from(llm)).pairs_checked == 0


def test_a_no_records_nothing(memory: CognitiveMemory) -> None:
    floors(memory)
    llm = FixedLLM(reply="no - one is an older fact")
    report = memory.maintain(NOW, conflict_detector=conflict_detector_from(llm))
    assert report.contradictions == () and report.pairs_checked == 1
    assert memory.get("m1").contradicts == ()


def test_custom_prompt_and_answers() -> None:
    llm = FixedLLM(reply="**YES**")
    detect = conflict_detector_from(llm, "Does '{first}' contradict '{second}'? yes/no:")
    assert detect("Ana lives in Porto", "Ana lives in Faro") is True
    assert llm.prompts == ["Does 'Ana lives in Porto' contradict 'Ana lives in Faro'? yes/no:"]
    template = PromptTemplate("A: {first}\nB: {second}\nContradiction?")
    assert conflict_detector_from(FixedLLM(reply="False."), template)("a", "b") is False
    assert set(DEFAULT_CONFLICT_PROMPT.template_vars) == {"first", "second"}
    assert parse_yes_no("<think>yes?</think> No") is False
    assert parse_yes_no("It is a contradiction") is None


def test_an_unclear_answer_raises_naming_it_or_counts_as_no(
    memory: CognitiveMemory, caplog: pytest.LogCaptureFixture
) -> None:
    # MockLLM echoes its prompt: neither yes nor no.
    with pytest.raises(ConflictDetectorError, match="neither yes nor no") as info:
        conflict_detector_from(MockLLM())("The room is on floor three", "It is on floor four")
    assert isinstance(info.value, CogmemError)
    assert info.value.texts == ("The room is on floor three", "It is on floor four")
    assert info.value.answer is not None and "floor three" in info.value.answer

    floors(memory)
    # maintain() reports the unclear pair instead of stopping, and asks it again next time.
    report = memory.maintain(
        NOW, conflict_detector=conflict_detector_from(FixedLLM(reply="Possibly"))
    )
    assert len(report.conflict_errors) == 1 and report.contradictions == ()
    assert "ConflictDetectorError" in report.conflict_errors[0][2]
    assert "Possibly" in report.conflict_errors[0][2]

    lenient = conflict_detector_from(FixedLLM(reply="Possibly"), on_unclear="no")
    with caplog.at_level(logging.WARNING, logger="llamaindex_cogmem"):
        assert lenient("a", "b") is False
    assert "Possibly" in caplog.text


def test_a_failing_llm_raises_a_cogmem_error() -> None:
    detect = conflict_detector_from(FixedLLM(error="model offline"))
    with pytest.raises(ConflictDetectorError, match="model offline") as info:
        detect("a", "b")
    assert isinstance(info.value.__cause__, RuntimeError)
    assert info.value.answer is None and info.value.texts == ("a", "b")


def test_bad_arguments() -> None:
    llm = FixedLLM()
    detect = conflict_detector_from(llm)
    with pytest.raises(InvalidTypeError, match="text_a"):
        detect(None, "b")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="text_b"):
        detect("a", "")
    with pytest.raises(InvalidInputError, match="first"):
        conflict_detector_from(llm, "Does {second} contradict?")
    with pytest.raises(InvalidInputError, match="topic"):
        conflict_detector_from(llm, "{first} vs {second} on {topic}")
    with pytest.raises(InvalidTypeError, match="prompt"):
        conflict_detector_from(llm, ["{first}", "{second}"])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="LLM"):
        conflict_detector_from("gpt")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="on_unclear"):
        conflict_detector_from(llm, on_unclear="ignore")  # type: ignore[arg-type]
    assert llm.prompts == []


# ------------------------------------------------------------------------------ deep recall
def test_the_retriever_reaches_the_originals_behind_a_summary(memory: CognitiveMemory) -> None:
    ids = gym_history(memory)
    report = memory.consolidate(LATER, summarizer_from(FixedLLM(reply=GYM_SUMMARY)))
    (summary_id,) = report.summary_ids
    args: dict[str, Any] = {"similarity_top_k": 5, "reinforce": False, "now": LATER}
    plain = {n.node.node_id for n in CognitiveMemoryRetriever(memory, **args).retrieve("gym Sam")}
    assert summary_id in plain and not plain & set(ids)
    deep = CognitiveMemoryRetriever(memory, deep_recall=True, **args).retrieve("gym Sam")
    found = {n.node.node_id: n for n in deep}
    assert set(ids) <= set(found) and summary_id not in found
    assert all(found[i].node.metadata["superseded_by"] == summary_id for i in ids)


def test_the_memory_block_recalls_old_turns_only_with_deep_recall(
    memory: CognitiveMemory,
) -> None:
    writer = CognitiveMemoryBlock(memory=memory, now=NOW)
    asyncio.run(writer.aput([ChatMessage(role=MessageRole.USER, content=t) for t in GYM]))
    report = memory.consolidate(LATER, summarizer_from(FixedLLM(reply=GYM_SUMMARY)))
    assert len(report.superseded_ids) == 3
    question = [ChatMessage(role=MessageRole.USER, content="Who do I go to the gym with?")]

    plain = CognitiveMemoryBlock(memory=memory, now=LATER, reinforce=False)
    content = asyncio.run(plain.aget(question))
    assert GYM_SUMMARY in content and not any(t in content for t in GYM)

    deep = CognitiveMemoryBlock(memory=memory, now=LATER, reinforce=False, deep_recall=True)
    content = asyncio.run(deep.aget(question))
    assert all(f"user: {t}" in content for t in GYM)
    assert GYM_SUMMARY not in content  # the summary gives way to its originals
