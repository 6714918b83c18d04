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

__all__ = ["unit_name", "units"]

# pint reads "kilo" only as a prefix; people say it for a kilogram.
_ALIASES = ("@alias kilogram = kilo",)
# Money, which pint does not measure: a sign before the number, a word after it.
_SIGNS = {"$": "dollar", "€": "euro", "£": "pound_sterling", "¥": "yen"}
_MONEY = {
    "dollar": "dollar", "dollars": "dollar", "buck": "dollar", "bucks": "dollar",
    "usd": "dollar", "euro": "euro", "euros": "euro", "eur": "euro", "quid": "pound_sterling",
    "gbp": "pound_sterling", "yen": "yen",
}  # fmt: skip
_SHORT = 3  # letters at most of a unit's short form ("kg", "mL", "kph")
_POWERS = {
    **dict.fromkeys(("²", "2", "sq", "square"), "square"),
    **dict.fromkeys(("³", "3", "cu", "cubic"), "cubic"),
}
_NUMBER = r"\d+(?:[.,]\d+)*"
# A sign and a number ("$40", "€1,200"), or a number and what may be a unit after it: "30kg",
# "19°C", "4%", "20 m²", "20 sq m", "20 square metres", "21 degrees Celsius".
_SIGNED = re.compile(rf"(?P<sign>[$€£¥])\s?(?P<n>{_NUMBER})(?!\s?(?:k|m|bn|mn)\b)")
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
def _registry() -> Any:
    import pint

    registry: Any = pint.UnitRegistry()
    for line in _ALIASES:
        registry.define(line)
    return registry


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
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
    if lowered in _stop_words():
        return None
    import pint

    registry = _registry()
    try:
        readings = registry.parse_unit_name(word.replace("°", "deg"))
    except (pint.errors.PintError, ValueError, KeyError):
        return None
    plain = [unit for prefix, unit, _ in readings if not prefix]
    if plain:
        return str(plain[0])
    # A prefixed unit is written short ("kg", "mL") or with the prefix in full ("kilograms"):
    # "cats" is no centi-technical-atmosphere.
    for prefix, unit, _ in readings:
        if len(word) <= _SHORT or lowered.startswith(prefix):
            return str(registry.get_name(prefix + unit))
    return None


def _quantity(match: re.Match[str]) -> str:
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
    return f"{_plain(match['n'])} {name}"


def _signed(match: re.Match[str]) -> str:
    return f"{_plain(match['n'])} {_SIGNS[match['sign']]}"


def _plain(number: str) -> str:
    """A number without its thousands commas ("1,200" -> "1200"), as number words become."""
    return number.replace(",", "") if _THOUSANDS.fullmatch(number) else number


def units(text: str) -> str:
    """``text`` with each unit after a number written by its one name (see the module).

    >>> units("I drink 2 L of water a day; she runs 5 kilometres, 3 times a week, for $40.")
    'I drink 2 liter of water a day; she runs 5 kilometer, 3 times a week, for 40 dollar.'
    """
    return _QUANTITY.sub(_quantity, _SIGNED.sub(_signed, text))
