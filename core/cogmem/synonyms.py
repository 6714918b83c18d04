"""Words of one sense: WordNet 3.0's synonyms, first senses only (design §6).

Two words are synonyms here when WordNet gives them one sense as the first (most frequent)
of each ("scared" / "afraid", "myopic" / "nearsighted", "sofa" / "couch", "maths" /
"math", "fall" / "autumn"), an adjective satellite counting with its head ("scared" is in
{frightened, scared}, a satellite of "afraid"). First senses keep the rarer readings out
("fair" / "fete"), and antonyms never share a sense ("older" / "younger", "upstairs" /
"downstairs", which an embedding puts at 0.84–0.86).

The groups come from ``data/wordnet-synonyms.txt.gz`` (one group per line, written by
``tools/wordnet_synonyms.py`` from WordNet 3.0; its licence is ``data/WORDNET-LICENSE.txt``),
read once per process on first use and checked against :data:`DIGEST` first.
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from importlib import resources

from .errors import CogmemError

__all__ = ["DIGEST", "same_sense"]

DIGEST = "a70e43c1ffbe25dbd0aa753fd798f3c0af0ee10b6200b9266547e0873b14e6d0"
"""sha256 of ``data/wordnet-synonyms.txt.gz``."""

_groups: dict[str, tuple[int, ...]] | None = None
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


def _load() -> dict[str, tuple[int, ...]]:
    global _groups
    if _groups is None:
        with _lock:
            if _groups is None:
                _groups = _read()
    return _groups


def _read() -> dict[str, tuple[int, ...]]:
    """Each word and the groups it is in (their line numbers)."""
    packed = resources.files("cogmem").joinpath("data/wordnet-synonyms.txt.gz").read_bytes()
    if hashlib.sha256(packed).hexdigest() != DIGEST:
        raise CogmemError(
            "cogmem/data/wordnet-synonyms.txt.gz is damaged (its sha256 does not match); "
            "reinstall cogmem"
        )
    out: dict[str, tuple[int, ...]] = {}
    for number, line in enumerate(gzip.decompress(packed).decode().splitlines()):
        for word in line.split():
            out[word] = (*out.get(word, ()), number)
    return out
