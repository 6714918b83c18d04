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
               sibling_retention  (max_n R_n / R_m)^α  (> 1) a fact side by side with newer
                               facts n (another attribute of their subject, or their attribute
                               of another person or thing) competes with them by relevance, not
                               by age (:mod:`cogmem.version_order`)

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
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt
from frozendict import frozendict

from .config import CognitiveMemoryConfig
from .focus import refocused
from .fusion import RankedList, normalize_bm25, reciprocal_rank_fusion, weighted_score_fusion
from .records import STATED_KEY, Explanation, MemoryRecord, SearchResult
from .retention import retention
from .version_order import explicit_version_caps, newer_version_penalties, sibling_retention
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
    "sibling_retention",
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
    focus: float | None = None


def score_candidates(
    candidates: Sequence[Candidate],
    *,
    mode: str,
    now: datetime,
    config: CognitiveMemoryConfig,
    limit: int | None = None,
    fused: Mapping[str, float] | None = None,
    evidence: Evidence | None = None,
    focus: Mapping[str, float] | None = None,
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
        focus: The focus cosine of the candidates that name the query's subject
            (:func:`cogmem.focus.focus_cosines`): the relevances of those the evidence reads
            as other facts are given out again by it (:func:`cogmem.focus.refocused`).

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
    evidence = evidence or Evidence()
    focus = focus or {}
    if focus:
        relevance = refocused(relevance, focus, evidence.unrelated)
    retentions = {c.memory.id: retention(c.memory, now, config) for c in unique}
    versions = (
        newer_version_penalties(unique, relevance, retentions, config, evidence.unrelated)
        if config.version_evidence != "links"
        else {}
    )
    weaker = contradiction_losers(unique, retentions)
    fresher = sibling_retention(
        unique, retentions, evidence.siblings, evidence.unsettling, relevance
    )

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
                c,
                fused.get(mid, 0.0),
                relevance[mid],
                retentions[mid],
                alpha,
                penalties,
                value,
                focus.get(mid),
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
        focus=s.focus,
    )
    return SearchResult(memory=c.memory, score=score, explanation=explanation)
