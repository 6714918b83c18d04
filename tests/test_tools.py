"""cogmem.tools.MemoryTools: what an agent's memory tools do, framework-free."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from cogmem import CognitiveMemory, InvalidInputError, MemoryNotFoundError
from cogmem.tools import MemoryTools

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def tools(mem: CognitiveMemory) -> MemoryTools:
    return MemoryTools(mem, namespace="ana", session_id="s1", now=lambda: NOW)


def test_remember_says_what_the_write_did(mem: CognitiveMemory, tools: MemoryTools) -> None:
    stored = tools.remember("The user's flight to Lisbon is on May 3.")
    first = mem.memories(namespace="ana", now=NOW)[0]
    assert stored == f"Stored as memory {first.id}."
    assert first.memory_type == "semantic" and first.session_ids == ("s1",)
    assert tools.remember("the user's flight to Lisbon is on May 3") == (
        f"Already known as memory {first.id}; reinforced it."
    )
    changed = tools.remember("The user's flight to Lisbon is on May 13.")
    newest = next(m for m in mem.memories(namespace="ana", now=NOW) if m.id != first.id)
    assert changed == f"Stored as memory {newest.id}, the newer version of {first.id}."


def test_search_lists_memories_with_their_ids(mem: CognitiveMemory, tools: MemoryTools) -> None:
    assert tools.search_memory("anything") == "No memories found."
    tools.remember("Ana is vegetarian.")
    tools.remember("Ana plays the cello.")
    found = tools.search_memory("what does Ana eat", k=1)
    [memory] = [m for m in mem.memories(namespace="ana", now=NOW) if "vegetarian" in m.text]
    assert found.splitlines() == [
        f"- [semantic] Ana is vegetarian. (id {memory.id}, confidence 0.8, age now)"
    ]


def test_forget_and_update(mem: CognitiveMemory, tools: MemoryTools) -> None:
    tools.remember("Ana lives in Porto.")
    [old] = mem.memories(namespace="ana", now=NOW)
    answer = tools.update_memory(old.id, "Ana moved to Lisbon in June.")
    [new] = mem.memories(namespace="ana", now=NOW)  # the old one is superseded
    assert answer == f"Updated: memory {new.id} replaces {old.id}."
    assert mem.get(old.id, namespace="ana").superseded_by == new.id
    assert "Porto" not in tools.search_memory("where does Ana live")
    assert tools.forget(new.id) == f"Forgot memory {new.id}."
    assert [m.id for m in mem.records("ana")] == [old.id]
    with pytest.raises(MemoryNotFoundError):
        tools.forget(new.id)
    with pytest.raises(MemoryNotFoundError):
        tools.update_memory("no-such-id", "x")
    with pytest.raises(InvalidInputError):
        tools.remember("   ")
    assert [m.id for m in mem.records("ana")] == [old.id]  # the failed calls changed nothing


def test_a_clock_moves_what_search_sees(mem: CognitiveMemory) -> None:
    clock = {"now": NOW}
    tools = MemoryTools(mem, now=lambda: clock["now"])
    mem.add("The door code is 4711.", expires_at=NOW + timedelta(hours=1), now=NOW)
    assert "4711" in tools.search_memory("door code")
    clock["now"] = NOW + timedelta(hours=2)
    assert tools.search_memory("door code") == "No memories found."
