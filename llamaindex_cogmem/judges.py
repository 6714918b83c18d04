"""Any LlamaIndex LLM as one of cogmem's yes/no judges.

* :func:`conflict_detector_from`: do two memories contradict each other? For
  ``memory.maintain(now, conflict_detector=...)``, which records the pairs it says yes to.
* :func:`dedup_judge_from`: does a new write restate the stored memory nearest to it, where the
  words alone cannot tell? For ``CognitiveMemory(dedup_judge=...)``: yes merges the write.

The prompts, how a reply is read and what the judges raise are the core's
(:mod:`cogmem.judges`); this module formats the prompt and calls the LLM with ``llm.predict``
(which chats with chat models and completes with completion models).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import BasePromptTemplate, ChatPromptTemplate

from cogmem.errors import ConflictDetectorError, JudgeError
from cogmem.judges import (
    CONFLICT,
    RESTATEMENT,
    Question,
    check_on_unclear,
    check_variables,
    parse_yes_no,
    yes_no_judge,
)

from ._models import check_llm, model_name, prompt_template

__all__ = [
    "DEFAULT_CONFLICT_PROMPT",
    "DEFAULT_DEDUP_PROMPT",
    "conflict_detector_from",
    "dedup_judge_from",
    "parse_yes_no",
]

Prompt = str | BasePromptTemplate | None
OnUnclear = Literal["raise", "no"]


def _default_prompt(question: Question) -> ChatPromptTemplate:
    return ChatPromptTemplate(
        message_templates=[
            ChatMessage(role=MessageRole.SYSTEM, content=question.system),
            ChatMessage(role=MessageRole.USER, content=question.human),
        ]
    )


DEFAULT_CONFLICT_PROMPT = _default_prompt(CONFLICT)
"""The prompt :func:`conflict_detector_from` uses when given none (``{first}``, ``{second}``)."""

DEFAULT_DEDUP_PROMPT = _default_prompt(RESTATEMENT)
"""The prompt :func:`dedup_judge_from` uses when given none (``{first}``: the stored memory,
``{second}``: the new write)."""


def conflict_detector_from(
    llm: LLM, prompt: Prompt = None, *, on_unclear: OnUnclear = "raise"
) -> Callable[[str, str], bool]:
    """A conflict detector ``(text_a, text_b) -> bool`` asking a LlamaIndex ``LLM`` (OpenAI,
    Ollama, ``MockLLM``, ...), for ``memory.maintain(conflict_detector=...)``.

    Args:
        llm: The LLM.
        prompt: A template string or LlamaIndex prompt template with ``{first}`` and
            ``{second}``; default :data:`DEFAULT_CONFLICT_PROMPT`.
        on_unclear: ``"raise"`` or ``"no"`` (see :mod:`cogmem.judges`).

    Raises:
        InvalidTypeError: ``llm`` is not a LlamaIndex ``LLM`` or ``prompt`` not a str/template.
        InvalidInputError: ``prompt`` has other variables, or ``on_unclear`` another value.
    """
    return _judge_from(llm, prompt, CONFLICT, on_unclear, ConflictDetectorError)


def dedup_judge_from(
    llm: LLM, prompt: Prompt = None, *, on_unclear: OnUnclear = "raise"
) -> Callable[[str, str], bool]:
    """Write-time dedup's judge ``(stored_text, new_text) -> bool`` asking a LlamaIndex LLM,
    for ``CognitiveMemory(dedup_judge=...)``; as :func:`conflict_detector_from`, with
    :data:`DEFAULT_DEDUP_PROMPT` (``{first}``: the stored memory, ``{second}``: the new write).
    """
    return _judge_from(llm, prompt, RESTATEMENT, on_unclear, JudgeError)


def _judge_from(
    llm: LLM,
    prompt: Prompt,
    question: Question,
    on_unclear: object,
    error: type[JudgeError],
) -> Callable[[str, str], bool]:
    check_llm(llm)
    policy = check_on_unclear(on_unclear)
    template, names = prompt_template(prompt, _default_prompt(question))
    check_variables(names, question)

    def ask(first: str, second: str) -> object:
        return llm.predict(template, first=first, second=second)

    return yes_no_judge(ask, question, model_name=model_name(llm), on_unclear=policy, error=error)
