"""``summarizer_from``: any LangChain chat model, LLM or Runnable as cogmem's summarizer.

The prompt's variables, the input checks and the errors are the core's
(:mod:`cogmem.summaries`); this module formats the prompt and calls the model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.prompts import BasePromptTemplate
from langchain_core.runnables import Runnable

from cogmem.summaries import model_summarizer

from ._models import check_model, model_name, prompt_template, reply_text
from .prompts import DEFAULT_SUMMARY_PROMPT

__all__ = ["summarizer_from"]


def summarizer_from(
    model: Runnable[Any, Any],
    prompt: str | BasePromptTemplate[Any] | None = None,
) -> Callable[[list[str]], str]:
    """Build a cogmem summarizer (``list[str] -> str``) from any LangChain model or Runnable,
    for ``memory.consolidate(now, summarizer=...)``.

    The texts are formatted into ``prompt`` and sent to ``model`` (a chat model's reply is a
    message, an LLM's a str); the reply's text is the summary. What the summarizer checks and
    raises (:class:`cogmem.errors.SummarizerError`, keeping the texts): :mod:`cogmem.summaries`.

    Args:
        model: A chat model, an LLM or any Runnable taking the formatted prompt.
        prompt: A template string or a LangChain prompt template with a ``{memories}``
            variable (optionally ``{count}``); default :data:`~.prompts.DEFAULT_SUMMARY_PROMPT`.

    Raises:
        InvalidTypeError: ``model`` is not a Runnable or ``prompt`` is not a str/template.
        InvalidInputError: ``prompt`` has no ``{memories}`` variable, or others.
    """
    check_model(model)
    template, names = prompt_template(prompt, DEFAULT_SUMMARY_PROMPT)
    chain = template | model

    def ask(values: Mapping[str, str]) -> object:
        reply = chain.invoke(dict(values))
        text = reply_text(reply)
        return reply if text is None else text

    return model_summarizer(ask, names, model_name(model))
