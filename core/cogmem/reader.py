"""Reading texts into statements, many at a time, and keeping the last reads.

:class:`StatementReader` parses texts with the checked spaCy pipeline (:mod:`cogmem.parser`)
in batches, reads each line by its speaker (:mod:`cogmem.lines`) into claims
(:func:`cogmem.statements.read_doc`) and keeps the last reads; :func:`shared_reader` is the
process's reader.
"""

from __future__ import annotations

import contextlib
import logging
import pickle
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import fields, replace
from typing import Any

from .canonical import canonical_text, one_spelling, us_spelling
from .clauses import (
    FAMILY_WORDS,
    FIRST_PERSON,
    appositive_name,
    day_name,
    mend_verbs_read_as_nouns,
    word,
)
from .errors import CogmemError
from .lines import has_speaker, marks_change, marks_revision, speaker_lines
from .statements import MAX_WORDS, Claim, Statement, read_doc

log = logging.getLogger("cogmem")

__all__ = ["StatementReader", "shared_reader"]


class StatementReader:
    """Reads texts into :class:`Statement` objects, keeping the last reads.

    The last ``live`` reads are kept as they are; the last ``size`` also packed (pickled,
    about 0.5 KB each against 4 KB as objects, 20 µs to unpack), so that a store's reads fit
    in memory without being parsed twice (a parse costs 1-3 ms).

    Args:
        parse: ``texts -> docs`` (default: the checked spaCy pipeline of
            :mod:`cogmem.parser`, loaded on first use).
        size: How many reads to keep packed.
        live: How many of them to keep unpacked.
    """

    def __init__(
        self,
        parse: Callable[[Sequence[str]], Iterable[Any]] | None = None,
        size: int = 200_000,
        live: int = 4_096,
    ) -> None:
        self._parse = parse
        self._size = size
        self._live_size = live
        self._live: OrderedDict[str, Statement] = OrderedDict()
        self._packed: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def _docs(self, texts: Sequence[str]) -> list[Any]:
        if self._parse is not None:
            return list(self._parse(texts))
        from .parser import load_parser

        return list(load_parser().pipe(texts, batch_size=64))

    def _zone(self) -> AbstractContextManager[Any]:
        """Where the default pipeline parses: in a spaCy memory zone, so that the words it
        adds to its vocabulary are let go when a call's reading is done (a process that
        reads for days would otherwise hold every word it ever read)."""
        if self._parse is not None:
            return contextlib.nullcontext()
        from .parser import load_parser

        zone: AbstractContextManager[Any] = load_parser().memory_zone()
        return zone

    def read(self, text: str) -> Statement:
        """``text`` read (from the kept reads when it was read before)."""
        return self.read_many([text])[0]

    def kept(self, text: str) -> Statement | None:
        """The kept read of ``text``, or ``None`` (it is not read here)."""
        with self._lock:
            return self._recall(text)

    def read_many(self, texts: Sequence[str]) -> list[Statement]:
        """Each of ``texts`` read, the unread ones parsed in one batch."""
        wanted = list(dict.fromkeys(texts))
        with self._lock:
            kept = {t: s for t in wanted if (s := self._recall(t)) is not None}
        fresh = self._read([t for t in wanted if t not in kept])
        with self._lock:
            for text, statement in fresh.items():
                self._keep(text, statement)
        kept.update(fresh)
        return [kept[t] for t in texts]

    def _recall(self, text: str) -> Statement | None:
        """The kept read of ``text`` (unpacked, and kept live), or ``None``."""
        statement = self._live.get(text)
        if statement is not None:
            self._live.move_to_end(text)
            return statement
        packed = self._packed.get(text)
        if packed is None:
            return None
        self._packed.move_to_end(text)
        statement = Statement(text=text, **dict(zip(_FIELDS, pickle.loads(packed), strict=True)))
        self._keep_live(text, statement)
        return statement

    def _keep(self, text: str, statement: Statement) -> None:
        self._keep_live(text, statement)
        values = tuple(getattr(statement, f) for f in _FIELDS)
        self._packed[text] = pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL)
        self._packed.move_to_end(text)
        while len(self._packed) > self._size:
            self._packed.popitem(last=False)

    def _keep_live(self, text: str, statement: Statement) -> None:
        self._live[text] = statement
        self._live.move_to_end(text)
        while len(self._live) > self._live_size:
            self._live.popitem(last=False)

    def _read(self, texts: Sequence[str]) -> dict[str, Statement]:
        """``texts`` parsed and read. A text over ``MAX_WORDS`` words is a document and is not
        parsed; a parser that fails on a batch of them (``_CHUNK`` texts) leaves those texts
        unread (no claims: the version logic falls back on words), logged, so that no write is
        lost to it. A missing or
        damaged model raises :class:`~cogmem.errors.ModelNotFoundError`."""
        short = [t for t in texts if len(t.split()) <= MAX_WORDS]
        out = {t: Statement(t, ()) for t in texts}
        if not short:  # none, or only documents: the parser is not loaded for them
            return out
        with _PARSING, self._zone():
            for start in range(0, len(short), _CHUNK):
                out.update(self._read_chunk(short[start : start + _CHUNK]))
        return out

    def _read_chunk(self, texts: Sequence[str]) -> dict[str, Statement]:
        """One chunk of :meth:`_read`: its texts parsed in one batch and read, each statement's
        words shared with the other reads (:func:`sys.intern`)."""
        lines = [(n, who, said) for n, t in enumerate(texts) for who, said in speaker_lines(t)]
        spoken = [(n, who, said) for n, who, said in lines if who != "assistant"]
        try:
            said_canonical = {said: canonical_text(said) for _, _, said in spoken}
            spelled = [one_spelling(said_canonical.get(t) or canonical_text(t)) for t in texts]
            docs = self._docs([said_canonical[said] for _, _, said in spoken])
            for doc in docs:  # the parser's regular misreads, mended where a failure loses no write
                mend_verbs_read_as_nouns(doc)
        except CogmemError:
            raise  # a missing or damaged model: named, before anything is written
        except Exception as exc:  # a parser that fails on a text must not fail the write
            log.warning("statements could not be parsed (read as unknown): %s", exc)
            return {}
        found: dict[int, list[Claim]] = {n: [] for n in range(len(texts))}
        anchors: dict[int, set[str]] = {n: set() for n in range(len(texts))}
        words: dict[int, set[str]] = {n: set() for n in range(len(texts))}
        gists: dict[int, list[str]] = {n: [] for n in range(len(texts))}
        for (n, who, _), doc in zip(spoken, docs, strict=True):
            found[n].extend(read_doc(doc, who))
            anchors[n].update(map(sys.intern, _anchors(doc)))
            words[n].update(sys.intern(word(t)) for t in doc if not (t.is_punct or t.is_space))
            gists[n] += map(sys.intern, _gist(doc))
        return {
            text: Statement(
                text,
                tuple(_shared_claim(c) for c in found[n]),
                marks_change(text),
                frozenset(anchors[n]),
                frozenset(words[n]),
                has_speaker(text),
                marks_revision(text),
                tuple(gists[n]),
                spelled[n],
            )
            for n, text in enumerate(texts)
        }


# The fields of a statement besides its text (the key it is kept under), in order.
_FIELDS = tuple(f.name for f in fields(Statement) if f.name != "text")

# Texts parsed in one batch: the docs of a batch are held until it is read.
_CHUNK = 256

# One parse at a time in the process: the default pipeline is shared, and a memory zone lets
# go of the words every parse under way added.
_PARSING = threading.Lock()


def _shared_claim(claim: Claim) -> Claim:
    """``claim`` with its words interned: the same word read in many texts is held once (the
    kept reads of a large store are mostly the same few thousand words)."""
    return replace(
        claim,
        subject=sys.intern(claim.subject),
        predicate=sys.intern(claim.predicate),
        value=tuple(map(sys.intern, claim.value)),
        owner=sys.intern(claim.owner),
        complement=sys.intern(claim.complement),
        roles=frozenset(map(sys.intern, claim.roles)),
    )


# Words chat drops that say nothing of what a statement is about.
_GIST_SKIPS = frozenset(
    {"a", "an", "the", "i", "my", "me", "mine", "myself", "we", "our", "us", "ours", "user"}
)


def _gist(doc: Any) -> list[str]:
    """:attr:`Statement.gist` of one parsed line: its words as written (so that tense counts,
    and a tag the small parser gives one way or the other does not: "leaves" as a verb or
    as leaves), in US spelling, family words in one form."""
    return [
        FAMILY_WORDS.get(t.lower_, us_spelling(t.lower_))
        for t in doc
        if not (t.is_punct or t.is_space or t.tag_ == "POS")  # "'s" of "User's"
        and t.lower_ not in _GIST_SKIPS
        and not (t.lemma_ in ("be", "have") and t.tag_ in ("VBZ", "VBP"))
    ]


_SHARED: list[StatementReader] = []


def shared_reader() -> StatementReader:
    """The process's reader (a text reads the same in every memory, so reads are shared)."""
    if not _SHARED:
        _SHARED.append(StatementReader())
    return _SHARED[0]


# Words that name the speaker: "I", and "the user" of an agent's note.
_SPEAKER = FIRST_PERSON | {"user"}


def _anchors(doc: Any) -> set[str]:
    """The names, numbers and negations of a parsed line, canonical (not "User" of an agent's
    note, which is the speaker, as "I" is; a name in apposition whatever its tag: "Raj" of "My
    coworker Raj"; a day of the week, "Wednesdays" read as a plural noun)."""
    return {
        "not" if t.dep_ == "neg" else word(t)
        for t in doc
        if ((t.pos_ == "PROPN" or appositive_name(t)) and t.lower_ not in _SPEAKER)
        or (t.text[:1].isupper() and day_name(t) != t.text)
        or t.like_num
        or t.dep_ == "neg"
        or any(ch.isdigit() for ch in t.text)
    }
