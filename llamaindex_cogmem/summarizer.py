"""``summarizer_from``: any LlamaIndex LLM as cogmem's consolidation summarizer.

cogmem's consolidation merges a group of faded, similar memories into one summary through a
plain callable ``(list[str]) -> str``; this module builds that callable from an LLM.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import BasePromptTemplate, ChatPromptTemplate

from cogmem import InvalidInputError, InvalidTypeError
from cogmem.wording import counted

from ._models import check_llm, model_name, prompt_template
from .errors import SummarizerError

__all__ = ["DEFAULT_SUMMARY_PROMPT", "summarizer_from"]

#: The variable a summary prompt must have: the memories, one ``- `` bullet per line.
MEMORIES_VARIABLE = "memories"

DEFAULT_SUMMARY_PROMPT = ChatPromptTemplate(
    message_templates=[
        ChatMessage(
            role=MessageRole.SYSTEM,
            content=(
                "You consolidate an agent's long-term memories. Merge the memories you are "
                "given into one short memory that keeps every distinct fact, name, number and "
                "date. Do not add anything that is not in them. Answer with the merged memory "
                "only."
            ),
        ),
        ChatMessage(role=MessageRole.USER, content="Memories ({count}):\n{memories}"),
    ]
)
"""The prompt :func:`summarizer_from` uses when given none (variables ``memories``, ``count``)."""


def summarizer_from(
    llm: LLM, prompt: str | BasePromptTemplate | None = None
) -> Callable[[list[str]], str]:
    """Build a cogmem summarizer (``list[str] -> str``) from any LlamaIndex LLM.

    The texts are formatted into ``prompt`` (``{memories}``: one ``- text`` line each;
    ``{count}``: how many, if the prompt uses it) and sent with ``llm.predict``, which chats
    with chat models and completes with completion models; the reply's text is the summary.

    Args:
        llm: Any LlamaIndex ``LLM`` (OpenAI, Ollama, ``MockLLM``, ...).
        prompt: A template string or a LlamaIndex prompt template with a ``{memories}``
            variable (optionally ``{count}``); default :data:`DEFAULT_SUMMARY_PROMPT`.

    Returns:
        A callable ``summarize(texts) -> str``. It never changes ``texts``. It raises
        :class:`cogmem.InvalidInputError` / :class:`cogmem.InvalidTypeError` for an empty list
        or a non-text item, and :class:`~llamaindex_cogmem.SummarizerError` (a
        :class:`cogmem.CogmemError`, carrying the untouched texts as ``.texts``) when the LLM
        raises or replies with nothing.

    Raises:
        InvalidTypeError: ``llm`` is not a LlamaIndex ``LLM`` or ``prompt`` is not a
            str/template.
        InvalidInputError: ``prompt`` has no ``{memories}`` variable, or variables other than
            ``memories`` and ``count``.
    """
    check_llm(llm)
    template = _template(prompt)
    name = model_name(llm)

    def summarize(texts: list[str]) -> str:
        items = _check_texts(texts)
        what = counted(len(items), "memory", "memories")
        variables = {
            MEMORIES_VARIABLE: "\n".join(f"- {t}" for t in items),
            "count": str(len(items)),
        }
        values = {k: v for k, v in variables.items() if k in template.template_vars}
        try:
            reply = llm.predict(template, **values)
        except Exception as exc:
            raise SummarizerError(
                f"the summarizer LLM {name} failed on {what} "
                f"({type(exc).__name__}: {exc}); the memories are unchanged",
                items,
            ) from exc
        if not isinstance(reply, str):
            raise SummarizerError(
                f"the summarizer LLM {name} returned {type(reply).__name__}; expected text; "
                "the memories are unchanged",
                items,
            )
        summary = reply.strip()
        if not summary:
            raise SummarizerError(
                f"the summarizer LLM {name} returned no text for {what}; "
                "the memories are unchanged",
                items,
            )
        return summary

    summarize.__doc__ = f"Summarize memories with {name} (built by summarizer_from)."
    return summarize


def _template(prompt: str | BasePromptTemplate | None) -> BasePromptTemplate:
    template, names = prompt_template(prompt, DEFAULT_SUMMARY_PROMPT)
    if MEMORIES_VARIABLE not in names:
        raise InvalidInputError(
            f"the summary prompt must have a {{{MEMORIES_VARIABLE}}} variable; "
            f"it has {sorted(names)}"
        )
    extra = sorted(names - {MEMORIES_VARIABLE, "count"})
    if extra:
        raise InvalidInputError(
            f"the summary prompt may only use {{memories}} and {{count}}; it also uses {extra}"
        )
    return template


def _check_texts(texts: object) -> tuple[str, ...]:
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise InvalidTypeError(f"a summarizer takes a list of texts, got {type(texts).__name__}")
    if not texts:
        raise InvalidInputError("a summarizer needs at least one text")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidTypeError(f"texts[{i}] must be a str, got {type(text).__name__}")
    return tuple(texts)
