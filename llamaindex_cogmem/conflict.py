"""``conflict_detector_from``: any LlamaIndex LLM as cogmem's judge of contradictions.

:meth:`cogmem.CognitiveMemory.maintain` asks a plain callable ``(text_a, text_b) -> bool``
whether two close memories contradict each other and records the pairs it says yes to
(:meth:`cogmem.CognitiveMemory.contradict`: the weaker of the two is then demoted whenever both
match a query). This module builds that callable from an LLM that answers yes or no.

How the answer is read (:func:`parse_yes_no`): a leading ``<think>...</think>`` block, leading
punctuation or markdown (``**``, quotes, ``-``) and an ``Answer:`` label are skipped; the first
word then decides, case-insensitively: ``yes``/``true`` is a contradiction, ``no``/``false`` is
not. Anything else is *unclear*: by default a :class:`~llamaindex_cogmem.ConflictDetectorError`
naming the answer, so that a prompt or LLM that does not answer yes or no is noticed at once
instead of silently finding nothing; ``on_unclear="no"`` counts it as no (logged as a warning),
for a scheduler that must not stop on one rambling answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.llms.llm import LLM
from llama_index.core.prompts import BasePromptTemplate, ChatPromptTemplate, PromptTemplate

from cogmem import InvalidInputError, InvalidTypeError
from cogmem.conflicts import CONFLICT_QUESTION, CONFLICT_SYSTEM, parse_yes_no

from .errors import ConflictDetectorError

__all__ = ["DEFAULT_CONFLICT_PROMPT", "conflict_detector_from", "parse_yes_no"]

log = logging.getLogger("llamaindex_cogmem")

#: The two variables a conflict prompt must have: the two memories' texts.
STATEMENT_VARIABLES = ("first", "second")

DEFAULT_CONFLICT_PROMPT = ChatPromptTemplate(
    message_templates=[
        ChatMessage(role=MessageRole.SYSTEM, content=CONFLICT_SYSTEM),
        ChatMessage(role=MessageRole.USER, content=CONFLICT_QUESTION),
    ]
)
"""The prompt :func:`conflict_detector_from` uses when given none (variables ``first``,
``second``)."""


def conflict_detector_from(
    llm: LLM,
    prompt: str | BasePromptTemplate | None = None,
    *,
    on_unclear: Literal["raise", "no"] = "raise",
) -> Callable[[str, str], bool]:
    """Build a cogmem conflict detector (``(text_a, text_b) -> bool``) from a LlamaIndex LLM.

    The two texts are formatted into ``prompt`` (``{first}`` and ``{second}``) and sent with
    ``llm.predict`` (which chats with chat models and completes with completion models); the
    reply is read as yes (they contradict each other) or no with :func:`parse_yes_no`. Pass the
    result to ``memory.maintain(now, conflict_detector=...)``.

    Args:
        llm: Any LlamaIndex ``LLM`` (OpenAI, Ollama, ``MockLLM``, ...).
        prompt: A template string or a LlamaIndex prompt template with ``{first}`` and
            ``{second}`` variables and no others; default :data:`DEFAULT_CONFLICT_PROMPT`.
            It should ask for a one-word yes/no answer.
        on_unclear: What an answer that is neither yes nor no means: ``"raise"`` (default) a
            :class:`~llamaindex_cogmem.ConflictDetectorError` naming the answer; ``"no"``: no
            contradiction (logged as a warning on the ``llamaindex_cogmem`` logger).

    Returns:
        A callable ``detect(text_a, text_b) -> bool``. It raises
        :class:`cogmem.InvalidTypeError` / :class:`cogmem.InvalidInputError` for a text that is
        not a str or is blank, and :class:`~llamaindex_cogmem.ConflictDetectorError` (a
        :class:`cogmem.CogmemError` carrying both texts and the answer) when the LLM raises,
        returns no text, or (``on_unclear="raise"``) answers neither yes nor no.

    Raises:
        InvalidTypeError: ``llm`` is not a LlamaIndex ``LLM`` or ``prompt`` is not a
            str/template.
        InvalidInputError: ``prompt`` lacks ``{first}`` or ``{second}``, or has other
            variables, or ``on_unclear`` is not ``"raise"`` or ``"no"``.
    """
    if not isinstance(llm, LLM):
        raise InvalidTypeError(f"llm must be a LlamaIndex LLM, got {type(llm).__name__}")
    if on_unclear not in ("raise", "no"):
        raise InvalidInputError(f"on_unclear must be 'raise' or 'no', got {on_unclear!r}")
    template = _template(prompt)
    name = _name(llm)

    def detect(text_a: str, text_b: str) -> bool:
        first = _check_text(text_a, "text_a")
        second = _check_text(text_b, "text_b")
        try:
            reply = llm.predict(template, first=first, second=second)
        except Exception as exc:
            raise ConflictDetectorError(
                f"the conflict detector LLM {name} failed ({type(exc).__name__}: {exc})",
                first,
                second,
            ) from exc
        if not isinstance(reply, str):
            raise ConflictDetectorError(
                f"the conflict detector LLM {name} returned {type(reply).__name__}; expected text",
                first,
                second,
            )
        verdict = parse_yes_no(reply)
        if verdict is not None:
            return verdict
        if on_unclear == "no":
            log.warning(
                "conflict detector LLM %s answered %r, neither yes nor no; counted as no",
                name,
                _shorten(reply),
            )
            return False
        raise ConflictDetectorError(
            f"the conflict detector LLM {name} answered {_shorten(reply)!r}, neither yes nor "
            "no; make the prompt ask for a one-word yes/no answer, or pass on_unclear='no' "
            "to count such answers as no",
            first,
            second,
            reply,
        )

    detect.__doc__ = (
        f"Whether two memories contradict each other, asked to {name} "
        "(built by conflict_detector_from)."
    )
    return detect


def _template(prompt: str | BasePromptTemplate | None) -> BasePromptTemplate:
    if prompt is None:
        return DEFAULT_CONFLICT_PROMPT
    if isinstance(prompt, str):
        template: BasePromptTemplate = PromptTemplate(prompt)
    elif isinstance(prompt, BasePromptTemplate):
        template = prompt
    else:
        raise InvalidTypeError(
            "prompt must be a template string or a LlamaIndex prompt template, "
            f"got {type(prompt).__name__}"
        )
    names = set(template.template_vars)
    missing = [v for v in STATEMENT_VARIABLES if v not in names]
    if missing:
        raise InvalidInputError(
            "the conflict prompt must have {first} and {second} variables (the two "
            f"memories); it lacks {missing} and has {sorted(names)}"
        )
    extra = sorted(names - set(STATEMENT_VARIABLES))
    if extra:
        raise InvalidInputError(
            f"the conflict prompt may only use {{first}} and {{second}}; it also uses {extra}"
        )
    return template


def _check_text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidTypeError(f"{name} must be a str, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{name} must not be blank")
    return value


def _shorten(answer: str, limit: int = 200) -> str:
    answer = answer.strip()
    return answer if len(answer) <= limit else answer[: limit - 1] + "…"


def _name(llm: LLM) -> str:
    try:
        return f"{llm.class_name()}"
    except Exception:  # an LLM whose class name cannot be computed
        return type(llm).__name__
