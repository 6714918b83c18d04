"""cogmem's default prompts as LangChain ``ChatPromptTemplate`` s, a system and a human
message each, built from the core's texts: the conflict, dedup and version judges' (``{first}``,
``{second}``), the summary's (``{memories}``, ``{count}``), query expansion's (``{query}``,
``{count}``) and HyDE's (``{query}``)."""

from __future__ import annotations

from langchain_core.prompts import ChatPromptTemplate

from cogmem.judges import CONFLICT, RESTATEMENT, VERSION
from cogmem.stage_models import EXPAND, HYDE
from cogmem.summaries import HUMAN, SYSTEM

__all__ = [
    "DEFAULT_CONFLICT_PROMPT",
    "DEFAULT_DEDUP_PROMPT",
    "DEFAULT_EXPAND_PROMPT",
    "DEFAULT_HYDE_PROMPT",
    "DEFAULT_SUMMARY_PROMPT",
    "DEFAULT_VERSION_PROMPT",
]


def chat_prompt(system: str, human: str) -> ChatPromptTemplate:
    """A system message and a human message, as a chat template."""
    return ChatPromptTemplate.from_messages([("system", system), ("human", human)])


DEFAULT_CONFLICT_PROMPT = chat_prompt(CONFLICT.system, CONFLICT.human)
DEFAULT_DEDUP_PROMPT = chat_prompt(RESTATEMENT.system, RESTATEMENT.human)
DEFAULT_VERSION_PROMPT = chat_prompt(VERSION.system, VERSION.human)
DEFAULT_SUMMARY_PROMPT = chat_prompt(SYSTEM, HUMAN)
DEFAULT_EXPAND_PROMPT = chat_prompt(EXPAND.system, EXPAND.human)
DEFAULT_HYDE_PROMPT = chat_prompt(HYDE.system, HYDE.human)
