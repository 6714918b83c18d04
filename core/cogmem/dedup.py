"""Write-time dedup: does a new write restate a stored memory, or update it?

Cosine similarity cannot tell "The flight is on May 3." from "The flight is on May 13.": the two
are nearly the same vector (cosine 0.95 with all-MiniLM-L6-v2, above the 0.92 at which dedup
used to merge). So a write is compared with its nearest neighbours word by word, with the words
the BM25 tokenizer splits (:func:`cogmem.lexical.word_spans`), lowercased:

* **same** (a restatement): the same words up to case, punctuation, whitespace, articles, and a
  framing phrase at either edge ("Note:", "FYI,", "Just a reminder that", ", as mentioned"). A
  framing phrase is short, holds no word that carries meaning (below), and either consists of
  framing and function words or is set off from the statement by punctuation.
* **changed**: a word that carries meaning was replaced, added or dropped: a number (amounts,
  times, versions: any word with a digit), a month or weekday or relative time, a proper name
  (capitalised inside a sentence), a negation ("not", "no longer", "isn't"), a reversal
  ("wrong", "formerly"), a hedge ("maybe"), a condition ("until", "if"), or one content word
  swapped for another ("dark" → "light").
* **unclear**: any other difference: an inflection ("lives" → "lived", same stem), or a plain
  word added or dropped inside the sentence ("still", "green").

:func:`decide` turns the comparisons with a write's neighbours into what the write does: merge
into a restated memory, or store the write as a new memory (recording it as the newer version of
the neighbour it updates), asking an optional judge about an ``unclear`` pair. Nothing here
reads Chroma or the clock.
"""

from __future__ import annotations

import calendar
import difflib
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .config import CognitiveMemoryConfig
from .history import formed
from .lexical import STOPWORDS_EN, Tokenizer, word_spans
from .records import MemoryRecord, WriteAction
from .versions import Relation

__all__ = [
    "Comparison",
    "Decision",
    "Judge",
    "Neighbour",
    "NewerVersions",
    "Relate",
    "compare",
    "decide",
    "merged",
]

log = logging.getLogger("cogmem")

Kind = Literal["same", "changed", "unclear"]

NewerVersions = Callable[[str], Sequence[MemoryRecord]]
"""``memory_id -> records``: the memories that name ``memory_id`` as their previous version."""

Relate = Callable[[str, str, float], Relation]
"""``(older_text, newer_text, cosine) -> Relation``: how two texts stand to each other
(:mod:`cogmem.versions`)."""
_UNKNOWN = Relation("unknown")

Judge = Callable[[str, str], bool]
"""``(stored_text, new_text) -> bool``: whether the new text says the same as the stored one.
Asked only about ``unclear`` pairs; ``True`` merges, ``False`` (or an exception) stores."""

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


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A stored memory (or an earlier input of the same call) near a new write.

    Attributes:
        record: The memory as held now.
        similarity: Cosine between its embedding and the write's.
    """

    record: MemoryRecord
    similarity: float


@dataclass(frozen=True, slots=True)
class Decision:
    """What one write does (see :func:`decide`).

    Attributes:
        action: ``stored`` | ``merged`` | ``new_version``.
        record: The write as it is to be stored (``previous_version`` set for a
            ``new_version``); ``None`` when it is merged.
        existing_id: The memory merged into, or the one the write is a newer version of.
        changes: What differs from ``existing_id``.
        rewritten: Neighbours as they are to be written back: the memory merged into, and
            when that memory had been updated since, its successor in the version chain.
    """

    action: WriteAction
    record: MemoryRecord | None
    existing_id: str | None = None
    changes: tuple[str, ...] = ()
    rewritten: tuple[MemoryRecord, ...] = ()


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
    plain = all(w.lower in _FRAMING or w.lower in _FUNCTION for w in phrase)
    return plain or set_off or phrase[-1].lower == "that"


def _edge_framing(
    a: Sequence[_Word], b: Sequence[_Word], op: tuple[str, int, int, int, int]
) -> bool:
    """Whether a difference at the start or end of both texts is framing on each side."""
    _, i1, i2, j1, j2 = op
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


def compare(stored: str, new: str, tokenizer: Tokenizer) -> Comparison:
    """How ``new`` differs from ``stored`` (see the module docstring for the three kinds).

    Args:
        stored: The stored memory's text.
        new: The text being written.
        tokenizer: The BM25 tokenizer of the store (its stemmer tells an inflection from a
            swapped word).

    Example:
        >>> t = Tokenizer()
        >>> compare("The flight is on May 3.", "Note: the flight is on May 3!", t).kind
        'same'
        >>> compare("The flight is on May 3.", "The flight is on May 13.", t)
        Comparison(kind='changed', changes=("'3' -> '13'",), overlap=0.8, subject_changed=False)
        >>> compare("Tom is allergic to nuts.", "Tom isn't allergic to nuts.", t).changes
        ("+'not'",)
    """
    a, b = _words(stored), _words(new)
    la, lb = [w.lower for w in a], [w.lower for w in b]
    if la == lb:
        return Comparison("same")
    matcher = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    overlap = matcher.ratio()
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    inner = [op for op in ops if not _edge_framing(a, b, op)]
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


def _possessor(words: Sequence[_Word], end: int) -> bool:
    """Whether the words before ``end`` own what follows ("Maria" in "Maria's team")."""
    return 0 < end < len(words) and words[end].lower == "s"


def _conflicts(stored: MemoryRecord, new: MemoryRecord, read: bool) -> tuple[str, ...]:
    """What ``new`` carries that merging into ``stored`` would overwrite (its type only
    when the caller gave it, not ``read`` from the text)."""
    found = [
        f"metadata {key!r}: {stored.metadata[key]!r} -> {value!r}"
        for key, value in new.metadata.items()
        if key in stored.metadata
        and (stored.metadata[key] != value or type(stored.metadata[key]) is not type(value))
    ]
    if stored.memory_type != new.memory_type and not read:
        found.append(f"memory_type: {stored.memory_type} -> {new.memory_type}")
    return tuple(found)


def _comparable(stored: MemoryRecord, new: MemoryRecord, config: CognitiveMemoryConfig) -> bool:
    """Whether dedup looks at ``stored`` for ``new`` at all: an active memory, and for an
    episode only one formed within ``episodic_dedup_window_seconds`` of it (the same words
    weeks apart are two events)."""
    if stored.status != "active":
        return False
    window = config.episodic_dedup_window_seconds
    if "episodic" not in (stored.memory_type, new.memory_type) or window is None:
        return True
    gap = abs((new.created_at - stored.created_at).total_seconds())
    return gap <= window


def decide(
    new: MemoryRecord,
    neighbours: Sequence[Neighbour],
    config: CognitiveMemoryConfig,
    tokenizer: Tokenizer,
    judge: Judge | None = None,
    newer: NewerVersions | None = None,
    relate: Relate | None = None,
    *,
    chosen: bool = False,
    type_read: bool = False,
) -> Decision:
    """What write-time dedup does with ``new``, given its nearest neighbours.

    Each active neighbour, most similar first, is related to ``new`` by what the two are about
    (``relate``: :func:`cogmem.versions.relate`), and by their words (:func:`compare`) when the
    parser reads no claim in one of them (``unknown``), which only neighbours at cosine ≥
    ``config.dedup_candidate_similarity`` are:

    1. **merged** into the first that ``new`` restates: the same claims (``relate`` says
       ``same``), or the same words up to framing (:func:`compare` says ``same``), or an
       ``unclear`` pair the ``judge`` calls the same; and whose fields it would not overwrite
       (a different memory type, or a metadata key given another value, is a change). An
       episode merges only with one formed within ``config.episodic_dedup_window_seconds``.
       Nothing new is stored; the neighbour is reinforced (:func:`merged`). If a neighbour had
       updated that memory since (its ``previous_version`` chain), what was said last counts:
       the memory moves to the front of its chain, as the newer version of the latest update.
    2. else **new_version** of the first that ``new`` updates (the first of its own type, if
       any: a fact updates the fact it changes before the exchange it was told in): a claim
       about the same slot with another value (``relate`` says ``update``); or, when
       ``relate`` cannot tell, one that shares most of its words with ``new``
       (:attr:`Comparison.rewording`), is about the same subject (not
       :attr:`Comparison.subject_changed`) and is at cosine ≥
       ``config.dedup_threshold`` or differs in one detail (:attr:`Comparison.one_detail`).
       ``new`` is stored with ``previous_version`` set to the newest version of that memory
       (the head of its chain; so chains stay in the order things were said), or merged into
       that newest version when it restates it.
    3. else **stored**: neighbours about other slots ("my sister" / "my brother") are never
       linked, however similar.

    Args:
        new: The record being written (its id generated, not chosen by the caller).
        neighbours: Its nearest memories, in any order.
        config: The dedup thresholds (``dedup_threshold=None``: always ``stored``).
        tokenizer: The store's BM25 tokenizer.
        judge: Asked about ``unclear`` pairs (see :data:`Judge`); ``None``: never merged.
        newer: The memories, as held now, that name an id as their ``previous_version``
            (default: none do).
        relate: ``(older text, newer text) -> Relation`` (default: every pair ``unknown``).
        chosen: ``new``'s id was chosen by the caller: it is stored as itself, never merged,
            and linked as a newer version only when ``relate`` says ``update``.
        type_read: ``new``'s type was read from its text, not given: another type does not
            keep it from merging into what it restates.

    An episode is linked as a newer version only by the words (within the episode window):
    a later turn of a conversation that reads like a change rarely is one.
    """
    newer = newer or _no_versions
    threshold = config.dedup_threshold
    if threshold is None:
        return Decision("stored", new)
    gate = min(threshold, config.dedup_candidate_similarity)
    near = sorted(
        (n for n in neighbours if n.record.status == "active"), key=lambda n: -n.similarity
    )
    version: tuple[MemoryRecord, tuple[str, ...]] | None = None
    version_sure = False
    for n in near:
        stored = n.record
        relation = relate(stored.text, new.text, n.similarity) if relate else _UNKNOWN
        close = n.similarity >= gate
        if not close and relation.kind in ("unknown", "different"):
            continue  # nothing the words could add: they are compared only when close
        # the words are compared when they could matter: a pair said to be about different
        # things only when near-identical (a framing phrase the parser misread)
        wording = close and (relation.kind != "different" or n.similarity >= threshold)
        comparison = compare(stored.text, new.text, tokenizer) if wording else _UNCOMPARED
        conflicts = _conflicts(stored, new, type_read)
        same = (
            relation.kind == "same"
            or comparison.kind == "same"
            or (
                comparison.kind == "unclear"
                and relation.kind not in ("same", "update")
                and judge is not None
                and _ask(judge, stored, new)
            )
        )
        lasting = relation.kind == "same" and relation.lasting and stored.status == "active"
        if same and not chosen and not conflicts and (lasting or _comparable(stored, new, config)):
            return Decision(
                "merged",
                None,
                stored.id,
                comparison.changes,
                _to_front(merged(stored, new, config), newer),
            )
        sure = relation.kind == "update" and relation.sure
        if version is not None and not (
            _better_kin(version[0], stored, new) or (sure and not version_sure)
        ):
            continue
        if chosen and not sure:
            continue
        if same and conflicts:  # said again, with a field changed: a newer version
            version, version_sure = (stored, conflicts), True
        elif same:
            continue  # the same again, but not to merge (an episode told days later)
        elif sure and new.memory_type != "episodic":
            said = comparison.changes if comparison.changes else relation.changes
            version, version_sure = (stored, said + conflicts), sure
        elif (
            relation.kind == "unknown"
            and _comparable(stored, new, config)
            and (n.similarity >= threshold or comparison.one_detail)
            and comparison.rewording
            and not comparison.subject_changed
        ):
            version, version_sure = (stored, comparison.changes + conflicts), False
    if version is not None:
        older, changes = version
        head = _head(older, newer)
        if head.id != older.id:  # it was updated since: the write updates the latest version
            comparison = compare(head.text, new.text, tokenizer)
            relation = relate(head.text, new.text, 0.0) if relate else _UNKNOWN
            restates = comparison.kind == "same" or relation.kind == "same"
            mergeable = not chosen and _comparable(head, new, config)
            if restates and not _conflicts(head, new, type_read) and mergeable:
                return Decision("merged", None, head.id, (), (merged(head, new, config),))
            changes = (relation.changes or comparison.changes) + _conflicts(head, new, type_read)
        return Decision("new_version", replace(new, previous_version=head.id), head.id, changes)
    return Decision("stored", new)


# A pair not compared word by word (not close enough for the words to matter).
_UNCOMPARED = Comparison("changed", (), 0.0)


def _better_kin(chosen: MemoryRecord, other: MemoryRecord, new: MemoryRecord) -> bool:
    """Whether ``other`` makes a better older version of ``new`` than ``chosen``: of
    ``new``'s type where ``chosen`` is not (a fact updates the fact it changes before the
    exchange it was told in)."""
    return chosen.memory_type != new.memory_type and other.memory_type == new.memory_type


def _head(record: MemoryRecord, newer: NewerVersions) -> MemoryRecord:
    """The newest version reachable from ``record`` through its newer versions (itself when
    none updates it; at a fork, which only hand-made links make, the most recently formed)."""
    latest, seen = record, {record.id}
    while True:
        following = [n for n in newer(latest.id) if n.id not in seen]
        if not following:
            return latest
        latest = max(following, key=formed)
        seen.add(latest.id)


def _no_versions(memory_id: str) -> Sequence[MemoryRecord]:
    return ()


def _to_front(record: MemoryRecord, newer: NewerVersions) -> tuple[MemoryRecord, ...]:
    """``record`` (just restated) and, when memories had updated it since, those whose
    ``previous_version`` links change so that it becomes the newest version of its chain.

    ``x <- record <- n <- o`` (each newer version names the one before) becomes
    ``x <- n <- o <- record``: every memory that named ``record`` names ``x`` instead, and
    ``record`` names the newest version reachable from it (the most recently formed at a
    fork).
    """
    successors = list(newer(record.id))
    if not successors:
        return (record,)
    latest = _head(max(successors, key=formed), newer)
    return (
        replace(record, previous_version=latest.id),
        *(replace(s, previous_version=record.previous_version) for s in successors),
    )


def _ask(judge: Judge, stored: MemoryRecord, new: MemoryRecord) -> bool:
    try:
        return bool(judge(stored.text, new.text))
    except Exception as exc:  # a judge that fails must not lose the write: store it
        log.warning("dedup judge failed on %r vs %r (stored as new): %s", stored.id, new.id, exc)
        return False


def merged(stored: MemoryRecord, new: MemoryRecord, config: CognitiveMemoryConfig) -> MemoryRecord:
    """``stored`` after a restatement ``new`` was merged into it: nothing ``new`` carried is
    dropped.

    * stability + ``dedup_stability_gain`` (at most 1): being told again strengthens it;
    * last access: the write's creation time, if later (a restatement is a rehearsal: decay
      starts again from it, as after a recall);
    * importance and confidence: the larger of the two;
    * tags: ``stored``'s, then ``new``'s that it lacked; metadata: ``new``'s keys added
      (:func:`decide` never merges a write whose metadata give a key another value);
    * session ids: ``new``'s appended; pinned if either is.

    Text, type, creation time and recall history stay ``stored``'s.
    """
    told = new.created_at if new.created_at > stored.reference_time else None
    return replace(
        stored,
        last_accessed_at=told or stored.last_accessed_at,
        stability=min(1.0, stored.stability + config.dedup_stability_gain),
        importance=max(stored.importance, new.importance),
        confidence=max(stored.confidence, new.confidence),
        tags=tuple(dict.fromkeys((*stored.tags, *new.tags))),
        metadata=_union(stored.metadata, new.metadata),
        session_ids=tuple(dict.fromkeys((*stored.session_ids, *new.session_ids))),
        pinned=stored.pinned or new.pinned,
    )


def _union(stored: Mapping[str, object], new: Mapping[str, object]) -> dict[str, object]:
    out = dict(stored)
    for key, value in new.items():
        out.setdefault(key, value)
    return out
