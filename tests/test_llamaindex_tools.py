"""llamaindex_cogmem.memory_tools in a real FunctionAgent (MockFunctionCallingLLM scripted)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole

from cogmem import CognitiveMemory
from llamaindex_cogmem import memory_tools
from tests.llamaindex_fixtures import run_scripted_agent, tool_call

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


calling = tool_call


# The agent workflow inspects pydantic objects and trips pydantic's deprecation warnings.
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_function_agent_remembers_searches_and_survives_a_bad_id(mem: CognitiveMemory) -> None:
    tools = memory_tools(mem, namespace="ana", now=lambda: NOW)
    assert [t.metadata.name for t in tools] == [
        "search_memory",
        "remember",
        "forget",
        "update_memory",
        "memory_history",
    ]
    script = [
        calling("remember", "1", text="Ana is allergic to peanuts."),
        calling("search_memory", "2", query="allergy"),
        calling("forget", "3", memory_id="not-an-id"),
        ChatMessage(role=MessageRole.ASSISTANT, content="You are allergic to peanuts."),
    ]
    answer, results, _ = run_scripted_agent(
        tools, script, "Remember my peanut allergy, then check it."
    )
    assert answer == "You are allergic to peanuts."
    [stored] = mem.memories(namespace="ana", now=NOW)
    outputs = [r.tool_output for r in results]
    assert outputs[0].content == f"Stored as memory {stored.id}."
    assert f"(id {stored.id}, " in outputs[1].content
    assert outputs[2].is_error and "not-an-id" in outputs[2].content
