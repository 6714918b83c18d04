"""Asking a language model a yes/no question about two memories: the framework-free part.

cogmem asks three such questions, each through a plain callable ``(first, second) -> bool``:

* **conflict detection** (:meth:`cogmem.CognitiveMemory.maintain`): do two close memories
  contradict each other?
* **the dedup judge** (``CognitiveMemory(dedup_judge=...)``): does a new write say the same as
  the stored memory it is nearest to, where the words alone cannot tell (:mod:`cogmem.dedup`)?
* **the version judge** (``CognitiveMemory(version_judge=...)``): does a new write update the
  fact a stored memory gives, where the reading of the two is unsure (:func:`judged`)?

Each adapter builds these callables from its framework's model
(``langchain_cogmem.conflict_detector_from`` / ``dedup_judge_from`` / ``version_judge_from``,
and ``llamaindex_cogmem``'s);
the instructions sent, the way a reply is read and what an unreadable reply means live here,
once: :func:`yes_no_judge` wraps the adapter's ``ask(first, second) -> reply text`` call.

A prompt has exactly two variables, ``{first}`` and ``{second}`` (for the dedup judge: the
stored memory, then the new write), and should ask for a one-word answer. How a reply is read
(:func:`parse_yes_no`): a leading ``<think>...</think>`` block, leading punctuation or markdown
and an ``Answer:`` label are skipped; the first word then decides, case-insensitively:
``yes``/``true`` or ``no``/``false``. Anything else is *unclear*: with ``on_unclear="raise"``
(the default) an error naming the answer, so that a prompt or model that does not answer yes or
no is noticed at once; with ``on_unclear="no"`` a no (logged as a warning).

The callable raises :class:`~cogmem.errors.InvalidTypeError` /
:class:`~cogmem.errors.InvalidInputError` for a text that is not a str or is blank, and a
:class:`~cogmem.errors.JudgeError` (the conflict detector's is a
:class:`~cogmem.errors.ConflictDetectorError`) carrying both texts and the answer when the model
raises, returns no text, or answers unclearly. Write-time dedup stores a write whose judge
fails: a failing model never loses one.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .checks import check_text
from .errors import InvalidInputError, JudgeError
from .versions import Relation

if TYPE_CHECKING:
    from .dedup import Relate

__all__ = [
    "CONFLICT",
    "RESTATEMENT",
    "VARIABLES",
    "VERSION",
    "Question",
    "check_on_unclear",
    "check_variables",
    "judged",
    "parse_yes_no",
    "yes_no_judge",
]

log = logging.getLogger("cogmem")

OnUnclear = Literal["raise", "no"]

#: The two variables every judge prompt has: the two memories' texts, in order.
VARIABLES = ("first", "second")


@dataclass(frozen=True)
class Question:
    """One yes/no question about two memories: what it is called and its default prompt.

    Attributes:
        role: What the judge is called in messages, e.g. ``"conflict detector"``.
        system: The system instructions of the default prompt.
        human: The user message of the default prompt (variables ``{first}``, ``{second}``).
        arguments: What the judge's two arguments are called in messages.
    """

    role: str
    system: str
    human: str
    arguments: tuple[str, str] = ("first", "second")


CONFLICT = Question(
    role="conflict detector",
    system=(
        "You check an agent's long-term memories for contradictions. Two statements "
        "contradict each other when they cannot both be true: they give different values "
        "for the same fact about the same thing (a place, a date, a number, a name, a "
        "preference). Statements about different things, statements that add detail, and "
        "an event followed by a later event do not contradict each other. "
        "Answer with one word: yes or no."
    ),
    human=(
        "Statement 1: {first}\nStatement 2: {second}\n"
        "Do these two statements contradict each other?"
    ),
    arguments=("text_a", "text_b"),
)
"""Do two memories contradict each other? (``maintain(conflict_detector=...)``)"""

RESTATEMENT = Question(
    role="dedup judge",
    system=(
        "You keep an agent's long-term memory free of repeats without losing anything it "
        "was told. A new statement restates a stored one when it says exactly the same "
        "thing, however worded. It does not when it changes, adds or drops any detail (a "
        "number, date, time, amount, name, place, negation, tense or quantity) or is about "
        "something else. Answer with one word: yes or no."
    ),
    human=(
        "Stored: {first}\nNew: {second}\n"
        "Does the new statement say exactly the same as the stored one?"
    ),
    arguments=("stored_text", "new_text"),
)
"""Does a new write restate the stored memory? (``CognitiveMemory(dedup_judge=...)``)"""

VERSION = Question(
    role="version judge",
    system=(
        "You keep an agent's long-term memory current. A newer statement updates an older one "
        "when it gives another value for the same fact about the same person or thing: the "
        "same attribute (where someone lives, a phone number, a date, a preference, a job) "
        "now said to be otherwise, or no longer so. It does not when it is about another "
        "person or thing, or another attribute of them, or adds a separate fact, or says the "
        "same again. Answer with one word: yes or no."
    ),
    human=(
        "Older: {first}\nNewer: {second}\n"
        "Does the newer statement update the fact that the older one gives?"
    ),
    arguments=("older_text", "newer_text"),
)
"""Does a new write update a stored memory? (``CognitiveMemory(version_judge=...)``)"""

_ANSWERS = {"yes": True, "true": True, "no": False, "false": False}
_THINKING = re.compile(r"^\s*<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_FIRST_WORD = re.compile(r"^[\W_]*(?:answer[\W_]+)?([^\W\d_]+)", re.IGNORECASE)


def parse_yes_no(answer: str) -> bool | None:
    """Read a model's yes/no answer: ``True`` for yes, ``False`` for no, ``None`` if unclear.

    A leading ``<think>...</think>`` block, leading punctuation or markdown and an ``Answer:``
    label are skipped; the first word decides, case-insensitively (``yes``/``true``,
    ``no``/``false``). ``"Yes."``, ``"**No**, they agree"``, ``"Answer: YES"`` are read;
    ``"They contradict"``, ``"Maybe"`` and ``""`` are unclear.

    Args:
        answer: The model's reply text.

    Returns:
        ``True``, ``False`` or ``None``.
    """
    match = _FIRST_WORD.match(_THINKING.sub("", answer, count=1))
    return _ANSWERS.get(match.group(1).lower()) if match else None


def check_on_unclear(on_unclear: object) -> OnUnclear:
    """``on_unclear`` if it is ``"raise"`` or ``"no"``.

    Raises:
        InvalidInputError: Anything else.
    """
    if on_unclear == "raise":
        return "raise"
    if on_unclear == "no":
        return "no"
    raise InvalidInputError(f"on_unclear must be 'raise' or 'no', got {on_unclear!r}")


def check_variables(names: set[str], question: Question) -> None:
    """Check that a prompt's variables are exactly ``{first}`` and ``{second}``.

    Raises:
        InvalidInputError: One is missing, or others are there (names them).
    """
    missing = [v for v in VARIABLES if v not in names]
    if missing:
        raise InvalidInputError(
            f"the {question.role} prompt must have {{first}} and {{second}} variables (the two "
            f"memories); it lacks {missing} and has {sorted(names)}"
        )
    extra = sorted(names - set(VARIABLES))
    if extra:
        raise InvalidInputError(
            f"the {question.role} prompt may only use {{first}} and {{second}}; "
            f"it also uses {extra}"
        )


def yes_no_judge(
    ask: Callable[[str, str], object],
    question: Question,
    *,
    model_name: str,
    on_unclear: OnUnclear = "raise",
    error: type[JudgeError] = JudgeError,
) -> Callable[[str, str], bool]:
    """A ``(first, second) -> bool`` judge around a model call.

    Args:
        ask: Sends the two texts to the model (formatted into its prompt) and returns the reply
            text (a ``str``; anything else is an error).
        question: Which question is asked (its role names the judge in messages).
        model_name: How messages name the model.
        on_unclear: What a reply that is neither yes nor no means: ``"raise"`` an ``error``
            naming it, or ``"no"`` (logged as a warning on the ``cogmem`` logger).
        error: The :class:`~cogmem.errors.JudgeError` subclass raised.

    Returns:
        The judge. It raises :class:`~cogmem.errors.InvalidTypeError` /
        :class:`~cogmem.errors.InvalidInputError` for a text that is not a str or is blank, and
        ``error`` (carrying both texts and the answer) when the model raises, returns no text,
        or (``on_unclear="raise"``) answers neither yes nor no.
    """
    role = question.role

    def judge(first: str, second: str) -> bool:
        a = check_text(first, question.arguments[0])
        b = check_text(second, question.arguments[1])
        try:
            reply = ask(a, b)
        except Exception as exc:
            raise error(
                f"the {role} model {model_name} failed ({type(exc).__name__}: {exc})", a, b
            ) from exc
        if not isinstance(reply, str):
            raise error(
                f"the {role} model {model_name} returned {type(reply).__name__}; expected text",
                a,
                b,
            )
        verdict = parse_yes_no(reply)
        if verdict is not None:
            return verdict
        if on_unclear == "no":
            log.warning(
                "%s model %s answered %r, neither yes nor no; counted as no",
                role,
                model_name,
                _shorten(reply),
            )
            return False
        raise error(
            f"the {role} model {model_name} answered {_shorten(reply)!r}, neither yes nor no; "
            "make the prompt ask for a one-word yes/no answer, or pass on_unclear='no' to "
            "count such answers as no",
            a,
            b,
            reply,
        )

    judge.__doc__ = f"The {role}, asking {model_name} (yes/no)."
    return judge


def _shorten(answer: str, limit: int = 200) -> str:
    answer = answer.strip()
    return answer if len(answer) <= limit else answer[: limit - 1] + "…"


def judged(relate: Relate, judge: Callable[[str, str], bool], gate: float) -> Relate:
    """``relate`` with a version judge asked about the pairs its reading is unsure of.

    Asked: a *guessed* update (the reading inferred it from a word that marks a change and the
    kind of the new value, :attr:`~cogmem.versions.Relation.sure` false), and an *unknown*
    pair at cosine ≥ ``gate``. A yes makes the pair a sure update (linked at write time as a
    newer version); a no leaves a guess to the words (``unknown``) and an unknown pair as it
    was; a judge that raises counts as a no (logged). Sure readings, restatements and pairs
    read as different are never asked.

    Args:
        relate: ``(older text, newer text, cosine) -> Relation``, the reading.
        judge: ``(older_text, newer_text) -> bool``: does the newer update the older?
        gate: The cosine at or above which an unknown pair is asked.
    """

    def ask(older: str, newer: str, cosine: float) -> Relation:
        relation = relate(older, newer, cosine)
        guess = relation.kind == "update" and not relation.sure
        if not guess and not (relation.kind == "unknown" and cosine >= gate):
            return relation
        try:
            yes = bool(judge(older, newer))
        except Exception as exc:  # a failing judge must not fail the write
            log.warning("version judge failed on %r vs %r (read as unsure): %s", older, newer, exc)
            yes = False
        if yes:
            return Relation("update", relation.changes or ("judged an update",), sure=True)
        return Relation("unknown") if guess else relation

    return ask
