"""Any LangChain chat model, LLM or Runnable as one of cogmem's yes/no judges.

* :func:`conflict_detector_from`: do two memories contradict each other? For
  ``memory.maintain(now, conflict_detector=...)``, which records the pairs it says yes to.
* :func:`dedup_judge_from`: does a new write restate the stored memory nearest to it, where the
  words alone cannot tell? For ``CognitiveMemory(dedup_judge=...)``: yes merges the write.
* :func:`version_judge_from`: does a new write update the fact a stored memory gives, where the
  reading of the two is unsure? For ``CognitiveMemory(version_judge=...)``: yes links the
  write as the newer version.

The prompts, how a reply is read and what the judges raise are the core's
(:mod:`cogmem.judges`); this module formats the prompt and calls the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langchain_core.prompts import BasePromptTemplate
from langchain_core.runnables import Runnable

from cogmem import judges as core
from cogmem.errors import ConflictDetectorError, JudgeError

from ._models import check_model, model_name, prompt_template, reply_text
from .prompts import chat_prompt

__all__ = ["conflict_detector_from", "dedup_judge_from", "version_judge_from"]

Prompt = str | BasePromptTemplate[Any] | None
OnUnclear = Literal["raise", "no"]


def conflict_detector_from(
    model: Runnable[Any, Any], prompt: Prompt = None, *, on_unclear: OnUnclear = "raise"
) -> Callable[[str, str], bool]:
    """A conflict detector ``(text_a, text_b) -> bool`` asking a LangChain chat model, LLM or
    Runnable (its reply a message or a str), for ``memory.maintain(conflict_detector=...)``.

    Args:
        model: The model.
        prompt: A template string or LangChain prompt template with ``{first}`` and
            ``{second}``; default :data:`~.prompts.DEFAULT_CONFLICT_PROMPT`.
        on_unclear: ``"raise"`` or ``"no"`` (see :mod:`cogmem.judges`).

    Raises:
        InvalidTypeError: ``model`` is not a Runnable or ``prompt`` is not a str/template.
        InvalidInputError: ``prompt`` has other variables, or ``on_unclear`` another value.
    """
    return _judge_from(model, prompt, core.CONFLICT, on_unclear, ConflictDetectorError)


def dedup_judge_from(
    model: Runnable[Any, Any], prompt: Prompt = None, *, on_unclear: OnUnclear = "raise"
) -> Callable[[str, str], bool]:
    """Write-time dedup's judge ``(stored_text, new_text) -> bool`` asking a LangChain model,
    for ``CognitiveMemory(dedup_judge=...)``; as :func:`conflict_detector_from`, with
    :data:`~.prompts.DEFAULT_DEDUP_PROMPT` (``{first}``: the stored memory, ``{second}``: the
    new write).
    """
    return _judge_from(model, prompt, core.RESTATEMENT, on_unclear, JudgeError)


def version_judge_from(
    model: Runnable[Any, Any], prompt: Prompt = None, *, on_unclear: OnUnclear = "raise"
) -> Callable[[str, str], bool]:
    """Write-time dedup's version judge ``(older_text, newer_text) -> bool`` asking a
    LangChain model, for ``CognitiveMemory(version_judge=...)``; as
    :func:`conflict_detector_from`, with :data:`~.prompts.DEFAULT_VERSION_PROMPT`
    (``{first}``: the stored memory, ``{second}``: the new write).
    """
    return _judge_from(model, prompt, core.VERSION, on_unclear, JudgeError)


def _judge_from(
    model: Runnable[Any, Any],
    prompt: Prompt,
    question: core.Question,
    on_unclear: object,
    error: type[JudgeError],
) -> Callable[[str, str], bool]:
    check_model(model)
    policy = core.check_on_unclear(on_unclear)
    template, names = prompt_template(prompt, chat_prompt(question.system, question.human))
    core.check_variables(names, question)
    chain = template | model

    def ask(first: str, second: str) -> object:
        reply = chain.invoke({"first": first, "second": second})
        text = reply_text(reply)
        return reply if text is None else text

    return core.yes_no_judge(
        ask, question, model_name=model_name(model), on_unclear=policy, error=error
    )
