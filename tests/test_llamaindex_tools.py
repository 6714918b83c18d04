"""llamaindex_cogmem.memory_tools in a real FunctionAgent (MockFunctionCallingLLM scripted)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM

from cogmem import CognitiveMemory
from llamaindex_cogmem import memory_tools

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


def calling(name: str, call_id: str, **kwargs: Any) -> ChatMessage:
    return ChatMessage(
        role=MessageRole.ASSISTANT,
        blocks=[ToolCallBlock(tool_call_id=call_id, tool_name=name, tool_kwargs=kwargs)],
    )


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
    seen: list[Sequence[ChatMessage]] = []

    def respond(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        seen.append(messages)
        return script[len(seen) - 1]

    agent = FunctionAgent(
        llm=MockFunctionCallingLLM(response_generator=respond), tools=tools, streaming=False
    )

    async def run() -> tuple[str, list[ToolCallResult]]:
        handler = agent.run("Remember my peanut allergy, then check it.")
        results = [e async for e in handler.stream_events() if isinstance(e, ToolCallResult)]
        return str(await handler), results

    answer, results = asyncio.run(run())
    assert answer == "You are allergic to peanuts."
    [stored] = mem.memories(namespace="ana", now=NOW)
    outputs = [r.tool_output for r in results]
    assert outputs[0].content == f"Stored as memory {stored.id}."
    assert f"(id {stored.id}, " in outputs[1].content
    assert outputs[2].is_error and "not-an-id" in outputs[2].content
