"""``conflict_detector_from``: any LangChain chat model, LLM or Runnable as cogmem's judge of
contradictions.

:meth:`cogmem.CognitiveMemory.maintain` asks a plain callable ``(text_a, text_b) -> bool``
whether two close memories contradict each other and records the pairs it says yes to
(:meth:`cogmem.CognitiveMemory.contradict`: the weaker of the two is then demoted whenever both
match a query). This module builds that callable from a model that answers yes or no.

How the answer is read (:func:`parse_yes_no`): a leading ``<think>...</think>`` block, leading
punctuation or markdown (``**``, quotes, ``-``) and an ``Answer:`` label are skipped; the first
word then decides, case-insensitively: ``yes``/``true`` is a contradiction, ``no``/``false`` is
not. Anything else is *unclear*: by default a :class:`~langchain_cogmem.ConflictDetectorError`
naming the answer, so that a prompt or model that does not answer yes or no is noticed at once
instead of silently finding nothing; ``on_unclear="no"`` counts it as no (logged as a warning),
for a scheduler that must not stop on one rambling answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.messages import BaseMessage
from langchain_core.prompts import BasePromptTemplate, ChatPromptTemplate
from langchain_core.runnables import Runnable

from cogmem import InvalidInputError, InvalidTypeError
from cogmem.conflicts import CONFLICT_QUESTION, CONFLICT_SYSTEM, parse_yes_no

from .errors import ConflictDetectorError

__all__ = ["DEFAULT_CONFLICT_PROMPT", "conflict_detector_from", "parse_yes_no"]

log = logging.getLogger("langchain_cogmem")

#: The two variables a conflict prompt must have: the two memories' texts.
STATEMENT_VARIABLES = ("first", "second")

DEFAULT_CONFLICT_PROMPT = ChatPromptTemplate.from_messages(
    [("system", CONFLICT_SYSTEM), ("human", CONFLICT_QUESTION)]
)
"""The prompt :func:`conflict_detector_from` uses when given none (variables ``first``,
``second``)."""


def conflict_detector_from(
    model: Runnable[Any, Any],
    prompt: str | BasePromptTemplate[Any] | None = None,
    *,
    on_unclear: Literal["raise", "no"] = "raise",
) -> Callable[[str, str], bool]:
    """Build a cogmem conflict detector (``(text_a, text_b) -> bool``) from a LangChain model.

    The two texts are formatted into ``prompt`` (``{first}`` and ``{second}``), sent to
    ``model``, and the reply is read as yes (they contradict each other) or no with
    :func:`parse_yes_no`. Works with chat models (the reply is a message), LLMs and any
    Runnable that returns a string or a message. Pass the result to
    ``memory.maintain(now, conflict_detector=...)``.

    Args:
        model: A chat model, an LLM or any Runnable taking the formatted prompt.
        prompt: A template string or a LangChain prompt template with ``{first}`` and
            ``{second}`` variables and no others; default :data:`DEFAULT_CONFLICT_PROMPT`.
            It should ask for a one-word yes/no answer.
        on_unclear: What an answer that is neither yes nor no means: ``"raise"`` (default) a
            :class:`~langchain_cogmem.ConflictDetectorError` naming the answer; ``"no"``: no
            contradiction (logged as a warning on the ``langchain_cogmem`` logger).

    Returns:
        A callable ``detect(text_a, text_b) -> bool``. It raises
        :class:`cogmem.InvalidTypeError` / :class:`cogmem.InvalidInputError` for a text that is
        not a str or is blank, and :class:`~langchain_cogmem.ConflictDetectorError` (a
        :class:`cogmem.CogmemError` carrying both texts and the answer) when the model raises,
        returns no text, or (``on_unclear="raise"``) answers neither yes nor no.

    Raises:
        InvalidTypeError: ``model`` is not a Runnable or ``prompt`` is not a str/template.
        InvalidInputError: ``prompt`` lacks ``{first}`` or ``{second}``, or has other
            variables, or ``on_unclear`` is not ``"raise"`` or ``"no"``.
    """
    if not isinstance(model, Runnable):
        raise InvalidTypeError(
            f"model must be a LangChain chat model, LLM or Runnable, got {type(model).__name__}"
        )
    if on_unclear not in ("raise", "no"):
        raise InvalidInputError(f"on_unclear must be 'raise' or 'no', got {on_unclear!r}")
    template = _template(prompt)
    chain = template | model
    name = _name(model)

    def detect(text_a: str, text_b: str) -> bool:
        first = _check_text(text_a, "text_a")
        second = _check_text(text_b, "text_b")
        try:
            reply = chain.invoke({"first": first, "second": second})
        except Exception as exc:
            raise ConflictDetectorError(
                f"the conflict detector model {name} failed ({type(exc).__name__}: {exc})",
                first,
                second,
            ) from exc
        answer = _reply_text(reply)
        if answer is None:
            raise ConflictDetectorError(
                f"the conflict detector model {name} returned {type(reply).__name__}; "
                "expected a message or a str",
                first,
                second,
            )
        verdict = parse_yes_no(answer)
        if verdict is not None:
            return verdict
        if on_unclear == "no":
            log.warning(
                "conflict detector model %s answered %r, neither yes nor no; counted as no",
                name,
                _shorten(answer),
            )
            return False
        raise ConflictDetectorError(
            f"the conflict detector model {name} answered {_shorten(answer)!r}, neither yes "
            "nor no; make the prompt ask for a one-word yes/no answer, or pass "
            "on_unclear='no' to count such answers as no",
            first,
            second,
            answer,
        )

    detect.__doc__ = (
        f"Whether two memories contradict each other, asked to {name} "
        "(built by conflict_detector_from)."
    )
    return detect


def _template(prompt: str | BasePromptTemplate[Any] | None) -> BasePromptTemplate[Any]:
    if prompt is None:
        return DEFAULT_CONFLICT_PROMPT
    if isinstance(prompt, str):
        template: BasePromptTemplate[Any] = ChatPromptTemplate.from_template(prompt)
    elif isinstance(prompt, BasePromptTemplate):
        template = prompt
    else:
        raise InvalidTypeError(
            f"prompt must be a template string or a LangChain prompt template, "
            f"got {type(prompt).__name__}"
        )
    names = set(template.input_variables)
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


def _reply_text(reply: Any) -> str | None:
    if isinstance(reply, BaseMessage):
        return str(reply.text)
    if isinstance(reply, str):
        return reply
    return None


def _shorten(answer: str, limit: int = 200) -> str:
    answer = answer.strip()
    return answer if len(answer) <= limit else answer[: limit - 1] + "…"


def _name(model: Runnable[Any, Any]) -> str:
    try:
        return model.get_name()
    except Exception:  # a Runnable whose name cannot be computed
        return type(model).__name__
