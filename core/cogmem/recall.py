"""The search pipeline: from a query to explained results, and what recalling them changes.

:func:`recall` runs one namespace's search as a sequence of small steps, each readable alone::

    candidates      the dense and the lexical list, under one filter        (found by the query)
    newer_versions  the newer versions of what they found, linked by dedup  (design §6)
    widened         each query variant's lists fused in (expansion, HyDE)   (cogmem.stages)
    reranked        the most relevant reordered by a reranker               (cogmem.stages)
    context         episodes formed next to the best-matching episodes      (via="context")
    associations    memories linked to the best-matching ones               (via="association")
    score           relevance · R^α · penalties, explained                  (cogmem.scoring)
    originals       deep recall: an archived original replaces its summary
    diversify       maximal marginal relevance, when asked
    pack            top_k and the token budget                              (cogmem.packing)

and :func:`reinforcement` says how the memories returned are strengthened (spaced recall and
co-recall links), for the caller to apply. Nothing here writes or reads the clock.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from .associations import current_links, spread, strengthen_links
from .checks import check_bool, check_int, check_text
from .config import CognitiveMemoryConfig
from .errors import InvalidInputError, InvalidTypeError
from .filters import Where, build_where, compile_filters
from .namespace import Namespace
from .packing import TokenCounter, mmr_order, pack
from .passages import Passages, rescored
from .read_evidence import read_evidence, subject_focus
from .records import MemoryRecord, SearchResult
from .retention import reinforce
from .scoring import Candidate, fuse, score_candidates
from .stages import (
    Rerank,
    Stages,
    Variant,
    call_expand,
    call_hyde,
    call_rerank,
    fuse_lists,
    reranked,
)
from .store import FloatArray
from .versions import Versions

__all__ = [
    "SEARCH_SETTINGS",
    "Query",
    "associations",
    "candidates",
    "context",
    "diversify",
    "originals",
    "recall",
    "reinforcement",
    "related",
    "search_settings",
]

#: The keyword arguments of :meth:`CognitiveMemory.search` an adapter keeps as settings.
SEARCH_SETTINGS = (
    "mode",
    "filters",
    "deep_recall",
    "token_budget",
    "reinforce",
    "namespace",
    "session_id",
    "min_score",
    "diversity",
)

_MODES = ("dense", "lexical", "hybrid")
# Spreading activation starts from this many of the best-matching candidates.
_ASSOCIATION_SEEDS = 10
# Co-recall links grow among this many of a search's first direct results (bounds link growth).
_CO_RECALL = 5


@dataclass(frozen=True)
class Query:
    """One search, its arguments checked.

    Attributes:
        text: The cue.
        vector: Its embedding.
        mode: ``dense`` | ``lexical`` | ``hybrid``.
        now: The time decay is computed at.
        top_k: At most this many results.
        token_budget: At most this many tokens of memory text (``None``: no budget).
        min_score: Results scoring below this are dropped.
        deep_recall: Superseded memories are candidates too.
        diversity: Order by maximal marginal relevance before packing.
        where: The filter as a Chroma ``where`` clause (the dense list's narrow-filter scan).
        allowed: The same filter as a predicate on records, which also refuses a memory
            expired at ``now``.
        variants: The query's expansions and HyDE text, each searched as a list of its own
            (:mod:`cogmem.stages`); empty when those stages are off.
        rerank: The reranker of the most relevant memories, or ``None``.
        passages: Scores a memory of several passages by its best (:mod:`cogmem.passages`).
    """

    text: str
    vector: FloatArray
    mode: str
    now: datetime
    top_k: int
    token_budget: int | None
    min_score: float
    deep_recall: bool
    diversity: bool
    where: Where
    allowed: Callable[[MemoryRecord], bool]
    variants: tuple[Variant, ...] = ()
    rerank: Rerank | None = None
    passages: Passages | None = None

    @classmethod
    def checked(
        cls,
        config: CognitiveMemoryConfig,
        text: object,
        *,
        now: datetime,
        top_k: int | None,
        token_budget: int | None,
        mode: str | None,
        min_score: float | None,
        deep_recall: bool,
        diversity: bool,
        filters: Mapping[str, Any] | None,
        embed: Callable[[str], FloatArray],
        stages: Stages | None = None,
        embed_document: Callable[[str], FloatArray] | None = None,
        passages: Passages | None = None,
    ) -> Query:
        """A search's arguments checked (``None``: the config's default), and its cue embedded
        with ``embed`` (last, once everything else checked out); then the ``stages`` that
        rewrite the query asked (expansions embedded as queries, a HyDE text as a document,
        with ``embed_document``).

        Raises:
            InvalidInputError / InvalidTypeError: An argument is wrong (names it).
            StageError: A stage failed.
        """
        cue = check_text(text, "query")
        if passages is not None and not isinstance(passages, Passages):
            raise InvalidTypeError(
                f"passages must be a cogmem.Passages, got {type(passages).__name__}"
            )
        search_mode = config.mode if mode is None else mode
        if search_mode not in _MODES:
            raise InvalidInputError(f"mode must be one of {', '.join(_MODES)}; got {search_mode!r}")
        floor = config.min_score if min_score is None else min_score
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or math.isnan(floor):
            raise InvalidTypeError(f"min_score must be a number, got {floor!r}")
        k = check_int(config.top_k if top_k is None else top_k, "top_k")
        budget = (
            config.token_budget if token_budget is None else check_int(token_budget, "token_budget")
        )
        deep = check_bool(deep_recall, "deep_recall")
        spread = check_bool(diversity, "diversity")
        where = build_where(filters, include_superseded=deep)
        passes = compile_filters(filters, include_superseded=deep)

        def allowed(record: MemoryRecord) -> bool:  # expired memories are gone for search
            return passes(record) and not record.expired(now)

        vector = embed(cue)
        stages = stages or Stages()
        variants = [
            Variant(f"expansion {n}", text, embed(text), config.variant_list_weight)
            for n, text in enumerate(
                call_expand(stages.expand, cue) if stages.expand else [], start=1
            )
        ]
        hyde = call_hyde(stages.hyde, cue) if stages.hyde else ""
        if hyde:
            embed_hyde = embed_document or embed
            variants.append(Variant("hyde", hyde, embed_hyde(hyde), config.variant_list_weight))
        return cls(
            cue,
            vector,
            search_mode,
            now,
            k,
            budget,
            float(floor),
            deep,
            spread,
            where,
            allowed,
            tuple(variants),
            stages.rerank,
            passages,
        )


def recall(
    namespace: Namespace,
    query: Query,
    config: CognitiveMemoryConfig,
    count_tokens: TokenCounter,
    versions: Versions | None = None,
) -> list[SearchResult]:
    """The results of ``query`` in ``namespace``, best first, each explained; ``versions``
    reads which of the best candidates update others (design §3)."""
    found = candidates(namespace, query, config)
    found += newer_versions(namespace, query, found, config)
    fused = fuse(found, query.mode, config)  # neighbours found next add nothing to it
    if query.variants:
        found, fused = widened(namespace, query, found, fused, config)
    if query.rerank is not None:
        found, fused = reranked_candidates(query, found, fused, config)
    # what is said of a named subject, not its name, orders the memories that name it; a
    # reranker reads the query and the texts whole, and is left to
    focus = (
        subject_focus(query.text, found, fused, config, versions)
        if query.rerank is None and not query.deep_recall
        else {}
    )
    found += context(namespace, found, fused, query.allowed, config)
    found += associations(namespace, found, fused, query.allowed, query.now, config)
    # Without a token budget or diversity, packing takes the first k: explain only those.
    plain = query.token_budget is None and not query.diversity and not query.deep_recall
    # Deep recall asks for what was: a newest version does not take an older one's place.
    scoring = config.replace(version_takes_rank=False) if query.deep_recall else config
    ranked = score_candidates(
        found,
        mode=query.mode,
        now=query.now,
        config=scoring,
        limit=query.top_k if plain else None,
        fused=fused,
        focus=focus,
        evidence=None
        if query.deep_recall
        else read_evidence(namespace, found, fused, config, versions),
    )
    ranked = [r for r in ranked if related(r)]
    if query.deep_recall:
        ranked = originals(ranked)
    if query.diversity:
        ranked = diversify(namespace, ranked, found, config)
    return pack(
        ranked,
        top_k=query.top_k,
        token_budget=query.token_budget,
        min_score=query.min_score,
        count_tokens=count_tokens,
    )


def related(result: SearchResult) -> bool:
    """Whether anything ties a result to the query: a word in common (it is on the lexical
    list), a meaning not opposite to it (cosine > 0), or the memory it was reached from. A
    dense list always fills up, so in a small store it holds memories of nothing alike."""
    e = result.explanation
    return e.via != "search" or e.lexical_rank is not None or (e.cosine or 0.0) > 0.0


def candidates(
    namespace: Namespace, query: Query, config: CognitiveMemoryConfig
) -> list[Candidate]:
    """The dense and lexical lists under one filter, each up to ``k_dense``/``k_sparse``.

    Chroma is asked for ids, distances and embeddings only (records come from the namespace's
    index), unfiltered (a filtered vector query is a scan there), and filtered here; when the
    filter leaves fewer than ``k_dense``, four times as many are asked for, and only if that is
    still short does Chroma run the filtered query. Held adds are scanned exactly beside it.
    Chroma's first query runs on a thread of its own while BM25 matches the words.
    """
    records = namespace.records
    size = len(records)
    if size == 0:
        return []
    # id -> its record if held and passing the filter, else None. Records are built from
    # columns, once each, a batch at a time.
    kept: dict[str, MemoryRecord | None] = {}

    def admit(ids: Iterable[str]) -> None:
        new = list(dict.fromkeys(i for i in ids if i not in kept))
        for memory_id, record in zip(new, records.records_of(new), strict=True):
            kept[memory_id] = record if record is not None and query.allowed(record) else None

    dense: list[tuple[str, float]] = []
    seen: dict[str, FloatArray] = {}  # vectors Chroma's query returned
    want = min(size, config.k_dense)
    # Chroma's query (if it answers) runs beside the BM25 match.
    soon = (
        namespace.nearest_soon(query.vector[None, :], want, found_vectors=seen)
        if query.mode in ("dense", "hybrid")
        else None
    )
    tokens = namespace.tokens(query.text)
    lexical: list[tuple[str, float]] = []
    if query.mode in ("lexical", "hybrid"):
        for chunk in namespace.ranked(tokens, config.k_sparse):
            admit(i for i, _ in chunk)
            lexical += [(i, s) for i, s in chunk if kept[i]]
            if len(lexical) >= config.k_sparse:
                break
        lexical = lexical[: config.k_sparse]
    # The words-only hits' vectors are read (from Chroma, aside) while the dense list is
    # taken; which hits are words-only is not known yet, so every lexical hit is asked for.
    early = namespace.vectors_soon([i for i, _ in lexical]) if soon is not None else None
    if soon is not None:

        def passing(found: list[tuple[str, float]]) -> list[tuple[str, float]]:
            admit(i for i, _ in found)
            return [(i, c) for i, c in found if kept[i]]

        nearest = soon()[0]
        dense = passing(nearest)
        if len(dense) < want and len(nearest) < size:  # the filter left too few: ask for more
            nearest = namespace.nearest(
                query.vector[None, :], min(size, 4 * want), found_vectors=seen
            )[0]
            dense = passing(nearest)
        if len(dense) < want and len(nearest) < size:  # a narrow filter: Chroma's scan
            dense = passing(namespace.nearest_where(query.vector, want, query.where))
        dense = dense[:want]
    cosine = dict(dense)
    keep = list(dict.fromkeys([i for i, _ in dense] + [i for i, _ in lexical]))
    chosen = {i: kept.get(i) or records[i] for i in keep}
    dense_rank = {i: n for n, (i, _) in enumerate(dense, start=1)}
    lexical_rank = {i: n for n, (i, _) in enumerate(lexical, start=1)}
    bm25 = dict(lexical)
    if query.mode != "dense":
        missing = [i for i in keep if i not in bm25]
        if missing:
            bm25.update(namespace.bm25_scores(tokens, missing))
    # Vectors are read only where they are used: the cosine of a lexical-only hit, and the
    # similarity between versions when facts are among the candidates.
    facts = any(r.memory_type in ("semantic", "core") for r in chosen.values())
    need = keep if facts else [i for i in keep if i not in cosine]
    vectors = {i: seen[i] for i in need if i in seen}
    if early is not None:
        read = early()
        vectors.update((i, read[i]) for i in need if i not in vectors and i in read)
    vectors.update(namespace.vectors([i for i in need if i not in vectors]))
    lexical_only = {i: vectors[i] for i in keep if i not in cosine and i in vectors}
    cosine.update(_cosines(query.vector, lexical_only))
    if query.passages is not None:
        cosine, dense_rank = rescored(
            query.vector, query.passages, chosen.values(), cosine, dense_rank
        )
    return [
        Candidate(
            memory=chosen[i],
            vector=vectors.get(i),
            cosine=cosine[i],
            dense_rank=dense_rank.get(i),
            bm25=bm25.get(i) if query.mode != "dense" else None,
            lexical_rank=lexical_rank.get(i),
        )
        for i in keep
        if i in cosine
    ]


def newer_versions(
    namespace: Namespace, query: Query, found: list[Candidate], config: CognitiveMemoryConfig
) -> list[Candidate]:
    """The newer versions (write-time links, followed to the newest) of the memories the query
    found that it did not find itself: a correction worded away from the query still answers
    it, and must be there to come first. Each is explained against the query (its cosine and
    BM25), with no rank in either list."""
    known = {c.memory.id for c in found}
    records = namespace.records
    wanted: list[str] = []
    frontier = [c.memory.id for c in found]
    while frontier and len(wanted) < config.version_candidates:
        following = [n for m in frontier for n in records.newer_versions(m) if n not in known]
        following = list(dict.fromkeys(following))
        known.update(following)
        wanted += following
        frontier = following
    held = [r for r in records.records_of(wanted) if r is not None and query.allowed(r)]
    if not held:
        return []
    vectors = namespace.vectors([r.id for r in held])
    cosine = _cosines(query.vector, {r.id: v for r in held if (v := vectors.get(r.id)) is not None})
    bm25 = (
        namespace.bm25_scores(namespace.tokens(query.text), [r.id for r in held])
        if query.mode != "dense"
        else {}
    )
    return [
        Candidate(
            memory=r,
            vector=vectors.get(r.id),
            cosine=cosine[r.id],
            bm25=bm25.get(r.id) if query.mode != "dense" else None,
        )
        for r in held
        if r.id in cosine
    ]


def widened(
    namespace: Namespace,
    query: Query,
    found: list[Candidate],
    fused: Mapping[str, float],
    config: CognitiveMemoryConfig,
) -> tuple[list[Candidate], dict[str, float]]:
    """The candidates and relevance once each query variant's list is fused in
    (:func:`cogmem.stages.fuse_lists`). A memory only a variant found is explained against
    the query itself: its cosine and BM25 for the query, no rank in the query's lists."""
    known = {c.memory.id: c for c in found}
    lists: list[tuple[str, float, Mapping[str, float]]] = [
        ("query", config.query_list_weight, fused)
    ]
    for variant in query.variants:
        asked = replace(query, text=variant.text, vector=variant.vector, variants=())
        theirs = candidates(namespace, asked, config)
        lists.append((variant.name, variant.weight, fuse(theirs, query.mode, config)))
        for c in theirs:
            known.setdefault(c.memory.id, replace(c, dense_rank=None, lexical_rank=None))
    new = [i for i, c in known.items() if i not in fused]
    if new:
        tokens = namespace.tokens(query.text)
        bm25 = namespace.bm25_scores(tokens, new) if query.mode != "dense" else {}
        cosine = _cosines(query.vector, {i: v for i in new if (v := known[i].vector) is not None})
        for i in new:
            known[i] = replace(
                known[i], cosine=cosine.get(i, 0.0), bm25=bm25.get(i) if bm25 else None
            )
    relevance, notes = fuse_lists(lists, config.rank_bonus_first, config.rank_bonus_top3)
    return [replace(c, stages=notes.get(i, {})) for i, c in known.items()], relevance


def reranked_candidates(
    query: Query,
    found: list[Candidate],
    fused: Mapping[str, float],
    config: CognitiveMemoryConfig,
) -> tuple[list[Candidate], dict[str, float]]:
    """The ``k_rerank`` most relevant candidates reordered by the query's reranker
    (:func:`cogmem.stages.reranked`); the rest as they were."""
    texts = {c.memory.id: c.memory.text for c in found}
    top = sorted(fused, key=lambda i: (-fused[i], i))[: config.k_rerank]
    if query.rerank is None or not top:
        return found, dict(fused)
    scores = call_rerank(query.rerank, query.text, [texts[i] for i in top])
    relevance, notes = reranked(fused, dict(zip(top, scores, strict=True)))
    return [
        replace(c, stages={**c.stages, **notes[c.memory.id]}) if c.memory.id in notes else c
        for c in found
    ], relevance


def _cosines(query: FloatArray, vectors: Mapping[str, FloatArray]) -> dict[str, float]:
    """``cos = (v · q) / (|v| |q|)`` of each vector (0 for a zero vector)."""
    if not vectors:
        return {}
    matrix = np.stack(list(vectors.values()))
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query))
    sims = (matrix @ query) / np.where(norms > 0, norms, 1.0)
    return dict(zip(vectors, sims.tolist()))


def context(
    namespace: Namespace,
    found: list[Candidate],
    fused: Mapping[str, float],
    allowed: Callable[[MemoryRecord], bool],
    config: CognitiveMemoryConfig,
) -> list[Candidate]:
    """Episodes formed right before or after the best-matching episodes (temporal context).

    A neighbour within ``context_span`` places of a seed on the namespace's timeline and
    ``context_window_seconds`` of it in time inherits ``context_spread`` × the seed's fused
    relevance. Its cosine is not computed (it was not found by meaning).
    """
    if config.context_spread <= 0 or config.context_span <= 0 or config.context_seeds <= 0:
        return []
    seeds = sorted(
        (c for c in found if c.memory.memory_type == "episodic"),
        key=lambda c: -fused.get(c.memory.id, 0.0),
    )[: config.context_seeds]
    reached: list[tuple[str, float, str]] = []  # (neighbour, inherited, seed)
    for seed in seeds:
        inherited = config.context_spread * fused.get(seed.memory.id, 0.0)
        for neighbour in namespace.neighbours(
            seed.memory.id, config.context_span, config.context_window_seconds
        ):
            reached.append((neighbour, inherited, seed.memory.id))
    known = {c.memory.id: c.memory for c in found}
    built = namespace.records.records_of([n for n, _, _ in reached if n not in known])
    known.update((r.id, r) for r in built if r is not None)
    return [
        Candidate(
            memory=known[neighbour],
            vector=None,
            cosine=None,
            via="context",
            inherited=inherited,
            source_id=seed_id,
        )
        for neighbour, inherited, seed_id in reached
        if neighbour in known and allowed(known[neighbour])
    ]


def associations(
    namespace: Namespace,
    found: list[Candidate],
    fused: Mapping[str, float],
    allowed: Callable[[MemoryRecord], bool],
    now: datetime,
    config: CognitiveMemoryConfig,
) -> list[Candidate]:
    """Memories linked to the best-matching ones (spreading activation, design §6): each
    inherits ``relevance(seed) · Π (w · 0.5)`` along links of weight ≥ ``link_threshold``."""
    if config.graph_expansion_hops <= 0:
        return []
    direct = {c.memory.id: c.memory for c in found if c.via == "search"}
    seeds = dict(sorted(fused.items(), key=lambda kv: -kv[1])[:_ASSOCIATION_SEEDS])
    if not any(direct[i].links for i in seeds if i in direct):
        return []
    records = namespace.records

    def neighbours(memory_id: str) -> dict[str, float]:
        record = direct.get(memory_id) or records.get(memory_id)
        if record is None:
            return {}
        return {o: w for o, w in current_links(record, now, config).items() if o in records}

    out: list[Candidate] = []
    for other, (inherited, origin) in spread(seeds, neighbours, config).items():
        record = records[other]
        if allowed(record):
            out.append(
                Candidate(
                    memory=record,
                    vector=None,
                    cosine=None,
                    via="association",
                    inherited=inherited,
                    source_id=origin,
                )
            )
    return out


def originals(ranked: list[SearchResult]) -> list[SearchResult]:
    """Deep recall: a summary gives way when one of the originals it replaced is found.

    A summary and its originals say the same thing, and deep recall asks for the originals.
    (A newer version from ``supersede()`` is not a summary: it keeps its place.)
    """
    opened = {(r.memory.superseded_by, r.id) for r in ranked if r.memory.superseded_by}
    return [r for r in ranked if not any((r.id, original) in opened for original in r.memory.links)]


def diversify(
    namespace: Namespace,
    ranked: list[SearchResult],
    found: list[Candidate],
    config: CognitiveMemoryConfig,
) -> list[SearchResult]:
    """``ranked`` in maximal-marginal-relevance order (λ = ``mmr_lambda``) on embeddings."""
    vectors = {c.memory.id: c.vector for c in found if c.vector is not None}
    vectors.update(namespace.vectors([r.id for r in ranked if r.id not in vectors]))
    ranked = [r for r in ranked if r.id in vectors]
    return mmr_order(ranked, [vectors[r.id] for r in ranked], lambda_=config.mmr_lambda)


def reinforcement(
    results: list[SearchResult],
    now: datetime,
    config: CognitiveMemoryConfig,
    session_id: str | None,
) -> list[MemoryRecord]:
    """The returned memories as recalling them leaves them: each reinforced (spaced recall;
    half the gain for one reached through a link), and the first few the query itself found
    linked to each other (co-recall)."""
    updated = [
        reinforce(
            r.memory,
            now,
            config,
            session_id=session_id,
            via_association=r.explanation.via == "association",
        )
        for r in results
    ]
    direct = [i for i, r in enumerate(results) if r.explanation.via == "search"]
    linked = direct[:_CO_RECALL]
    if len(linked) >= 2:
        strengthened = strengthen_links([updated[i] for i in linked], now, config)
        for i, record in zip(linked, strengthened):
            updated[i] = record
    return updated


def search_settings(owner: object, **overrides: Any) -> dict[str, Any]:
    """The keyword arguments of :meth:`CognitiveMemory.search` that ``owner`` (an adapter)
    holds as attributes of the same names (:data:`SEARCH_SETTINGS`, those it has), with
    ``overrides`` on top: one place that forwards an adapter's settings."""
    found = {name: getattr(owner, name) for name in SEARCH_SETTINGS if hasattr(owner, name)}
    found.update(overrides)
    return found
