"""Any LlamaIndex LLM as one of cogmem's yes/no judges.

* :func:`conflict_detector_from`: do two memories contradict each other? For
  ``memory.maintain(now, conflict_detector=...)``, which records the pairs it says yes to.
* :func:`dedup_judge_from`: does a new write restate the stored memory nearest to it, where the
  words alone cannot tell? For ``CognitiveMemory(dedup_judge=...)``: yes merges the write.
* :func:`version_judge_from`: does a new write update the fact a stored memory gives, where the
  reading of the two is unsure? For ``CognitiveMemory(version_judge=...)``: yes links the
  write as the newer version.

The prompts, how a reply is read and what the judges raise are the core's
(:mod:`cogmem.judges`); this module formats the prompt and calls the LLM with ``llm.predict``
(which chats with chat models and completes with completion models).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import BasePromptTemplate

from cogmem import judges as core
from cogmem.errors import ConflictDetectorError, JudgeError

from ._models import check_llm, model_name, prompt_template
from .prompts import chat_prompt

__all__ = ["conflict_detector_from", "dedup_judge_from", "version_judge_from"]

Prompt = str | BasePromptTemplate | None
OnUnclear = Literal["raise", "no"]


def conflict_detector_from(
    llm: LLM, prompt: Prompt = None, *, on_unclear: OnUnclear = "raise"
) -> Callable[[str, str], bool]:
    """A conflict detector ``(text_a, text_b) -> bool`` asking a LlamaIndex ``LLM`` (OpenAI,
    Ollama, ``MockLLM``, ...), for ``memory.maintain(conflict_detector=...)``.

    Args:
        llm: The LLM.
        prompt: A template string or LlamaIndex prompt template with ``{first}`` and
            ``{second}``; default :data:`~.prompts.DEFAULT_CONFLICT_PROMPT`.
        on_unclear: ``"raise"`` or ``"no"`` (see :mod:`cogmem.judges`).

    Raises:
        InvalidTypeError: ``llm`` is not a LlamaIndex ``LLM`` or ``prompt`` not a str/template.
        InvalidInputError: ``prompt`` has other variables, or ``on_unclear`` another value.
    """
    return _judge_from(llm, prompt, core.CONFLICT, on_unclear, ConflictDetectorError)


def dedup_judge_from(
    llm: LLM, prompt: Prompt = None, *, on_unclear: OnUnclear = "raise"
) -> Callable[[str, str], bool]:
    """Write-time dedup's judge ``(stored_text, new_text) -> bool`` asking a LlamaIndex LLM,
    for ``CognitiveMemory(dedup_judge=...)``; as :func:`conflict_detector_from`, with
    :data:`~.prompts.DEFAULT_DEDUP_PROMPT` (``{first}``: the stored memory, ``{second}``: the
    new write).
    """
    return _judge_from(llm, prompt, core.RESTATEMENT, on_unclear, JudgeError)


def version_judge_from(
    llm: LLM, prompt: Prompt = None, *, on_unclear: OnUnclear = "raise"
) -> Callable[[str, str], bool]:
    """Write-time dedup's version judge ``(older_text, newer_text) -> bool`` asking
    a LlamaIndex LLM, for ``CognitiveMemory(version_judge=...)``; as :func:`conflict_detector_from`,
    with :data:`~.prompts.DEFAULT_VERSION_PROMPT` (``{first}``: the stored memory,
    ``{second}``: the new write).
    """
    return _judge_from(llm, prompt, core.VERSION, on_unclear, JudgeError)


def _judge_from(
    llm: LLM,
    prompt: Prompt,
    question: core.Question,
    on_unclear: object,
    error: type[JudgeError],
) -> Callable[[str, str], bool]:
    check_llm(llm)
    policy = core.check_on_unclear(on_unclear)
    template, names = prompt_template(prompt, chat_prompt(question.system, question.human))
    core.check_variables(names, question)

    def ask(first: str, second: str) -> object:
        return llm.predict(template, first=first, second=second)

    return core.yes_no_judge(
        ask, question, model_name=model_name(llm), on_unclear=policy, error=error
    )
