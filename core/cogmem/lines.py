"""Who says a line of a memory, the labels that lead a statement in, and the words that say
it changes something.

::

    "Mira: I moved to Lyon."            -> ("mira", "I moved to Lyon.")
    "User: hi\nAssistant: hello"        -> ("user", "hi"), ("assistant", "hello")
    "Correction: it is Friday."          -> ("user", "it is Friday.")
    "Wait, no - my sister lands at 9."   -> ("user", "my sister lands at 9.")

A label before a colon, a comma or a dash ("Correction:", "FYI,", "Oops -") leads a statement
in; a name before a colon (up to three capitalised words) says who speaks. Plain regular
expressions over the text: nothing here parses.
"""

from __future__ import annotations

import re

__all__ = [
    "corrects_what_was_said",
    "has_speaker",
    "marks_change",
    "marks_more_than_negation",
    "marks_only_a_past",
    "marks_revision",
    "speaker_lines",
]

# A line that starts with who says it: "Mira: ...", "User: ...".
_SPEAKER = re.compile(r"^\s*(?P<who>[A-Za-z][\w .'-]{0,40}?)\s*:\s+(?P<said>.*)$")
_SELF_SPEAKERS = frozenset({"user", "human", "me", "customer", "client"})
# "Correction: ...", "Update: ...": a label before a statement, not someone speaking.
_LABELS = frozenset(
    {
        "correction", "update", "note", "fyi", "ps", "pps", "reminder", "edit", "fix", "heads up",
        "important", "actually", "wait", "oops", "sorry", "btw", "erratum", "change", "news",
        "psa", "info", "addendum", "nb", "scratch that", "wait no", "no", "ok", "okay", "also",
        "just so you know", "quick update", "small correction", "one more thing", "and",
        "update on that", "new info", "status", "memo", "context", "fact", "remember",
        "for the record", "to be clear", "fwiw", "ugh", "oh", "hmm", "well", "so", "anyway",
        "again", "repeat", "as i said", "like i said", "reminder again", "confirmed",
        "confirmation", "final", "final answer", "decision", "decided", "done", "good news",
        "bad news", "status update", "todo", "to do", "pinned", "resolved", "settled",
        "fixed", "latest", "note to self", "update again", "new plan", "plan",
    }
)  # fmt: skip
# Words that make up a label of their own, in any run of up to four ("ugh typo,", "oh wait,",
# "my bad -", "quick update:").
_LABEL_WORDS = frozenset(
    {
        "ugh", "typo", "oops", "whoops", "sorry", "my", "bad", "mistake", "wait", "no", "oh",
        "ah", "um", "uh", "hmm", "ok", "okay", "so", "well", "actually", "update", "correction",
        "quick", "small", "tiny", "minor", "side", "note", "fyi", "btw", "lol", "haha", "argh",
        "gah", "yikes", "dang", "darn", "omg", "right", "yeah", "yes", "hey", "also", "anyway",
        "again", "just", "heads", "up", "scratch", "that", "edit", "fix", "psa", "nb", "news",
        "confirmed", "final", "answer", "good", "latest", "new", "plan",
    }
)  # fmt: skip
# ... or before a comma or a dash: "FYI, ...", "Oops - ...", "Wait, no - ...".
_LEAD_LABEL = re.compile(r"^\s*(?P<label>[A-Za-z][A-Za-z ]{0,24}?)\s*(?:,|\s[-–—])\s*(?P<said>.+)$")
_ASSISTANTS = frozenset({"assistant", "ai", "bot", "agent", "system", "model", "chatbot"})
# Words and phrases by which people say that what they say changes something said before
# ("no", but not "No. 5", a number).
_CHANGE_MARKS = re.compile(
    r"\b(actually|correction|corrected|scratch that|i meant|meant to say|wrong|mistaken|"
    r"mistake|misspoke|typo|no longer|not anymore|any ?more|instead|switch(?:ed|ing)|"
    r"changed|moved|updated?|new|now|(?:said|told you|mentioned) (?:before|earlier)|"
    r"these days|nowadays|rescheduled|postponed|pushed|turns out|"
    r"replaced|not|no(?!\.?\s?\d)|isn't|aren't|wasn't|don't|doesn't|never|since|from now on|"
    r"starting|as of|upgraded|downgraded|quit|stopped|dropped|renamed|spelled|spelt|"
    # "left" the verb, not the side: "left-handed", "my left knee", "turn left"
    r"(?<!the )(?<!my )(?<!his )(?<!her )(?<!our )(?<!your )(?<!their )(?<!turn )left(?!-)|"
    r"used to)\b"
    r"|→|⇒|->|=>",  # a note's "changed to": "dr appt → thurs 2:15"
    re.IGNORECASE,
)


# The change marks that say more than "not": a correction or a change of state.
_NEGATION_MARKS = frozenset({"not", "no", "isn't", "aren't", "wasn't", "don't", "doesn't", "never"})


def marks_revision(text: str) -> bool:
    """Whether ``text`` says it corrects or changes something by more than a negation
    ("Actually, ...", "I no longer ...", "switched"; not only "I don't ..."), or names what
    it replaces after a negation set apart ("It's at 65,000 miles, not 60.").

    >>> marks_revision("Actually, it's Tuesday."), marks_revision("It's not Tuesday.")
    (True, False)
    >>> marks_revision("It's Kathryn, with a y, not Katherine.")
    True
    """
    return _REPLACES.search(text) is not None or marks_more_than_negation(text)


def corrects_what_was_said(text: str) -> bool:
    """Whether ``text`` says that something said before was wrong: "Actually, ...", "Sorry, I
    meant ...", "scratch that", "it's spelled ...", "..., not Shivon" (not "new", "now",
    "since" or "no longer", which say a change of the world, not of what was said).

    >>> corrects_what_was_said("Sorry, it's spelled Siobhan, not Shivon.")
    True
    >>> corrects_what_was_said("The new intern went to Purdue.")
    False
    """
    return _CORRECTS.search(text) is not None or _REPLACES.search(text) is not None


_CORRECTS = re.compile(
    r"\b(actually|correction|corrected?|correct myself|scratch that|i meant|meant to say|"
    r"wrong|mistaken|mistake|misspoke|misheard|misread|typo|typoed|typod|spelled|spelt|"
    r"turns out|(?:said|told you|mentioned) (?:before|earlier))\b",
    re.IGNORECASE,
)


def marks_more_than_negation(text: str) -> bool:
    """Whether a change mark of ``text`` is more than a negation ("actually", "now", "no
    longer", a "No," that answers what was said; not "not", "never").

    >>> marks_more_than_negation("It's Stansted now."), marks_more_than_negation("not Gatwick")
    (True, False)
    >>> marks_more_than_negation("No, it's Tuesday.")
    True
    """
    if _ANSWERED_NO.search(text):
        return True
    return any(m.group(0).lower() not in _NEGATION_MARKS for m in _CHANGE_MARKS.finditer(text))


def marks_only_a_past(text: str) -> bool:
    """Whether the one change ``text`` marks is a past habit or state ("used to"): it says
    that what it names no longer holds, and nothing of anything else.

    >>> marks_only_a_past("Granny used to sew."), marks_only_a_past("I used to; now I don't")
    (True, False)
    """
    found = [m.group(0).lower() for m in _CHANGE_MARKS.finditer(text)]
    past = bool(found) and all(mark == "used to" for mark in found)
    return past and not _ANSWERED_NO.search(text)


# A "no" that answers what was said ("No, it's Tuesday.").
_ANSWERED_NO = re.compile(
    r"^\W*(?:(?:wait|oh|um|hmm|sorry|oops|ah|er)\W+)?(?:no|nope|nah)\s*[,.!;:–—-]", re.IGNORECASE
)


# What a correction replaces, set apart after it ("..., not 60", "... - not Katherine"); a
# "no" that answers what was said ("No, it's Tuesday."); a negation and, set apart after it,
# what holds instead ("It isn't Tuesday, it's Wednesday.", "not Tuesday but Wednesday").
_REPLACES = re.compile(
    r"[,;–—-]\s*not\s+\w"
    r"|^\W*(?:no|nope|nah)\s*[,.!;:–—-]"
    r"|\b(?:not|isn't|wasn't|aren't|weren't)\b[^.;,–—-]*[,;–—-]\s*(?:it'?s|it is|but|rather)\b"
    r"|\bnot\s+\w+(?:\s+\w+)?\s+but\b",
    re.IGNORECASE,
)


def marks_change(text: str) -> bool:
    """Whether ``text`` says it changes something ("Correction: ...", "my new number",
    "I no longer ...").

    >>> marks_change("Scratch that, it's Tuesday."), marks_change("It's Tuesday.")
    (True, False)
    """
    return _CHANGE_MARKS.search(text) is not None


def has_speaker(text: str) -> bool:
    """Whether a line of ``text`` names who says it ("Mira: ..."; not "Note: ...")."""
    for line in text.splitlines():
        match = _SPEAKER.match(line)
        if match and match["who"].strip().lower() not in _LABELS and _named(match["who"]):
            return True
    return False


def _named(who: str) -> bool:
    """Whether a label before a colon names a speaker: up to three words, each capitalised
    ("Mira", "Dr Osei", "User"), not a phrase ("Switched dentists: ...")."""
    words = who.split()
    if who.strip().lower() in _SELF_SPEAKERS | _ASSISTANTS:
        return True  # "user:", "assistant:" as chat logs write them
    return 0 < len(words) <= 3 and all(w[:1].isupper() for w in words)


def speaker_lines(text: str) -> list[tuple[str, str]]:
    """``text`` as ``(speaker, said)`` lines: the speaker a line names ("Mira: ...";
    ``user`` for User/Human), else the one before it, else ``user``; an assistant's lines are
    returned with speaker ``assistant``."""
    out: list[tuple[str, str]] = []
    speaker = "user"
    for line in text.splitlines() or [text]:
        if not line.strip():
            continue
        match = _SPEAKER.match(line)
        who = match["who"].strip().lower() if match else ""
        if match and who in _LABELS:
            line = match["said"]
            match = None
        elif match and _named(match["who"]):
            speaker = (
                "user"
                if who in _SELF_SPEAKERS
                else "assistant"
                if who in _ASSISTANTS
                else " ".join(w.lower() for w in who.split())
            )
            line = match["said"]
        out.append((speaker, _unlabelled(line)))
    return out


def _unlabelled(line: str) -> str:
    """``line`` without the labels that lead it in ("FYI, ", "Wait, no - ")."""
    while (lead := _LEAD_LABEL.match(line)) and _is_label(lead["label"]):
        line = lead["said"]
    return line


def _is_label(phrase: str) -> bool:
    """A label ("FYI", "for the record"), or up to four label words ("ugh typo")."""
    words = phrase.strip().lower().split()
    return " ".join(words) in _LABELS or (0 < len(words) <= 4 and set(words) <= _LABEL_WORDS)
