"""``summarizer_from``: any LlamaIndex LLM as cogmem's consolidation summarizer.

The prompt's variables, the input checks and the errors are the core's
(:mod:`cogmem.summaries`); this module formats the prompt and calls the LLM.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import BasePromptTemplate

from cogmem.summaries import model_summarizer

from ._models import check_llm, model_name, prompt_template
from .prompts import DEFAULT_SUMMARY_PROMPT

__all__ = ["summarizer_from"]


def summarizer_from(
    llm: LLM, prompt: str | BasePromptTemplate | None = None
) -> Callable[[list[str]], str]:
    """Build a cogmem summarizer (``list[str] -> str``) from any LlamaIndex LLM, for
    ``memory.consolidate(now, summarizer=...)``.

    The texts are formatted into ``prompt`` and sent with ``llm.predict`` (which chats with chat
    models and completes with completion models); the reply's text is the summary. What the
    summarizer checks and raises (:class:`cogmem.errors.SummarizerError`, keeping the texts):
    :mod:`cogmem.summaries`.

    Args:
        llm: Any LlamaIndex ``LLM`` (OpenAI, Ollama, ``MockLLM``, ...).
        prompt: A template string or a LlamaIndex prompt template with a ``{memories}``
            variable (optionally ``{count}``); default :data:`~.prompts.DEFAULT_SUMMARY_PROMPT`.

    Raises:
        InvalidTypeError: ``llm`` is not a LlamaIndex ``LLM`` or ``prompt`` not a str/template.
        InvalidInputError: ``prompt`` has no ``{memories}`` variable, or others.
    """
    check_llm(llm)
    template, names = prompt_template(prompt, DEFAULT_SUMMARY_PROMPT)

    def ask(values: Mapping[str, str]) -> object:
        return llm.predict(template, **values)

    return model_summarizer(ask, names, model_name(llm))
