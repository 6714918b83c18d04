"""Words of one sense, and words of opposite senses: WordNet 3.0's synonyms (first senses
only) and antonyms (design §6).

Two words are synonyms here when WordNet gives them one sense as the first (most frequent)
of each ("scared" / "afraid", "myopic" / "nearsighted", "sofa" / "couch", "maths" /
"math", "fall" / "autumn"), an adjective satellite counting with its head ("scared" is in
{frightened, scared}, a satellite of "afraid"). First senses keep the rarer readings out
("fair" / "fete"), and antonyms never share a sense ("older" / "younger", "upstairs" /
"downstairs", which an embedding puts at 0.84–0.86).

The groups come from ``data/wordnet-synonyms.txt.gz`` (one group per line, written by
``tools/wordnet_synonyms.py`` from WordNet 3.0; its licence is ``data/WORDNET-LICENSE.txt``),
read once per process on first use and checked against :data:`DIGEST` first.

Two words are opposites (:func:`opposite`) when WordNet calls them antonyms in any sense, or
calls a word of one first sense with each so ("buy" / "sell"; "start" / "end", through
"begin"), from ``data/wordnet-antonyms.txt.gz`` (a pair per line, verbs, adjectives and
adverbs; checked against :data:`ANTONYMS_DIGEST`). An embedding puts such words as close as
synonyms ("buy" / "sell" 0.75).
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from importlib import resources

from .errors import CogmemError

__all__ = ["ANTONYMS_DIGEST", "DIGEST", "opposite", "same_sense"]

DIGEST = "a70e43c1ffbe25dbd0aa753fd798f3c0af0ee10b6200b9266547e0873b14e6d0"
"""sha256 of ``data/wordnet-synonyms.txt.gz``."""

ANTONYMS_DIGEST = "02ca578c8ad97c744c8c848592508d80648592f73eb60d21752fb9a66acd5720"
"""sha256 of ``data/wordnet-antonyms.txt.gz``."""

_groups: dict[str, tuple[int, ...]] | None = None
_members: tuple[tuple[str, ...], ...] = ()
_antonyms: frozenset[tuple[str, str]] | None = None
_lock = threading.Lock()


def same_sense(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` (lower-case lemmas; several words joined by ``_``) are
    different words of one first sense.

    Raises:
        CogmemError: The shipped file is damaged (its sha256 is not :data:`DIGEST`).
    """
    if a == b:
        return False
    groups = _load()
    theirs = groups.get(b)
    return theirs is not None and any(g in theirs for g in groups.get(a, ()))


def opposite(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` (lower-case lemmas) are WordNet antonyms, themselves or through
    words of one first sense with each ("start" / "end" through "begin").

    Raises:
        CogmemError: A shipped file is damaged (its sha256 is not the one expected).
    """
    pairs = _load_antonyms()
    ours, theirs = _senses_of(a), _senses_of(b)
    return any((min(x, y), max(x, y)) in pairs for x in ours for y in theirs)


def _senses_of(word: str) -> set[str]:
    """``word`` and the words of its first sense."""
    groups = _load()
    return {word, *(w for number in groups.get(word, ()) for w in _members[number])}


def _load_antonyms() -> frozenset[tuple[str, str]]:
    global _antonyms
    if _antonyms is None:
        with _lock:
            if _antonyms is None:
                text = _checked("data/wordnet-antonyms.txt.gz", ANTONYMS_DIGEST)
                pairs = (line.split() for line in text.splitlines())
                _antonyms = frozenset((a, b) for a, b in pairs)
    return _antonyms


def _load() -> dict[str, tuple[int, ...]]:
    """Each word and the groups it is in (their line numbers); the groups' words go to
    ``_members`` at the same time."""
    global _groups, _members
    if _groups is None:
        with _lock:
            if _groups is None:
                _members = _read()
                groups: dict[str, tuple[int, ...]] = {}
                for number, words in enumerate(_members):
                    for word in words:
                        groups[word] = (*groups.get(word, ()), number)
                _groups = groups
    return _groups


def _read() -> tuple[tuple[str, ...], ...]:
    """The groups of the shipped file, one per line."""
    text = _checked("data/wordnet-synonyms.txt.gz", DIGEST)
    return tuple(tuple(line.split()) for line in text.splitlines())


def _checked(name: str, digest: str) -> str:
    """The text of the shipped gzip file ``name``, once its sha256 is ``digest``."""
    packed = resources.files("cogmem").joinpath(name).read_bytes()
    if hashlib.sha256(packed).hexdigest() != digest:
        raise CogmemError(f"cogmem/{name} is damaged (its sha256 does not match); reinstall cogmem")
    return gzip.decompress(packed).decode()
