"""Summarizing memories with a language model: the framework-free part.

Consolidation merges a group of faded, similar memories into one summary through a plain
callable ``(list[str]) -> str``. Each adapter builds it from its framework's model
(``langchain_cogmem.summarizer_from``, ``llamaindex_cogmem.summarizer_from``); the default
prompt, the prompt's variables, the input checks and what a failed call means live here, once:
:func:`model_summarizer` wraps the adapter's ``ask(values) -> reply`` call.

A prompt has a ``{memories}`` variable (the texts, one ``- text`` line each) and may have a
``{count}`` one (how many). The summarizer never changes its texts; when the model raises,
replies with something that is not text, or with nothing, it raises
:class:`~cogmem.errors.SummarizerError` carrying them, untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .checks import check_texts
from .errors import InvalidInputError, InvalidTypeError, SummarizerError
from .wording import counted

__all__ = [
    "HUMAN",
    "MEMORIES_VARIABLE",
    "SYSTEM",
    "check_summary_variables",
    "model_summarizer",
]

#: The variable a summary prompt must have: the memories, one ``- `` bullet per line.
MEMORIES_VARIABLE = "memories"
_VARIABLES = frozenset({MEMORIES_VARIABLE, "count"})

#: The system instructions of the default summary prompt.
SYSTEM = (
    "You consolidate an agent's long-term memories. Merge the memories you are given into one "
    "short memory that keeps every distinct fact, name, number and date. Do not add anything "
    "that is not in them. Answer with the merged memory only."
)
#: The user message of the default summary prompt.
HUMAN = "Memories ({count}):\n{memories}"

Ask = Callable[[Mapping[str, str]], object]


def check_summary_variables(names: set[str]) -> None:
    """Refuse a summary prompt without ``{memories}``, or with variables besides it and
    ``{count}``.

    Raises:
        InvalidInputError: Names what is missing or extra.
    """
    if MEMORIES_VARIABLE not in names:
        raise InvalidInputError(
            f"the summary prompt must have a {{{MEMORIES_VARIABLE}}} variable; "
            f"it has {sorted(names)}"
        )
    extra = sorted(names - _VARIABLES)
    if extra:
        raise InvalidInputError(
            f"the summary prompt may only use {{memories}} and {{count}}; it also uses {extra}"
        )


def _check_texts(texts: object) -> tuple[str, ...]:
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise InvalidTypeError(f"a summarizer takes a list of texts, got {type(texts).__name__}")
    if not texts:
        raise InvalidInputError("a summarizer needs at least one text")
    return tuple(check_texts(texts))


def model_summarizer(ask: Ask, names: set[str], model_name: str) -> Callable[[list[str]], str]:
    """A summarizer that asks a model through ``ask``.

    Args:
        ask: Sends the prompt's variables (those of ``names``, as text) to the model and
            returns its reply: the reply's text (``str``), or the reply itself when it holds
            none. It may raise.
        names: The variables the prompt uses (checked with :func:`check_summary_variables`).
        model_name: How messages name the model.

    Returns:
        ``summarize(texts) -> str``: the reply's text, stripped.
    """
    check_summary_variables(names)

    def summarize(texts: list[str]) -> str:
        items = _check_texts(texts)
        what = counted(len(items), "memory", "memories")
        variables = {
            MEMORIES_VARIABLE: "\n".join(f"- {t}" for t in items),
            "count": str(len(items)),
        }
        try:
            reply = ask({k: v for k, v in variables.items() if k in names})
        except Exception as exc:
            raise SummarizerError(
                f"the summarizer model {model_name} failed on {what} "
                f"({type(exc).__name__}: {exc}); the memories are unchanged",
                items,
            ) from exc
        if not isinstance(reply, str):
            raise SummarizerError(
                f"the summarizer model {model_name} returned {type(reply).__name__}; expected "
                "text; the memories are unchanged",
                items,
            )
        summary = reply.strip()
        if not summary:
            raise SummarizerError(
                f"the summarizer model {model_name} returned no text for {what}; the memories "
                "are unchanged",
                items,
            )
        return summary

    summarize.__doc__ = f"Summarize memories with {model_name} (a cogmem summarizer)."
    return summarize
