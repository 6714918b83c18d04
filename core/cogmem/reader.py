"""Reading texts into statements, many at a time, and keeping the last reads.

:class:`StatementReader` parses texts with the checked spaCy pipeline (:mod:`cogmem.parser`)
in batches, reads each line by its speaker (:mod:`cogmem.lines`) into claims
(:func:`cogmem.statements.read_doc`) and keeps the last reads; :func:`shared_reader` is the
process's reader.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .canonical import canonical_text, us_spelling
from .clauses import FAMILY_WORDS, FIRST_PERSON, word
from .errors import CogmemError
from .lines import has_speaker, marks_change, marks_revision, speaker_lines
from .statements import MAX_WORDS, Claim, Statement, read_doc

log = logging.getLogger("cogmem")

__all__ = ["StatementReader", "shared_reader"]


class StatementReader:
    """Reads texts into :class:`Statement` objects, keeping the last ``size`` reads.

    Args:
        parse: ``texts -> docs`` (default: the checked spaCy pipeline of
            :mod:`cogmem.parser`, loaded on first use).
        size: How many reads to keep.
    """

    def __init__(
        self, parse: Callable[[Sequence[str]], Iterable[Any]] | None = None, size: int = 50_000
    ) -> None:
        self._parse = parse
        self._size = size
        self._kept: OrderedDict[str, Statement] = OrderedDict()
        self._lock = threading.Lock()

    def _docs(self, texts: Sequence[str]) -> Iterable[Any]:
        if self._parse is not None:
            return self._parse(texts)
        from .parser import load_parser

        docs: Iterable[Any] = load_parser().pipe(texts, batch_size=64)
        return docs

    def read(self, text: str) -> Statement:
        """``text`` read (from the kept reads when it was read before)."""
        return self.read_many([text])[0]

    def read_many(self, texts: Sequence[str]) -> list[Statement]:
        """Each of ``texts`` read, the unread ones parsed in one batch."""
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._kept))
        fresh = self._read(missing) if missing else {}
        with self._lock:
            self._kept.update(fresh)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)
            out = []
            for text in texts:
                statement = fresh.get(text) or self._kept.get(text)
                if text in self._kept:
                    self._kept.move_to_end(text)
                out.append(statement if statement is not None else self._read([text])[text])
        return out

    def _read(self, texts: Sequence[str]) -> dict[str, Statement]:
        """``texts`` parsed and read. A text over ``MAX_WORDS`` words is a document and is not
        parsed; a parser that fails on them leaves every text unread (no claims: the version
        logic falls back on words), logged, so that no write is lost to it. A missing or
        damaged model raises :class:`~cogmem.errors.ModelNotFoundError`."""
        short = [t for t in texts if len(t.split()) <= MAX_WORDS]
        out = {t: Statement(t, ()) for t in texts}
        lines = [(n, who, said) for n, t in enumerate(short) for who, said in speaker_lines(t)]
        spoken = [(n, who, said) for n, who, said in lines if who != "assistant"]
        try:
            docs = list(self._docs([canonical_text(said) for _, _, said in spoken]))
        except CogmemError:
            raise  # a missing or damaged model: named, before anything is written
        except Exception as exc:  # a parser that fails on a text must not fail the write
            log.warning("statements could not be parsed (read as unknown): %s", exc)
            return out
        found: dict[int, list[Claim]] = {n: [] for n in range(len(short))}
        anchors: dict[int, set[str]] = {n: set() for n in range(len(short))}
        words: dict[int, set[str]] = {n: set() for n in range(len(short))}
        gists: dict[int, list[str]] = {n: [] for n in range(len(short))}
        for (n, who, _), doc in zip(spoken, docs, strict=True):
            found[n].extend(read_doc(doc, who))
            anchors[n].update(_anchors(doc))
            words[n].update(word(t) for t in doc if not (t.is_punct or t.is_space))
            gists[n] += _gist(doc)
        for n, text in enumerate(short):
            out[text] = Statement(
                text,
                tuple(found[n]),
                marks_change(text),
                frozenset(anchors[n]),
                frozenset(words[n]),
                has_speaker(text),
                marks_revision(text),
                tuple(gists[n]),
            )
        return out


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
    note, which is the speaker, as "I" is)."""
    return {
        "not" if t.dep_ == "neg" else word(t)
        for t in doc
        if (t.pos_ == "PROPN" and t.lower_ not in _SPEAKER)
        or t.like_num
        or t.dep_ == "neg"
        or any(ch.isdigit() for ch in t.text)
    }
