"""Which memories a write is compared with: its neighbours by meaning and by words.

Write-time dedup (:mod:`cogmem.dedup`) decides what a write does against a few memories near
it, never the whole store::

    stored memories   k nearest by meaning (one batched Chroma query per namespace)
                    + k best by words (BM25: "I live in Denver" is at cosine 0.53 to
                      "I live in Austin", and shares "live")
    earlier inputs    k nearest by meaning
    of the same call + k that share the rarest words with it (a name: in an import of many
                      people's facts, "Quinn's diet is vegetarian" is nearer by meaning to
                      Rina's diet than to "Quinn told me their diet is keto")

each with its cosine to the write. ``k`` = ``NEIGHBOURS`` = 8.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from .lexical import Tokenizer
from .namespace import Namespace
from .records import MemoryRecord
from .store import FloatArray

__all__ = ["NEIGHBOURS", "earlier_neighbours", "stored_neighbours"]

#: How many neighbours a write is compared with, by meaning and as many by words.
NEIGHBOURS = 8
# Cosines within one call are computed in blocks of at most this many cells.
_SIMILARITY_CELLS = 4_000_000
# A word in more than this share of a call's inputs ties no two of them together (it is a
# word of the call, like "the" or a template's own words, not of one fact).
_COMMON_SHARE = 0.05
# ... and a word in this many inputs or fewer always can (a small call has no common words).
_RARE_COUNT = 4


def stored_neighbours(
    records: list[MemoryRecord],
    vectors: FloatArray,
    rows: list[int],
    namespaces: Callable[[str], Namespace | None],
) -> dict[int, list[tuple[str, float]]]:
    """The nearest stored memories of each input in ``rows``, by meaning (one batched query per
    namespace) and by words (BM25), each with its cosine to the input; none for a namespace
    not created yet."""
    out: dict[int, list[tuple[str, float]]] = {}
    for name in dict.fromkeys(records[i].namespace for i in rows):
        mine = [i for i in rows if records[i].namespace == name]
        namespace = namespaces(name)
        if namespace is None or len(namespace) == 0:
            continue
        # the call's texts are being parsed on another thread: no BLAS threads to wait for
        nearest = namespace.nearest(vectors[mine], min(len(namespace), NEIGHBOURS), blas=False)
        for i, found in zip(mine, nearest, strict=True):
            out[i] = found + _stored_by_words(namespace, records[i].text, vectors[i], found)
    return out


def _stored_by_words(
    namespace: Namespace, text: str, vector: FloatArray, found: list[tuple[str, float]]
) -> list[tuple[str, float]]:
    """The memories that share the most words with ``text`` (BM25) and are not in ``found``,
    with their cosine to ``vector``."""
    known = {i for i, _ in found}
    chunk = next(iter(namespace.ranked(namespace.tokens(text), NEIGHBOURS)), [])
    ids = [i for i, _ in chunk[:NEIGHBOURS] if i not in known]
    if not ids:
        return []
    stored = namespace.vectors(ids)
    unit = vector / max(float(np.linalg.norm(vector)), 1e-12)
    out = []
    for i in ids:
        if i in stored:
            v = stored[i]
            out.append((i, float(v @ unit) / max(float(np.linalg.norm(v)), 1e-12)))
    return out


def earlier_neighbours(
    records: Sequence[MemoryRecord],
    vectors: FloatArray,
    rows: Sequence[int],
    tokenizer: Tokenizer,
) -> dict[int, list[tuple[int, float]]]:
    """For each input in ``rows``, the earlier inputs of its namespace nearest to it by meaning
    and those sharing its rarest words: positions with their cosine, nearest first."""
    if len(records) < 2:
        return {}
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    by_meaning = _earlier_by_meaning(records, unit, rows)
    by_words = _earlier_by_words(records, rows, tokenizer)
    out: dict[int, list[tuple[int, float]]] = {}
    for i in rows:
        near = dict(by_meaning.get(i, ()))
        for j in by_words.get(i, ()):
            near.setdefault(j, float(unit[i] @ unit[j]))
        if near:
            out[i] = sorted(near.items(), key=lambda item: -item[1])
    return out


def _earlier_by_meaning(
    records: Sequence[MemoryRecord], unit: FloatArray, rows: Sequence[int]
) -> dict[int, list[tuple[int, float]]]:
    """The ``NEIGHBOURS`` earlier inputs of the same namespace at the highest cosine, in blocks
    of rows so that a large call never holds an n × n matrix."""
    space = {name: n for n, name in enumerate(dict.fromkeys(r.namespace for r in records))}
    spaces = np.array([space[r.namespace] for r in records])
    positions = np.arange(len(records))
    wanted = np.asarray(rows)
    block = max(1, _SIMILARITY_CELLS // len(records))
    out: dict[int, list[tuple[int, float]]] = {}
    for start in range(0, len(wanted), block):
        part = wanted[start : start + block]
        sims = unit[part] @ unit.T
        other = (positions[None, :] >= part[:, None]) | (spaces[None, :] != spaces[part, None])
        sims[other] = -np.inf
        keep = min(NEIGHBOURS, sims.shape[1])
        top = np.argpartition(-sims, keep - 1, axis=1)[:, :keep]  # the k best, unordered
        for n, i in enumerate(part.tolist()):
            out[i] = [
                (int(j), float(sims[n, j])) for j in top[n].tolist() if np.isfinite(sims[n, j])
            ]
    return out


def _earlier_by_words(
    records: Sequence[MemoryRecord], rows: Sequence[int], tokenizer: Tokenizer
) -> dict[int, list[int]]:
    """The ``NEIGHBOURS`` earlier inputs of the same namespace with the most inverse document
    frequency in common::

        overlap(i, j) = Σ_{w ∈ words(i) ∩ words(j)} ln(n / df(w))

    over the call's ``n`` inputs, counting only words in at most ``max(_RARE_COUNT,
    _COMMON_SHARE · n)`` of them (so the cost stays near linear in ``n``)."""
    words = [set(tokenizer(r.text)) for r in records]
    postings: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    for j, (record, mine) in enumerate(zip(records, words, strict=True)):
        for word in mine:
            postings[(record.namespace, word)].append(j)
    n = len(records)
    limit = max(_RARE_COUNT, int(_COMMON_SHARE * n))
    out: dict[int, list[int]] = {}
    for i in rows:
        overlap: defaultdict[int, float] = defaultdict(float)
        for word in words[i]:
            holders = postings[(records[i].namespace, word)]
            if len(holders) > limit:
                continue
            weight = math.log(n / len(holders))
            for j in holders:
                if j >= i:
                    break  # postings are in input order: the rest come later
                overlap[j] += weight
        best = sorted(overlap.items(), key=lambda item: (-item[1], item[0]))[:NEIGHBOURS]
        if best:
            out[i] = [j for j, _ in best]
    return out
