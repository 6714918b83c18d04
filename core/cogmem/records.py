"""The records cogmem stores and returns: memories, search results and their explanations.

All records are frozen dataclasses. Functions that "change" a memory return a new record
(``dataclasses.replace``); nothing mutates its inputs.

Times are timezone-aware :class:`~datetime.datetime` in memory and UTC epoch seconds in Chroma.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, get_args

from frozendict import frozendict

__all__ = [
    "MEMORY_TYPES",
    "STATED_KEY",
    "STATUSES",
    "SUMMARY_KEY",
    "Explanation",
    "MemoryRecord",
    "MemoryType",
    "SearchResult",
    "Status",
    "WriteAction",
    "WriteOutcome",
]

#: The metadata key of a consolidation summary (the number of memories it stands for).
SUMMARY_KEY = "consolidated_from"
#: The metadata key of an exchange that states a fact kept beside it (the fact's id): the
#: exchange ranks right below that fact (:func:`cogmem.scoring.score_candidates`).
STATED_KEY = "states_fact"

MemoryType = Literal["episodic", "semantic", "procedural", "core"]
Status = Literal["active", "superseded"]
WriteAction = Literal["stored", "merged", "new_version"]
MEMORY_TYPES: tuple[MemoryType, ...] = get_args(MemoryType)
STATUSES: tuple[Status, ...] = get_args(Status)

_EMPTY: Mapping[str, Any] = frozendict()


@dataclass(frozen=True, slots=True)
class MemoryRecord:
    """One memory, as stored.

    Attributes:
        id: Caller-given or generated identifier, unique within the store.
        text: The memory's text (the Chroma document).
        memory_type: ``episodic`` | ``semantic`` | ``procedural`` | ``core``.
        importance: In [0, 1]; raises initial stability and the decay time constant.
        confidence: In [0, 1]; how much the memory is believed.
        stability: S in [0.01, 1]; grows with spaced recall (design §2).
        created_at: When the memory was formed (UTC).
        last_accessed_at: When it was last returned by a search, or ``None`` if never.
        access_count: How many searches returned it.
        session_ids: The distinct sessions it was seen in, oldest first.
        status: ``active``, or ``superseded`` (by a summary or :meth:`CognitiveMemory.supersede`).
        superseded_by: Id of the memory that replaced it, if any.
        pinned: A pinned memory never decays (R = 1).
        tags: Free labels, filterable.
        namespace: One agent, user or project; searches never cross namespaces.
        links: Associations, other memory id -> weight in (0, 1].
        links_updated_at: When the link weights were last written (they decay from there).
        metadata: Free user metadata (str, int, float or bool values), filterable.
        contradicts: Ids of memories this one contradicts (:meth:`CognitiveMemory.contradict`);
            when both answer a query, the weaker is demoted.
        previous_version: Id of the memory this one updates: write-time dedup found it
            restating that memory with a detail changed (a number, date, name, negation, ...).
            When both answer a query, the older ranks below this one (see
            :mod:`cogmem.scoring`). Both stay stored.
        expires_at: A hard expiry (UTC), or ``None``: from this time on the memory is gone
            for search and ``get`` (decay reorders, expiry removes), and :meth:`maintain`
            deletes it. LangGraph's TTLs are kept here.
    """

    id: str
    text: str
    created_at: datetime
    memory_type: MemoryType = "episodic"
    importance: float = 0.5
    confidence: float = 0.8
    stability: float = 0.25
    last_accessed_at: datetime | None = None
    access_count: int = 0
    session_ids: tuple[str, ...] = ()
    status: Status = "active"
    superseded_by: str | None = None
    pinned: bool = False
    tags: tuple[str, ...] = ()
    namespace: str = "default"
    links: Mapping[str, float] = field(default_factory=lambda: _EMPTY)
    links_updated_at: datetime | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    contradicts: tuple[str, ...] = ()
    previous_version: str | None = None
    expires_at: datetime | None = None

    def __post_init__(self) -> None:
        # Immutable copies so a frozen record really cannot change under the caller; a
        # frozendict (unlike a read-only view) pickles, deep-copies and survives asdict.
        object.__setattr__(self, "links", frozendict(self.links))
        object.__setattr__(self, "metadata", frozendict(self.metadata))

    @property
    def reference_time(self) -> datetime:
        """The time decay is measured from: last access, or creation if never accessed."""
        return self.last_accessed_at or self.created_at

    def expired(self, now: datetime) -> bool:
        """Whether the memory's hard expiry has come: ``expires_at <= now``."""
        return self.expires_at is not None and self.expires_at <= now

    def age_days(self, now: datetime) -> float:
        """Days since :attr:`reference_time` (never negative)."""
        return max(0.0, (now - self.reference_time).total_seconds() / 86400.0)


# The slot setters of MemoryRecord's fields, in declaration order (see assemble_record).
_RECORD_SLOTS = tuple(getattr(MemoryRecord, name).__set__ for name in MemoryRecord.__slots__)


def assemble_record(values: tuple[Any, ...]) -> MemoryRecord:
    """A :class:`MemoryRecord` from ``values`` in field order, taken as they are.

    The fast path of stores that hold records as columns (a frozen dataclass's ``__init__``
    sets each field through ``object.__setattr__`` and copies both mappings, ~9 µs; this takes
    ~2 µs). The caller guarantees what ``__init__`` would: the values are valid, and ``links``
    and ``metadata`` are :class:`~frozendict.frozendict`.
    """
    record = object.__new__(MemoryRecord)
    for put, value in zip(_RECORD_SLOTS, values, strict=True):
        put(record, value)
    return record


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a result scored what it scored.

    ``score = relevance · R^α · Π penalties`` (design §3), where ``α`` is the retention exponent
    applied to this memory (``retrieval_score_exponent · type_exponent_scale[type]``, see
    :mod:`cogmem.scoring`).

    Attributes:
        mode: ``dense`` | ``lexical`` | ``hybrid``.
        dense_rank: 1-based rank in the dense candidate list, ``None`` if not in it.
        cosine: Cosine similarity between query and memory embeddings.
        lexical_rank: 1-based rank in the BM25 candidate list, ``None`` if not in it.
        bm25: The memory's BM25 score for the query (0 when it shares no term).
        fused: What fusion gave a memory a retriever found, in [0, 1] (0 for neighbours).
        relevance: The relevance the score uses, in [0, 1]: ``fused`` for a found memory (or
            another of its subject's group, given out by ``focus``), the inherited share of
            its source's relevance for a neighbour.
        via: How the memory was reached: ``search`` (a retriever found it), ``context`` (it
            was formed next to a found episode) or ``association`` (through a link).
        source_id: The memory it was reached from, for ``context`` and ``association``.
        newer_version_id: The newer memory behind a ``newer_version`` penalty.
        retention: R, in [0, 1].
        alpha: The retention exponent applied (α_eff).
        decay_factor: ``R ** alpha``.
        penalties: Named multiplicative penalties, e.g. ``{"deep_recall": 0.5}``.
        score: The final score.
        stages: What the optional retrieval stages (:mod:`cogmem.stages`) said of it: the
            rank in each list that found it (``"query #"``, ``"expansion 1 #"``,
            ``"hyde #"``), its ``"rank bonus"``, the reranker's ``"rerank"`` score and
            ``"rerank #"``; empty when no stage is on.
        focus: For a memory that names the query's subject, as another of the query's best
            candidates does, the cosine of it and the query with the name masked
            (:mod:`cogmem.focus`); ``None`` otherwise. When the two are read as other facts,
            their relevances are given out again by it.
    """

    mode: str
    dense_rank: int | None
    cosine: float | None
    lexical_rank: int | None
    bm25: float | None
    fused: float
    relevance: float
    retention: float
    alpha: float
    decay_factor: float
    score: float
    penalties: Mapping[str, float] = field(default_factory=lambda: _EMPTY)
    via: str = "search"
    source_id: str | None = None
    newer_version_id: str | None = None
    stages: Mapping[str, float] = field(default_factory=lambda: _EMPTY)
    focus: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "penalties", frozendict(self.penalties))
        object.__setattr__(self, "stages", frozendict(self.stages))

    def as_dict(self) -> dict[str, Any]:
        """A plain dict (JSON-friendly) of every field."""
        return {
            "mode": self.mode,
            "dense_rank": self.dense_rank,
            "cosine": self.cosine,
            "lexical_rank": self.lexical_rank,
            "bm25": self.bm25,
            "fused": self.fused,
            "relevance": self.relevance,
            "retention": self.retention,
            "alpha": self.alpha,
            "decay_factor": self.decay_factor,
            "penalties": dict(self.penalties),
            "via": self.via,
            "source_id": self.source_id,
            "newer_version_id": self.newer_version_id,
            "stages": dict(self.stages),
            "focus": self.focus,
            "score": self.score,
        }

    def _repr_markdown_(self) -> str:
        from .display import explanation_markdown

        return explanation_markdown(self)

    def __str__(self) -> str:
        parts = [f"score {self.score:.4f} = relevance {self.relevance:.4f}"]
        parts.append(f"× R^α {self.retention:.3f}^{self.alpha:.2f}")
        parts.extend(f"× {name} {value:.3f}" for name, value in self.penalties.items())
        ranks = []
        if self.dense_rank is not None and self.cosine is not None:
            ranks.append(f"dense #{self.dense_rank} cos {self.cosine:.3f}")
        if self.lexical_rank is not None and self.bm25 is not None:
            ranks.append(_bm25_part(self.lexical_rank, self.bm25))
        if self.via != "search":
            ranks.append(f"via {self.via} from {self.source_id}")
        if self.newer_version_id is not None:
            ranks.append(f"newer version {self.newer_version_id}")
        ranks.extend(_stage_part(name, value) for name, value in self.stages.items())
        if self.focus is not None:
            ranks.append(f"focus {self.focus:.3f}")
        return " ".join(parts) + (f"  ({'; '.join(ranks)})" if ranks else "")


def _stage_part(name: str, value: float) -> str:
    """``expansion 1 #2``, ``rank bonus 0.008``, ``rerank 7.31``."""
    if name.endswith(" #"):
        return f"{name}{int(value)}"
    return f"{name} {value:.3g}" if name == "rerank" else f"{name} {value:.3f}"


def _bm25_part(rank: int, score: float) -> str:
    """``bm25 #rank score``; a score at or below 0 is said to be what it is.

    BM25's idf (rank_bm25's, see :mod:`cogmem.lexical`) is negative for a word in more than
    half the memories, and so is every score in a store of one or two memories: the rank is
    what counts then, and the text says so instead of printing a bare negative number.
    """
    if score > 0:
        return f"bm25 #{rank} {score:.2f}"
    return f"bm25 #{rank} (score {score:.2f}: its words are in most memories, so idf ≤ 0)"


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    """What one write did (:meth:`CognitiveMemory.write`).

    Attributes:
        id: The memory the write resolved to: the new memory, or the one it was merged into.
        action: ``stored`` (a new memory), ``merged`` (a restatement of ``existing_id``, which
            was reinforced and took the write's tags, metadata and session instead) or
            ``new_version`` (a new memory recorded as the newer version of ``existing_id``).
        existing_id: The memory merged into, or updated; ``None`` for ``stored``.
        changes: What differs from ``existing_id``, readably (``"'3' -> '13'"``, ``"+'not'"``).
    """

    id: str
    action: WriteAction
    existing_id: str | None = None
    changes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One search hit: the memory as it was when scored, its score and why."""

    memory: MemoryRecord
    score: float
    explanation: Explanation

    @property
    def id(self) -> str:
        """The memory id."""
        return self.memory.id

    @property
    def text(self) -> str:
        """The memory text."""
        return self.memory.text

    def _repr_markdown_(self) -> str:
        from .display import result_markdown

        return result_markdown(self)
