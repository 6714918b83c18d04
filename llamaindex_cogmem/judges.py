"""Any LlamaIndex LLM as one of cogmem's yes/no judges.

* :func:`conflict_detector_from`: do two memories contradict each other? For
  ``memory.maintain(now, conflict_detector=...)``, which records the pairs it says yes to (the
  weaker of the two is then demoted whenever both match a query).
* :func:`dedup_judge_from`: does a new write say the same as the stored memory nearest to it,
  where the words alone cannot tell (an inflection, a plain word added)? For
  ``CognitiveMemory(dedup_judge=...)``: yes merges the write, no stores it.

How a reply is read (:func:`parse_yes_no`): a leading ``<think>...</think>`` block, leading
punctuation or markdown (``**``, quotes, ``-``) and an ``Answer:`` label are skipped; the first
word then decides, case-insensitively: ``yes``/``true`` or ``no``/``false``. Anything else is
*unclear*: by default an error naming the answer; ``on_unclear="no"`` counts it as no (logged
as a warning). The prompts, the reading and the errors are the core's (:mod:`cogmem.judges`);
this module only formats the prompt and calls the LLM (``llm.predict``, which chats with chat
models and completes with completion models).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import BasePromptTemplate, ChatPromptTemplate

from cogmem.errors import JudgeError
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
from .errors import ConflictDetectorError

__all__ = [
    "DEFAULT_CONFLICT_PROMPT",
    "DEFAULT_DEDUP_PROMPT",
    "conflict_detector_from",
    "dedup_judge_from",
    "parse_yes_no",
]


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
    llm: LLM,
    prompt: str | BasePromptTemplate | None = None,
    *,
    on_unclear: Literal["raise", "no"] = "raise",
) -> Callable[[str, str], bool]:
    """Build a cogmem conflict detector (``(text_a, text_b) -> bool``) from a LlamaIndex LLM.

    The two texts are formatted into ``prompt`` (``{first}`` and ``{second}``) and sent with
    ``llm.predict``; the reply is read as yes (they contradict each other) or no. Pass the
    result to ``memory.maintain(now, conflict_detector=...)``.

    Args:
        llm: Any LlamaIndex ``LLM`` (OpenAI, Ollama, ``MockLLM``, ...).
        prompt: A template string or a LlamaIndex prompt template with ``{first}`` and
            ``{second}`` variables and no others; default :data:`DEFAULT_CONFLICT_PROMPT`.
            It should ask for a one-word yes/no answer.
        on_unclear: What an answer that is neither yes nor no means: ``"raise"`` (default) a
            :class:`~llamaindex_cogmem.ConflictDetectorError` naming the answer; ``"no"``: no
            contradiction (logged as a warning on the ``cogmem`` logger).

    Returns:
        A callable ``detect(text_a, text_b) -> bool``. It raises
        :class:`cogmem.InvalidTypeError` / :class:`cogmem.InvalidInputError` for a text that is
        not a str or is blank, and :class:`~llamaindex_cogmem.ConflictDetectorError` (a
        :class:`cogmem.errors.JudgeError` carrying both texts and the answer) when the LLM
        raises, returns no text, or (``on_unclear="raise"``) answers neither yes nor no.

    Raises:
        InvalidTypeError: ``llm`` is not a LlamaIndex ``LLM`` or ``prompt`` is not a
            str/template.
        InvalidInputError: ``prompt`` lacks ``{first}`` or ``{second}``, or has other
            variables, or ``on_unclear`` is not ``"raise"`` or ``"no"``.
    """
    return _judge_from(llm, prompt, CONFLICT, on_unclear, ConflictDetectorError)


def dedup_judge_from(
    llm: LLM,
    prompt: str | BasePromptTemplate | None = None,
    *,
    on_unclear: Literal["raise", "no"] = "raise",
) -> Callable[[str, str], bool]:
    """Build cogmem's dedup judge (``(stored_text, new_text) -> bool``) from a LlamaIndex LLM.

    Write-time dedup asks it only where the words cannot tell whether a write restates its
    nearest memory (``CognitiveMemory(dedup_judge=...)``; see :mod:`cogmem.dedup`): yes merges
    the write into that memory, no stores it as a newer version. If the judge raises, cogmem
    logs it and stores the write: a failing LLM never loses one.

    Args:
        llm: Any LlamaIndex ``LLM``.
        prompt: A template string or a LlamaIndex prompt template with ``{first}`` (the stored
            memory) and ``{second}`` (the new write) and no others; default
            :data:`DEFAULT_DEDUP_PROMPT`. It should ask for a one-word yes/no answer.
        on_unclear: As for :func:`conflict_detector_from`.

    Returns:
        A callable ``judge(stored_text, new_text) -> bool``; it raises
        :class:`cogmem.errors.JudgeError` as :func:`conflict_detector_from`'s detector does.

    Raises:
        InvalidTypeError / InvalidInputError: As for :func:`conflict_detector_from`.
    """
    return _judge_from(llm, prompt, RESTATEMENT, on_unclear, JudgeError)


def _judge_from(
    llm: LLM,
    prompt: str | BasePromptTemplate | None,
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
