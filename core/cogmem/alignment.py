"""A newer text said in an older one's words, where the two say one thing side by side.

Some restatements show only when the two texts are read together. "I'm 6 ft tall." / "I'm
about 183 cm tall." give one height, yet no one spelling of either makes them equal: 6 ft is
182.88 cm, said to the nearest centimetre. "my gym is planet fitnes" / "My gym is Planet
Fitness." differ by a word the dictionary has never seen, one letter from a word of the other
text. :func:`aligned` rewrites such spans of the newer text as the older says them, so that
the reading (:func:`cogmem.versions.relate`) and the word comparison
(:func:`cogmem.differences.compare`) see one text. What is stored is never rewritten.

Both texts are taken in one spelling (:func:`cogmem.canonical.canonical_text`: a unit after
a number by its one name, "183 cm" as "1.83 meter"). Four rules, each tight enough that a
change is never read as the same:

* **A quantity in other units.** Two quantities of one dimension (``pint``) in different units
  are one when the one said more coarsely, converted and rounded to the last place the other
  is said to, is the other: 6 ft is 182.88 cm, 183 to the centimetre ("183 cm" is one with
  it, "185 cm" is not); 50 lb is 22.68 kg, but "23 kg" is said more coarsely than "50 lb",
  and 23 kg is 50.7 lb: not one, unless the text that says 50 lb says it only roughly
  ("about 50 lb": to the tens, :func:`hedged`). "2 hours" / "90 minutes": not one.
* **A place in a row** said by its ordinal or its number ("the 3rd floor" / "floor 3", "5th
  grade" / "grade 5"), when both give the noun and the number.
* **A compound** written apart in one text and as one word in the other ("O negative" /
  "O-negative", read glued as "Onegative"; "health care" / "healthcare").
* **A word misspelt.** A lower-case word of at least :data:`_SHORTEST` letters that the
  dictionary (:func:`cogmem.typos.speller`) has never seen, one edit from exactly one word of
  the other text, is that word ("fitnes" / "Fitness", "radiohaed" / "Radiohead"; either side
  may hold the unknown one). A word with a capital may be a name spelt anew ("Kowalsky" /
  "Kowalski"): left as it is.

A pair's alignment is cached (:func:`aligned` is pure), and each rule looks only where it
could apply: numbers when both texts hold a digit, compounds and misspellings when a
candidate exists.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache, partial
from itertools import pairwise
from typing import NamedTuple

from .typos import speller
from .units import unit_registry

__all__ = ["aligned", "hedged"]

# A misspelt word has at least this many letters ("wifi" is one edit from "wife").
_SHORTEST = 4

# A number and its unit in one spelling: "6 foot", "1.83 meter", "20 square meter",
# "5 foot 4 inch", "356 degree_Fahrenheit", "68 fluid ounce".
_QUANTITY = re.compile(
    r"(?<![\w.])(?P<n>\d+(?:\.\d+)?) (?P<unit>(?:square |cubic |fluid )?[A-Za-z_]+)\b"
    r"(?: (?P<n2>\d+(?:\.\d+)?) (?P<unit2>[A-Za-z_]+)\b)?"
)
_WORD = re.compile(r"[A-Za-z]+")
# A word with what an apostrophe joins to it: "Desmond's" is no "Desmond" and "s".
_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")


def aligned(old: str, new: str, hedged: tuple[bool, bool] = (False, False)) -> str:
    """``new`` with each span that says what a span of ``old`` says, in other units or
    misspelt, written as ``old`` writes it (both in one spelling; see the module).

    >>> aligned("I am 6 foot tall.", "I am 1.83 meter tall.")
    'I am 6 foot tall.'
    >>> aligned("The hike takes 2 hour.", "The hike takes 90 minute.")
    'The hike takes 90 minute.'
    >>> aligned("My gym is Planet Fitness.", "my gym is planet fitnes")
    'my gym is planet Fitness'
    >>> aligned("The printer is on the 3rd floor.", "The printer is on floor 3.")
    'The printer is on 3rd floor.'
    """
    return _aligned(old, new, hedged)


@lru_cache(maxsize=65_536)
def _aligned(old: str, new: str, hedged: tuple[bool, bool]) -> str:
    said = new
    if _DIGIT.search(old) and _DIGIT.search(new):  # only numbers have units and places
        said = _places_aligned(old, _quantities_aligned(old, said, hedged))
    return _words_aligned(old, _compounds_aligned(old, said))


_DIGIT = re.compile(r"\d")


_HEDGE = re.compile(r"\b(?:about|around|roughly|approximately|approx|circa|nearly)\b|~")


def hedged(text: str) -> bool:
    """Whether ``text`` says an amount only roughly ("about 50 lb", "~30 min"): its round
    numbers are said to their last digit that is not a zero (:func:`aligned`)."""
    return _HEDGE.search(text.lower()) is not None


# ----------------------------------------------------------------------------------- places
# "the 3rd floor" / "floor 3", "5th grade" / "grade 5": a place in a row said by its ordinal
# before the noun or its number after it.
_ORDINAL = re.compile(r"\b(?P<n>\d+)(?:st|nd|rd|th) (?P<noun>[a-z]+)\b")
_NUMBERED = re.compile(r"\b(?P<noun>[a-z]+) (?P<n>\d+)\b(?![.:,]?\d)")


def _places_aligned(old: str, new: str) -> str:
    """``new`` with a place in a row said as ``old`` says it, when ``old`` says it the other
    way round, with the same noun and number."""
    for said, other in ((_ORDINAL, _NUMBERED), (_NUMBERED, _ORDINAL)):
        theirs = {(m["noun"], m["n"]): m[0] for m in said.finditer(old)}
        if theirs:
            new = other.sub(partial(_as_theirs, theirs), new)
    return new


def _as_theirs(theirs: dict[tuple[str, str], str], match: re.Match[str]) -> str:
    return theirs.get((match["noun"], match["n"]), match[0])


# ------------------------------------------------------------------------------- quantities
def _quantities_aligned(old: str, new: str, hedged: tuple[bool, bool]) -> str:
    theirs = [
        (m[0], q) for m in _QUANTITY.finditer(old) if (q := _quantity(m, hedged[0])) is not None
    ]
    if not theirs:
        return new

    def said_as_theirs(match: re.Match[str]) -> str:
        ours = _quantity(match, hedged[1])
        if ours is None:
            return match[0]
        for span, quantity in theirs:
            if span != match[0] and _one_amount(quantity, ours):
                return span
        return match[0]

    return _QUANTITY.sub(said_as_theirs, new)


class _Amount(NamedTuple):
    """A quantity in base units: its value, half the last place it is said to, its unit."""

    value: float
    half: float
    dimension: str
    unit: str


def _quantity(match: re.Match[str], rough: bool) -> _Amount | None:
    """The amount a match says, or ``None`` when its word is no unit ``pint`` knows."""
    first = _parsed(match["n"], match["unit"], rough)
    if first is None or match["n2"] is None:
        return first
    second = _parsed(match["n2"], match["unit2"], rough)
    if second is None or second.dimension != first.dimension:
        return first  # "5 foot 4 inch" is one height; "3 kilogram 2 day" two things
    return _Amount(first.value + second.value, second.half, first.dimension, first.unit)


@lru_cache(maxsize=4096)
def _parsed(number: str, unit: str, rough: bool = False) -> _Amount | None:
    import pint

    registry = unit_registry()
    shape, _, name = (
        unit.rpartition(" ") if unit.startswith(("square ", "cubic ")) else ("", "", unit)
    )
    name = unit.replace(" ", "_") if not shape else f"{name}**{2 if shape == 'square' else 3}"
    said = Decimal(number)
    if rough and said == said.to_integral_value() and said:
        said = said.normalize()  # "about 50": said to the tens ("5E+1")
    place = said.as_tuple().exponent
    half = 0.5 * 10.0 ** (place if isinstance(place, int) else 0)
    try:
        if name not in registry and name.endswith("s") and name[:-1] in registry:
            name = name[:-1]  # "fluid ounces": pint knows the singular
        amount = registry.Quantity(float(number), name)
        offset = not amount._is_multiplicative  # a temperature's half place is a difference
        step = registry.Quantity(half, f"delta_{name}" if offset else name)
        base, step_base = amount.to_base_units(), step.to_base_units()
    except (pint.errors.PintError, ValueError, KeyError, AttributeError, TypeError):
        return None
    if not amount.dimensionality:
        return None  # a plain number: "2 dozen" was read already
    return _Amount(
        float(base.magnitude), float(step_base.magnitude), str(amount.dimensionality), name
    )


def _one_amount(a: _Amount, b: _Amount) -> bool:
    """Whether two quantities in different units say one amount: the one said more coarsely,
    converted and rounded to the place the other is said to, is the other (module
    docstring)."""
    if a.unit == b.unit or a.dimension != b.dimension:
        return False
    fine, coarse = (a, b) if a.half <= b.half else (b, a)
    return abs(coarse.value - fine.value) < fine.half


# -------------------------------------------------------------------------------- compounds
def _compounds_aligned(old: str, new: str) -> str:
    """``new`` with a compound written as one word where ``old`` writes it apart, or apart
    where ``old`` writes it as one ("O negative" / "O-negative", read glued as "Onegative";
    "health care" / "healthcare"), written as ``old`` writes it."""
    theirs = _TOKEN.findall(old)
    lowered = [w.lower() for w in theirs]
    ours = {w.lower() for w in _TOKEN.findall(new)}
    glued: dict[str, str] = {}  # one word of new -> old's words apart
    if ours & _runs(lowered):
        for size in (2, 3):
            for at in range(len(theirs) - size + 1):
                whole = "".join(lowered[at : at + size])
                if whole in ours and whole not in lowered:
                    glued[whole] = " ".join(theirs[at : at + size])
    if glued:
        new = _TOKEN.sub(lambda m: glued.get(m[0].lower(), m[0]), new)
    whole_words = {w: t for w, t in zip(lowered, theirs, strict=True) if w not in ours}
    if not whole_words.keys() & _runs([w.lower() for w in _TOKEN.findall(new)]):
        return new  # no words in a row of new make a word of old
    return _joined(new, whole_words)


def _runs(words: list[str]) -> set[str]:
    """Two and three words in a row, each run written as one word."""
    return {
        "".join(words[at : at + size]) for size in (2, 3) for at in range(len(words) - size + 1)
    }


def _joined(text: str, whole_words: dict[str, str]) -> str:
    """``text`` with two or three words in a row (apart, or joined by a hyphen) that make one
    of ``whole_words`` (lower case -> as written) written as that word."""
    spans = list(_TOKEN.finditer(text))
    out, end, at = [], 0, 0
    while at < len(spans):
        for size in (3, 2):
            run = spans[at : at + size]
            if len(run) < size or any(
                text[a.end() : b.start()] not in (" ", "-") for a, b in pairwise(run)
            ):
                continue
            word = whole_words.get("".join(m[0] for m in run).lower())
            if word is not None:
                out += [text[end : run[0].start()], word]
                end, at = run[-1].end(), at + size
                break
        else:
            at += 1
    return "".join([*out, text[end:]])


# ------------------------------------------------------------------------------------ words
def _words_aligned(old: str, new: str) -> str:
    theirs = {w.lower(): w for w in _WORD.findall(old)}
    written = _WORD.findall(new)
    ours = {w.lower() for w in written}
    shared = ours & theirs.keys()
    if not any(_unknown(w) for w in (*theirs.values(), *written) if w.lower() not in shared):
        return new  # no word misspelt on either side: nothing to look for

    def said_as_theirs(match: re.Match[str]) -> str:
        word = match[0]
        lowered = word.lower()
        if lowered in theirs or len(word) < _SHORTEST:
            return word
        near = [
            w
            for w in theirs
            if w not in ours and len(w) >= _SHORTEST and _misspelt(word, theirs[w])
        ]
        return theirs[near[0]] if len(near) == 1 else word

    return _WORD.sub(said_as_theirs, new)


def _misspelt(a: str, b: str) -> bool:
    """Whether one of ``a`` and ``b`` is a lower-case word the dictionary has never seen, one
    edit from the other."""
    return any(
        _unknown(typo) and word.lower() in _one_edit(typo) for typo, word in ((a, b), (b, a))
    )


@lru_cache(maxsize=65_536)
def _unknown(word: str) -> bool:
    """Whether ``word`` is written in lower case, long enough to be misspelt
    (:data:`_SHORTEST`), and unknown to the dictionary."""
    return len(word) >= _SHORTEST and word.islower() and speller().word_frequency[word] == 0


@lru_cache(maxsize=8192)
def _one_edit(word: str) -> frozenset[str]:
    return frozenset(speller().edit_distance_1(word))
