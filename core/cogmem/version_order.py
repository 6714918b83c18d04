"""How the versions of one fact, and the facts of one subject, rank among a query's candidates:
design §3's ``newer_version``, ``newest_version`` and ``sibling_retention``.

:func:`cogmem.scoring.score_candidates` applies them; each is a pure function of the
candidates, their relevance and retention, and what the texts say about their pairs
(:class:`cogmem.versions.Evidence`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from .config import CognitiveMemoryConfig
from .records import SUMMARY_KEY, MemoryRecord

if TYPE_CHECKING:
    from .scoring import Candidate

__all__ = [
    "UNSETTLING_RATIO",
    "explicit_version_caps",
    "newer_version_penalties",
    "sibling_retention",
]

#: A newer candidate that may update a fact, and answers the query with at least this share
#: of the fact's relevance, keeps the fact at its own age (:func:`sibling_retention`).
UNSETTLING_RATIO = 0.75


def newer_version_penalties(
    candidates: Sequence[Candidate],
    relevance: Mapping[str, float],
    retentions: Mapping[str, float],
    config: CognitiveMemoryConfig,
    unrelated: Set[tuple[str, str]] = frozenset(),
) -> dict[str, tuple[float, str]]:
    """Which candidates look outdated by a newer version, and by how much.

    A semantic or core memory ``m`` (or an episode, by a newer ``n`` that is a fact: what a
    conversation said, outdated by a fact stated since) is penalised when one of the query's
    ``version_candidates`` most relevant candidates, ``n``, was created after it, is better
    retained (``R_n > R_m``) and is similar to it::

        strength(m, n) = clamp((cos(m, n) − lo) / (hi − lo), 0, 1)
        penalty(m)     = min_n (R_m / R_n) ^ (version_exponent · strength(m, n))

    with ``lo = version_similarity`` (0.40) and ``hi = version_similarity_full`` (0.70): among
    versions of one fact, decay applies relative to the newest, fully for near-paraphrases and
    progressively less for memories that only share a subject (two facts about one person).
    Pairs ``(m, n)`` in ``unrelated`` are skipped: what their texts say (other slots of one
    subject, other subjects) outweighs their similarity.

    Returns:
        id -> (penalty factor in (0, 1), id of the newer memory) for the penalised candidates.
    """
    if config.version_exponent <= 0 or not candidates:
        return {}
    ranked = sorted(candidates, key=lambda c: -relevance.get(c.memory.id, 0.0))
    leaders = [c for c in ranked[: config.version_candidates] if c.vector is not None]
    if not leaders:
        return {}
    leader_vectors = np.stack([c.vector for c in leaders if c.vector is not None])
    out: dict[str, tuple[float, str]] = {}
    for c in candidates:
        m = c.memory
        if m.memory_type == "procedural" or m.pinned or c.vector is None:
            continue
        episode = m.memory_type == "episodic"  # only a newer fact outdates an episode
        sims = leader_vectors @ c.vector
        r_m = retentions[m.id]
        best: tuple[float, str] | None = None
        low, high = config.version_similarity, config.version_similarity_full
        for leader, sim in zip(leaders, sims):
            n = leader.memory
            if n.id == m.id or n.created_at <= m.created_at or sim <= low:
                continue
            if (m.id, n.id) in unrelated or (episode and n.memory_type not in ("semantic", "core")):
                continue
            if SUMMARY_KEY in n.metadata:  # a summary restates older memories: no newer version
                continue
            r_n = retentions[n.id]
            if r_n <= r_m:
                continue
            strength = min(1.0, (float(sim) - low) / (high - low)) if high > low else 1.0
            factor = (r_m / r_n) ** (config.version_exponent * strength)
            if best is None or factor < best[0]:
                best = (factor, n.id)
        if best is not None:
            out[m.id] = best
    return out


def sibling_retention(
    candidates: Sequence[Candidate],
    retentions: Mapping[str, float],
    siblings: Set[tuple[str, str]],
    unsettling: Set[tuple[str, str]] = frozenset(),
    relevance: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Facts side by side compete by relevance, not by age.

    A semantic or core memory ``m`` that the query's best candidates read as another attribute
    of the subject of newer facts ``n``, or as their attribute of another subject (``(m, n)``
    in ``siblings``: "Ana lives in Paris." / "Ana is vegetarian."; "My dad lives in Cardiff."
    / "My mum lives in Swansea.") is scored with the retention of the best retained of them::

        factor(m) = max_n R_n / R_m    (applied as factor^α, > 1 only)

    so that six facts about Ana, written weeks apart, each answer their own question first:
    age orders the versions of one fact (:func:`newer_version_penalties`,
    :func:`explicit_version_caps`), not what is known of one person, nor which of two
    look-alike facts was said last. Not when a newer
    candidate on its subject that may update it (``(m, u)`` in ``unsettling``) answers the
    query about as well, ``relevance(u) ≥ UNSETTLING_RATIO · relevance(m)``: "Kofi finally got
    his own apartment." may be what changed "Kofi lives with our parents.", and "Where does
    Kofi live?" must not find the older first for its siblings' freshness; "Bramble gets a
    glucosamine chew" changes nothing "What breed is Bramble?" asks about. Without
    ``relevance``, any such candidate is taken to answer as well.

    Returns:
        id -> factor (> 1) for the memories that gain from it.
    """
    kinds = {c.memory.id: c.memory.memory_type for c in candidates}
    doubted = {
        older
        for older, newer in unsettling
        if relevance is None
        or relevance.get(newer, 0.0) >= UNSETTLING_RATIO * relevance.get(older, 0.0)
    }
    out: dict[str, float] = {}
    for older, newer in siblings:
        if kinds.get(older) not in ("semantic", "core") or newer not in retentions:
            continue
        if older in doubted:
            continue
        r_m, r_n = retentions.get(older, 0.0), retentions[newer]
        if r_m > 0.0 and r_n > r_m:
            out[older] = max(out.get(older, 1.0), r_n / r_m)
    return out


def explicit_version_caps(
    candidates: Sequence[Candidate],
    relevance: Mapping[str, float],
    scores: Mapping[str, float],
    config: CognitiveMemoryConfig,
    updates: Sequence[tuple[str, str]] = (),
) -> dict[str, tuple[float, str]]:
    """Older versions of a fact, ranked below the newer ones that update them.

    A link ``n.previous_version == m`` (n updates m; written by write-time dedup), or a pair
    ``(m, n)`` in ``updates`` (read from the two texts at search time:
    :meth:`cogmem.versions.Versions.updates`), counts when both were found by the query
    itself and are not recorded as contradicting each other (which
    :func:`contradiction_losers` settles by confidence). Memories joined by such links form a
    family, ordered newest first: a version before every version it updates, and at a fork the
    more recently formed first. The members that answer the query about as well as the
    family's best (``relevance ≥ version_relevance_ratio · max relevance``) then score at most
    ``version_margin`` of the one before them in that order::

        score'(v_1) = score(v_1),    score'(v_i) = min(score(v_i), margin · score'(v_{i-1}))

    so what was said last comes first and the older versions follow it. With
    ``version_takes_rank`` (default), the newest member first takes the score of the family's
    best (a correction worded away from the query, "Sorry, I meant Austin - I live in Austin
    now.", answers it as well as the version it corrects); it is returned with a factor
    above 1, which the explanation names ``newest_version``. A member that answers
    the query clearly less well is left as it is: a link to another subject ("Aisha lives in
    Nairobi" recorded as updating "Maria lives in Nairobi") changes nothing for a query about
    Maria.

    Args:
        candidates: One per memory.
        relevance: id -> relevance.
        scores: id -> score with every other factor applied.
        config: ``version_margin`` (``None``: no caps) and ``version_relevance_ratio``.

    Returns:
        id -> (factor, id of the other version): below 1 for a capped older version (the
        version ranked right before it), above 1 for a newest version raised to the place of
        its family's best (that best).
    """
    margin = config.version_margin
    if margin is None:
        return {}
    found = {c.memory.id: c.memory for c in candidates if c.via == "search"}
    newer: dict[str, list[str]] = {}
    older: dict[str, list[str]] = {}
    links = [(m.previous_version, m.id) for m in found.values() if m.previous_version]
    linked = set(links)
    implied = [(old, new) for old, new in updates if (new, old) not in linked]  # links win
    for old, new in dict.fromkeys([*links, *implied]):  # each pair once
        if old in found and new in found and old != new and old not in found[new].contradicts:
            newer.setdefault(old, []).append(new)
            older.setdefault(new, []).append(old)
    if not newer:
        return {}
    final = dict(scores)
    caps: dict[str, tuple[float, str]] = {}
    for family in _families(newer, older):
        bar = config.version_relevance_ratio * max(relevance.get(m, 0.0) for m in family)
        order = [
            m for m in _newest_first(family, newer, older, found) if relevance.get(m, 0.0) >= bar
        ]
        if config.version_takes_rank and len(order) > 1:
            best = max(order, key=lambda m: final[m])
            newest = order[0]
            if final[best] > final[newest] > 0:  # the newest takes its family's best place
                caps[newest] = (final[best] / final[newest], best)
                final[newest] = final[best]
        for before, member in pairwise(order):
            cap = margin * final[before]
            if final[member] > cap:
                final[member] = cap
                caps[member] = (cap / scores[member] if scores[member] > 0 else 0.0, before)
    return caps


def _families(newer: Mapping[str, list[str]], older: Mapping[str, list[str]]) -> list[list[str]]:
    """The connected groups of memories joined by version links."""
    seen: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted({*newer, *older}):
        if start in seen:
            continue
        group, stack = [], [start]
        seen.add(start)
        while stack:
            node = stack.pop()
            group.append(node)
            for other in (*newer.get(node, ()), *older.get(node, ())):
                if other not in seen:
                    seen.add(other)
                    stack.append(other)
        groups.append(group)
    return groups


def _newest_first(
    family: list[str],
    newer: Mapping[str, list[str]],
    older: Mapping[str, list[str]],
    records: Mapping[str, MemoryRecord],
) -> list[str]:
    """``family`` with every version before those it updates; at a fork, the more recently
    formed first (Kahn's order; links that close a cycle are ignored)."""
    waiting = {m: len(newer.get(m, ())) for m in family}
    formed = {m: (-records[m].created_at.timestamp(), m) for m in family}
    ready = sorted((m for m in family if waiting[m] == 0), key=formed.__getitem__)
    order: list[str] = []
    while ready:
        member = ready.pop(0)
        order.append(member)
        for old in older.get(member, ()):
            waiting[old] -= 1
            if waiting[old] == 0:
                ready.append(old)
                ready.sort(key=formed.__getitem__)
    if len(order) < len(family):  # a cycle (hand-made links): the rest by formation
        order += sorted((m for m in family if m not in set(order)), key=formed.__getitem__)
    return order
