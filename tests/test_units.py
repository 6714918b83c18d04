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
        ("The phone bill is $65/mo.", "The phone bill is 65 dollar per month."),
        ("The phone bill is sixty-five dollars a month.", "The phone bill is 65 dollar per month."),
        ("Storage is €80/mth.", "Storage is 80 euro per month."),
        ("I swim 3 km/wk.", "I swim 3 kilometer per week."),
        ("Rent is fourteen hundred fifty bucks a month.", "Rent is 1450 dollar per month."),
        ("Tickets are €25 each.", "Tickets are 25 euro each."),
        # money written short is said in full: a million, not a metre
        ("The deal is worth $3m.", "The deal is worth 3000000 dollar."),
        ("I have $12k saved.", "I have 12000 dollar saved."),
        ("I have 12,000 USD saved.", "I have 12000 dollar saved."),
        ("The deposit is $2.5k.", "The deposit is 2500 dollar."),
        ("My salary is USD 85k.", "My salary is 85000 dollar."),
        ("It cost 40k dollars.", "It cost 40000 dollar."),
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
        "I ran a 5k on Sunday.",  # no currency: a race, not five thousand of anything
        "I've got 34k steps today.",
        "I have 2 kids and 3 cats.",
        "Dinner moved to the 23rd, from the 22nd.",  # ordinals, not nanodays
        "We go 10 pin bowling.",  # no picoinch: a short prefixed form takes a common prefix
        "We have 1 cat.",  # no centi-technical-atmosphere: a prefix before a unit people prefix
        "Our pony is 14.2hh.",  # hands, no hectohours
        "Send it to Sheffield S1 4GH.",  # the end of a postcode, no 4 gigahenries
        "The postcode is EH10 4BF.",  # nor 4 board feet
        "My car is on level 3 section B.",  # no square survey miles
        "We won by 2 points and 3 bags of sweets.",  # nor typographic points
    ],
)
def test_words_after_a_number_that_are_no_units_are_kept(text: str) -> None:
    assert units(text) == text


def test_a_plain_unit_is_read_before_a_prefixed_one() -> None:
    """pint reads "kilos" as a kilosecond too: the plain kilogram is taken."""
    assert unit_name("kilos") == "kilogram"
    assert unit_name("kg") == "kilogram"
    assert unit_name("the") is None


@pytest.mark.parametrize(
    ("hyphened", "apart"),
    [
        ("Every morning I do a five-kilometre run.", "Every morning I do a 5 km run."),
        ("It's a ten-minute walk.", "It's a 10 minute walk."),
        ("It's a 10-minute walk.", "It's a ten minute walk."),
        ("They have a twenty-five-metre pool.", "They have a 25 m pool."),
        ("A 2.5-litre engine.", "A 2.5 L engine."),
        ("My twelve-year-old loves it.", "My 12-year-old loves it."),
    ],
)
def test_a_number_joined_to_its_unit_by_a_hyphen_is_the_number_and_the_unit(
    hyphened: str, apart: str
) -> None:
    assert canonical_text(hyphened) == canonical_text(apart)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("I bought it second-hand.", "I bought it secondhand."),  # an ordinal
        ("A two-bed flat.", "A twobed flat."),  # no unit
        ("Is this the Covid-19 jab?", "Is this the Covid-19 jab?"),
        ("Forty-five minutes.", "45 minute."),  # one number
    ],
)
def test_other_words_joined_by_hyphens_stay_joined(text: str, read: str) -> None:
    assert canonical_text(text) == read
