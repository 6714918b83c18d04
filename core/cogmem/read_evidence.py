"""What the texts of a query's best candidates say about each other: the read-time evidence
of versions (design §3), by which :func:`cogmem.scoring.score_candidates` orders them.

:func:`read_evidence` reads the ``version_candidates`` most relevant memories a query found
against each other (:meth:`cogmem.versions.Versions.pairs`): which updates which, which are
other facts side by side, which may have been changed by a later one. :func:`subject_focus`
compares those that name the query's subject with the query, the name masked
(:mod:`cogmem.focus`).
"""

from __future__ import annotations

from collections.abc import Mapping

from .config import CognitiveMemoryConfig
from .focus import focus_cosines
from .lines import has_speaker
from .namespace import Namespace
from .records import SUMMARY_KEY, MemoryRecord
from .scoring import Candidate
from .versions import Evidence, Versions

__all__ = ["read_evidence", "subject_focus"]


def read_evidence(
    namespace: Namespace,
    found: list[Candidate],
    fused: Mapping[str, float],
    config: CognitiveMemoryConfig,
    versions: Versions | None,
) -> Evidence:
    """What the texts of the ``version_candidates`` most relevant memories the query found say
    about their pairs: which updates which, which are not versions of one fact.

    A turn of a conversation between named speakers ("Mira: ...") never updates another at
    read time: in a conversation, a later turn that reads like a change rarely is one
    (measured on LoCoMo, docs/benchmarks.md). What one person told the memory (a fact, or an
    episode with no speaker named, as the agent middleware stores a user's message and its
    reply) may. Write-time links are not limited so."""
    if versions is None or config.version_evidence != "slots":
        return Evidence()
    top = _best(found, fused)
    chosen = top[: config.version_candidates]
    if all(_turn(c.memory) for c in chosen):
        return Evidence()  # turns of a conversation only: a later one rarely corrects another
    unread = [c.memory.id for c in chosen if c.vector is None]
    read = namespace.vectors(unread) if unread else {}
    found_pairs = versions.pairs(
        [c.memory for c in chosen],
        [c.vector if c.vector is not None else read.get(c.memory.id) for c in chosen],
    )
    stated = {c.memory.id for c in chosen if _may_update(c.memory)}
    later = [c.memory for c in top[config.version_candidates :] if _may_update(c.memory)]
    return Evidence(
        tuple(p for p in found_pairs.updates if p[1] in stated),
        found_pairs.unrelated,
        versions.doubts([c.memory for c in chosen], later) if later else (),
        found_pairs.siblings,
        found_pairs.unsettling,
    )


def subject_focus(
    query: str,
    found: list[Candidate],
    fused: Mapping[str, float],
    config: CognitiveMemoryConfig,
    versions: Versions | None,
) -> dict[str, float]:
    """The focus cosine (:func:`cogmem.focus.focus_cosines`) of the ``version_candidates``
    most relevant memories the query found that name its subject, when two or more do;
    empty with ``subject_focus`` off or no version logic.

    A line said by a named speaker ("Mira: ...") takes no part: the name before its colon
    says who spoke, not what the line is about."""
    if versions is None or not config.subject_focus:
        return {}
    chosen = _best(found, fused)[: config.version_candidates]
    told = {c.memory.id: c.memory.text for c in chosen if not has_speaker(c.memory.text)}
    return focus_cosines(query, told, versions.cosines)


def _best(found: list[Candidate], fused: Mapping[str, float]) -> list[Candidate]:
    """The memories a retriever found, most relevant first (ties: by id)."""
    direct = [c for c in found if c.via == "search"]
    return sorted(direct, key=lambda c: (-fused.get(c.memory.id, 0.0), c.memory.id))


def _may_update(memory: MemoryRecord) -> bool:
    """Whether a memory may outdate an older one at read time: not a turn of a conversation
    between named speakers, nor a summary of older memories."""
    return not _turn(memory) and SUMMARY_KEY not in memory.metadata


def _turn(memory: MemoryRecord) -> bool:
    """Whether a memory is a turn of a conversation between named speakers ("Mira: ...")."""
    return memory.memory_type == "episodic" and has_speaker(memory.text)
