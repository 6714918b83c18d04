"""Calendar dates and days of the week in one form: "5 Dec", "December 5th", "the 5th of
December" -> "12.05"; "Oct 14-16" / "14–16 October" -> "10.14 to 10.16"; "Weds", "Tuesdays"
-> "wednesday", "tuesday".

dateutil reads each date a regular expression finds (:func:`calendar_dates`), and names the
days (:func:`weekday`); a range of days with its month said once is cut into its two dates
first, which dateutil does not do. Part of :func:`cogmem.canonical.canonical_text`.
"""

from __future__ import annotations

import re
from datetime import datetime

from dateutil.parser import parserinfo

__all__ = ["calendar_dates", "days_in_full", "weekday"]

_MONTH_NAME = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_MONTH = _MONTH_NAME + r"\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_WEEKDAY = (
    r"(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?,?\s+)?"
)
_YEAR = r"(?:,?\s+\d{4})?"
# The spans of a text that name a calendar date; dateutil reads each.
_DATE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}"
    r"|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"|\d{1,2}\.\d{1,2}\.\d{4}"
    rf"|{_WEEKDAY}(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}{_YEAR}"
    rf"|{_WEEKDAY}{_MONTH}\s+(?:the\s+)?{_DAY}{_YEAR})\b",
    re.IGNORECASE,
)
_DOTTED_DATE = re.compile(r"\d{1,2}\.\d{1,2}\.\d{4}")
# A range of days in one month, the month said once: "Oct 14-16", "Sept 17–19, 2024", "14-16
# November", "3rd to 10th August" (each end then read as a date of its own).
_UNTIL = r"\s*(?:-|–|—|to|until|till)\s*"
_MONTH_FIRST = re.compile(
    rf"\b(?P<month>{_MONTH_NAME})\.?\s+(?P<first>{_DAY}){_UNTIL}(?P<last>{_DAY})\b(?P<year>{_YEAR})",
    re.IGNORECASE,
)
_MONTH_LAST = re.compile(
    rf"\b(?:the\s+)?(?P<first>{_DAY}){_UNTIL}(?:the\s+)?(?P<last>{_DAY})\s+(?:of\s+)?"
    rf"(?P<month>{_MONTH_NAME})\b(?P<year>{_YEAR})",
    re.IGNORECASE,
)
# Two dates read, with a dash between them: a range ("08.03 - 08.10").
_DATES_DASHED = re.compile(r"(?<=\d)\s*(?:-|–|—)\s*(?=(?:\d{4}\.)?\d{2}\.\d{2}\b)")
_NO_YEAR = datetime(1, 1, 1)


def _date(match: re.Match[str]) -> str:
    from dateutil import parser

    span = re.sub(r"\bthe\b|\bof\b", " ", match[0], flags=re.IGNORECASE)
    # "07/22/2025" reads month first, "21/06" cannot; a dotted date is written day first
    # ("01.03.2025": 1 March), as everywhere dots are written so
    for day_first in (True, False) if _DOTTED_DATE.fullmatch(match[0]) else (False, True):
        try:
            when = parser.parse(span, default=_NO_YEAR, dayfirst=day_first)
        except (ValueError, OverflowError):
            continue
        return str(when.strftime("%m.%d") if when.year == 1 else when.strftime("%Y.%m.%d"))
    return match[0]


def calendar_dates(text: str) -> str:
    """``text`` with its calendar dates as ``YYYY.MM.DD``, or ``MM.DD`` without a year (one
    token to the parser; dates read by dateutil; a weekday before a date is dropped).

    A range of days with its month said once is two dates ("Oct 14-16", "14-16 October":
    "10.14 to 10.16").

    >>> calendar_dates("on 5 Dec, on December 5th, on Thu the 9th of May, on 07/22/2025")
    'on 12.05, on 12.05, on 05.09, on 2025.07.22'
    >>> calendar_dates("Oct 14-16, 14–16 October, Sept 17-19, 2024, Aug 3 - Aug 10")
    '10.14 to 10.16, 10.14 to 10.16, 2024.09.17 to 2024.09.19, 08.03 to 08.10'
    """
    text = _MONTH_FIRST.sub(r"\g<month> \g<first>\g<year> to \g<month> \g<last>\g<year>", text)
    text = _MONTH_LAST.sub(r"\g<first> \g<month>\g<year> to \g<last> \g<month>\g<year>", text)
    return _DATES_DASHED.sub(" to ", _DATE.sub(_date, text))


def weekday(word: str, *, capitalised: bool = False) -> str:
    """``word`` as the full name of a day of the week when it names one, else as it is
    (dateutil's names and abbreviations, a plural "s" dropped: "Weds", "Tuesdays", "thurs" ->
    "wednesday", "tuesday", "thursday"). "sat" and "sun" are words of their own unless
    ``capitalised`` ("Sat the 18th").

    >>> weekday("Weds"), weekday("sat"), weekday("Sat", capitalised=True), weekday("sunny")
    ('wednesday', 'sat', 'saturday', 'sunny')
    """
    lower = word.lower()
    if lower in _NOT_DAYS and not capitalised:
        return word
    for form in (lower, lower[:-1] if lower.endswith("s") else ""):
        day: int | None = _DATES.weekday(form) if form else None
        if day is not None:
            return _DAY_NAMES[day]
    return word


class _Days(parserinfo):  # type: ignore[misc]
    """dateutil's names of the days, and the short forms it lacks ("Tues", "Weds", "Thurs")."""

    WEEKDAYS = [  # noqa: RUF012 (dateutil's own class attribute)
        ("Mon", "Monday"),
        ("Tue", "Tues", "Tuesday"),
        ("Wed", "Weds", "Wednesday"),
        ("Thu", "Thur", "Thurs", "Thursday"),
        ("Fri", "Friday"),
        ("Sat", "Saturday"),
        ("Sun", "Sunday"),
    ]


_DATES = _Days()
_DAY_NAMES: tuple[str, ...] = tuple(long.lower() for _, long in parserinfo.WEEKDAYS)
_NOT_DAYS = frozenset({"sun", "sat", "suns"})


# A word of up to five letters written with a capital, that may be a day's short form.
_SHORT_DAY = re.compile(r"\b[A-Z][a-z]{1,4}\b(?!')")


def _day_in_full(match: re.Match[str]) -> str:
    """A day's short form ("Wed", "Thurs") in full ("Wednesday"; the parser reads "Wed." as
    "We'd"); "Sat" and "Sun" opening a sentence stay words."""
    short = match[0]
    if weekday(short, capitalised=True) == short:
        return short  # no day at all: most capitalised words
    before = match.string[: match.start()].rstrip()
    day = weekday(short, capitalised=bool(before) and before[-1] not in ".!?")
    return day.capitalize() if day != short and len(day) > len(short) else short


def days_in_full(text: str) -> str:
    """``text`` with each day's short form in full ("Wed" -> "Wednesday"; the parser reads
    "Wed." as "We'd"); "Sat" and "Sun" opening a sentence stay words."""
    return _SHORT_DAY.sub(_day_in_full, text)
