"""Write-time dedup: does a new write restate a stored memory, or update it?

A write is compared with its nearest neighbours (:mod:`cogmem.neighbours`) by what the two are
about (:func:`cogmem.versions.relate`) and word by word (:func:`cogmem.differences.compare`:
the same, changed, or unclear). :func:`decide` turns those comparisons into what the write
does: merge into a restated memory, or store the write as a new memory (recording it as the
newer version of the neighbour it updates), asking an optional judge about an ``unclear`` pair.
Nothing here reads Chroma or the clock.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from .config import CognitiveMemoryConfig
from .differences import Comparison, Spelling, compare
from .history import formed
from .lexical import Tokenizer
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
    "only_reinforces",
]

log = logging.getLogger("cogmem")

NewerVersions = Callable[[str], Sequence[MemoryRecord]]
"""``memory_id -> records``: the memories that name ``memory_id`` as their previous version."""

Relate = Callable[[str, str, float], Relation]
"""``(older_text, newer_text, cosine) -> Relation``: how two texts stand to each other
(:mod:`cogmem.versions`)."""
_UNKNOWN = Relation("unknown")

Judge = Callable[[str, str], bool]
"""``(stored_text, new_text) -> bool``: whether the new text says the same as the stored one.
Asked only about ``unclear`` pairs; ``True`` merges, ``False`` (or an exception) stores."""


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
    spell: Spelling | None = None,
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
        spell: The texts in one spelling where known already (:func:`compare`).

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
        comparison = compare(stored.text, new.text, tokenizer, spell) if wording else _UNCOMPARED
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
            (relation.kind == "unknown" or (relation.kind == "update" and not relation.sure))
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
            comparison = compare(head.text, new.text, tokenizer, spell)
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


def only_reinforces(stored: MemoryRecord, changed: MemoryRecord) -> bool:
    """Whether ``changed`` differs from ``stored`` only as a recall changes a memory:
    stability, last access and session ids (a restatement that carried nothing else)."""
    return (
        replace(
            changed,
            stability=stored.stability,
            last_accessed_at=stored.last_accessed_at,
            session_ids=stored.session_ids,
        )
        == stored
    )


def _union(stored: Mapping[str, object], new: Mapping[str, object]) -> dict[str, object]:
    out = dict(stored)
    for key, value in new.items():
        out.setdefault(key, value)
    return out
