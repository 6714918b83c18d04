"""One spelling for what can be written several ways: numbers, clock times, UK/US spelling.

Two statements that say the same thing in other words must compare equal before their claims
are compared (:mod:`cogmem.statements`). The work is done by maintained libraries where one
exists: number words by ``text2num`` ("two" -> "2", "twenty-one" -> "21"), British spellings
by ``breame``'s lists ("colour" -> "color", "licence" -> "license"). Contractions need nothing
here: the parser splits them and lemmatises the parts ("I'm" -> "I" + "be").

Clock times have no small, maintained library that turns "5 pm", "17:00" and "five in the
evening" into one form without also guessing a date, so :func:`clock_times` does only that,
on the forms in the table of :data:`_CLOCK`: a 12-hour time with am/pm or a part of the day,
noon and midnight, and HH:MM, all to ``HH:MM`` on the 24-hour clock.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["canonical_text", "clock_times", "us_spelling"]

# h[:mm] followed by am/pm, or by "in the morning/afternoon/evening/at night".
_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?:o'?clock\s*)?"
    r"(?:(?P<ampm>[ap])\.?\s?m\b\.?|(?:in the|at) (?P<part>morning|afternoon|evening|night))",
    re.IGNORECASE,
)
_HHMM = re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})\b")
_NAMED = {"noon": "12:00", "midday": "12:00", "midnight": "00:00"}
_NAMED_RE = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)
_AFTER_NOON = frozenset({"p", "afternoon", "evening", "night"})
_GLUED = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")


def _clock(match: re.Match[str]) -> str:
    hour, minute = int(match["h"]), int(match["m"] or 0)
    part = (match["ampm"] or match["part"] or "").lower()
    if hour > 12 or minute > 59:
        return match[0]
    if part in _AFTER_NOON and hour < 12:
        hour += 12
    elif part in ("a", "morning") and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute:02d}"


def _hhmm(match: re.Match[str]) -> str:
    hour, minute = int(match["h"]), int(match["m"])
    return f"{hour:02d}:{minute:02d}" if hour < 24 and minute < 60 else match[0]


def clock_times(text: str) -> str:
    """``text`` with its clock times as 24-hour ``HH:MM``.

    >>> clock_times("at 5 pm, 5:30pm, 17:00, 5 in the evening, noon and 9 a.m.")
    'at 17:00, 17:30, 17:00, 17:00, 12:00 and 09:00'
    """
    text = _NAMED_RE.sub(lambda m: _NAMED[m[1].lower()], text)
    text = _CLOCK.sub(_clock, text)
    return _HHMM.sub(_hhmm, text)


@lru_cache(maxsize=65536)
def us_spelling(word: str) -> str:
    """The American spelling of a lowercase ``word`` (itself when it has none).

    >>> us_spelling("colour"), us_spelling("licence"), us_spelling("organised"), us_spelling("cat")
    ('color', 'license', 'organized', 'cat')
    """
    from breame.spelling import get_american_spelling

    spelled = get_american_spelling(word)
    return spelled if isinstance(spelled, str) and spelled else word


def canonical_text(text: str) -> str:
    """``text`` with number words as digits, clock times as ``HH:MM`` and hyphenated words
    glued into one ("motherinlaw"; spelling is canonicalised word by word after parsing,
    by :func:`us_spelling`).

    >>> canonical_text("We have two kids; dinner is at seven in the evening.")
    'We have 2 kids; dinner is at 19:00.'
    """
    from text_to_num import alpha2digit

    try:
        digits = alpha2digit(text, "en", threshold=0)
    except Exception:  # the parser of number words must never lose a write: keep the words
        digits = text
    # "mother-in-law", "Wi-Fi": one word (the parser would read "mother" and "law"), written
    # as people also write it unhyphenated ("wifi")
    return _GLUED.sub("", clock_times(digits))
