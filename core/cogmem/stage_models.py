"""Retrieval stages from language models and rerankers: the framework-free part.

Each adapter builds the callables of :class:`cogmem.stages.Stages` from its framework's models
(``langchain_cogmem.expander_from`` / ``hyde_from`` / ``reranker_from``, and LlamaIndex's);
the default prompts, the prompts' variables, reading a model's reply and turning a reranker's
output into one score per text live here, once.

* An expansion prompt has ``{query}`` and may have ``{count}``; the reply's lines (bullets and
  numbers stripped) are the expansions, at most ``count``.
* A HyDE prompt has ``{query}``; the reply's text is the hypothetical memory.
* A reranker that returns a subset, or no scores (LangChain's ``CrossEncoderReranker`` keeps
  its ``top_n`` in order; a LlamaIndex postprocessor may drop nodes): :func:`ranked_scores`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .errors import InvalidInputError, StageError
from .stages import Expand, Hyde

__all__ = [
    "EXPAND",
    "HYDE",
    "Rewrite",
    "check_rewrite_variables",
    "model_expander",
    "model_hyde",
    "parse_lines",
    "ranked_scores",
]

Ask = Callable[[Mapping[str, str]], object]


@dataclass(frozen=True)
class Rewrite:
    """A query rewrite a model is asked for: its name in messages and its default prompt.

    Attributes:
        role: What it is called in messages, e.g. ``"query expansion"``.
        system: The system instructions of the default prompt.
        human: The user message of the default prompt (``{query}``, maybe ``{count}``).
        variables: The variables a prompt may use; ``{query}`` is required.
    """

    role: str
    system: str
    human: str
    variables: frozenset[str]


EXPAND = Rewrite(
    role="query expansion",
    system=(
        "You help search an agent's long-term memory. Rewrite the question the user asks as "
        "other short questions or phrases that the answer's words could match: use synonyms, "
        "name the likely topic, and spell out what a pronoun or a vague word refers to when "
        "the question says it. Answer with one rewrite per line and nothing else."
    ),
    human="Question: {query}\nWrite {count} rewrites.",
    variables=frozenset({"query", "count"}),
)

HYDE = Rewrite(
    role="HyDE",
    system=(
        "You help search an agent's long-term memory. Write the one short memory, in the "
        "words a note or a chat message would use, that would answer the question. Invent "
        "plausible details if you must; the text is only used to search. Answer with the "
        "memory only."
    ),
    human="Question: {query}",
    variables=frozenset({"query"}),
)

_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\(\d+\))\s*")


def check_rewrite_variables(rewrite: Rewrite, names: set[str]) -> None:
    """Refuse a prompt without ``{query}`` or with variables ``rewrite`` does not fill.

    Raises:
        InvalidInputError: Names what is missing or extra.
    """
    if "query" not in names:
        raise InvalidInputError(
            f"the {rewrite.role} prompt must have a {{query}} variable; it has {sorted(names)}"
        )
    extra = sorted(names - rewrite.variables)
    if extra:
        raise InvalidInputError(
            f"the {rewrite.role} prompt may only use {sorted(rewrite.variables)}; "
            f"it also uses {extra}"
        )


def parse_lines(text: str, limit: int) -> list[str]:
    """The non-blank lines of ``text``, bullets and numbering stripped, at most ``limit``."""
    lines = (_BULLET.sub("", line).strip() for line in text.splitlines())
    return [line for line in lines if line][:limit]


def _reply(ask: Ask, values: Mapping[str, str], role: str, model_name: str) -> str:
    try:
        reply = ask(values)
    except Exception as exc:
        raise StageError(f"the {role} model {model_name} failed: {exc}") from exc
    if not isinstance(reply, str):
        raise StageError(
            f"the {role} model {model_name} replied with {type(reply).__name__}, not text"
        )
    return reply


def model_expander(ask: Ask, names: set[str], model_name: str, count: int = 3) -> Expand:
    """An ``expand`` callable that asks a model through ``ask`` (the prompt's variables in,
    the reply's text out) for up to ``count`` rewrites.

    Raises:
        InvalidInputError: The prompt's variables are wrong (at once, when built).
    """
    check_rewrite_variables(EXPAND, names)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidInputError(f"count must be an int >= 1, got {count!r}")

    def expand(query: str) -> list[str]:
        values = {"query": query, "count": str(count)}
        reply = _reply(
            ask, {k: v for k, v in values.items() if k in names}, EXPAND.role, model_name
        )
        return parse_lines(reply, count)

    return expand


def model_hyde(ask: Ask, names: set[str], model_name: str) -> Hyde:
    """A ``hyde`` callable that asks a model through ``ask`` for a hypothetical memory.

    Raises:
        InvalidInputError: The prompt's variables are wrong (at once, when built).
    """
    check_rewrite_variables(HYDE, names)

    def hyde(query: str) -> str:
        return _reply(ask, {"query": query}, HYDE.role, model_name).strip()

    return hyde


def ranked_scores(count: int, returned: Sequence[tuple[int, float | None]]) -> list[float]:
    """One score per text from what a reranker returned: ``(index, score or None)`` of the
    texts it kept, best first.

    With a finite score for every text returned, those scores; otherwise scores that keep the
    reranker's order (``count − position``). A text it dropped scores below every text it
    kept, and dropped texts tie (so they keep their relevance order).

    Raises:
        StageError: An index is out of range or given twice.
    """
    indexes = [i for i, _ in returned]
    if len(set(indexes)) != len(indexes) or any(not 0 <= i < count for i in indexes):
        raise StageError(f"the reranker returned unknown or repeated texts: {indexes[:10]}")
    given = [s for _, s in returned]
    if given and all(s is not None and math.isfinite(s) for s in given):
        scores = {i: float(s) for i, s in returned}  # type: ignore[arg-type]
    else:
        scores = {i: float(count - position) for position, (i, _) in enumerate(returned)}
    floor = min(scores.values(), default=0.0) - 1.0
    return [scores.get(i, floor) for i in range(count)]
