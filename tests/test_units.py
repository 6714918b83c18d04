"""A unit after a number in one spelling (cogmem.units)."""

from __future__ import annotations

import pytest

from cogmem.canonical import canonical_text
from cogmem.units import unit_name, units


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("I swim 2 km.", "I swim 2 kilometer."),
        ("I swim two kilometres.", "I swim 2 kilometer."),
        ("The bag is 9 lbs 3 oz.", "The bag is 9 pound 3 ounce."),
        ("The box holds 5 litres.", "The box holds 5 liter."),
        ("A 30kg dog", "A 30 kilogram dog"),
        ("The loft is 40 m².", "The loft is 40 square meter."),
        ("The loft is forty square metres.", "The loft is 40 square meter."),
        ("It is 18 degrees Fahrenheit.", "It is 18 degree_Fahrenheit."),
        ("Tax is 7%.", "Tax is 7 percent."),
        ("Rent is $1,450/month.", "Rent is 1450 dollar per month."),
        ("Rent is fourteen hundred fifty bucks a month.", "Rent is 1450 dollar per month."),
        ("Tickets are €25 each.", "Tickets are 25 euro each."),
    ],
)
def test_units_after_a_number_have_one_name(written: str, read: str) -> None:
    assert canonical_text(written) == read


@pytest.mark.parametrize(
    "text",
    [
        "I walk the dog 2 a day.",  # "a" is no year
        "There are 3 in the box.",  # "in" is no inch
        "We met at 5 at the cafe.",  # "at" is no atmosphere
        "The deal is worth $3m.",  # a million, not a metre
        "I have 2 kids and 3 cats.",
        "Dinner moved to the 23rd, from the 22nd.",  # ordinals, not nanodays
    ],
)
def test_words_after_a_number_that_are_no_units_are_kept(text: str) -> None:
    assert units(text) == text


def test_a_plain_unit_is_read_before_a_prefixed_one() -> None:
    """pint reads "kilos" as a kilosecond too: the plain kilogram is taken."""
    assert unit_name("kilos") == "kilogram"
    assert unit_name("kg") == "kilogram"
    assert unit_name("the") is None
