"""CognitiveMemoryBlock: in llama_index.core.memory.Memory, a chat engine and an agent."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    CompletionResponse,
    MessageRole,
    TextBlock,
)
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.mock import MockFunctionCallingLLM, MockLLM
from llama_index.core.memory import Memory, StaticMemoryBlock
from llama_index.core.storage.chat_store.base_db import MessageStatus
from llama_index.core.vector_stores import FilterOperator, MetadataFilter, MetadataFilters
from pydantic import Field

from cogmem import (
    CognitiveMemory,
    CognitiveMemoryConfig,
    DiskFullError,
    ExtractorError,
    InvalidInputError,
    InvalidTypeError,
    render,
)
from cogmem.testing import HashingEmbedder
from llamaindex_cogmem import CognitiveMemoryBlock, UnsupportedFilterError, fact_extractor_from
from tests.faults import fill as fill_disk
from tests.faults import small_disk
from tests.llamaindex_fixtures import NOW

FACT = "My sister Clara lives in Lisbon and teaches piano."
SMALL_TALK = [
    "Nice weather today, isn't it?",
    "I watched a documentary about whales yesterday.",
    "Lunch was a big bowl of pasta.",
    "Tell me a joke about cats.",
]
QUESTION = "Where does my sister live?"


class ScriptedChatLLM(MockLLM):
    """A MockLLM that replies from a script and keeps every list of messages it was sent."""

    replies: list[str] = Field(default_factory=list)
    seen: list[list[ChatMessage]] = Field(default_factory=list)

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        self.seen.append([m.model_copy(deep=True) for m in messages])
        reply = self.replies[len(self.seen) - 1] if len(self.seen) <= len(self.replies) else "Ok."
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=reply))


@pytest.fixture
def mem() -> Iterator[CognitiveMemory]:
    memory = CognitiveMemory(embedder=HashingEmbedder())
    yield memory
    memory.close()


def small_memory(blocks: list[Any], session_id: str = "chat-1") -> Memory:
    """A Memory whose short-term queue holds ~40 tokens, so early turns are flushed soon."""
    return Memory.from_defaults(
        session_id=session_id,
        memory_blocks=blocks,
        token_limit=80,
        chat_history_token_ratio=0.5,
        token_flush_size=20,
    )


def system_text(messages: list[ChatMessage]) -> str:
    return "\n".join(m.content or "" for m in messages if m.role == MessageRole.SYSTEM)


def chat_through(memory: Memory, llm: ScriptedChatLLM, clock: dict[str, datetime]) -> None:
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory)
    for message in [FACT, *SMALL_TALK, QUESTION]:
        engine.chat(message)
        clock["now"] += timedelta(hours=1)


# ---------------------------------------------------------------------------- in Memory
def test_an_early_flushed_fact_reaches_a_chat_engines_prompt(mem: CognitiveMemory) -> None:
    clock = {"now": NOW}
    block = CognitiveMemoryBlock(memory=mem, namespace="ana", now=lambda: clock["now"])
    memory = small_memory([block])
    replies = [
        "Lovely, piano is a great instrument.",
        "It is sunny.",
        "Whales are huge.",
        "Pasta sounds good.",
        "Why was the cat on the computer? To keep an eye on the mouse.",
        "In Lisbon.",
    ]
    llm = ScriptedChatLLM(max_tokens=None)
    llm.replies = replies
    chat_through(memory, llm, clock)

    # The fact left the short-term queue: it was flushed to the block...
    active = [m.content for m in memory.get_all(status=MessageStatus.ACTIVE)]
    archived = [m.content for m in memory.get_all(status=MessageStatus.ARCHIVED)]
    assert FACT not in active and FACT in archived
    stored = {m.text: m for m in mem.memories(namespace="ana")}
    turn = f"user: {FACT}\nassistant: {replies[0]}"  # the turn, its reply with it
    assert turn in stored
    kept = stored[turn]
    assert kept.memory_type == "episodic"
    assert dict(kept.metadata) == {"role": "user", "session_id": "chat-1"}
    assert kept.session_ids == ("chat-1",)
    # ...and came back, in the system message of the prompt that answered the question.
    last = llm.seen[-1]
    assert last[-1].content == QUESTION
    assert FACT not in [m.content for m in last if m.role != MessageRole.SYSTEM]
    system = system_text(last)
    assert "<long_term_memory>" in system
    assert f"- [episodic] user: {FACT}" in system


def test_without_the_block_the_flushed_fact_is_gone(mem: CognitiveMemory) -> None:
    """The control: the same conversation and Memory, no block; the fact never returns."""
    llm = ScriptedChatLLM(max_tokens=None)
    chat_through(small_memory([]), llm, {"now": NOW})
    assert all("Clara" not in (m.content or "") for m in llm.seen[-1])


# The agent workflow inspects pydantic objects and trips pydantic's deprecation warnings (its
# own, with or without this block).
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_an_early_flushed_fact_reaches_a_function_agents_llm(mem: CognitiveMemory) -> None:
    seen: list[list[ChatMessage]] = []

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        seen.append(list(messages))
        return ChatMessage(role=MessageRole.ASSISTANT, content=f"Noted ({len(seen)}).")

    block = CognitiveMemoryBlock(memory=mem, now=NOW)
    memory = small_memory([block], session_id="agent-1")
    agent = FunctionAgent(
        llm=MockFunctionCallingLLM(response_generator=respond), tools=[], streaming=False
    )

    async def converse() -> None:
        for message in [FACT, *SMALL_TALK, QUESTION]:
            await agent.run(message, memory=memory)

    asyncio.run(converse())
    assert any(m.text.startswith(f"user: {FACT}\nassistant: ") for m in mem.memories())
    last = seen[-1]
    assert last[-1].content == QUESTION
    assert f"user: {FACT}" in system_text(last)
    assert FACT not in [m.content for m in last if m.role != MessageRole.SYSTEM]


# ---------------------------------------------------------------------------- reading
def fill(mem: CognitiveMemory, namespace: str = "default") -> None:
    mem.add_many(
        [
            {
                "text": "user: Clara plays the piano every Sunday at the old church by the "
                "harbour with her friends from the choir",
                "created_at": NOW - timedelta(days=5),
                "namespace": namespace,
            },
            {
                "text": "user: Clara teaches piano",
                "created_at": NOW - timedelta(days=4),
                "namespace": namespace,
            },
            {
                "text": "user: The piano needs tuning",
                "created_at": NOW - timedelta(days=3),
                "namespace": namespace,
            },
            {
                "text": "user: Lunch was pasta",
                "created_at": NOW - timedelta(days=2),
                "namespace": namespace,
            },
        ],
        now=NOW,
    )


def read(block: CognitiveMemoryBlock, *texts: str, **kwargs: Any) -> str:
    messages = [ChatMessage(role=MessageRole.USER, content=t) for t in texts]
    content = asyncio.run(block.aget(messages, **kwargs))
    assert isinstance(content, str)
    return content


def test_reads_the_relevant_memories_best_first_rendered(mem: CognitiveMemory) -> None:
    fill(mem)
    block = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False)
    content = read(block, "Clara piano church choir")
    ranked = mem.search("Clara piano church choir", now=NOW, reinforce=False, top_k=5)
    assert content.splitlines() == [render([r], NOW) for r in ranked]
    assert content.splitlines()[0].startswith("- [episodic] user: Clara plays the piano")
    assert content.splitlines()[0].endswith("(confidence 0.8, age 5d)")


def test_stays_within_its_token_budget_skipping_what_does_not_fit(
    mem: CognitiveMemory,
) -> None:
    fill(mem)
    block = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False, token_budget=30)
    content = read(block, "Clara piano church choir")
    assert len(block.tokenizer_fn(content)) <= 30
    # The best memory (39 tokens rendered) does not fit; the next one is tried and does.
    assert content == "- [episodic] user: Clara teaches piano (confidence 0.8, age 4d)"
    words = CognitiveMemoryBlock(
        memory=mem, now=NOW, reinforce=False, token_budget=21, tokenizer_fn=str.split
    )
    lines = read(words, "Clara piano church choir").splitlines()
    assert sum(len(line.split()) for line in lines) <= 21
    assert lines == [  # 10 and 11 words; the best memory is 25
        "- [episodic] user: Clara teaches piano (confidence 0.8, age 4d)",
        "- [episodic] user: The piano needs tuning (confidence 0.8, age 3d)",
    ]


def test_each_line_is_one_memory(mem: CognitiveMemory) -> None:
    block = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False, tokenizer_fn=str.split)
    two_blocks = ChatMessage(
        role=MessageRole.USER,
        blocks=[TextBlock(text="Shopping list:"), TextBlock(text="eggs, flour, basil")],
    )
    asyncio.run(block.aput([two_blocks]))
    assert [m.text for m in mem.memories()] == ["user: Shopping list:\neggs, flour, basil"]
    content = read(block, "shopping list")
    assert (
        content == "- [episodic] user: Shopping list: eggs, flour, basil (confidence 0.8, age now)"
    )
    assert asyncio.run(_truncate(block, content, 1)) is None  # one memory, dropped whole


def test_the_query_is_the_latest_messages(mem: CognitiveMemory) -> None:
    fill(mem)
    messages = [
        ChatMessage(role=MessageRole.SYSTEM, content="Clara Clara Clara"),
        ChatMessage(role=MessageRole.USER, content="What did I have for lunch?"),
        ChatMessage(role=MessageRole.ASSISTANT, content="Let me check."),
        ChatMessage(role=MessageRole.USER, content="Was it pasta?"),
    ]
    block = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False, similarity_top_k=1)
    assert "Lunch was pasta" in asyncio.run(block.aget(messages))
    only_system = [messages[0]]
    assert asyncio.run(block.aget(only_system)) == ""
    assert asyncio.run(block.aget([])) == ""
    assert asyncio.run(block.aget(None)) == ""


def test_recall_reinforces_the_memories_it_returns(mem: CognitiveMemory) -> None:
    fill(mem)
    later = NOW + timedelta(days=2)
    read(CognitiveMemoryBlock(memory=mem, now=later, reinforce=False), "Clara piano")
    assert all(m.access_count == 0 for m in mem.memories())
    read(CognitiveMemoryBlock(memory=mem, now=later, similarity_top_k=1), "Clara teaches piano")
    touched = [m for m in mem.memories() if m.access_count]
    assert [m.text for m in touched] == ["user: Clara teaches piano"]
    assert touched[0].last_accessed_at == later


def test_recall_spans_sessions_unless_scoped_to_one(mem: CognitiveMemory) -> None:
    """Before: the default was VectorMemoryBlock's session scope, so a new session recalled
    nothing, silently; it is now ``session_only=None``."""
    old = CognitiveMemoryBlock(memory=mem, now=NOW, session_id="monday")
    asyncio.run(old.aput([ChatMessage(role=MessageRole.USER, content=FACT)]))
    default = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False)
    assert "Clara" in read(default, QUESTION, session_id="friday")
    scoped = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False, session_only=None)
    assert read(scoped, QUESTION, session_id="friday") == ""
    assert "Clara" in read(scoped, QUESTION, session_id="monday")
    assert "Clara" in read(scoped, QUESTION)  # no session known: nothing to scope to
    own_filter = CognitiveMemoryBlock(
        memory=mem, now=NOW, reinforce=False, filters={"session_id": "monday"}, session_only=None
    )
    assert "Clara" in read(own_filter, QUESTION, session_id="friday")  # the user's filter wins
    strict = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False, session_only=True)
    with pytest.raises(InvalidInputError, match="session_only"):
        read(strict, QUESTION)


def test_a_new_memory_recalls_an_earlier_sessions_facts_unless_scoped(
    mem: CognitiveMemory,
) -> None:
    """Across ``Memory`` objects (a restart) and sessions, by default; by session id only
    with ``session_only=True``."""
    clock = {"now": NOW}
    llm = ScriptedChatLLM(max_tokens=None)
    chat_through(small_memory([CognitiveMemoryBlock(memory=mem, now=NOW)], "monday"), llm, clock)
    again = small_memory([CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False)], "friday")
    assert FACT in system_text(again.get(input=QUESTION))
    scoped = CognitiveMemoryBlock(memory=mem, now=NOW, reinforce=False, session_only=True)
    other = small_memory([scoped], "friday")
    assert "Clara" not in system_text(other.get(input=QUESTION))


def test_a_turn_with_tool_steps_reinforces_once(mem: CognitiveMemory) -> None:
    """A real FunctionAgent whose turn takes three tool steps reads the block four times;
    before, each read reinforced (access_count 0 -> 5 over a turn)."""
    from llama_index.core.tools import FunctionTool

    from tests.llamaindex_fixtures import tool_call

    mem.add("user: Clara teaches piano in Lisbon.", now=NOW - timedelta(days=3))
    script = [
        tool_call("lookup", "c1", what="a"),
        tool_call("lookup", "c2", what="b"),
        tool_call("lookup", "c3", what="c"),
        ChatMessage(role=MessageRole.ASSISTANT, content="Clara teaches piano."),
    ]
    seen: list[Sequence[ChatMessage]] = []

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        seen.append(messages)
        return script[len(seen) - 1]

    def lookup(what: str) -> str:
        """Look something up."""
        return f"nothing on {what}"

    agent = FunctionAgent(
        llm=MockFunctionCallingLLM(response_generator=respond),
        tools=[FunctionTool.from_defaults(lookup)],
        streaming=False,
    )
    memory = small_memory([CognitiveMemoryBlock(memory=mem, now=NOW)], "chat-1")

    async def turn() -> None:
        await agent.run("What does Clara teach?", memory=memory)

    asyncio.run(turn())
    assert len(seen) == 4 and all("Clara teaches piano" in system_text(m) for m in seen)
    (clara,) = mem.memories()
    assert clara.access_count == 1


def test_filters_and_namespaces_narrow_recall(mem: CognitiveMemory) -> None:
    fill(mem, namespace="ana")
    mem.add("user: Clara moved to Porto", namespace="ana", metadata={"role": "assistant"}, now=NOW)
    assert read(CognitiveMemoryBlock(memory=mem, now=NOW), "Clara") == ""  # other namespace
    only_ai = CognitiveMemoryBlock(
        memory=mem,
        namespace="ana",
        now=NOW,
        reinforce=False,
        filters=MetadataFilters(filters=[MetadataFilter(key="role", value="assistant")]),
    )
    assert read(only_ai, "Clara").splitlines() == [
        "- [episodic] user: Clara moved to Porto (confidence 0.8, age now)"
    ]
    with pytest.raises(UnsupportedFilterError):
        CognitiveMemoryBlock(
            memory=mem,
            filters=MetadataFilters(
                filters=[MetadataFilter(key="role", value=["a"], operator=FilterOperator.ANY)]
            ),
        )
    with pytest.raises(InvalidInputError, match="session_only"):
        CognitiveMemoryBlock(memory=mem, session_only=True, filters={"session_id": "x"})


async def _truncate(block: CognitiveMemoryBlock, content: str, tokens: int) -> str | None:
    return await block.atruncate(content, tokens)


def test_truncation_drops_the_least_relevant_lines_first(mem: CognitiveMemory) -> None:
    block = CognitiveMemoryBlock(memory=mem, tokenizer_fn=str.split)
    content = "- best one\n- second one\n- third one"
    assert asyncio.run(_truncate(block, content, 1)) == "- best one\n- second one"
    assert asyncio.run(_truncate(block, content, 4)) == "- best one"
    assert asyncio.run(_truncate(block, content, 99)) is None


def test_memory_truncates_a_block_with_a_priority(mem: CognitiveMemory) -> None:
    fill(mem)
    block = CognitiveMemoryBlock(
        memory=mem, now=NOW, reinforce=False, priority=1, session_only=False
    )
    memory = Memory.from_defaults(
        session_id="s", memory_blocks=[block], token_limit=60, chat_history_token_ratio=0.9
    )
    memory.put(ChatMessage(role=MessageRole.USER, content="Clara piano church choir"))
    system = system_text(memory.get())
    full = read(block, "Clara piano church choir")
    assert system and len(full.splitlines()) > len(
        [line for line in system.splitlines() if line.startswith("- [")]
    )
    assert "Clara plays the piano" in system  # the best memory is the one kept


def test_memory_truncates_lower_priorities_first_and_never_priority_zero(
    mem: CognitiveMemory,
) -> None:
    """Memory's code, not BaseMemoryBlock's docstring ("1 = highest"): 1 goes before 2."""
    fill(mem)
    notes = "Standing notes: " + " ".join(f"note{i}" for i in range(30))

    def system_after(cogmem_priority: int, static_priority: int) -> str:
        block = CognitiveMemoryBlock(
            memory=mem,
            now=NOW,
            reinforce=False,
            priority=cogmem_priority,
            token_budget=40,
            session_only=False,
        )
        static = StaticMemoryBlock(name="notes", static_content=notes, priority=static_priority)
        memory = Memory.from_defaults(session_id="s", memory_blocks=[block, static], token_limit=70)
        memory.put(ChatMessage(role=MessageRole.USER, content="Clara piano"))
        return system_text(memory.get())

    kept_cogmem = system_after(cogmem_priority=2, static_priority=1)
    assert "Clara" in kept_cogmem and "note29" not in kept_cogmem
    kept_notes = system_after(cogmem_priority=1, static_priority=2)
    assert "note29" in kept_notes and "Clara" not in kept_notes
    never = system_after(cogmem_priority=0, static_priority=1)
    assert "Clara" in never and "note29" not in never


# ---------------------------------------------------------------------------- writing
def test_every_flushed_turn_is_stored_even_when_two_are_alike(mem: CognitiveMemory) -> None:
    """A turn is one memory, its reply with it: an assistant's "Done." is never recalled on
    its own (before, each message was a memory, and "assistant: ok" came back alone)."""
    block = CognitiveMemoryBlock(memory=mem, now=NOW)
    messages = [
        ChatMessage(role=MessageRole.ASSISTANT, content="Welcome back."),
        ChatMessage(role=MessageRole.USER, content="Please book the table for eight."),
        ChatMessage(role=MessageRole.ASSISTANT, content="Done, it is booked."),
        ChatMessage(role=MessageRole.USER, content="Please book the table for eight."),
        ChatMessage(role=MessageRole.ASSISTANT, content="Done, it is booked."),
    ]
    asyncio.run(block.aput(messages))
    assert [m.text for m in mem.records()] == [
        "assistant: Welcome back.",  # the flush began after its user's message
        "user: Please book the table for eight.\nassistant: Done, it is booked.",
        "user: Please book the table for eight.\nassistant: Done, it is booked.",
    ]
    asyncio.run(block.aput(messages[1:3]))  # flushed again later: stored again
    assert len(mem) == 4


def test_stores_a_turn_user_and_assistant_text_as_one_memory(mem: CognitiveMemory) -> None:
    block = CognitiveMemoryBlock(memory=mem, now=NOW, session_id="fallback", importance=0.8)
    messages = [
        ChatMessage(role=MessageRole.SYSTEM, content="You are helpful."),
        ChatMessage(
            role=MessageRole.USER,
            content="I moved to Porto.",
            additional_kwargs={"session_id": "s-7"},
        ),
        ChatMessage(role=MessageRole.ASSISTANT, content="Noted, Porto."),
        ChatMessage(role=MessageRole.TOOL, content='{"weather": "sunny"}'),
        ChatMessage(role=MessageRole.ASSISTANT, content="   "),
    ]
    asyncio.run(block.aput(messages))
    (turn,) = mem.memories()
    assert turn.text == "user: I moved to Porto.\nassistant: Noted, Porto."
    assert turn.metadata["session_id"] == "s-7" and turn.session_ids == ("s-7",)
    assert turn.metadata["role"] == "user"
    assert (turn.importance, turn.created_at) == (0.8, NOW)
    alone = CognitiveMemoryBlock(memory=mem, now=NOW, session_id="fallback", namespace="a")
    asyncio.run(alone.aput(messages[2:]))
    assert [m.metadata["session_id"] for m in mem.memories(namespace="a")] == ["fallback"]
    assert messages[1].additional_kwargs == {"session_id": "s-7"}  # not modified

    tools_too = CognitiveMemoryBlock(memory=mem, now=NOW, roles=("tool",), namespace="t")
    asyncio.run(tools_too.aput(messages))
    assert [m.text for m in mem.memories(namespace="t")] == ['tool: {"weather": "sunny"}']
    asyncio.run(tools_too.aput([]))
    assert len(mem.memories(namespace="t")) == 1


def test_ignores_short_term_puts_when_told_to(mem: CognitiveMemory) -> None:
    block = CognitiveMemoryBlock(memory=mem, now=NOW, accept_short_term_memory=False)
    memory = small_memory([block])
    for text in [FACT, *SMALL_TALK]:
        memory.put(ChatMessage(role=MessageRole.USER, content=text))
    assert FACT in [m.content for m in memory.get_all(status=MessageStatus.ARCHIVED)]
    assert len(mem) == 0


def test_bad_configuration_is_refused(mem: CognitiveMemory) -> None:
    with pytest.raises(ValueError, match="similarity_top_k"):
        CognitiveMemoryBlock(memory=mem, similarity_top_k=0)
    with pytest.raises(ValueError, match="memory"):
        CognitiveMemoryBlock(memory="not a memory")
    with pytest.raises(ValueError, match="memory_type"):
        CognitiveMemoryBlock(memory=mem, memory_type="fact")
    with pytest.raises(InvalidInputError, match="naive"):
        CognitiveMemoryBlock(memory=mem, now=datetime(2026, 6, 1))


class ScriptedCompletionLLM(MockLLM):
    """A MockLLM that completes from a script and keeps every prompt it was sent."""

    replies: list[str] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return CompletionResponse(text=self.replies[len(self.prompts) - 1])


def test_a_fact_extractor_keeps_facts_through_dedup(mem: CognitiveMemory) -> None:
    """As FactExtractionMemoryBlock extracts facts: the LLM's facts are stored as semantic
    memories, a restatement reinforces, and an extraction of NONE stores nothing."""
    llm = ScriptedCompletionLLM(max_tokens=None)
    llm.replies = [
        "- The user's sister Clara lives in Lisbon.\n- The user is vegetarian.",
        "NONE",
        "1. The user is vegetarian.",
    ]
    block = CognitiveMemoryBlock(
        memory=mem, now=NOW, namespace="ana", extractor=fact_extractor_from(llm)
    )
    turn = [
        ChatMessage(role=MessageRole.USER, content=FACT, additional_kwargs={"session_id": "s1"}),
        ChatMessage(role=MessageRole.ASSISTANT, content="Lovely."),
    ]
    asyncio.run(block.aput(turn))
    facts = {m.text: m for m in mem.memories(namespace="ana")}
    assert set(facts) == {"The user's sister Clara lives in Lisbon.", "The user is vegetarian."}
    assert {m.memory_type for m in facts.values()} == {"semantic"}
    assert facts["The user is vegetarian."].session_ids == ("s1",)
    assert f"user: {FACT}\nassistant: Lovely." in llm.prompts[0]
    asyncio.run(block.aput([ChatMessage(role=MessageRole.USER, content="ok thanks")]))
    assert len(mem.memories(namespace="ana")) == 2
    block.now = NOW + timedelta(days=2)
    asyncio.run(block.aput([ChatMessage(role=MessageRole.USER, content="I'm vegetarian.")]))
    again = {m.text: m for m in mem.memories(namespace="ana")}
    vegetarian = again["The user is vegetarian."]
    assert len(again) == 2 and vegetarian.stability > facts["The user is vegetarian."].stability
    with pytest.raises(InvalidTypeError, match="extractor"):
        CognitiveMemoryBlock(memory=mem, extractor="facts please")


def test_a_failing_fact_extractor_is_a_named_error_and_stores_nothing(
    mem: CognitiveMemory,
) -> None:
    class Broken(MockLLM):
        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            raise RuntimeError("rate limited")

    block = CognitiveMemoryBlock(memory=mem, now=NOW, extractor=fact_extractor_from(Broken()))
    with pytest.raises(ExtractorError, match="rate limited"):
        asyncio.run(block.aput([ChatMessage(role=MessageRole.USER, content=FACT)]))
    assert len(mem) == 0
    with pytest.raises(InvalidInputError, match="conversation"):
        fact_extractor_from(Broken(), prompt="Facts of {dialogue}:")


def test_a_flush_whose_write_fails_is_kept_and_written_with_the_next(tmp_path: Path) -> None:
    """LlamaIndex's Memory archives flushed messages before the blocks' aput and never passes
    them again: before, a flush refused for a full disk was lost to the block for good."""
    clock = {"now": NOW}
    reserve = CognitiveMemoryConfig(disk_reserve_mb=16.0)
    with (
        small_disk(tmp_path, 32) as disk,
        CognitiveMemory(
            path=disk.path / "store", embedder=HashingEmbedder(), config=reserve
        ) as mem,
    ):
        block = CognitiveMemoryBlock(memory=mem, namespace="ana", now=lambda: clock["now"])
        memory = small_memory([block])
        filler = fill_disk(disk, leave_bytes=8 * 2**20)
        said = [FACT, *SMALL_TALK]
        sent = 0
        with pytest.raises(DiskFullError):
            for text in said:  # the first flush fails, and Memory.put with it
                sent += 1
                memory.put(ChatMessage(role=MessageRole.USER, content=text))
                clock["now"] += timedelta(hours=1)
        assert len(mem) == 0
        waiting = [m.content for m in block.pending()]
        assert waiting and waiting[0] == FACT
        archived = [m.content for m in memory.get_all(status=MessageStatus.ARCHIVED)]
        assert archived == waiting  # Memory will not pass them again
        filler.unlink()
        for text in [*said[sent:], *(f"Small talk {n}." for n in range(6))]:
            memory.put(ChatMessage(role=MessageRole.USER, content=text))
            clock["now"] += timedelta(hours=1)
        assert block.pending() == []
        stored = {r.text: r for r in mem.memories(namespace="ana")}
        first = stored[f"user: {FACT}"]
        assert first.created_at == min(r.created_at for r in stored.values())
        assert first.created_at < max(r.created_at for r in stored.values())  # its own flush's
