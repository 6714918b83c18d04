"""One spelling for what can be written several ways: numbers, dates, clock times, UK/US
spelling.

Two statements that say the same thing in other words must compare equal before their claims
are compared (:mod:`cogmem.statements`). The work is done by maintained libraries where one
exists: number words by ``text2num`` ("two" -> "2", "twenty-one" -> "21"), British spellings
by ``breame``'s lists ("colour" -> "color", "licence" -> "license"), dates by ``dateutil``
("5 Dec", "December 5th", "the 5th of December" -> "12.05"; a regular expression finds
them: :mod:`cogmem.dates`). Contractions need nothing here: the parser splits them and
lemmatises the parts ("I'm" -> "I" + "be").

Clock times have no small, maintained library that turns "5 pm", "17:00" and "five in the
evening" into one form without also guessing a date, so :func:`clock_times` does only that,
on the forms in the table of :data:`_CLOCK`: a 12-hour time with am/pm or a part of the day,
noon and midnight, and HH:MM, all to ``HH:MM`` on the 24-hour clock. How often ("a day",
"daily", "every day") and dozens are small closed forms, read here too (:func:`rates`,
:func:`dozens`); a day of the week is named in full by dateutil's names (:func:`weekday`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from spacy.lang.en.lex_attrs import like_num

from .dates import calendar_dates, days_in_full, weekday
from .disfluency import fluent, unhedged
from .typos import mended
from .units import unit_name, units

__all__ = [
    "calendar_dates",
    "canonical_text",
    "clock_times",
    "dozens",
    "one_spelling",
    "rates",
    "unchatted",
    "unshouted",
    "us_spelling",
    "weekday",
]

# h[:mm] followed by am/pm, or by "in the morning/afternoon/evening/at night".
_CLOCK = re.compile(
    r"\b(?P<h>\d{1,2})(?:[:.](?P<m>\d{2}))?\s*(?:o'?clock\s*)?"
    r"(?:(?P<ampm>[ap])(?:\.\s?m\b\.?|\s?m\b)"  # "pm", "p.m." (a dot after "pm" ends a sentence)
    r"|(?:in the|at) (?P<part>morning|afternoon|evening|night))",
    re.IGNORECASE,
)
# "quarter past seven", "half past 5", "a quarter to 7", "20 past 7", "10 to 6" (after number
# words became digits; minutes before "to" or "past" only after "at", "by", ...: "2 to 3 hours"
# is no time).
_PAST_TO = re.compile(
    r"\b(?:a\s+)?(?P<part>quarter|half|(?<=at |by )\d{1,2}(?: minutes)?)\s+(?P<way>past|to)"
    r"\s+(?P<h>\d{1,2})\b",
    re.IGNORECASE,
)
# British "half five" (5:30) and a dotted 24-hour time ("17.30"), after a word of time; "six
# o'clock" as "six".
_HALF = re.compile(r"\b(?P<at>at|by|from|till|until|around|before|after) half (?P<h>\d{1,2})\b")
_DOTTED = re.compile(
    r"\b(?P<at>at|by|from|till|until|around|before|after) (?P<h>\d{1,2})\.(?P<m>\d{2})\b"
    r"(?!\.\d)"  # "from 01.03.2025" is a date
)
# A time said as its numbers ("at nine thirty", "by seven forty-five pm"), after number words
# became digits: "at 9 30"; not a count of something ("at 9 30-minute slots").
_SPOKEN = re.compile(
    r"\b(?P<at>at|by|from|till|until|around|before|after) (?P<h>\d{1,2}) (?P<m>[1-5]\d)\b"
    r"(?![ -]?(?:-|minute|min|hour|second|day|week|month|year|percent|%|[a-z]+s\b))"
)
# A 24-hour time written as four digits ("departs at 0745", "at 1930 hrs"), before no word
# but a few that end a time ("at 1850 metres" is no time). One from 10:00 on only after "at":
# "from 1850", "by 2030" and "before 2000" are years.
_FOUR_DIGITS = re.compile(
    r"\b(?:(?P<at>at|by|from|till|until|around|before|after) (?P<h>0\d)"
    r"|(?P<at2>at) (?P<h2>1\d|2[0-3]))(?P<m>[0-5]\d)(?: ?(?:hrs|hours|h)\b)?"
    r"(?=\s*(?:[.,;:!?)]|$|(?:on|every|each|and|sharp|tomorrow|today|tonight)\b))"
)
# A range whose end alone says the part of the day ("7:30 to 9 in the evening", "2-3pm"):
# the start shares it when it comes first on the clock.
_RANGE = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<join>-|–|—|to|until|till)\s*"
    r"(?P<end>(?P<h2>\d{1,2})(?::(?P<m2>\d{2}))?\s*"
    r"(?P<part>[ap]\.?\s?m\b\.?|(?:in the|at) (?:morning|afternoon|evening|night)))",
    re.IGNORECASE,
)
# Two clock times joined by a dash ("19:30–21:00"): a range, as "to" says it.
_DASHED = re.compile(r"\b(\d{1,2}:\d\d)\s?[-–—]\s?(\d{1,2}:\d\d)\b")
_OCLOCK = re.compile(r"\b(?P<h>\d{1,2}) o'?clock\b", re.IGNORECASE)
_HHMM = re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})\b")
_NAMED = {"noon": "12:00", "midday": "12:00", "midnight": "00:00"}
_NAMED_RE = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)
_AFTER_NOON = frozenset({"p", "afternoon", "evening", "night"})
_GLUED = re.compile(r"(?<=[A-Za-z])-(?=[A-Za-z])")
# "brother in law": the relative written unhyphenated is still one word.
_IN_LAW = re.compile(
    r"\b(mother|father|sister|brother|son|daughter|parent)[ -]in[ -]law\b", re.IGNORECASE
)


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
    """A time written on the clock alone: ``HH:MM`` when it can only be that time ("06:30",
    "18:30", "0:15"), ``H:MM`` when it is bare ("6:30", "quarter past 3": morning or
    evening, :func:`cogmem.agreement.one_clock`)."""
    hour, minute = int(match["h"]), int(match["m"])
    if hour >= 24 or minute >= 60:
        return match[0]
    if 1 <= hour <= 12 and not match["h"].startswith("0"):
        return f"{hour}:{minute:02d}"
    return f"{hour:02d}:{minute:02d}"


def _range(match: re.Match[str]) -> str:
    start = (int(match["h"]), int(match["m"] or 0))
    if not (start < (int(match["h2"]), int(match["m2"] or 0)) and start[0] <= 12):
        return match[0]
    said = f"{match['h']}:{match['m']}" if match["m"] else match["h"]
    return f"{said} {match['part']} to {match['end']}"


def _past_to(match: re.Match[str]) -> str:
    hour = int(match["h"])
    part = match["part"].lower()
    minutes = 15 if part == "quarter" else 30 if part == "half" else int(part.split()[0])
    if minutes > 59 or hour > 24:
        return match[0]
    if match["way"].lower() == "to":
        hour, minutes = (hour - 1) % 24, 60 - minutes
    return f"{hour}:{minutes:02d}"


def _four_digits(match: re.Match[str]) -> str:
    return f"{match['at'] or match['at2']} {match['h'] or match['h2']}:{match['m']}"


def clock_times(text: str) -> str:
    """``text`` with its clock times as 24-hour ``HH:MM``, and those that do not say the part
    of the day as ``H:MM`` (a bare time: "half past 5" is 5:30 or 17:30).

    >>> clock_times("at 5 pm, 5:30pm, 17:00, 5 in the evening, noon and 9 a.m.")
    'at 17:00, 17:30, 17:00, 17:00, 12:00 and 09:00'
    >>> clock_times("a quarter to 7 in the morning, half past 5, 06:30, 6:30")
    '06:45, 5:30, 06:30, 6:30'
    >>> clock_times("at half 5, at 17.30, at 6 o'clock, at 20 past 7, 2 to 3 hours, 17.30 kg")
    'at 5:30, at 17:30, at 6, at 7:20, 2 to 3 hours, 17.30 kg'
    >>> clock_times("at 9 30 each day, by 7 45 pm, at 9 30 minute slots, at 9 30 seats")
    'at 9:30 each day, by 19:45, at 9 30 minute slots, at 9 30 seats'
    >>> clock_times("at 0745, at 1930 hrs on Fridays, at 1850 metres, dates from 1850.")
    'at 07:45, at 19:30 on Fridays, at 1850 metres, dates from 1850.'
    >>> clock_times("from 7:30 to 9 in the evening, 19:30–21:00, 10-2pm")
    'from 19:30 to 21:00, 19:30 to 21:00, 10-14:00'
    """
    text = _NAMED_RE.sub(lambda m: _NAMED[m[1].lower()], text)
    text = _OCLOCK.sub(lambda m: m["h"], text)
    text = _HALF.sub(lambda m: f"{m['at']} {m['h']}:30", text)
    text = _DOTTED.sub(lambda m: f"{m['at']} {m['h']}:{m['m']}", text)
    text = _SPOKEN.sub(lambda m: f"{m['at']} {m['h']}:{m['m']}", text)
    text = _FOUR_DIGITS.sub(_four_digits, text)
    text = _PAST_TO.sub(_past_to, text)
    text = _CLOCK.sub(_clock, _RANGE.sub(_range, text))
    return _DASHED.sub(r"\1 to \2", _HHMM.sub(_hhmm, text))


@lru_cache(maxsize=65536)
def us_spelling(word: str) -> str:
    """The American spelling of a lowercase ``word`` (itself when it has none).

    >>> us_spelling("colour"), us_spelling("licence"), us_spelling("organised"), us_spelling("cat")
    ('color', 'license', 'organized', 'cat')
    """
    from breame.spelling import get_american_spelling

    spelled = get_american_spelling(word)
    return spelled if isinstance(spelled, str) and spelled else word


def one_spelling(canonical: str) -> str:
    """A text already in canonical form (:func:`canonical_text`) in one spelling as well: US
    spelling, and the contractions that say one word spelled out ("I'm" -> "I am"; "'s" and
    "'d" say two words, and stay).

    >>> one_spelling(canonical_text("I'm organising the neighbourhood barbecue."))
    'I am organizing the neighborhood barbecue.'
    """
    spelled = _CONTRACTED.sub(lambda m: _SPELLED[m[1].lower()], canonical)
    return _LETTERS.sub(lambda m: us_spelling(m[0].lower()) if m[0].islower() else m[0], spelled)


# Contractions that can only be one word ("'s" is "is", "has" or an owner's; "'d" "had" or
# "would").
_SPELLED = {"m": " am", "re": " are", "ve": " have", "ll": " will"}
_CONTRACTED = re.compile(r"['\u2019](m|re|ve|ll)\b", re.IGNORECASE)
_LETTERS = re.compile(r"[^\W\d_]+")


def unshouted(text: str) -> str:
    """``text`` in sentence case when it is written in capitals ("I'M ALLERGIC TO BEES!!" ->
    "I'm allergic to bees!!"): the parser reads shouting as a row of names.

    >>> unshouted("RAVI WORKS AT DELOITTE"), unshouted("I work at IBM")
    ('Ravi works at deloitte', 'I work at IBM')
    """
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) < 8 or any(ch.islower() for ch in letters):
        return text
    lowered = re.sub(r"\bi\b", "I", text.lower())
    return re.sub(r"^(\W*)(\w)", lambda m: m[1] + m[2].upper(), lowered)


def canonical_text(text: str) -> str:
    """``text`` with contractions spelled as contractions ("im", "'s" for "is"), number words
    as digits (dozens too, and thousands not grouped: "1,850" -> "1850"), units after a
    number by one name (:func:`cogmem.units.units`), how often in one form (:func:`rates`:
    "daily", "every day" -> "per day"), clock times as ``HH:MM`` and hyphenated words glued
    into one ("mother-in-law" and "mother in law" as "motherinlaw"; spelling is canonicalised
    word by word after parsing, by :func:`us_spelling`).

    >>> canonical_text("We have two kids; dinner is at seven in the evening.")
    'We have 2 kids; dinner is at 19:00.'
    """
    from text_to_num import alpha2digit

    text = _NOW.sub("now", mended(unshouted(fluent(unchatted(text)))))
    text = _TITLE.sub(r"\1", text) if "." in text else text
    text = _HYPHENED.sub(_number_and_unit, text) if "-" in text else text
    names = [m[0] for m in _NAMED_NUMBER.finditer(text)]  # "the network Three" is a name
    masked = _NAMED_NUMBER.sub(_MASK, text) if names else text
    masked = _PROP_ONE.sub(rf"\1{_ONE}", masked)  # "the red one" is no number
    masked = _ONES.sub(f"{_ONE}s", masked)  # nor "the ones I took"
    try:
        digits = alpha2digit(masked, "en", threshold=0)
    except Exception:  # the parser of number words must never lose a write: keep the words
        digits = masked
    digits = digits.replace(_ONE, "one")
    digits = _DIGIT_BY_DIGIT.sub(_digit_by_digit, digits)
    if names:
        parts = digits.split(_MASK)
        digits = parts[0] + "".join(n + rest for n, rest in zip(names, parts[1:], strict=True))
    # "mother-in-law", "Wi-Fi": one word (the parser would read "mother" and "law"), written
    # as people also write it unhyphenated ("wifi")
    digits = _AND_A_HALF.sub(r"\1.5", _AGE.sub(r"\1", digits))
    digits = _YEAR_IN_WORDS.sub(r"\1 \2\3", digits)
    digits = _ONE_AND_A_HALF.sub(r"1.5 \1s", digits)
    said = calendar_dates(clock_times(spelled_is(apostrophised(digits))))
    said = days_in_full(said)  # after dates: "Sat the 18th" is one date
    # units after clock times and dates: "5 pm" is no picometre
    said = unhedged(rates(units(dozens(_THOUSANDS.sub(_ungrouped, said)))))
    said = _IN_LAW.sub(r"\1-in-law", said)
    return _GLUED.sub("", _COMPOUND.sub(_us_compound, said))


# How often is said at the end of a clause, or before what else it says ("daily at 7"); not
# before a noun ("a weekly session", "a night owl"), "and" ("a year and a half"), "or" ("a day
# or two") or "to" ("a day to remember").
_RATE_END = (
    r"(?=\s*(?:[.,;:!?)]|$)"
    r"|\s+(?:at|on|in|for|with|since|until|when|during|but|so|because|except|unless|if)\b)"
)
# "daily", "annually": how often, as an adverb.
_ADVERB = re.compile(
    rf"\b(daily|weekly|monthly|yearly|hourly|nightly|annually)\b{_RATE_END}", re.IGNORECASE
)
_PERIODS = {
    "daily": "day", "weekly": "week", "monthly": "month", "yearly": "year", "hourly": "hour",
    "nightly": "night", "annually": "year",
}  # fmt: skip
# "a day", "every week", "each month": how often, but not "in a day", "for a year", "within a
# week".
# Not a span of time: "in a week", "for a year", "within a day".
_NOT_A_SPAN = r"(?<!\bin )(?<!\bfor )(?<!\bwithin )"
_EVERY = re.compile(
    _NOT_A_SPAN + r"\b(?:an?|each|every)\s+"
    rf"(day|week|month|year|hour|night)\b{_RATE_END}",
    re.IGNORECASE,
)

# "every 2 weeks", "every other day": how often, in periods of more than one.
_EVERY_FEW = re.compile(
    _NOT_A_SPAN + r"\b(?:each|every)\s+(\d+|other)\s+"
    rf"(day|week|month|year|hour|night)s?\b{_RATE_END}",
    re.IGNORECASE,
)
# "fortnightly", "every fortnight", "a fortnight": every 2 weeks.
_FORTNIGHT = re.compile(
    rf"\b(?:fortnightly|(?:{_NOT_A_SPAN}(?:an?|each|every)\s+fortnight))\b{_RATE_END}",
    re.IGNORECASE,
)


def _every_few(match: re.Match[str]) -> str:
    count = "2" if match[1].lower() == "other" else match[1]
    return f"per {count} {match[2].lower()}"


def rates(text: str) -> str:
    """``text`` with how often said one way: "a day", "every day", "each day" and "daily" (an
    adverb) as "per day", and so for the week, month, year, hour and night; "annually" as
    "per year"; "twice a day" as "2 times per day", "once a week" as "per week". A
    prepositional phrase, as ``pint`` writes a rate ("$40/hr" -> "40 dollar per hour"), and
    as the parser reads best. Every few periods are a rate too: "every 2 weeks", "every other
    week", "fortnightly" and "every fortnight" are "per 2 week" (one unit, singular, as
    :func:`cogmem.units.units` writes it).

    >>> rates("I drink 2 liter of water a day, 35 euro monthly, in a day or two.")
    'I drink 2 liter of water per day, 35 euro per month, in a day or two.'
    >>> rates("Twice a month I see a therapist. Every day, we walk.")
    'I see a therapist 2 times per month. we walk per day.'
    >>> rates("Bins go out every 2 weeks; the recycling fortnightly, the glass every other week.")
    'Bins go out per 2 week; the recycling per 2 week, the glass per 2 week.'
    """
    said = _FRONTED.sub(r"\g<rest> \g<rate>\g<end>", text)
    said = _FORTNIGHT.sub("per 2 week", _EVERY_FEW.sub(_every_few, said))
    said = _EVERY.sub(lambda m: f"per {m[1].lower()}", said)
    said = _ADVERB.sub(lambda m: f"per {_PERIODS[m[1].lower()]}", said)
    return _TIMES.sub(lambda m: _COUNTED[m[1].lower()], said)


# How often, said first ("Twice a month I see a therapist."): said last, where the clause
# ends, as the rest of the rates are read.
_FRONTED = re.compile(
    r"(?:(?<=^)|(?<=[.!?]\s))(?P<rate>(?:(?:once|twice|thrice|\d+ times)\s+)?"
    r"(?:a|an|each|every)\s+(?:day|week|month|year|night))\s*,?\s+"
    r"(?P<rest>(?:i|we|my|our|he|she|they|his|her|their)\b[^.!?]*?)(?P<end>[.!?]|$)",
    re.IGNORECASE,
)
# "once", "twice", "thrice" before how often: "twice a day" says "2 times a day", "once a
# week" what "weekly" says.
_TIMES = re.compile(r"\b(once|twice|thrice)\s+(?=per\b)", re.IGNORECASE)
_COUNTED = {"once": "", "twice": "2 times ", "thrice": "3 times "}


# A number with its thousands grouped by commas: "1,850", "10,000" (not "1,2,3").
_THOUSANDS = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?![\d,])")


def _ungrouped(match: re.Match[str]) -> str:
    return match[0].replace(",", "")


_DOZEN = re.compile(r"\b(?:(?P<n>\d+)|(?P<half>half )?an?|one)\s+dozen\b", re.IGNORECASE)


def dozens(text: str) -> str:
    """``text`` with a number of dozens as its number ("a dozen" 12, "2 dozen" 24, "half a
    dozen" 6; "dozens" stays).

    >>> dozens("a dozen eggs, 2 dozen croissants, half a dozen rolls, dozens of times")
    '12 eggs, 24 croissants, 6 rolls, dozens of times'
    """

    def number(match: re.Match[str]) -> str:
        if match["half"]:
            return "6"
        return str(12 * int(match["n"] or 1))

    return _DOZEN.sub(number, text)


# A number word written with a capital inside a sentence is a name ("switched to Three",
# "Channel Four"); masked while number words become digits, then put back.
_NAMED_NUMBER = re.compile(
    r"(?<=[a-z,;:] )(?:One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Eleven|Twelve|Twenty|"
    r"Thirty|Forty|Fifty|Sixty|Seventy|Eighty|Ninety|Hundred|Thousand|Million)\b"
)
_MASK = "\u2063"  # an invisible separator: no number word, kept by alpha2digit
# "the red one", "a new one", "which one": a "one" that stands for a thing said before (a
# prop-word; "my suitcase is the red one"), no number; it is not read as 1 (kept by this mark).
_PROP_ONE = re.compile(
    r"\b((?:the|this|that|which|another|an?|my|your|his|her|our|their|its)(?:\s+[a-z]+){0,2}"
    r"\s+)one\b(?=\s*(?:[.,;:!?)]|$)|\s+(?:is|was|with|that|from|in|on|at|for|has|had)\b)",
    re.IGNORECASE,
)
_ONE = "\u2064"
_ONES = re.compile(r"\bones\b", re.IGNORECASE)


# A title written short with a full stop or without: "Dr. Reyes" / "Dr Reyes".
_TITLE = re.compile(r"\b(Dr|Mr|Mrs|Ms|Mx|Prof|St)\.(?= [A-Z])")
# A number said digit by digit ("four seven one nine", "four oh two"): three or more single
# digits in a row (after number words became digits), "oh" for a zero between them.
_DIGIT_BY_DIGIT = re.compile(
    r"(?<![\w.,:])\d(?:\s+(?:\d|oh)\b){1,}(?<=\d)(?![.,:]?\d)", re.IGNORECASE
)


def _digit_by_digit(match: re.Match[str]) -> str:
    said = match[0].split()
    if len(said) < 3:
        return match[0]
    return "".join("0" if d.lower() == "oh" else d for d in said)


# A year said in words ("built in eighteen fifty", "since twenty ten"): after number words
# became digits, two numbers after "in" or "since".
_YEAR_IN_WORDS = re.compile(
    r"\b(in|since) (1[1-9]|20) ([1-9]\d)\b"
    r"(?![ -]?(?:%|(?:minute|hour|day|week|month|year|percent|[a-z]+s)\b))"  # no count
)
# "9 and a half" (after number words became digits) is 9.5.
_AND_A_HALF = re.compile(r"\b(\d+) and a half\b", re.IGNORECASE)
# "an hour and a half": 1.5 hours.
_ONE_AND_A_HALF = re.compile(r"\b(?:an?|1) ([a-z]+) and a half\b", re.IGNORECASE)
# "is 16 years old" says an age as "is 16" does.
_AGE = re.compile(r"\b(\d+)\s+(?:years?|yrs?)\s+old\b", re.IGNORECASE)


# Words joined by hyphens ("five-kilometre", "10-minute", "twenty-five-metre", "grey-green").
_HYPHENED = re.compile(r"\b[\w.]+(?:-[\w.]+)+\b")


def _number_and_unit(match: re.Match[str]) -> str:
    """A number joined to a unit by a hyphen, as the number and the unit: "a five-kilometre
    run" says what "a 5 km run" says, "a 10-minute walk" what "a 10 minute walk" says
    ("twenty-five" stays one number; "second-hand" and "two-bed" are no quantities)."""
    parts = match[0].split("-")
    for at in range(1, len(parts)):
        if all(map(_cardinal, parts[:at])) and unit_name(parts[at]) is not None:
            return "-".join(parts[:at]) + " " + "-".join(parts[at:])
    return match[0]


def _cardinal(word: str) -> bool:
    """Whether ``word`` is a cardinal number, in digits or in words ("12", "twenty"; not
    "second" or "fifth")."""
    lowered = word.lower()
    if lowered.replace(".", "", 1).isdigit():
        return True
    number = bool(like_num(lowered))  # type: ignore[no-untyped-call]
    return number and lowered not in _ORDINALS and not lowered.endswith("th")


_ORDINALS = frozenset({"first", "second", "third"})


# A hyphenated compound ("grey-green"): spelled part by part before it is glued into one word.
_COMPOUND = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b")


def _us_compound(match: re.Match[str]) -> str:
    return "-".join(us_spelling(part) if part.islower() else part for part in match[0].split("-"))


# Ways of saying "now" ("I'm training for a triathlon at the moment").
_NOW = re.compile(r"\b(?:at the moment|at present|right now|as of now)\b", re.IGNORECASE)
# Words chat adds that say nothing of the statement ("im vegan lol"); "btw" and "fyi" inside
# a sentence too ("..., and oh btw ballet moved to Fenwick Lane": else read as the subject's).
_INTERJECTIONS = re.compile(
    r"[,;]?\s*\b(?:lol+|lmao|lmfao|rofl|ha(?:ha)+|he(?:he)+|omg|xd|ugh|yay|woo+hoo+|yikes|"
    r"tbh|imo|imho|smh|(?:oh,?\s+)?(?:btw|fyi))\b[!.:,]*",
    re.IGNORECASE,
)
# "#" standing alone for "number" ("my flight # is UA882", "new # is 555-0199").
_HASH = re.compile(r"(?<!\S)#(?!\S)")
# Chat's shorthand, in lower case and standing alone ("w" before a word: "meetng w the
# architect"; a day's short form that is no other word: "weds", "thurs").
_SHORTHAND = {
    "u": "you", "r": "are", "ur": "your", "w/": "with", "w": "with", "b4": "before",
    "bc": "because", "cuz": "because", "abt": "about", "ppl": "people", "tmrw": "tomorrow",
    "tmr": "tomorrow", "tues": "tuesday", "weds": "wednesday", "thurs": "thursday",
    "thur": "thursday",
}  # fmt: skip
_ALONE = "|".join(sorted((k for k in _SHORTHAND if k not in ("w", "w/")), key=len, reverse=True))
_SHORTHAND_RE = re.compile(rf"(?<![\w'’/.-])(?:w/(?!o\b)|w(?= [a-z])|(?:{_ALONE})(?![\w'’/.&-]))")
# "3x a week": "3 times" ("2x4", a size, stays).
_TIMES_X = re.compile(r"\b(\d+)\s?x\b(?!\s?[\d.])", re.IGNORECASE)


def unchatted(text: str) -> str:
    """``text`` without emoji and the interjections chat adds, with a lone "#" read as
    "number" and chat's shorthand in words ("r", "w/", "tmrw", "weds"): what the parser would
    otherwise take for words of the statement.

    >>> unchatted("im lactose intolerant lol 🥛🚫")
    'im lactose intolerant'
    >>> unchatted("my flight # is ua882 ✈️, gym 3x a week")
    'my flight number is ua882, gym 3 times a week'
    >>> unchatted("our neighbors r the petrovs, meeting w/ the architect is weds")
    'our neighbors are the petrovs, meeting with the architect is wednesday'
    """
    import emoji

    bare = text if text.isascii() else emoji.replace_emoji(text, replace="")  # emoji: not ASCII
    spoken = _INTERJECTIONS.sub("", bare)
    spoken = _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m[0]], spoken)
    spoken = _TIMES_X.sub(r"\1 times", _HASH.sub("number", spoken))
    return re.sub(r"\s+(?=[,.;:!?])", "", re.sub(r"\s{2,}", " ", spoken)).strip()


# Contractions chat writes without the apostrophe, where no English word is spelled so ("ill",
# "well", "were", "its", "wont" are words, and stay as they are).
_BARE_CONTRACTIONS = {
    f"{stem}{tail}": f"{stem}'{tail}"
    for stem, tail in (
        ("i", "m"), ("i", "ve"), ("you", "re"), ("you", "ve"), ("they", "re"), ("they", "ve"),
        ("we", "ve"), ("she", "s"), ("that", "s"), ("what", "s"), ("there", "s"),
        ("don", "t"), ("doesn", "t"), ("didn", "t"), ("isn", "t"), ("aren", "t"),
        ("wasn", "t"), ("weren", "t"), ("can", "t"), ("couldn", "t"), ("wouldn", "t"),
        ("shouldn", "t"), ("haven", "t"), ("hasn", "t"), ("hadn", "t"),
    )
}  # fmt: skip
_BARE = re.compile(r"\b(" + "|".join(sorted(_BARE_CONTRACTIONS)) + r")\b", re.IGNORECASE)


def apostrophised(text: str) -> str:
    """Contractions written without their apostrophe given it back ("im" -> "I'm", "dont" ->
    "don't"): the parser reads "im" as a word of its own. "Let's" opening a clause is "we
    will": the parser takes its "'s" for the subject.

    >>> apostrophised("im on the 8:10 train, dont wait. Let's do tacos.")
    "I'm on the 8:10 train, don't wait. We will do tacos."
    """

    def put(match: re.Match[str]) -> str:
        word = _BARE_CONTRACTIONS[match[1].lower()]
        return "I" + word[1:] if word.startswith("i'") else word

    return _LET_US.sub(_we_will, _BARE.sub(put, text))


def _we_will(match: re.Match[str]) -> str:
    return match["space"] + ("We will" if match["let"][0].isupper() else "we will")


# "Let's do tacos on Saturday.": a plan of ours, which the parser reads with "'s" as its
# subject; said as what we will do.
_LET_US = re.compile(
    r"(?:^|(?<=[.!?,;:]))(?P<space>\s*)(?P<let>let['\u2019]?s)\b(?=\s+[a-z])", re.IGNORECASE
)


# "'s" before a word that can only start a complement: "is" (or "has" before "been"/"got").
_IS = re.compile(
    r"\b([A-Za-z]+)['\u2019]s\s+(?=(?:the|a|an|my|your|his|her|our|their|this|that|not|no|"
    r"now|still|also|actually|always|never|just|really|currently|definitely|going|getting|"
    r"in|at|on|from|with|due|jan|january|feb|february|mar|march|apr|april|may|jun|june|jul|"
    r"july|aug|august|sep|sept|september|oct|october|nov|november|dec|december)\b"
    # or a number that ends the clause: "my daughter's 3", "she's 40 now"
    r"|\d+(?:\s+(?:now|today|years?|yrs?|months?)(?:\s+old)?)?\s*(?:[.!,;]|$))",
    re.IGNORECASE,
)
_HAS = re.compile(r"\b([A-Za-z]+)['\u2019]s\s+(?=(?:been|got)\b)", re.IGNORECASE)


def spelled_is(text: str) -> str:
    """ "'s" that can only be "is" or "has", written out: the small parser reads most such
    "'s" after a name or noun as a possessive ("Tamsin's the head of marketing").

    >>> spelled_is("Tamsin's the head of marketing; the deadline's Oct 1; Ana's been told.")
    'Tamsin is the head of marketing; the deadline is Oct 1; Ana has been told.'
    >>> spelled_is("my daughter's 3 now, Sam's 3 kids")
    "my daughter is 3 now, Sam's 3 kids"
    """
    return _IS.sub(r"\1 is ", _HAS.sub(r"\1 has ", text))
