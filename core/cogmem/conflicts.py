"""Judging contradictions with a language model: the shared, framework-free part.

The adapters (``langchain_cogmem.conflict_detector_from``, ``llamaindex_cogmem``'s) build a
``(text_a, text_b) -> bool`` detector for :meth:`cogmem.CognitiveMemory.maintain` from a model;
the instructions they send and the way the reply is read live here, once.
"""

from __future__ import annotations

import re

__all__ = ["CONFLICT_QUESTION", "CONFLICT_SYSTEM", "parse_yes_no"]

#: The system instructions of the default conflict prompt.
CONFLICT_SYSTEM = (
    "You check an agent's long-term memories for contradictions. Two statements "
    "contradict each other when they cannot both be true: they give different values "
    "for the same fact about the same thing (a place, a date, a number, a name, a "
    "preference). Statements about different things, statements that add detail, and "
    "an event followed by a later event do not contradict each other. "
    "Answer with one word: yes or no."
)
#: The user message of the default conflict prompt (variables ``first``, ``second``).
CONFLICT_QUESTION = (
    "Statement 1: {first}\nStatement 2: {second}\nDo these two statements contradict each other?"
)

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
