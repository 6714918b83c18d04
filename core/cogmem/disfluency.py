"""What speech adds to a statement that says nothing of it: "um", "you know", "kind of".

People talk to an assistant as they speak, and dictation writes it down as said: "So, um,
basically I drive a blue Volvo, yeah." says what "I drive a blue Volvo." says. The parser
reads the extra words as parts of the claim ("drive basically blue volvo") or loses the
clause ("I'm kind of, you know, training for a triathlon" parses as "I am kind of"), so a
restatement reads as a change. :func:`fluent` drops them before the text is read:

* hesitations: "um", "uh", "erm", "hmm";
* fillers that are never part of a claim: "basically", "honestly", "literally", "you know",
  "just so you know", "I mean," (with its comma: "I mean Tuesday" corrects);
* hedges: "kind of", "sort of", "kinda", "sorta", except after a word that makes them a noun
  ("a kind of cheese", "what sort of car");
* "like" between commas, or after a comma before how often or how much ("..., like every
  day");
* words that open a sentence, with a comma or before the sentence's subject: "so", "well",
  "oh", "okay", "yeah", "anyway", "oh and";
* a phrase about the telling that opens a sentence, set off by its punctuation: "FYI,",
  "Just a heads-up:", "For the record,", "Not sure if I told you, but";
* tags that close one: ", yeah", ", right", ", okay";
* "so far", "to date": until now, which a statement of how things are says already;
* a subject said twice ("our dog, he's a collie" -> "our dog is a collie"; "my partner, his
  name's Idris" -> "my partner's name's Idris").

:func:`unhedged` drops the words that make a number approximate ("about 2 liters", "roughly
2 liters": both "2 liters"), a year excepted ("a book about 1984").

No maintained library removes disfluencies without a model; these are the closed forms.
"""

from __future__ import annotations

import re

__all__ = ["fluent", "unhedged"]

_HESITATION = re.compile(r"\b(?:u+m+|u+h+|e+r+m+|h+m+)\b", re.IGNORECASE)
_FILLER = re.compile(
    r"\b(?:basically|honestly|literally|just so you know|(?:i mean|you know)(?=\s*,))\b"
    r"|(?<=,)\s*you know\b(?=\s*(?:[.!?]|$))",
    re.IGNORECASE,
)
# "kind of" as a hedge: not after a word that makes "kind" a noun ("a kind of", "what kind of").
_HEDGE = re.compile(
    r"(?<!\ba )(?<!\ban )(?<!\bthe )(?<!\bthis )(?<!\bthat )(?<!\bwhat )(?<!\bwhich )"
    r"(?<!\bsome )(?<!\bany )(?<!\bone )(?<!\bsame )(?<!\bother )(?<!\bevery )(?<!\bno )"
    r"\b(?:kind of|sort of|kinda|sorta)\b",
    re.IGNORECASE,
)
_LIKE = re.compile(
    r",\s*like\s*(?P<between>,)?(?(between)|(?=every\b|per\b|each\b|all\b|always\b|\d|about\b|around\b))",
    re.IGNORECASE,
)
# A sentence's opening word: with a comma, or before its subject ("So I drive ...").
_OPENER = re.compile(
    r"(?:(?<=^)|(?<=[.!?]\s))"
    r"(?:oh\s+and\s+|and\s+(?=like\b)"
    r"|(?:oh|well|so|ok|okay|yeah|anyway|right|like)\s*,\s*"
    r"|(?:oh|well|so|ok|okay|yeah|anyway)\s+(?=(?:and|so|i|we|my|our|the|he|she|they)\b))",
    re.IGNORECASE,
)
# A sentence opened by a phrase about the telling, set off by its punctuation ("FYI,", "Just a
# heads-up:", "Not sure if I told you, but").
_FRAME = re.compile(
    r"(?:(?<=^)|(?<=[.!?]\s))(?:"
    r"(?:(?:just\s+)?(?:a\s+)?(?:quick\s+)?(?:heads[- ]?up|fyi|btw|psa|by the way|for the record"
    r"|for your information|side note|quick note|just to let you know)\s*[,:\-–—]+\s*)"
    r"|(?:(?:i'?m\s+)?not sure if i (?:told|mentioned|said)(?:\s+(?:you|this|it))*"
    r"(?:\s+(?:already|before|yet))?\s*,?\s+but\s*,?\s+)"
    r")",
    re.IGNORECASE,
)
# "so far", "to date": the state holds until now, which a statement of how things are says
# already; at the end of a clause, or opening a sentence with its comma.
_UNTIL_NOW = re.compile(
    r",?\s*\b(?:so far|to date|thus far|as yet)\b(?=\s*(?:[.!?;]|$))"
    r"|(?:(?<=^)|(?<=[.!?]\s))(?:so far|to date|thus far)\s*,\s*",
    re.IGNORECASE,
)
_TAG = re.compile(r",\s*(?:yeah|right|ok|okay)\s*(?=[.!?]|$)", re.IGNORECASE)
# "our dog, he's a collie": a noun phrase, a comma, and the pronoun standing for it.
_SAID_TWICE = re.compile(
    r"(?:(?<=^)|(?<=[.!?;]\s))(?P<np>(?:my|our|your|the)\s+[a-z]+(?:\s+[a-z]+)?)\s*,\s+"
    r"(?:(?:he|she|it|they)(?P<verb>['’]s\b|['’]re\b|\s+is\b|\s+are\b|\s+was\b|\s+were\b)"
    r"|(?:his|her|its|their)\s+(?P<thing>[a-z]+))",
    re.IGNORECASE,
)
_VERBS = {"'s": " is", "’s": " is", "'re": " are", "’re": " are"}
_APPROXIMATE = re.compile(
    r"(?:\b(?:about|around|roughly|approximately|approx\.?|circa)\s*|~\s*)(?=\d)(?!\d{4}\b)",
    re.IGNORECASE,
)


def _once(match: re.Match[str]) -> str:
    if match["thing"]:
        return f"{match['np']}'s {match['thing']}"
    verb = match["verb"]
    return match["np"] + _VERBS.get(verb, verb)


def fluent(text: str) -> str:
    """``text`` without the words speech adds to it (see the module).

    >>> fluent("So, um, basically I drive a blue Volvo, yeah.")
    'I drive a blue Volvo.'
    >>> fluent("Honestly I'm kind of, you know, training for a triathlon.")
    "I'm training for a triathlon."
    >>> fluent("Well, so, our dog, he's a border collie, right. What kind of dog?")
    'our dog is a border collie. What kind of dog?'
    >>> fluent("I mean, I take the bus to work, like every day. I mean Tuesday.")
    'I take the bus to work, every day. I mean Tuesday.'
    >>> fluent("Just a heads-up, Pepper hates thunder. Not sure if I told you, but I'm vegan.")
    "Pepper hates thunder. I'm vegan."
    >>> fluent("So far, Ola has run 7 marathons. Ola has read 40 books so far. It's so far away.")
    "Ola has run 7 marathons. Ola has read 40 books. It's so far away."
    """
    said = _HESITATION.sub("", text)
    said = _HEDGE.sub("", _FILLER.sub("", said))
    said = _LIKE.sub(lambda m: " " if m["between"] else ", ", said)
    said = re.sub(r"\s*,(?:\s*,)+\s*", " ", said)  # the commas that set off a dropped word
    said = re.sub(r"(^|[.!?]\s+)[\s,]+", r"\1", said.strip())  # and one that opened a sentence
    for _ in range(3):  # "Well, so, ...": one opener after another
        opened = _OPENER.sub("", _FRAME.sub("", said.strip()))
        if opened == said.strip():
            break
        said = opened
    said = _SAID_TWICE.sub(_once, said)
    said = _UNTIL_NOW.sub("", _TAG.sub("", said))
    said = re.sub(r"\s+,", ",", said)
    said = re.sub(r"(^|[.!?]\s*),\s*", r"\1", said)
    said = re.sub(r",\s*(?=[.!?]|$)", "", said)
    return re.sub(r"\s{2,}", " ", said).strip()


def unhedged(text: str) -> str:
    """``text`` without the words that make a number approximate (not a year's).

    >>> unhedged("about 2 liter per day, roughly 5 kilometer, a book about 1984, ~30 min")
    '2 liter per day, 5 kilometer, a book about 1984, 30 min'
    """
    return _APPROXIMATE.sub("", text)
