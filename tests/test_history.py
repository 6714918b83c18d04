"""CognitiveMemory.history and the memory_history tool: a memory's versions, oldest first."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from cogmem import CognitiveMemory, InvalidInputError, MemoryNotFoundError
from cogmem.records import MemoryRecord
from cogmem.tools import MemoryTools

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def versions(mem: CognitiveMemory, *links: tuple[str, str, str | None, int]) -> None:
    """Store ``(id, text, previous_version, days ago)`` memories as given (hand-made links):
    the first through ``add``, the others as copies of it, restored."""
    first_id, first_text, first_previous, first_age = links[0]
    mem.add(first_text, id=first_id, memory_type="semantic", now=NOW - first_age * DAY)
    first = replace(mem.get(first_id, now=NOW), previous_version=first_previous)
    if first_previous is not None:
        mem.delete(first_id)
    rest = [
        replace(first, id=i, text=text, previous_version=previous, created_at=NOW - age * DAY)
        for i, text, previous, age in links[1:]
    ]
    mem.restore(rest if first_previous is None else [first, *rest])


def ids(records: Sequence[MemoryRecord]) -> list[str]:
    return [r.id for r in records]


@pytest.fixture
def rent(mem: CognitiveMemory) -> CognitiveMemory:
    """v1 <- v2 <- v3 (each newer names the one before), v1 superseded, and an unrelated one."""
    versions(
        mem,
        ("v1", "Rent is 1200 euros a month.", None, 60),
        ("v2", "Rent is 1250 euros a month.", "v1", 30),
        ("v3", "Rent is 1300 euros a month.", "v2", 1),
    )
    mem.supersede("v1", "v2")
    mem.add("Ana plays the cello.", id="other", memory_type="semantic", now=NOW)
    return mem


def test_a_chain_reads_the_same_from_each_member(rent: CognitiveMemory) -> None:
    chains = [rent.history(i, now=NOW) for i in ("v1", "v2", "v3")]
    assert chains[0] == chains[1] == chains[2]
    chain = chains[0]
    assert ids(chain) == ["v1", "v2", "v3"]
    assert [r.created_at for r in chain] == [NOW - 60 * DAY, NOW - 30 * DAY, NOW - DAY]
    assert [r.status for r in chain] == ["superseded", "active", "active"]
    assert chain == [rent.get(i, now=NOW) for i in ("v1", "v2", "v3")]
    assert asyncio.run(rent.ahistory("v2", now=NOW)) == chain


def test_history_reinforces_nothing(rent: CognitiveMemory) -> None:
    before = rent.records()
    rent.history("v2", now=NOW)
    assert rent.records() == before


def test_a_memory_without_versions_is_its_own_history(rent: CognitiveMemory) -> None:
    assert rent.history("other", now=NOW) == [rent.get("other", now=NOW)]


def test_an_unknown_or_bad_id_raises(rent: CognitiveMemory) -> None:
    with pytest.raises(MemoryNotFoundError, match="no-such-id"):
        rent.history("no-such-id")
    with pytest.raises(MemoryNotFoundError):
        rent.history("v2", namespace="elsewhere")
    with pytest.raises(InvalidInputError):
        rent.history("")
    with pytest.raises(InvalidInputError):
        rent.history("v2", namespace="")


def test_expired_versions_are_left_out(rent: CognitiveMemory) -> None:
    rent.set_expiry(["v2"], NOW - DAY)
    assert ids(rent.history("v3", now=NOW)) == ["v1", "v3"]  # still walked through v2
    assert ids(rent.history("v1", now=NOW)) == ["v1", "v3"]
    with pytest.raises(MemoryNotFoundError, match="expired"):
        rent.history("v2", now=NOW)


def test_a_fork_lists_each_branch_the_earlier_formed_first(mem: CognitiveMemory) -> None:
    versions(
        mem,
        ("root", "The standup is at 9.", None, 10),
        ("late", "The standup is at 11.", "root", 3),  # the branch formed last
        ("early", "The standup is at 10.", "root", 8),
        ("early2", "The standup is at 10:30.", "early", 1),  # the newest, on the other branch
    )
    for member in ("root", "late", "early", "early2"):
        assert ids(mem.history(member, now=NOW)) == ["root", "early", "early2", "late"]


def test_a_cycle_of_hand_made_links_ends(mem: CognitiveMemory) -> None:
    versions(
        mem,
        ("a", "The office is in Porto.", "c", 3),
        ("b", "The office is in Lisbon.", "a", 2),
        ("c", "The office is in Faro.", "b", 1),
        ("d", "The office is in Braga.", "d", 0),  # names itself
    )
    for member in ("a", "b", "c"):
        assert ids(mem.history(member, now=NOW)) == ["a", "b", "c"]
    assert ids(mem.history("d", now=NOW)) == ["d"]


def test_a_link_to_a_deleted_memory_ends_the_walk(rent: CognitiveMemory) -> None:
    rent.delete("v2")
    assert ids(rent.history("v3", now=NOW)) == ["v3"]
    assert ids(rent.history("v1", now=NOW)) == ["v1"]


# ---------------------------------------------------------------------- the tool
@pytest.fixture
def tools(rent: CognitiveMemory) -> MemoryTools:
    return MemoryTools(rent, now=lambda: NOW)


def test_the_tool_lists_the_versions_the_newest_marked_current(tools: MemoryTools) -> None:
    expected = [
        "- 2026-04-02: Rent is 1200 euros a month. (id v1)",
        "- 2026-05-02: Rent is 1250 euros a month. (id v2)",
        "- 2026-05-31: Rent is 1300 euros a month. (id v3, current)",
    ]
    assert tools.memory_history("v1").splitlines() == expected
    assert tools.memory_history("v3").splitlines() == expected
    assert tools.memory_history("other") == "- 2026-06-01: Ana plays the cello. (id other, current)"
    with pytest.raises(MemoryNotFoundError, match="no-such-id"):  # as forget and update do
        tools.memory_history("no-such-id")
    assert tools.memory_history in tools.functions()


def test_the_tool_follows_what_remember_stored(mem: CognitiveMemory) -> None:
    tools = MemoryTools(mem, namespace="ana", now=lambda: NOW)
    tools.remember("The user's flight to Lisbon is on May 3.")
    tools.remember("The user's flight to Lisbon is on May 13.")
    old, new = sorted(mem.records("ana"), key=lambda r: r.text)[::-1]
    assert new.previous_version == old.id
    assert tools.memory_history(old.id).splitlines() == [
        f"- 2026-06-01: The user's flight to Lisbon is on May 3. (id {old.id})",
        f"- 2026-06-01: The user's flight to Lisbon is on May 13. (id {new.id}, current)",
    ]


def test_the_langchain_tool(rent: CognitiveMemory) -> None:
    from langchain_cogmem import memory_tools

    tools = {t.name: t for t in memory_tools(rent, now=lambda: NOW)}
    assert list(tools)[-1] == "memory_history"
    history = tools["memory_history"]
    assert "memory_id" in history.args
    answer = history.invoke({"memory_id": "v2"})
    assert answer.splitlines()[-1] == "- 2026-05-31: Rent is 1300 euros a month. (id v3, current)"
    assert "no-such-id" in history.invoke({"memory_id": "no-such-id"})  # an answer, not a raise


# The agent workflow inspects pydantic objects and trips pydantic's deprecation warnings.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_llamaindex_tool_in_an_agent(rent: CognitiveMemory) -> None:
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    from llamaindex_cogmem import memory_tools
    from tests.llamaindex_fixtures import run_scripted_agent, tool_call

    tools = memory_tools(rent, now=lambda: NOW)
    assert tools[-1].metadata.name == "memory_history"
    assert "how a memory changed" in tools[-1].metadata.description

    script = [
        tool_call("memory_history", "1", memory_id="v1"),
        tool_call("memory_history", "2", memory_id="no-such-id"),
        ChatMessage(role=MessageRole.ASSISTANT, content="Rent went up twice."),
    ]
    answer, results, _ = run_scripted_agent(tools, script, "How did my rent change?")
    assert answer == "Rent went up twice."
    found, failed = (r.tool_output for r in results)
    assert not found.is_error and found.content.splitlines()[0].endswith("(id v1)")
    assert found.content.splitlines()[-1].endswith("(id v3, current)")
    assert failed.is_error and "no-such-id" in failed.content
