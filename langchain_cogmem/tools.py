"""Memory tools for LangChain agents: search, remember, forget, update, history (langmem's
idea, on cogmem): ``create_agent(model, tools=memory_tools(mem, namespace="user-ana"))``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from langchain_core.tools import StructuredTool, ToolException
from typing_extensions import Unpack

from cogmem import CogmemError, CognitiveMemory
from cogmem.scope import NamespaceTemplate
from cogmem.tools import MemoryTools, ToolOptions

from .scope import namespace_for

__all__ = ["memory_tools"]


def memory_tools(memory: CognitiveMemory, **options: Unpack[ToolOptions]) -> list[StructuredTool]:
    """``search_memory``, ``remember``, ``forget``, ``update_memory`` and ``memory_history`` as
    LangChain tools over one namespace of ``memory`` (see :class:`cogmem.tools.MemoryTools` for
    what each does and the arguments).

    ``namespace`` may be a template, ``"user-{user_id}"``, filled at each call from the run's
    context or ``config["configurable"]`` (:mod:`langchain_cogmem.scope`): one agent, each
    user's own memories.

    A cogmem error (an unknown id, an empty text) reaches the model as the tool's answer,
    marked as an error, so that it can correct itself; it does not end the agent's run.
    """
    namespace = options.get("namespace")
    if isinstance(namespace, str):
        options["namespace"] = namespace_for(NamespaceTemplate(namespace))
    kept = MemoryTools(memory, **options)
    return [_as_tool(fn) for fn in kept.functions()]


def _as_tool(fn: Callable[..., str]) -> StructuredTool:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> str:
        try:
            return fn(*args, **kwargs)
        except CogmemError as exc:
            raise ToolException(str(exc)) from exc

    return StructuredTool.from_function(
        call, name=fn.__name__, parse_docstring=True, handle_tool_error=True
    )
