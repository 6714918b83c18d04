"""How a new text differs from a stored one, word by word: the same, changed, or unclear.

Cosine similarity cannot tell "The flight is on May 3." from "The flight is on May 13.": the two
are nearly the same vector (cosine 0.95 with all-MiniLM-L6-v2, above the 0.92 at which dedup
used to merge). So write-time dedup (:mod:`cogmem.dedup`) compares a write with its nearest
neighbours word by word, with the words the BM25 tokenizer splits
(:func:`cogmem.lexical.word_spans`), lowercased:

* **same** (a restatement): the same words up to case, punctuation, whitespace, articles, a
  framing phrase at either edge ("Note:", "FYI,", "Just a reminder that", ", as mentioned"),
  a compound written apart or as one word ("Wi-Fi" / "wifi"), or a phrase only moved ("Twice a
  month, Soraya visits ..." / "Soraya visits ... twice a month"); or the same once both are in
  one spelling (:func:`cogmem.canonical.canonical_text`: "two" / "2", "5 pm" / "17:00",
  "colour" / "color", "I'm" / "I am"). A framing phrase is short, holds no word that carries
  meaning (below), and either consists of framing and function words or is set off from the
  statement by punctuation.
* **changed**: a word that carries meaning was replaced, added or dropped: a number (amounts,
  times, versions: any word with a digit), a month or weekday or relative time, a proper name
  (capitalised inside a sentence), a negation ("not", "no longer", "isn't"), a reversal
  ("wrong", "formerly"), a hedge ("maybe"), a condition ("until", "if"), or one content word
  swapped for another ("dark" → "light").
* **unclear**: any other difference: an inflection ("lives" → "lived", same stem), or a plain
  word added or dropped inside the sentence ("still", "green").

Nothing here reads Chroma or the clock.
"""

from __future__ import annotations

import calendar
import difflib
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .alignment import aligned, hedged
from .canonical import canonical_text, one_spelling
from .content_words import other_sides
from .lexical import STOPWORDS_EN, Tokenizer, word_spans

__all__ = ["Comparison", "Kind", "Spelling", "compare"]

Kind = Literal["same", "changed", "unclear"]

Spelling = Callable[[str], "str | None"]
"""``text -> text in one spelling`` (:func:`cogmem.canonical.one_spelling` of
:func:`cogmem.canonical.canonical_text`), or ``None`` where it is not known."""

# Words that frame a statement without adding to it, at either edge of a write.
_FRAMING = frozenset(
    {
        "note", "notes", "noted", "nb", "ps", "psa", "fyi", "btw", "reminder", "remind",
        "reminding", "remember", "recall", "forget", "update", "again", "also", "just", "so",
        "ok", "okay", "well", "hey", "hi", "oh", "quick", "heads", "up", "please", "kindly",
        "repeat", "repeating", "recap", "record", "mention", "mentioned", "said", "say",
        "told", "tell", "stated", "know", "aware", "keep", "mind", "way", "information",
        "reference", "info", "like", "anyway", "really", "actually", "basically",
    }
)  # fmt: skip
_ARTICLES = frozenset({"a", "an", "the"})
_NEGATIONS = frozenset(
    {
        "not", "no", "never", "nor", "none", "nobody", "nothing", "neither", "nowhere",
        "without", "anymore",
    }
)  # fmt: skip
_REVERSALS = frozenset(
    {
        "wrong", "incorrect", "false", "untrue", "outdated", "obsolete", "cancelled",
        "canceled", "formerly", "former", "previously", "deprecated", "retracted",
    }
)  # fmt: skip
_HEDGES = frozenset(
    {
        "maybe", "perhaps", "probably", "possibly", "might", "likely", "unlikely", "unsure",
        "apparently", "reportedly", "allegedly", "supposedly",
    }
)  # fmt: skip
_ORDINALS = frozenset(
    {
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth", "last", "next", "previous", "half", "twice", "double", "triple",
    }
)  # fmt: skip
_CONDITIONS = frozenset(
    {"if", "unless", "until", "till", "since", "after", "before", "during", "while", "except"}
)
_TIMES = frozenset(
    {name.lower() for name in (*calendar.month_name[1:], *calendar.day_name) if name}
    | {
        "today", "tomorrow", "yesterday", "tonight", "morning", "afternoon", "evening",
        "night", "noon", "midnight", "weekend", "weekday", "weekdays", "week", "month",
        "year", "daily", "weekly", "monthly", "yearly", "annually", "ago", "soon", "later",
        "earlier",
    }
) - {"may"}  # fmt: skip
# The stop words that only glue a framing phrase together ("as I said", "for your reference").
_FUNCTION = STOPWORDS_EN - _NEGATIONS - _CONDITIONS - {"don", "t", "again"}
# A newer version shares at least this share of its words with the older one.
_MIN_OVERLAP = 0.5
# A framing phrase is at most this many words.
_MAX_FRAME = 6
# Punctuation that sets a framing phrase off from the statement ("Note:", "FYI,", "(again)").
_SET_OFF = frozenset(":,;-–—()[]")
# After these, a capital letter starts a sentence or clause and says nothing about names.
_CLAUSE_END = frozenset('.!?:;"“”‘’([')
# A phrase led by one of these says where, when or how: moved to the other end of a sentence
# ("For breakfast I have oatmeal." / "I have oatmeal for breakfast."), it says the same.
_ADVERBIAL_LEADS = frozenset(
    {
        "in", "at", "on", "for", "from", "with", "by", "during", "after", "before", "until",
        "till", "since", "every", "each", "most", "usually", "always", "often",
    }
)  # fmt: skip
# Contractions the tokenizer splits in two ("isn't" -> "isn", "t"): the verb they negate.
_NOT_CONTRACTED = {"won": "will", "can": "can", "shan": "shall", "ain": "is"}


@dataclass(frozen=True, slots=True)
class _Word:
    """One word of a text as dedup reads it."""

    lower: str
    surface: str
    initial: bool  # first in its sentence or clause: a capital letter there is no name
    set_off: bool  # punctuation that sets a phrase off follows it


@dataclass(frozen=True, slots=True)
class Comparison:
    """How a new text differs from a stored one.

    Attributes:
        kind: ``same`` (a restatement), ``changed`` (a word that carries meaning differs) or
            ``unclear`` (another difference; see the module docstring).
        changes: What differs, readably: ``"'3' -> '13'"``, ``"+'not'"``, ``"-'still'"``.
        overlap: The share of words the two texts have in common,
            ``2 · matched / (len(stored) + len(new))`` (difflib's ratio), in [0, 1].
        subject_changed: A change is at the very start of the sentence or of a possessor
            ("Lena's" -> "Maria's"): the texts are about different things, not two versions
            of one.
    """

    kind: Kind
    changes: tuple[str, ...] = ()
    overlap: float = 1.0
    subject_changed: bool = False

    @property
    def one_detail(self) -> bool:
        """A single detail changed: one run of words that carry meaning, the rest the same."""
        return self.kind == "changed" and len(self.changes) == 1

    @property
    def rewording(self) -> bool:
        """Most words are shared (``overlap`` ≥ 0.5): one text is a version of the other, not
        another statement that merely embeds nearby."""
        return self.overlap >= _MIN_OVERLAP


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[_Word, ...]:
    """The words of ``text`` as dedup compares them: lowercased, articles dropped, "n't" read
    as "not", each with what its surroundings say (sentence-initial, set off). The last
    texts' are kept: a write compares one text with many, and a neighbour with many writes."""
    spans = word_spans(text)
    words: list[_Word] = []
    for n, (word, start) in enumerate(spans):
        end = start + len(word)
        before = text[:start].rstrip()
        after = text[end : spans[n + 1][1]] if n + 1 < len(spans) else text[end:]
        lower = word.lower()
        initial = not before or before[-1] in _CLAUSE_END
        set_off = any(ch in _SET_OFF for ch in after)
        contracted = (
            lower == "t" and words and words[-1].lower.endswith("n") and before[-1:] in "'’"
        )
        if contracted:  # "isn" + "t" -> "is" + "not"
            verb = words.pop()
            base = _NOT_CONTRACTED.get(verb.lower, verb.lower[:-1])
            words.append(_Word(base, base, verb.initial, False))
            words.append(_Word("not", "not", False, set_off))
            continue
        if lower == "cannot":
            words.append(_Word("can", word[:3], initial, False))
            words.append(_Word("not", "not", False, set_off))
            continue
        if lower in _ARTICLES:
            if set_off and words:  # keep the punctuation that followed it
                words[-1] = replace(words[-1], set_off=True)
            continue
        words.append(_Word(lower, word, initial, set_off))
    return tuple(words)


def _salience(word: _Word) -> str | None:
    """The kind of meaning ``word`` carries that a restatement may not change, if any."""
    lower = word.lower
    if any(ch.isdigit() for ch in lower) or lower in _ORDINALS:
        return "number"
    if lower in _NEGATIONS:
        return "negation"
    if lower in _REVERSALS:
        return "reversal"
    if lower in _HEDGES:
        return "hedge"
    if lower in _CONDITIONS:
        return "condition"
    if lower in _TIMES or word.surface == "May":
        return "time"
    if word.surface[:1].isupper() and not word.initial and lower != "i":
        return "name"
    return None


def _is_framing(phrase: Sequence[_Word], set_off: bool) -> bool:
    """Whether ``phrase``, at an edge of a text, only frames the statement ("Note:", "FYI,",
    "Just a reminder that", ", as mentioned"); ``set_off``: punctuation parts it from it."""
    if not phrase:
        return True
    if len(phrase) > _MAX_FRAME:
        return False
    for n, word in enumerate(phrase):
        # "don't forget", "never forget": a negation of the framing verb, not of the statement
        negates_frame = n + 1 < len(phrase) and phrase[n + 1].lower in _FRAMING
        if _salience(word) and not (_salience(word) == "negation" and negates_frame):
            return False
    return _plain(phrase) or set_off or phrase[-1].lower == "that"


def _plain(phrase: Sequence[_Word]) -> bool:
    """Whether ``phrase`` holds only framing and function words ("just so you know")."""
    return all(w.lower in _FRAMING or w.lower in _FUNCTION for w in phrase)


def _edge_framing(
    a: Sequence[_Word], b: Sequence[_Word], op: tuple[str, int, int, int, int]
) -> bool:
    """Whether a difference at the start or end of both texts is framing on each side. A
    phrase in each text that says something is a replaced word, set off or not: "currency:
    USD" / "currency: CAD"."""
    _, i1, i2, j1, j2 = op
    if i2 > i1 and j2 > j1 and not (_plain(a[i1:i2]) and _plain(b[j1:j2])):
        return False
    if i1 == 0 and j1 == 0 and (i2 < len(a) or j2 < len(b)):  # a leading phrase
        return all(
            _is_framing(side[:end], bool(end) and side[end - 1].set_off)
            for side, end in ((a, i2), (b, j2))
        )
    if i2 == len(a) and j2 == len(b) and (i1 > 0 or j1 > 0):  # a trailing phrase
        return all(
            _is_framing(side[start:], start > 0 and side[start - 1].set_off)
            for side, start in ((a, i1), (b, j1))
        )
    return False


def _describe(old: Sequence[_Word], new: Sequence[_Word]) -> str:
    before = " ".join(w.surface for w in old)
    after = " ".join(w.surface for w in new)
    if not old:
        return f"+'{after}'"
    if not new:
        return f"-'{before}'"
    return f"'{before}' -> '{after}'"


def compare(
    stored: str, new: str, tokenizer: Tokenizer, spell: Spelling | None = None
) -> Comparison:
    """How ``new`` differs from ``stored`` (see the module docstring for the three kinds).

    Args:
        stored: The stored memory's text.
        new: The text being written.
        tokenizer: The BM25 tokenizer of the store (its stemmer tells an inflection from a
            swapped word).
        spell: A text in one spelling where it is known already (the statement reader
            spells every text it reads: :attr:`cogmem.claims.Statement.spelled`); ``None``
            (or ``spell`` answering ``None``): spelled here.

    Example:
        >>> t = Tokenizer()
        >>> compare("The flight is on May 3.", "Note: the flight is on May 3!", t).kind
        'same'
        >>> compare("The flight is on May 3.", "The flight is on May 13.", t)
        Comparison(kind='changed', changes=("'3' -> '13'",), overlap=0.8, subject_changed=False)
        >>> compare("Tom is allergic to nuts.", "Tom isn't allergic to nuts.", t).changes
        ("+'not'",)
    """
    said = _compare(stored, new, tokenizer)
    if said.kind == "same" or said.overlap < _RESPELLED_OVERLAP:
        return said
    # in one spelling: "two"/"2", "5 pm"/"17:00", "colour"/"color", "I'm"/"I am" (texts
    # already in it would only be compared again)
    spelled_stored = _spelled(stored, spell)
    rough = hedged(stored), hedged(new)
    respelled = spelled_stored, aligned(spelled_stored, _spelled(new, spell), rough)
    if respelled != (stored, new) and _compare(*respelled, tokenizer).kind == "same":
        return Comparison("same", (), said.overlap)
    return said


# Texts that share less of their words than this are not compared in one spelling as well:
# a respelling changes a few words ("The retro is at five in the evening." / "The retro is
# at 17:00." share 0.55), and a write's other neighbours are compared at no cost.
_RESPELLED_OVERLAP = 0.4


def _spelled(text: str, spell: Spelling | None) -> str:
    known = spell(text) if spell is not None else None
    return known if known is not None else _canonical(text)


@functools.lru_cache(maxsize=4096)
def _canonical(text: str) -> str:
    """``text`` in one spelling (:func:`cogmem.canonical.canonical_text`, US spelling, the
    contractions that say one word spelled out)."""
    return one_spelling(canonical_text(text))


def _compare(stored: str, new: str, tokenizer: Tokenizer) -> Comparison:
    a, b = _joined(_words(stored), _words(new))
    la, lb = [w.lower for w in a], [w.lower for w in b]
    if la == lb:
        return Comparison("same")
    matcher = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    overlap = matcher.ratio()
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    inner = _unmoved([op for op in ops if not _edge_framing(a, b, op)], a, b)
    if not inner:
        return Comparison("same", (), overlap)
    kind: Kind = "unclear"
    changes = []
    subject = False
    for tag, i1, i2, j1, j2 in inner:
        subject = subject or (i1 == 0 and j1 == 0) or _possessor(a, i2) or _possessor(b, j2)
        old, new_words = a[i1:i2], b[j1:j2]
        changes.append(_describe(old, new_words))
        if any(_salience(w) for w in (*old, *new_words)):
            kind = "changed"
        elif tag == "replace":
            stems_old = sorted(tokenizer.stems([w.lower for w in old]))
            if stems_old != sorted(tokenizer.stems([w.lower for w in new_words])):
                kind = "changed"  # a content word swapped for another
    return Comparison(kind, tuple(changes), overlap, subject)


def _joined(a: Sequence[_Word], b: Sequence[_Word]) -> tuple[Sequence[_Word], Sequence[_Word]]:
    """Both texts with a compound written apart on one side and as one word on the other
    ("Wi-Fi" / "wifi", "e-mail" / "email", "left handed" / "lefthanded") as one word."""
    return _join(a, {w.lower for w in b}), _join(b, {w.lower for w in a})


def _join(words: Sequence[_Word], other: set[str]) -> Sequence[_Word]:
    out: list[_Word] = []
    for word in words:
        last = out[-1] if out else None
        whole = last.lower + word.lower if last else ""
        if last and whole in other and last.lower not in other and word.lower not in other:
            out[-1] = _Word(whole, last.surface + word.surface.lower(), last.initial, word.set_off)
        else:
            out.append(word)
    return out


def _unmoved(
    ops: list[tuple[str, int, int, int, int]], a: Sequence[_Word], b: Sequence[_Word]
) -> list[tuple[str, int, int, int, int]]:
    """``ops`` without a phrase only moved: deleted in one place and inserted, word for word,
    in another ("Twice a month, Soraya visits ..." / "Soraya visits ... twice a month"). A
    moved name counts only in a phrase that says where, when or how
    (:data:`_ADVERBIAL_LEADS`): "Ana owes Bo" / "Bo owes Ana" swap who does what. Nothing
    moved across a comparison counts ("tea over coffee" / "coffee over tea")."""
    if other_sides([w.lower for w in a], [w.lower for w in b]):
        return ops
    for gone in [op for op in ops if op[0] == "delete"]:
        phrase = [w.lower for w in a[gone[1] : gone[2]]]
        named = any(_salience(w) == "name" for w in a[gone[1] : gone[2]])
        if named and phrase[0] not in _ADVERBIAL_LEADS:
            continue
        back = next(
            (
                op
                for op in ops
                if op[0] == "insert" and [w.lower for w in b[op[3] : op[4]]] == phrase
            ),
            None,
        )
        if back is not None:
            ops = [op for op in ops if op not in (gone, back)]
    return ops


def _possessor(words: Sequence[_Word], end: int) -> bool:
    """Whether the words before ``end`` own what follows ("Maria" in "Maria's team")."""
    return 0 < end < len(words) and words[end].lower == "s"
