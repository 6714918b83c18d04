"""The LlamaIndex ``ChatPromptTemplate`` s cogmem's model-backed parts use by default: a
system ``ChatMessage`` and a user one per template, whose texts and variables live in the core
(:mod:`cogmem.judges`, :mod:`cogmem.summaries`, :mod:`cogmem.stage_models`)."""

from __future__ import annotations

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.prompts import ChatPromptTemplate

from cogmem import extraction
from cogmem.judges import CONFLICT, RESTATEMENT, VERSION
from cogmem.stage_models import EXPAND, HYDE
from cogmem.summaries import HUMAN, SYSTEM

__all__ = [
    "DEFAULT_CONFLICT_PROMPT",
    "DEFAULT_DEDUP_PROMPT",
    "DEFAULT_EXPAND_PROMPT",
    "DEFAULT_FACTS_PROMPT",
    "DEFAULT_HYDE_PROMPT",
    "DEFAULT_SUMMARY_PROMPT",
    "DEFAULT_VERSION_PROMPT",
]


def chat_prompt(system: str, user: str) -> ChatPromptTemplate:
    """A system message and a user message, as a chat template."""
    return ChatPromptTemplate(
        message_templates=[
            ChatMessage(role=MessageRole.SYSTEM, content=system),
            ChatMessage(role=MessageRole.USER, content=user),
        ]
    )


DEFAULT_CONFLICT_PROMPT = chat_prompt(CONFLICT.system, CONFLICT.human)
DEFAULT_DEDUP_PROMPT = chat_prompt(RESTATEMENT.system, RESTATEMENT.human)
DEFAULT_VERSION_PROMPT = chat_prompt(VERSION.system, VERSION.human)
DEFAULT_SUMMARY_PROMPT = chat_prompt(SYSTEM, HUMAN)
DEFAULT_EXPAND_PROMPT = chat_prompt(EXPAND.system, EXPAND.human)
DEFAULT_HYDE_PROMPT = chat_prompt(HYDE.system, HYDE.human)
DEFAULT_FACTS_PROMPT = chat_prompt(extraction.SYSTEM, extraction.HUMAN)
