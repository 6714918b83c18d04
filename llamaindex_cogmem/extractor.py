"""``fact_extractor_from``: any LlamaIndex LLM as the fact extractor of
:class:`~llamaindex_cogmem.CognitiveMemoryBlock` (as ``FactExtractionMemoryBlock`` extracts
facts); the prompt and how a reply is read are the core's (:mod:`cogmem.extraction`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import BasePromptTemplate

from cogmem.extraction import model_extractor

from ._models import check_llm, model_name, prompt_template
from .prompts import DEFAULT_FACTS_PROMPT

__all__ = ["FactExtractor", "fact_extractor_from", "message_lines"]

#: ``(the flushed messages) -> facts to keep``, as the block takes it.
FactExtractor = Callable[[Sequence[ChatMessage]], Sequence[str]]


def message_lines(messages: Sequence[ChatMessage]) -> list[str]:
    """The messages as ``role: text`` lines (text blocks only, empty ones left out)."""
    from .memory_block import message_line

    return [line for line in (message_line(m) for m in messages) if line]


def fact_extractor_from(llm: LLM, prompt: str | BasePromptTemplate | None = None) -> FactExtractor:
    """A fact extractor, ``messages -> facts``, that asks a LlamaIndex LLM, for
    ``CognitiveMemoryBlock(extractor=...)``.

    The messages go into ``prompt`` as ``role: text`` lines and are sent with ``llm.predict``;
    the reply is read one fact per line (bullets and numbering taken off, ``NONE``: none).

    Args:
        llm: Any LlamaIndex ``LLM`` (OpenAI, Ollama, ``MockLLM``, ...).
        prompt: A template string or LlamaIndex prompt template with exactly a
            ``{conversation}`` variable; default :data:`~.prompts.DEFAULT_FACTS_PROMPT`.

    Raises:
        InvalidTypeError: ``llm`` is not a LlamaIndex ``LLM`` or ``prompt`` not a str/template.
        InvalidInputError: ``prompt`` has other variables.
    """
    check_llm(llm)
    template, names = prompt_template(prompt, DEFAULT_FACTS_PROMPT)

    def ask(values: Mapping[str, str]) -> object:
        return llm.predict(template, **values)

    extract = model_extractor(ask, names, model_name(llm))

    def from_messages(messages: Sequence[ChatMessage]) -> list[str]:
        return extract(message_lines(messages))

    return from_messages
