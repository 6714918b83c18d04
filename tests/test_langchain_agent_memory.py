"""CognitiveMemoryMiddleware and memory_tools in real ``create_agent`` agents, scripted with
``GenericFakeChatModel``, over several turns and a restart from a folder store."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from pydantic import Field

from cogmem import CognitiveMemory, InvalidInputError
from cogmem.records import STATED_KEY
from cogmem.testing import HashingEmbedder
from langchain_cogmem import CognitiveMemoryMiddleware, memory_tools

DAY0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
FACT = "My sister Clara moved to Lisbon last spring."


class Clock:
    def __init__(self) -> None:
        self.time = DAY0

    def __call__(self) -> datetime:
        return self.time


class RecordingModel(GenericFakeChatModel):
    """A scripted chat model that keeps every prompt it was sent and accepts tools."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingModel:  # type: ignore[override]
        return self


def scripted(*replies: str | AIMessage) -> RecordingModel:
    return RecordingModel(
        messages=iter([r if isinstance(r, AIMessage) else AIMessage(content=r) for r in replies])
    )


def system_text(prompt: Sequence[BaseMessage]) -> str:
    return "\n".join(m.text for m in prompt if isinstance(m, SystemMessage))


def ask(agent: Any, text: str) -> dict[str, Any]:
    return agent.invoke({"messages": [{"role": "user", "content": text}]})  # type: ignore[no-any-return]


def test_a_fact_from_an_earlier_turn_reaches_the_prompt_with_its_id(mem: CognitiveMemory) -> None:
    clock = Clock()
    memory = CognitiveMemoryMiddleware(mem, namespace="ana", session_id="chat-1", now=clock)
    model = scripted("How lovely!", "Sounds tasty.", "Clara lives in Lisbon.")
    agent = create_agent(model, tools=[], system_prompt="You are kind.", middleware=[memory])
    ask(agent, FACT)
    clock.time += timedelta(days=3)
    ask(agent, "I had pasta for lunch.")
    clock.time += timedelta(days=30)
    out = ask(agent, "Where does my sister live now?")
    assert out["messages"][-1].text == "Clara lives in Lisbon."

    stored = {m.text: m for m in mem.memories(namespace="ana", now=clock.time)}
    clara = stored[f"{FACT}\nHow lovely!"]  # the exchange, question and answer, one memory
    assert clara.memory_type == "episodic" and clara.session_ids[0] == "chat-1"
    prompt = system_text(model.seen[-1])
    assert prompt.startswith("You are kind.\n\nLong-term memories that may be relevant")
    assert f"{FACT} How lovely!" not in prompt  # rendered on its lines, not joined
    assert f"(id {clara.id}, " in prompt
    assert FACT in prompt
    assert len(model.seen[0]) == 2  # the first turn recalled nothing: the prompt as given
    assert system_text(model.seen[0]) == "You are kind."


def test_memories_survive_a_restart(tmp_path: Path) -> None:
    clock = Clock()
    with CognitiveMemory(tmp_path / "mem", embedder=HashingEmbedder()) as mem:
        agent = create_agent(
            scripted("Noted."),
            tools=[],
            middleware=[CognitiveMemoryMiddleware(mem, namespace="ana", now=clock)],
        )
        ask(agent, "My passport expires in August.")
    clock.time += timedelta(days=10)
    with CognitiveMemory(tmp_path / "mem", embedder=HashingEmbedder()) as mem:
        model = scripted("In August.")
        agent = create_agent(
            model, tools=[], middleware=[CognitiveMemoryMiddleware(mem, namespace="ana", now=clock)]
        )
        ask(agent, "When does my passport expire?")
        assert "My passport expires in August." in system_text(model.seen[-1])


def test_recall_stays_within_k_and_the_token_budget(mem: CognitiveMemory) -> None:
    clock = Clock()
    mem.add_many(
        [
            {"text": f"Note {i}: the garden needs watering on day {i}.", "namespace": "ana"}
            for i in range(20)
        ],
        now=DAY0,
    )
    model = scripted("Ok.", "Ok.")
    few = CognitiveMemoryMiddleware(mem, namespace="ana", k=3, now=clock)
    create_agent(model, tools=[], middleware=[few]).invoke(
        {"messages": [{"role": "user", "content": "garden watering"}]}
    )
    assert system_text(model.seen[-1]).count("\n- [") == 3
    small = CognitiveMemoryMiddleware(mem, namespace="ana", k=20, token_budget=30, now=clock)
    create_agent(model, tools=[], middleware=[small]).invoke(
        {"messages": [{"role": "user", "content": "garden watering"}]}
    )
    lines = [line for line in system_text(model.seen[-1]).splitlines() if line.startswith("- [")]
    assert 1 <= len(lines) < 20


def test_an_extractor_decides_what_is_remembered(mem: CognitiveMemory) -> None:
    clock = Clock()

    def facts(turn: Sequence[BaseMessage]) -> list[str]:
        return [f"The user said: {turn[0].text}"] if "sister" in turn[0].text else []

    memory = CognitiveMemoryMiddleware(mem, namespace="ana", extractor=facts, now=clock)
    agent = create_agent(scripted("Nice.", "Ok."), tools=[], middleware=[memory])
    ask(agent, FACT)
    ask(agent, "Nice weather.")
    [kept] = mem.memories(namespace="ana", now=clock.time)
    assert kept.text == f"The user said: {FACT}" and kept.memory_type == "semantic"


def test_tool_loops_reinforce_once_per_turn(mem: CognitiveMemory) -> None:
    clock = Clock()
    mem.add("The user's dog is called Biscuit.", id="dog", namespace="ana", now=DAY0)
    call = AIMessage(
        content="",
        tool_calls=[{"name": "search_memory", "args": {"query": "dog"}, "id": "c1"}],
    )
    model = scripted(call, "Biscuit.")
    memory = CognitiveMemoryMiddleware(mem, namespace="ana", now=clock, tools=True)
    out = create_agent(model, tools=[], middleware=[memory]).invoke(
        {"messages": [{"role": "user", "content": "What is my dog called?"}]}
    )
    assert len(model.seen) == 2  # two model calls in the turn, both shown the memory
    assert all("Biscuit" in system_text(prompt) for prompt in model.seen)
    assert "Biscuit" in str(next(m for m in out["messages"] if isinstance(m, ToolMessage)).content)
    # the middleware's first recall and the tool's search: two; the second model call: none
    assert mem.get("dog", namespace="ana", now=clock.time).access_count == 2


def test_memory_tools_in_an_agent(mem: CognitiveMemory) -> None:
    clock = Clock()
    tools = memory_tools(mem, namespace="ana", now=clock)
    assert [t.name for t in tools] == [
        "search_memory",
        "remember",
        "forget",
        "update_memory",
        "memory_history",
    ]
    model = scripted(
        AIMessage(
            content="",
            tool_calls=[
                {"name": "remember", "args": {"text": "Ana is allergic to peanuts."}, "id": "1"}
            ],
        ),
        AIMessage(
            content="",
            tool_calls=[{"name": "forget", "args": {"memory_id": "not-an-id"}, "id": "2"}],
        ),
        "Noted, and I could not forget that.",
    )
    out = create_agent(model, tools=tools).invoke(
        {"messages": [{"role": "user", "content": "Remember my peanut allergy."}]}
    )
    results = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    [stored] = mem.memories(namespace="ana", now=clock.time)
    assert results[0].content == f"Stored as memory {stored.id}."
    assert results[1].status == "error" and "not-an-id" in str(results[1].content)
    assert out["messages"][-1].text == "Noted, and I could not forget that."


def test_async_agent(mem: CognitiveMemory) -> None:
    clock = Clock()
    mem.add("The user's flat is on the fifth floor.", namespace="ana", now=DAY0)
    model = scripted("The fifth.", "Ok.")
    agent = create_agent(
        model, tools=[], middleware=[CognitiveMemoryMiddleware(mem, namespace="ana", now=clock)]
    )

    async def converse() -> None:
        await agent.ainvoke({"messages": [{"role": "user", "content": "Which floor is my flat?"}]})

    asyncio.run(converse())
    assert "fifth floor" in system_text(model.seen[-1])
    assert any("Which floor" in m.text for m in mem.memories(namespace="ana", now=clock.time))


def test_bad_arguments_are_refused(mem: CognitiveMemory) -> None:
    with pytest.raises(InvalidInputError, match=r"'top_k' \(did you mean 'k'\?\)"):
        CognitiveMemoryMiddleware(mem, top_k=3)
    with pytest.raises(InvalidInputError, match="fact_type"):
        CognitiveMemoryMiddleware(mem, fact_type="dream")
    with pytest.raises(TypeError, match="CognitiveMemory"):
        CognitiveMemoryMiddleware("mem")  # type: ignore[arg-type]


def test_a_users_statement_is_kept_as_a_fact_and_its_change_comes_first(
    mem: CognitiveMemory,
) -> None:
    clock = Clock()
    memory = CognitiveMemoryMiddleware(mem, namespace="ana", now=clock)
    agent = create_agent(scripted("Noted.", "Noted.", "Noted."), middleware=[memory])
    ask(agent, "I live in Denver.")
    clock.time += timedelta(days=40)
    ask(agent, "Sorry, I meant Austin - I live in Austin now.")
    ask(agent, "Where do I live?")  # a question: no fact
    facts = [
        m for m in mem.memories(namespace="ana", now=clock.time) if m.memory_type != "episodic"
    ]
    assert sorted(m.text for m in facts) == [
        "I live in Denver.",
        "Sorry, I meant Austin - I live in Austin now.",
    ]
    newer = next(m for m in facts if "Austin" in m.text)
    older = next(m for m in facts if "Denver" in m.text)
    assert newer.previous_version == older.id
    texts = [r.text for r in mem.search("Where do I live?", namespace="ana", now=clock.time)]
    assert texts.index(newer.text) < texts.index(older.text)


def test_a_fact_is_not_linked_as_a_version_of_its_own_exchange(mem: CognitiveMemory) -> None:
    """The fact and the exchange it was said in are one statement at one moment: a link from
    one to the other would take the place of the link to what the fact updates."""
    clock = Clock()
    memory = CognitiveMemoryMiddleware(mem, namespace="ana", now=clock)
    agent = create_agent(scripted("Noted."), middleware=[memory])
    ask(agent, "My rent is $1,850 a month.")
    (fact,) = [
        m for m in mem.memories(namespace="ana", now=clock.time) if m.memory_type != "episodic"
    ]
    assert fact.previous_version is None
    (exchange,) = [
        m for m in mem.memories(namespace="ana", now=clock.time) if m.memory_type == "episodic"
    ]
    assert exchange.metadata == {STATED_KEY: fact.id}  # ranked right below it once outdated


def test_facts_false_keeps_only_the_exchange(mem: CognitiveMemory) -> None:
    memory = CognitiveMemoryMiddleware(mem, namespace="ana", now=Clock(), facts=False)
    ask(create_agent(scripted("Noted."), middleware=[memory]), "I live in Denver.")
    assert [m.memory_type for m in mem.memories(namespace="ana")] == ["episodic"]
    with pytest.raises(TypeError, match="facts"):
        CognitiveMemoryMiddleware(mem, facts="yes")  # type: ignore[arg-type]


def test_one_agent_serves_two_users_and_neither_sees_the_others_memories(
    mem: CognitiveMemory,
) -> None:
    """One compiled agent, the namespace a template filled per run from its context (the
    middleware) or its config (the tools, as langmem's templates are)."""
    clock = Clock()
    memory = CognitiveMemoryMiddleware(
        mem, namespace="user-{user_id}", now=clock, tools=True, name="long_term"
    )
    model = scripted(
        "Noted.",
        "Noted.",
        AIMessage(
            content="",
            tool_calls=[{"name": "search_memory", "args": {"query": "pet"}, "id": "c1"}],
        ),
        "Your cat is Miso.",
        "I know nothing of a cat.",
    )
    agent = create_agent(model, tools=memory.tools, middleware=[memory])
    assert memory.name == "long_term"

    def turn(user: str, text: str) -> dict[str, Any]:
        return agent.invoke(  # type: ignore[no-any-return]
            {"messages": [{"role": "user", "content": text}]},
            context={"user_id": user},
            config={"configurable": {"user_id": user}},
        )

    turn("ana", "My cat is called Miso.")
    turn("bob", "My dog is called Rex.")
    clock.time += timedelta(days=1)
    out = turn("ana", "What is my pet called?")
    found = next(m for m in out["messages"] if isinstance(m, ToolMessage)).text
    assert "Miso" in found and "Rex" not in found  # the tool searched ana's memories
    assert "Miso" in system_text(model.seen[-2]) and "Rex" not in system_text(model.seen[-2])
    turn("carol", "What is my pet called?")
    assert "Miso" not in system_text(model.seen[-1]) and "Rex" not in system_text(model.seen[-1])
    assert {m.text.split("\n")[0] for m in mem.memories(namespace="user-bob")} >= {
        "My dog is called Rex."
    }
    assert all("Rex" not in m.text for m in mem.memories(namespace="user-ana"))


def test_a_template_without_its_value_is_a_named_error(mem: CognitiveMemory) -> None:
    memory = CognitiveMemoryMiddleware(mem, namespace="user-{user_id}")
    agent = create_agent(scripted("Hi."), tools=[], middleware=[memory])
    with pytest.raises(InvalidInputError, match=r"needs \['user_id'\]"):
        ask(agent, "Hello")
    with pytest.raises(InvalidInputError, match="plain name"):
        CognitiveMemoryMiddleware(mem, namespace="user-{0}")


def test_two_middleware_instances_with_their_own_names(mem: CognitiveMemory) -> None:
    """Before: LangChain refused two instances of one middleware class by name."""
    personal = CognitiveMemoryMiddleware(mem, namespace="ana", name="personal_memory")
    team = CognitiveMemoryMiddleware(mem, namespace="team", name="team_memory", facts=False)
    mem.add("The team deploys on Fridays.", namespace="team", now=DAY0)
    model = scripted("Fridays.")
    agent = create_agent(model, tools=[], middleware=[personal, team])
    clock_out = ask(agent, "When does the team deploy?")
    assert clock_out["messages"][-1].text == "Fridays."
    assert "The team deploys on Fridays." in system_text(model.seen[-1])


def test_the_exchange_id_has_the_form_of_every_other_id(mem: CognitiveMemory) -> None:
    """Before: 32 hex digits from the middleware, dashed UUIDs from the tools and add()."""
    memory = CognitiveMemoryMiddleware(mem, namespace="ana", facts=False)
    ask(create_agent(scripted("Noted."), tools=[], middleware=[memory]), "I had pasta today.")
    (exchange,) = mem.memories(namespace="ana")
    assert str(uuid.UUID(exchange.id)) == exchange.id


def test_the_middleware_and_the_store_share_one_memory(mem: CognitiveMemory) -> None:
    """Before: the middleware kept 'user-ana' and the store 'lg:users/ana', two memories of one
    user; a store item reached no prompt, and would have come as raw JSON."""
    from langchain_cogmem import CognitiveMemoryStore

    clock = Clock()
    store = CognitiveMemoryStore(mem, now=clock)
    store.put(("users", "ana"), "allergy", {"text": "Ana is allergic to penicillin."})
    store.put(("users", "ana"), "diet", {"food": "lentils", "rating": 5})
    store.put(("users", "bob"), "allergy", {"text": "Bob is allergic to penicillin."})
    memory = CognitiveMemoryMiddleware(mem, namespace=("users", "{user_id}"), now=clock)
    model = scripted("Noted, no penicillin.")
    agent = create_agent(model, tools=[], middleware=[memory])
    agent.invoke(
        {"messages": [{"role": "user", "content": "Which antibiotics should I avoid? Lentils?"}]},
        context={"user_id": "ana"},
    )
    prompt = system_text(model.seen[-1])
    assert "- [semantic] Ana is allergic to penicillin. (id allergy," in prompt
    assert "food: lentils; rating: 5" in prompt and '{"' not in prompt
    assert "Bob" not in prompt
    turns = [i.value["text"] for i in store.search(("users", "ana"), limit=10) if "text" in i.value]
    assert any(t.startswith("Which antibiotics should I avoid?") for t in turns)
