"""CognitiveConversationMemory inside real classic chains (langchain-classic), clock injected."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from langchain_classic.chains import ConversationChain, LLMChain
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from pydantic import Field

from cogmem import CognitiveMemory, InvalidInputError, InvalidTypeError
from cogmem.testing import HashingEmbedder
from langchain_cogmem import CognitiveConversationMemory

# ConversationChain and LLMChain are deprecated in LangChain 1.x but still what classic code uses.
pytestmark = pytest.mark.filterwarnings(
    "ignore::langchain_core._api.deprecation.LangChainDeprecationWarning"
)

DAY0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)


class Clock:
    """A settable clock: ``clock()`` is the current simulated time."""

    def __init__(self, start: datetime) -> None:
        self.time = start

    def __call__(self) -> datetime:
        return self.time


class RecordingChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that also keeps every prompt it was sent."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


@pytest.fixture
def memory() -> Iterator[CognitiveMemory]:
    mem = CognitiveMemory(embedder=HashingEmbedder())
    yield mem
    mem.close()


CONVERSATION = [
    # (day, what the user says, what the model answers)
    (0, "My sister Clara just moved to Lisbon.", "How exciting, Lisbon is lovely!"),
    (1, "I had a tuna sandwich for lunch today.", "Sounds tasty."),
    (3, "I am learning to play the cello.", "Good luck with the practice."),
    (6, "My laptop battery died during a call.", "That is annoying."),
    (9, "We watched a documentary about whales.", "Whales are fascinating."),
    (13, "I need to renew my passport soon.", "Do not leave it too late."),
    (17, "The roses in the garden are blooming.", "Lovely season for it."),
    (21, "I started running on Sunday mornings.", "Great habit."),
    (26, "The quarterly report is finally done.", "Well done!"),
]


def test_turn_one_fact_is_recalled_on_day_thirty_and_the_faded_one_is_not(
    memory: CognitiveMemory,
) -> None:
    clock = Clock(DAY0)
    replies = [answer for _, _, answer in CONVERSATION] + ["Your sister Clara is in Lisbon."]
    model = RecordingChatModel(messages=iter(replies))
    chat_memory = CognitiveConversationMemory(
        memory=memory, namespace="user-1", session_id="chat-1", k=4, now=clock
    )
    chain = ConversationChain(llm=model, memory=chat_memory)

    for day, said, answer in CONVERSATION:
        clock.time = DAY0 + timedelta(days=day)
        assert chain.invoke({"input": said})["response"] == answer

    clock.time = DAY0 + timedelta(days=30)
    result = chain.invoke({"input": "Which city did my sister move to?"})
    assert result["response"] == "Your sister Clara is in Lisbon."

    # What the model was actually shown in turn 10:
    prompt = str(model.seen[-1][-1].content)
    assert "Human: My sister Clara just moved to Lisbon." in prompt
    assert "AI: How exciting, Lisbon is lovely!" in prompt  # the answer came with it
    assert "tuna sandwich" not in prompt
    assert result["history"].count("\n") <= 7  # k = 4 exchanges, two lines each, at most

    # Every exchange was stored, as an episodic memory of this session, stamped with its day.
    assert memory.count("user-1") == len(CONVERSATION) + 1
    recalled = memory.search(
        "sister Clara Lisbon",
        namespace="user-1",
        filters={"role": "exchange", "created_before": DAY0},
        top_k=1,
        reinforce=False,
        now=clock.time,
    )[0].memory
    assert recalled.text == "My sister Clara just moved to Lisbon.\nHow exciting, Lisbon is lovely!"
    assert recalled.memory_type == "episodic"
    assert recalled.created_at == DAY0
    assert recalled.session_ids == ("chat-1",)
    assert dict(recalled.metadata) == {
        "role": "exchange",
        "session_id": "chat-1",
        "human_chars": 37,
    }
    assert recalled.access_count >= 1  # recalling it in turn 10 reinforced it


def test_messages_in_an_llm_chain_with_a_chat_prompt(memory: CognitiveMemory) -> None:
    clock = Clock(DAY0)
    chat_memory = CognitiveConversationMemory(
        memory=memory, return_messages=True, memory_key="chat_history", k=2, now=clock
    )
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You are a helpful assistant."),
            MessagesPlaceholder("chat_history"),
            ("human", "{question}"),
        ]
    )
    model = RecordingChatModel(messages=iter(["Noted.", "It is Biscuit."]))
    chain = LLMChain(llm=model, prompt=prompt, memory=chat_memory)
    chain.invoke({"question": "My dog is called Biscuit."})
    clock.time = DAY0 + timedelta(days=2)
    out = chain.invoke({"question": "What is my dog called?"})
    assert out["text"] == "It is Biscuit."
    history = out["chat_history"]
    assert [type(m) for m in history] == [HumanMessage, AIMessage]
    assert [m.content for m in history] == ["My dog is called Biscuit.", "Noted."]
    stored = memory.get((history[0].id or "").removesuffix(":human")).text
    assert stored == "My dog is called Biscuit.\nNoted."
    assert [m.id for m in history] == [history[0].id, history[0].id.replace(":human", ":ai")]
    shown = model.seen[-1]
    assert [m.content for m in shown[1:3]] == ["My dog is called Biscuit.", "Noted."]


def test_recalled_turns_come_in_the_order_they_were_said(memory: CognitiveMemory) -> None:
    clock = Clock(DAY0)
    chat_memory = CognitiveConversationMemory(memory=memory, k=4, now=clock, reinforce=False)
    chat_memory.save_context({"input": "The blue vase broke."}, {"output": "Oh no, the vase!"})
    clock.time = DAY0 + timedelta(days=1)
    chat_memory.save_context({"input": "I glued the blue vase."}, {"output": "Good as new."})
    history = chat_memory.load_memory_variables({"input": "blue vase"})["history"]
    assert history.splitlines() == [
        "Human: The blue vase broke.",
        "AI: Oh no, the vase!",
        "Human: I glued the blue vase.",
        "AI: Good as new.",
    ]


def test_k_counts_exchanges_and_a_recalled_one_comes_back_whole(memory: CognitiveMemory) -> None:
    clock = Clock(DAY0)
    chat_memory = CognitiveConversationMemory(
        memory=memory, k=1, now=clock, reinforce=False, return_messages=True
    )
    chat_memory.save_context({"input": "What is the wifi password?"}, {"output": "It is tulip42."})
    clock.time = DAY0 + timedelta(days=1)
    chat_memory.save_context({"input": "Bake a cake?"}, {"output": "Lemon drizzle."})
    history = chat_memory.load_memory_variables({"input": "wifi password"})["history"]
    assert [(type(m), m.content) for m in history] == [
        (HumanMessage, "What is the wifi password?"),
        (AIMessage, "It is tulip42."),
    ]


def test_an_exchange_said_twice_is_stored_twice(memory: CognitiveMemory) -> None:
    clock = Clock(DAY0)
    chat_memory = CognitiveConversationMemory(memory=memory, now=clock)
    for day in (0, 7):
        clock.time = DAY0 + timedelta(days=day)
        chat_memory.save_context({"input": "Good morning!"}, {"output": "Good morning to you."})
    assert [r.created_at for r in memory.records()] == [DAY0, DAY0 + timedelta(days=7)]


def test_sessions_and_clear(memory: CognitiveMemory) -> None:
    clock = Clock(DAY0)
    first = CognitiveConversationMemory(memory=memory, session_id="a", now=clock)
    second = CognitiveConversationMemory(
        memory=memory, session_id="b", session_only=True, now=clock
    )
    first.save_context({"input": "I keep my keys in the red bowl."}, {"output": "Got it."})
    second.save_context({"input": "I keep my bike in the shed."}, {"output": "Okay."})
    assert "red bowl" in first.load_memory_variables({"input": "where do I keep things"})["history"]
    only_b = second.load_memory_variables({"input": "where do I keep things"})["history"]
    assert "shed" in only_b and "red bowl" not in only_b

    memory.add("something else entirely", namespace="other")
    first.clear()
    assert memory.count("default") == 0
    assert memory.count("other") == 1
    assert first.load_memory_variables({"input": "keys"}) == {"history": ""}


def test_async_chain_and_empty_sides(memory: CognitiveMemory) -> None:
    clock = Clock(DAY0)
    chat_memory = CognitiveConversationMemory(memory=memory, now=clock)
    chat_memory.save_context({"input": "Remember the code word: pineapple."}, {"output": "  "})
    assert [r.text for r in memory.records()] == ["Remember the code word: pineapple."]
    assert chat_memory.load_memory_variables({"input": "code word"})["history"] == (
        "Human: Remember the code word: pineapple."  # the empty answer is left out
    )
    model = RecordingChatModel(messages=iter(["pineapple"]))
    chain = ConversationChain(llm=model, memory=chat_memory)
    result = asyncio.run(chain.ainvoke({"input": "What is the code word?"}))
    assert "pineapple" in result["history"]
    assert memory.count() == 2
    chat_memory.save_context({"input": ""}, {"output": "Only the answer."})
    history = chat_memory.load_memory_variables({"input": "answer"})["history"]
    assert "AI: Only the answer." in history.splitlines()
    chat_memory.save_context({"input": " "}, {"output": ""})
    assert memory.count() == 3  # nothing said, nothing stored


def test_bad_input_is_rejected(memory: CognitiveMemory) -> None:
    chat_memory = CognitiveConversationMemory(memory=memory)
    with pytest.raises(InvalidInputError, match="input_key"):
        chat_memory.save_context({"a": "x", "b": "y"}, {"output": "z"})
    with pytest.raises(InvalidInputError, match="output_key"):
        chat_memory.save_context({"input": "x"}, {"a": "y", "b": "z"})
    with pytest.raises(InvalidTypeError, match="text"):
        chat_memory.save_context({"input": 42}, {"output": "z"})
    with pytest.raises(InvalidInputError, match="session_id"):
        CognitiveConversationMemory(memory=memory, session_only=True).load_memory_variables(
            {"input": "x"}
        )
    with pytest.raises(ValueError, match="k"):
        CognitiveConversationMemory(memory=memory, k=0)
    with pytest.raises(ValueError, match="memory_type"):
        CognitiveConversationMemory(memory=memory, memory_type="dream")  # type: ignore[arg-type]
    assert memory.count() == 0
    # Messages are accepted as input (their text is stored).
    chat_memory.save_context({"input": HumanMessage("hi there")}, {"output": AIMessage("hello")})
    assert [r.text for r in memory.records()] == ["hi there\nhello"]
