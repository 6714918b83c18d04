"""One spelling for a unit of measure after a number: "2 L" / "2 liters", "30 kg" / "30 kilos".

A restatement often changes only how a quantity is written ("I drink 2 L of water a day." /
"I drink two liters of water a day."; "I run 5 km every morning." / "... five kilometres
..."). After number words became digits (:func:`cogmem.canonical.canonical_text`), the word
after a number is read by ``pint``'s unit registry, and a unit becomes its one name:

    "2 L", "2 liters", "2 litres"         -> "2 liter"
    "7 lbs 4 oz", "7 pounds 4 ounces"     -> "7 pound 4 ounce"
    "20 m²", "20 sq m", "20 square meters" -> "20 square meter"
    "21°C", "21 degrees Celsius"          -> "21 degree_Celsius"
    "4%", "4 percent"                     -> "4 percent"
    "$40", "40 dollars", "40 bucks"       -> "40 dollar"
    "$65/mo", "65 dollars a month"        -> "65 dollar per month"

A word is read as a unit only right after a number and when it is no English stop word
(spaCy's list: "2 a day" is no year, "3 in the box" no inch). Where ``pint`` reads a word as a
prefixed unit and as a plain one, the plain one is taken ("kilos" is a kilogram, not a
kilosecond), and a prefixed one only when it is written short or with the prefix in full
("3 cats" is no centi-technical-atmosphere). ``pint`` has no money, so a currency sign and
the words for the four currencies people write most often are read from :data:`_MONEY`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = ["money_in_full", "stop_words", "unit_name", "unit_registry", "units"]

# pint reads "kilo" only as a prefix; people say it for a kilogram. And it has no short form
# of a month or a week that people write in a rate ("$65/mo", "€80/mth", "3 km/wk";
# "mth" it reads as a thousandth of an inch).
_ALIASES = ("@alias kilogram = kilo", "@alias month = mo = mth", "@alias week = wk")
# Money, which pint does not measure: a sign before the number, a word after it.
_SIGNS = {"$": "dollar", "€": "euro", "£": "pound_sterling", "¥": "yen"}
_MONEY = {
    "dollar": "dollar", "dollars": "dollar", "buck": "dollar", "bucks": "dollar",
    "usd": "dollar", "euro": "euro", "euros": "euro", "eur": "euro", "quid": "pound_sterling",
    "gbp": "pound_sterling", "yen": "yen",
}  # fmt: skip
_SHORT = 3  # letters at most of a unit's short form ("kg", "mL", "kph")
# Words pint reads as units that, after a number, people mean as plain nouns: "level 3,
# section B" is no 3 square survey miles, "2 points" no typographer's points, "3 bags" no bags.
_NOUNS = frozenset(
    {"section", "point", "link", "chain", "rod", "pole", "perch", "barn", "bag", "grade",
     "turn", "count", "league", "dot", "shot"}
)  # fmt: skip
# The units people write as one letter after a number ("5 m", "200 g", "2 L", "30 s", "3 h").
_LETTERS = frozenset("mgLlsh")
# A metric quantity is written in one unit ("80 cm" / "0.8 m" -> "80 centimeter"): the
# largest of its stem's ladder (prefix, power of ten) in which its number is at least 1.
_LADDERS = {
    "meter": (("kilo", 3), ("", 0), ("centi", -2), ("milli", -3)),
    "gram": (("kilo", 3), ("", 0), ("milli", -3)),
    "liter": (("", 0), ("milli", -3)),
    "byte": (("tera", 12), ("giga", 9), ("mega", 6), ("kilo", 3), ("", 0)),
}
_PREFIXES = {
    "kilo": 3, "hecto": 2, "deca": 1, "deci": -1, "centi": -2, "milli": -3, "micro": -6,
    "mega": 6, "giga": 9, "tera": 12,
}  # fmt: skip
# The units people write short with a prefix ("km", "mL", "GB", "kWh", "GHz", "mAh").
_PREFIXED = frozenset(
    {
        "meter", "gram", "liter", "byte", "bit", "baud", "hertz", "watt", "watt_hour",
        "ampere_hour", "ampere", "volt", "joule", "calorie", "second", "newton", "pascal",
    }
)  # fmt: skip
# Sizes: "10x10 ft", "420 x 380 cm", "4.2 m by 3.8 m".
_CROSS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?[x×]\s?(?=\d)")
_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) by (?=\d+(?:\.\d+)?\s?(?P<unit>[A-Za-z]+)\b)")
# Inches and feet by their marks: 55", 6'2".
_INCHES = re.compile(r"(?<=\d)\s?(?:\"|”|″|'')(?=[\s.,;:!?)]|$)")
_FEET = re.compile(r"\b(\d)\s?(?:'|’|′)\s?(\d{1,2})\s?(?=inch\b)")
_POWERS = {
    **dict.fromkeys(("²", "2", "sq", "square"), "square"),
    **dict.fromkeys(("³", "3", "cu", "cubic"), "cubic"),
}
_NUMBER = r"\d+(?:[.,]\d+)*"
# A code of letters and digits and a space, right before a number: its next part ("EH10 4BF").
_CODE = re.compile(r"\b[A-Z]+\d+[A-Z]?\s$")
# A sign and a number ("$40", "€1,200"), or a number and what may be a unit after it: "30kg",
# "19°C", "4%", "20 m²", "20 sq m", "20 square metres", "21 degrees Celsius".
_SIGNED = re.compile(rf"(?P<sign>[$€£¥])\s?(?P<n>{_NUMBER})(?![.,]?\d)(?!\s?(?:k|m|bn|mn)\b)")
# Money written short, the number said in full after it: "$12k", "$2.5k", "€1.2m", "$3bn",
# "85k dollars" ("USD 85k": a currency code before a number is read as its sign first). A
# "5k" or "34k" with no currency stays: a race, steps, or money of no known kind.
_SCALES = {"k": 3, "m": 6, "mn": 6, "bn": 9}
_CODES = {"usd": "$", "eur": "€", "gbp": "£", "jpy": "¥"}
_CODED = re.compile(r"\b(USD|EUR|GBP|JPY)\s?(?=\d)", re.IGNORECASE)
_SCALED = re.compile(
    r"(?:(?P<sign>[$€£¥])\s?)?(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s?(?P<scale>k|m|mn|bn)\b"
    r"(?(sign)|(?=\s(?:dollars?|bucks|euros?|quid|pounds|usd|eur|gbp)\b))",
    re.IGNORECASE,
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
_QUANTITY = re.compile(
    r"(?<![\w.:$€£¥])(?P<n>" + _NUMBER + r")\s?(?!(?:st|nd|rd|th)\b)"  # "22nd" is no nanoday
    r"(?:(?P<sq>square|sq\.?|cubic|cu\.?)\s)?"
    r"(?P<word>%|°\s?[CFcf]\b|[A-Za-z]+)(?P<pow>[²³]|\^?[23]\b)?"
    r"(?:\s(?P<scale>celsius|centigrade|fahrenheit|kelvin)\b)?"
    # a rate: "$40/hr", "40 dollars per hour", "40 dollars an hour"
    r"(?:(?P<per>\s?/\s?|\s(?:per|an?)\s)(?P<by>[A-Za-z]+)\b)?",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def unit_registry() -> Any:
    """``pint``'s unit registry, with the aliases people write (built once)."""
    import pint

    registry: Any = pint.UnitRegistry()
    for line in _ALIASES:
        registry.define(line)
    return registry


@lru_cache(maxsize=1)
def stop_words() -> frozenset[str]:
    """spaCy's English stop words (loaded once)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


@lru_cache(maxsize=4096)
def unit_name(word: str) -> str | None:
    """The one name of the unit ``word`` writes (``None``: no unit, or a stop word).

    >>> unit_name("litres"), unit_name("kilos"), unit_name("lbs"), unit_name("in")
    ('liter', 'kilogram', 'pound', None)
    """
    lowered = word.lower()
    if lowered in _MONEY:
        return _MONEY[lowered]
    if (
        lowered in stop_words()
        or lowered.rstrip("s") in _NOUNS
        or (len(word) == 1 and word.isalpha() and word not in _LETTERS)
    ):
        return None  # "5k" is five thousand, or a race: no Boltzmann constant
    import pint

    registry = unit_registry()
    try:
        readings = registry.parse_unit_name(word.replace("°", "deg"))
    except (pint.errors.PintError, ValueError, KeyError):
        return None
    plain = [unit for prefix, unit, _ in readings if not prefix]
    if plain:
        return str(plain[0])
    # A prefixed unit is written short ("kg", "mL") or with the prefix in full ("kilograms"):
    # "cats" is no centi-technical-atmosphere; and short, only with a prefix people write
    # ("ten pin bowling" is no picoinch) before a unit they write prefixed ("one cat" is no
    # centi-technical-atmosphere either, a horse of 15.2 hh no hectohours)
    for prefix, unit, _ in readings:
        short = len(word) <= _SHORT and prefix in _PREFIXES and unit in _PREFIXED
        if short or lowered.startswith(prefix):
            return str(registry.get_name(prefix + unit))
    return None


def _quantity(match: re.Match[str]) -> str:
    if _CODE.search(match.string, 0, match.start()):
        return match[0]  # "S1 4GH", "EH10 4BF": the end of a postcode, no 4 gigahenries
    said = _amount(match)
    by = match["by"]
    if said is None or by is None:
        return match[0] if said is None else said
    per = unit_name(by)
    if per is None:  # "3 kg a box": no rate
        return said + match[0][match.start("per") - match.start() :]
    return f"{said} per {per}"


def _amount(match: re.Match[str]) -> str | None:
    """The number and its unit, by the unit's one name; ``None`` when the word is no unit."""
    word, scale = match["word"], match["scale"]
    if scale and word.lower().rstrip("s") in ("degree", "deg"):
        word = scale.lower()  # "21 degrees Celsius": the scale is the unit
    name = unit_name(word)
    if name is None:
        return None
    power = match["sq"] or match["pow"]
    if power:
        shape = _POWERS[power.lower().rstrip(".").lstrip("^")]
        return f"{_plain(match['n'])} {shape} {name}"
    if scale and word != scale.lower():
        return f"{_plain(match['n'])} {name} {scale}"
    return " ".join(_metric(_plain(match["n"]), name))


def _metric(number: str, name: str) -> tuple[str, str]:
    """A metric quantity in its one unit (:data:`_LADDERS`): ``("0.8", "meter")`` ->
    ``("80", "centimeter")``, ``("5000", "meter")`` -> ``("5", "kilometer")``; any other as
    it is."""
    from decimal import Decimal, InvalidOperation

    try:
        ((prefix, stem, _),) = unit_registry().parse_unit_name(name)
        value = Decimal(number).scaleb(_PREFIXES[prefix] if prefix else 0)
    except (ValueError, KeyError, InvalidOperation):
        return number, name
    if stem not in _LADDERS or not value:
        return number, name
    ladder = _LADDERS[stem]
    step, power = next(((p, e) for p, e in ladder if value.scaleb(-e) >= 1), ladder[-1])
    return f"{value.scaleb(-power).normalize():f}", step + stem


def _size(match: re.Match[str]) -> str:
    """ "420 by 380 cm" -> "420 cm by 380 cm": each side of a size with its unit."""
    unit = match["unit"]
    return f"{match[1]} {unit} by " if unit_name(unit) is not None else match[0]


def _signed(match: re.Match[str]) -> str:
    return f"{_plain(match['n'])} {_SIGNS[match['sign']]}"


def _plain(number: str) -> str:
    """A number without its thousands commas ("1,200" -> "1200"), as number words become."""
    return number.replace(",", "") if _THOUSANDS.fullmatch(number) else number


def _coded(match: re.Match[str]) -> str:
    return _CODES[match[1].lower()]


def _scaled(match: re.Match[str]) -> str:
    from decimal import Decimal

    value = Decimal(match["n"]).scaleb(_SCALES[match["scale"].lower()])
    return f"{match['sign'] or ''}{value.normalize():f}"


def money_in_full(text: str) -> str:
    """``text`` with money written short said in full (see :data:`_SCALED`).

    >>> money_in_full("$12k saved, USD 85k a year, a €2.5m flat, 40k dollars, a 5k race")
    '$12000 saved, $85000 a year, a €2500000 flat, 40000 dollars, a 5k race'
    """
    return _SCALED.sub(_scaled, _CODED.sub(_coded, text))


def units(text: str) -> str:
    """``text`` with each unit after a number written by its one name (see the module).

    >>> units("I drink 2 L of water a day; she runs 5 kilometres, 3 times a week, for $40.")
    'I drink 2 liter of water a day; she runs 5 kilometer, 3 times a week, for 40 dollar.'
    >>> units('a 55" TV, a 5k race, 4%, 0.8 m, 1500 g, 420 x 380 cm')
    'a 55 inch TV, a 5k race, 4 percent, 80 centimeter, 1.5 kilogram, 4.2 meter by 3.8 meter'
    """
    sized = _SIZE.sub(_size, _CROSS.sub(r"\1 by ", money_in_full(text)))
    marked = _FEET.sub(r"\1 foot \2 ", _INCHES.sub(" inch", sized))
    return _QUANTITY.sub(_quantity, _SIGNED.sub(_signed, marked))
