"""The retention-exponent score and the relevance it multiplies: design §3.

For a query ``q`` and a candidate memory ``m``::

    score(m, q) = relevance(m, q) · R(m)^(α · s_type) · Π penalties(m)

    α          retrieval_score_exponent (0.3)
    s_type     how much a memory's age says about whether it still holds
               (type_exponent_scale: episodic 0.1, every other type 1)
    penalties  deep_recall      0.5^(α · s_type)   an archived (superseded) memory reached by deep
                               recall is scored as if its retention were halved (config
                               deep_recall_scope="score": × 0.5, the plain formula)
               contradiction    0.3        the weaker (confidence · R) of a contradicting pair
                                           that are both candidates
               newer_version    (R_m / R_n)^(α_u · strength)   a newer, similar memory n among the
                               query's best candidates (semantic and core memories); and, for a
                               memory an explicit newer version n updates (n.previous_version,
                               set by write-time dedup), at most margin · score(n) / score(m)

Why this shape (measured on LoCoMo and the knowledge-update set, see ``docs/decay.md``):

* **Relevance is calibrated from scores, not ranks.** Reciprocal rank fusion is nearly flat across
  50 candidates, so any decay factor outweighs it and old, clearly relevant memories are buried.
  The default hybrid relevance is seed 003's weighted score fusion
  ``w · max(cos, 0) + (1 − w) · bm25 / max bm25``; ``fusion="rrf"`` keeps the plain formula's RRF.
* **Episodes do not go stale; facts do.** An episodic memory records something that happened: its
  age lowers its accessibility but never makes it wrong, so decay only breaks near-ties
  (α · 0.1). A semantic memory states what is true; when a newer, similar memory is also a
  candidate for the query, the older one is scored as if it had aged relative to the newer one
  (``newer_version``), which is what puts the current version of an updated fact first. When
  write-time dedup recorded the newer version explicitly (a correction), the older memory
  ranks right below it whenever both answer the query about equally well.
* **Archived is older, not wrong.** Deep recall's penalty acts on retention like any other
  staleness: a plain × 0.5 on a calibrated relevance buries consolidated originals below every
  active memory (measured with ``benchmarks/lifecycle.py``: ``docs/design.md`` §3).
* **Temporal context.** Episodic memories formed next to a strongly matching one (same
  conversation, within ``context_span`` turns) inherit ``context_spread`` of its relevance: the
  answer to a question is often the turn after the one that names its topic.

All functions here are pure: they take ``now`` and never mutate their inputs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import pairwise
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from frozendict import frozendict

from .config import CognitiveMemoryConfig
from .fusion import RankedList, normalize_bm25, reciprocal_rank_fusion, weighted_score_fusion
from .records import STATED_KEY, SUMMARY_KEY, Explanation, MemoryRecord, SearchResult
from .retention import retention
from .versions import Evidence

__all__ = [
    "Candidate",
    "contradiction_losers",
    "effective_exponent",
    "explicit_version_caps",
    "fuse",
    "newer_version_penalties",
    "retention_score",
    "score_candidates",
]

Via = Literal["search", "context", "association"]
_EMPTY: Mapping[str, float] = frozendict()


@dataclass(frozen=True)
class Candidate:
    """A memory found for a query, with what each retriever said about it.

    Attributes:
        memory: The memory as stored.
        vector: Its embedding (used for similarity between candidates); ``None`` for context
            neighbours, which were not found by meaning.
        cosine: Cosine similarity to the query embedding (``None`` when ``vector`` is).
        dense_rank: 1-based rank in the dense list, ``None`` if not in it.
        bm25: Its BM25 score for the query (``None`` in dense mode).
        lexical_rank: 1-based rank in the lexical list, ``None`` if not in it.
        via: ``search`` (found by a retriever), ``context`` (a neighbour of a found episode) or
            ``association`` (reached through a link).
        inherited: For ``context``/``association`` candidates: the relevance they inherit.
        source_id: For ``context``/``association`` candidates: the memory they were reached from.
        stages: What the optional retrieval stages said of it (see
            :attr:`~cogmem.records.Explanation.stages`).
    """

    memory: MemoryRecord
    vector: npt.NDArray[np.float32] | None
    cosine: float | None
    dense_rank: int | None = None
    bm25: float | None = None
    lexical_rank: int | None = None
    via: Via = "search"
    inherited: float = 0.0
    source_id: str | None = None
    stages: Mapping[str, float] = _EMPTY


def retention_score(relevance: float, retention_value: float, alpha: float) -> float:
    """``relevance · R^α`` — seed 001's retention-exponent score.

    >>> round(retention_score(0.6, 0.95, 0.3), 3), round(retention_score(0.9, 0.25, 0.3), 3)
    (0.591, 0.594)
    """
    return float(relevance * retention_value**alpha)


def effective_exponent(memory: MemoryRecord, config: CognitiveMemoryConfig) -> float:
    """α_eff = α · s_type: the exponent applied to this memory's retention."""
    return config.retrieval_score_exponent * config.type_exponent_scale[memory.memory_type]


def fuse(
    candidates: Sequence[Candidate], mode: str, config: CognitiveMemoryConfig
) -> dict[str, float]:
    """The fused relevance in [0, 1] of every candidate found by a retriever.

    * ``dense``: ``max(cos, 0)``.
    * ``lexical``: ``bm25 / max bm25`` over the candidates.
    * ``hybrid`` with ``fusion="weighted"`` (default): ``w · max(cos, 0) + (1 − w) · bm25_norm``.
    * ``hybrid`` with ``fusion="rrf"``: ``Σ w_i / (k + rank_i)`` over the dense and lexical lists,
      divided by ``Σ w_i / (k + 1)``.
    """
    found = [c for c in candidates if c.via == "search"]
    if mode == "dense":
        return {c.memory.id: max(0.0, c.cosine or 0.0) for c in found}
    bm25 = {c.memory.id: c.bm25 or 0.0 for c in found}
    if mode == "lexical":
        return normalize_bm25(bm25)
    if config.fusion == "weighted":
        cosines = {c.memory.id: c.cosine or 0.0 for c in found}
        return weighted_score_fusion(cosines, bm25, dense_weight=config.weighted_dense_weight)
    dense_ids = [c.memory.id for c in sorted(found, key=_dense_key) if c.dense_rank is not None]
    lexical_ids = [
        c.memory.id for c in sorted(found, key=_lexical_key) if c.lexical_rank is not None
    ]
    fused = reciprocal_rank_fusion(
        [
            RankedList(dense_ids, config.rrf_dense_weight),
            RankedList(lexical_ids, config.rrf_lexical_weight),
        ],
        k=config.rrf_k,
    )
    return {c.memory.id: fused.get(c.memory.id, 0.0) for c in found}


def _dense_key(c: Candidate) -> int:
    return c.dense_rank if c.dense_rank is not None else 1 << 30


def _lexical_key(c: Candidate) -> int:
    return c.lexical_rank if c.lexical_rank is not None else 1 << 30


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
) -> dict[str, float]:
    """Facts of one subject about other attributes compete by relevance, not by age.

    A semantic or core memory ``m`` that the query's best candidates read as another attribute
    of the subject of newer facts ``n`` (``(m, n)`` in ``siblings``: "Ana lives in Paris." /
    "Ana is vegetarian.") is scored with the retention of the best retained of them::

        factor(m) = max_n R_n / R_m    (applied as factor^α, > 1 only)

    so that six facts about Ana, written weeks apart, each answer their own question first:
    age orders the versions of one fact (:func:`newer_version_penalties`,
    :func:`explicit_version_caps`), not what is known of one person.

    Returns:
        id -> factor (> 1) for the memories that gain from it.
    """
    kinds = {c.memory.id: c.memory.memory_type for c in candidates}
    out: dict[str, float] = {}
    for older, newer in siblings:
        if kinds.get(older) not in ("semantic", "core") or newer not in retentions:
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


def contradiction_losers(
    candidates: Sequence[Candidate], retentions: Mapping[str, float]
) -> set[str]:
    """The weaker memory of every contradicting pair that are both candidates.

    weaker = lower ``confidence · R`` (seed 000 stage 5); on a tie, the older.
    """
    by_id = {c.memory.id: c.memory for c in candidates}
    losers: set[str] = set()
    for memory in by_id.values():
        for other_id in memory.contradicts:
            other = by_id.get(other_id)
            if other is None:
                continue
            pair = sorted(
                (memory, other),
                key=lambda m: (m.confidence * retentions[m.id], m.created_at, m.id),
            )
            losers.add(pair[0].id)
    return losers


class _Scored(NamedTuple):
    candidate: Candidate
    fused: float
    relevance: float
    retention: float
    alpha: float
    penalties: Mapping[str, float]
    score: float


def score_candidates(
    candidates: Sequence[Candidate],
    *,
    mode: str,
    now: datetime,
    config: CognitiveMemoryConfig,
    limit: int | None = None,
    fused: Mapping[str, float] | None = None,
    evidence: Evidence | None = None,
) -> list[SearchResult]:
    """Score every candidate and return them best first, each with its explanation.

    Args:
        candidates: What the retrievers found, plus context/association neighbours (whose
            relevance is ``inherited``). Superseded memories among them are deep-recall hits.
        mode: ``dense`` | ``lexical`` | ``hybrid``.
        now: The time retention is computed at.
        config: The scoring constants.
        limit: Build results for the best ``limit`` only (every candidate is still scored).
        fused: ``fuse(candidates, mode, config)`` when the caller has it already.
        evidence: What the texts say about pairs of candidates (``config.version_evidence``
            ``"slots"``): updates rank as links do (:func:`explicit_version_caps`); unrelated
            pairs never penalise each other by similarity (:func:`newer_version_penalties`).

    Returns:
        One :class:`SearchResult` per distinct memory, sorted by score (ties: higher relevance,
        then newer, then id).
    """
    if fused is None:
        fused = fuse(candidates, mode, config)
    by_id: dict[str, Candidate] = {}
    relevance: dict[str, float] = {}
    for c in candidates:
        rel = fused.get(c.memory.id, 0.0) if c.via == "search" else c.inherited
        held = by_id.get(c.memory.id)
        if held is None or rel > relevance[c.memory.id]:
            if held is not None and held.stages and not c.stages:
                c = replace(c, stages=held.stages)  # what the stages said of it still holds
            by_id[c.memory.id] = c
            relevance[c.memory.id] = rel
        elif c.stages and not held.stages:
            by_id[c.memory.id] = replace(held, stages=c.stages)
    unique = list(by_id.values())
    retentions = {c.memory.id: retention(c.memory, now, config) for c in unique}
    evidence = evidence or Evidence()
    versions = (
        newer_version_penalties(unique, relevance, retentions, config, evidence.unrelated)
        if config.version_evidence != "links"
        else {}
    )
    weaker = contradiction_losers(unique, retentions)
    fresher = sibling_retention(unique, retentions, evidence.siblings)

    made: list[tuple[Candidate, dict[str, float], float, float]] = []
    for c in unique:
        mid = c.memory.id
        penalties: dict[str, float] = {}
        alpha = effective_exponent(c.memory, config)
        if c.memory.status == "superseded":
            penalties["deep_recall"] = (
                config.deep_recall_penalty**alpha
                if config.deep_recall_scope == "retention"
                else config.deep_recall_penalty
            )
        if mid in versions:
            penalties["newer_version"] = versions[mid][0]
        if mid in weaker:
            penalties["contradiction"] = config.contradiction_penalty
        if mid in fresher:
            penalties["sibling_retention"] = fresher[mid] ** alpha
        value = retention_score(relevance[mid], retentions[mid], alpha)
        for factor in penalties.values():
            value *= factor
        made.append((c, penalties, alpha, value))
    caps = explicit_version_caps(
        unique,
        relevance,
        {c.memory.id: value for c, _, _, value in made},
        config,
        evidence.updates,
    )
    scored: list[_Scored] = []
    for c, penalties, alpha, value in made:
        mid = c.memory.id
        if mid in caps and caps[mid][0] > 1.0:  # the newest version, in its family's best place
            penalties["newest_version"] = caps[mid][0]
            value *= caps[mid][0]
        elif mid in caps:
            factor, newer = caps[mid]
            penalties["newer_version"] = penalties.get("newer_version", 1.0) * factor
            versions[mid] = (penalties["newer_version"], newer)
            value *= factor
        scored.append(
            _Scored(
                c, fused.get(mid, 0.0), relevance[mid], retentions[mid], alpha, penalties, value
            )
        )
    scored = _below_doubts(scored, evidence.doubts, config, versions)
    scored = _below_facts(scored, _outdated(unique, evidence), config)
    scored.sort(
        key=lambda s: (
            -s.score,
            -s.relevance,
            -s.candidate.memory.created_at.timestamp(),
            s.candidate.memory.id,
        )
    )
    return [_result(s, mode, versions) for s in scored[:limit]]


def _below_doubts(
    scored: list[_Scored],
    doubts: Sequence[tuple[str, str]],
    config: CognitiveMemoryConfig,
    versions: dict[str, tuple[float, str]],
) -> list[_Scored]:
    """Each memory a later one may have changed (:attr:`~cogmem.versions.Evidence.doubts`)
    ranked right below it. With ``version_takes_rank``, the doubter whose new value fits it
    best first answers the query as well as it (a change that names no slot is worded away
    from the query): its score is raised by ``relevance(m) / relevance(n)``, named
    ``newest_version``, its own retention kept; then::

        score'(m) = min(score(m), margin · score'(n))

    named ``changed_since`` in its explanation (``newer_version_id`` = ``n``). A doubter
    that is wrong about the slot so leaves the older right below it, never further down."""
    margin = config.version_margin
    if not doubts or margin is None:
        return scored
    at = {s.candidate.memory.id: n for n, s in enumerate(scored)}
    out = list(scored)
    doubted: dict[str, list[str]] = {}
    for old, new in doubts:
        if old in at and new in at:
            doubted.setdefault(old, []).append(new)
    for old in sorted(doubted, key=lambda m: -out[at[m]].score):
        held = out[at[old]]
        new = max(doubted[old], key=lambda n: (out[at[n]].candidate.memory.created_at, n))
        newer = out[at[new]]
        if config.version_takes_rank and held.relevance > newer.relevance > 0:
            lift = held.relevance / newer.relevance
            factor = newer.penalties.get("newest_version", 1.0) * lift
            penalties = {**newer.penalties, "newest_version": factor}
            newer = out[at[new]] = newer._replace(score=newer.score * lift, penalties=penalties)
        cap = margin * newer.score
        versions[old] = (1.0, new)  # named even when it already ranks below the change
        if held.score > cap > 0:
            penalties = {**held.penalties, "changed_since": cap / held.score}
            out[at[old]] = held._replace(score=cap, penalties=penalties)
            versions[old] = (cap / held.score, new)
    return out


def _outdated(candidates: Sequence[Candidate], evidence: Evidence) -> set[str]:
    """The candidates a newer candidate updates: by a link written by dedup
    (``previous_version``), by an update read from the two texts, or as a change that may
    have changed it (a doubt)."""
    found = {c.memory.id for c in candidates}
    linked = {c.memory.previous_version for c in candidates if c.memory.previous_version}
    read = {old for old, new in (*evidence.updates, *evidence.doubts) if new in found}
    return (linked | read) & found


def _below_facts(
    scored: list[_Scored], outdated: Set[str], config: CognitiveMemoryConfig
) -> list[_Scored]:
    """Each exchange that states a fact kept beside it (metadata :data:`STATED_KEY`, set by
    the agent middleware) ranked right below that fact when the fact is ``outdated``
    (:func:`_outdated`) and both are candidates::

        score'(e) = min(score(e), margin · score(f))

    named ``states_fact`` in its explanation. An exchange barely fades (an episode), a fact
    does, and it is the fact that is linked to what changed it since: the exchange in which
    an outdated fact was said must not stand in for it above the fact that changed it. An
    exchange whose fact still holds keeps its own score."""
    margin = config.version_margin
    if margin is None:
        return scored
    score = {s.candidate.memory.id: s.score for s in scored}
    out = []
    for s in scored:
        fact = s.candidate.memory.metadata.get(STATED_KEY)
        cap = margin * score[fact] if fact in outdated and fact in score else None
        if cap is not None and s.score > cap > 0:
            s = s._replace(score=cap, penalties={**s.penalties, "states_fact": cap / s.score})
        out.append(s)
    return out


def _result(s: _Scored, mode: str, versions: Mapping[str, tuple[float, str]]) -> SearchResult:
    c = s.candidate
    score = s.score
    if math.isnan(score):  # cannot happen with validated inputs; keep the invariant explicit
        score = 0.0
    explanation = Explanation(
        mode=mode,
        dense_rank=c.dense_rank,
        cosine=c.cosine,
        lexical_rank=c.lexical_rank,
        bm25=c.bm25,
        fused=s.fused,
        relevance=s.relevance,
        retention=s.retention,
        alpha=s.alpha,
        decay_factor=s.retention**s.alpha,
        penalties=dict(s.penalties),
        via=c.via,
        source_id=c.source_id,
        newer_version_id=versions[c.memory.id][1] if c.memory.id in versions else None,
        score=score,
        stages=c.stages,
    )
    return SearchResult(memory=c.memory, score=score, explanation=explanation)
