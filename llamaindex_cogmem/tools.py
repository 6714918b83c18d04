"""Memory tools for LlamaIndex agents: search, remember, forget, update, history (langmem's
idea, on cogmem): ``FunctionAgent(tools=memory_tools(mem, namespace="user-ana"), llm=...)``."""

from __future__ import annotations

from collections.abc import Callable

from llama_index.core.tools import FunctionTool
from typing_extensions import Unpack

from cogmem import CognitiveMemory
from cogmem.tools import MemoryTools, ToolOptions

__all__ = ["memory_tools"]


def memory_tools(memory: CognitiveMemory, **options: Unpack[ToolOptions]) -> list[FunctionTool]:
    """``search_memory``, ``remember``, ``forget``, ``update_memory`` and ``memory_history`` as
    LlamaIndex ``FunctionTool`` s over one namespace of ``memory`` (see
    :class:`cogmem.tools.MemoryTools` for what each does and the arguments). A tool that raises
    (an unknown id) is reported to the model by the agent, which goes on."""
    kept = MemoryTools(memory, **options)
    return [
        FunctionTool.from_defaults(fn=fn, name=fn.__name__, description=_description(fn))
        for fn in kept.functions()
    ]


def _description(fn: Callable[..., str]) -> str:
    """The tool's description: its docstring's summary and its arguments."""
    doc = fn.__doc__ or fn.__name__
    return " ".join(doc.split("Returns:")[0].split())
