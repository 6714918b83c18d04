"""``RetentionPostprocessor``: cogmem's decay applied to nodes from any LlamaIndex retriever.

For each node, with its retriever's score as the relevance (design §2–3)::

    score' = relevance · R^(α · s_type)
    R      = max(floor_type, exp(-Δt / (S · B · β_type)))      (pinned: R = 1)
    Δt     = days since the node's last access (its creation if it has none), at ``now``

``S``, ``B``, ``β_type``, the floor, ``α`` and ``s_type`` are cogmem's
(:class:`cogmem.CognitiveMemoryConfig`), computed by :func:`cogmem.retention.retention`,
:func:`cogmem.scoring.effective_exponent` and :func:`cogmem.retention_score`; nothing is
re-implemented here. The node's type, importance, stability and pinning come from its metadata
when present, else from the defaults below.

Why not ``TimeWeightedPostprocessor``: it *adds* a recency term to the score,
``score + (1 − time_decay)^hours``, whose default ``time_decay=0.99`` halves every
``ln 0.5 / ln 0.01`` h ≈ 9 minutes; it turns a score of 0.0 (or ``None``) into 1.0 before adding,
treats a node with no timestamp as accessed just now (the largest boost), keeps only ``top_k=1``
node by default, and writes the access time into the node's metadata. Here decay *multiplies*
(a relevant old node outranks an irrelevant new one, a score of 0.0 stays 0.0), is measured in
days with a half-life of weeks to months, leaves undated nodes as they were, keeps every node
unless ``top_n`` is set, and changes nothing outside the nodes it returns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timezone, tzinfo
from typing import Any, Literal

from llama_index.core.bridge.pydantic import Field
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import InstanceOf

from cogmem import CognitiveMemoryConfig, InvalidInputError, InvalidTypeError, MemoryRecord
from cogmem.records import MEMORY_TYPES
from cogmem.retention import MAX_STABILITY, MIN_STABILITY, initial_stability, retention
from cogmem.retention import half_life_days as _half_life_days
from cogmem.scoring import effective_exponent, retention_score

from ._convert import check_now, current_time, iso, parse_timestamp
from .errors import NodeMetadataError

__all__ = ["RetentionPostprocessor"]

MemoryType = Literal["episodic", "semantic", "procedural", "core"]


class RetentionPostprocessor(BaseNodePostprocessor):
    """Re-rank nodes from any retriever by ``score · R^α``: cogmem's retention, from metadata.

    Put it after any retriever (a ``VectorStoreIndex`` on Chroma, BM25, a fusion retriever)::

        engine = index.as_query_engine(node_postprocessors=[RetentionPostprocessor()])

    Each node's timestamps are read from its metadata (``created_at_key``,
    ``last_accessed_at_key``; ISO 8601 text, ``datetime`` or epoch seconds), its memory type,
    importance, stability and pinning likewise when the keys are present. The node's score is
    the relevance: ``None`` counts as 1.0 (LlamaIndex's own convention), a negative score as 0
    (cogmem's relevance is never negative); 0.0 stays 0.0. A node with no timestamp keeps its
    score and is not decayed. Every node returned is a copy carrying the computation under
    ``explanation_key`` in its metadata (kept out of the LLM's and the embedder's view);
    the input nodes are not modified.

    Nodes from a :class:`~llamaindex_cogmem.CognitiveMemoryRetriever` are scored by retention
    already; this postprocessor is for nodes that are not.

    Attributes:
        created_at_key: Metadata key of the creation time (``None``: not read).
        last_accessed_at_key: Metadata key of the last access time (``None``: not read). Decay
            runs from the last access when there is one, else from creation.
        memory_type_key: Metadata key of the cogmem memory type (``None``: not read).
        importance_key: Metadata key of the importance in [0, 1] (``None``: not read).
        stability_key: Metadata key of the stability S in [0.01, 1] (``None``: not read;
            default S₀ = 0.1 + 0.3 · importance).
        pinned_key: Metadata key of a bool that, when true, exempts the node from decay.
        default_memory_type: The type of nodes without one. ``semantic`` by default: documents
            state facts (β = 240 days, decay at full α); ``episodic`` decays in the score at a
            tenth of α, ``procedural`` never.
        default_importance: The importance of nodes without one (default: the config's, 0.5).
        config: cogmem's constants (β_type, floors, α, s_type, decay model).
        now: The current time: a timezone-aware datetime, epoch seconds (as
            ``TimeWeightedPostprocessor`` takes), or a clock (``() -> datetime``); default the
            wall clock at each call.
        naive_timezone: The zone of timestamps written without one (e.g. ``"2026-05-01"``, as
            ``SimpleDirectoryReader`` writes dates); default UTC, ``None`` rejects them.
        top_n: Keep only the best ``top_n`` nodes (default: all, re-ordered).
        explanation_key: Metadata key the explanation is written under.
    """

    created_at_key: str | None = "created_at"
    last_accessed_at_key: str | None = "last_accessed_at"
    memory_type_key: str | None = "memory_type"
    importance_key: str | None = "importance"
    stability_key: str | None = "stability"
    pinned_key: str | None = "pinned"
    default_memory_type: MemoryType = "semantic"
    default_importance: float | None = Field(default=None, ge=0.0, le=1.0)
    config: InstanceOf[CognitiveMemoryConfig] = Field(
        default_factory=CognitiveMemoryConfig, exclude=True
    )
    now: Any = Field(default=None, exclude=True)
    naive_timezone: InstanceOf[tzinfo] | None = Field(default=timezone.utc, exclude=True)
    top_n: int | None = Field(default=None, ge=1)
    explanation_key: str = Field(default="retention_explanation", min_length=1)

    def __init__(self, **data: Any) -> None:
        super().__init__(**data)
        check_now(self.now)

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's serialisation name."""
        return "RetentionPostprocessor"

    def _postprocess_nodes(
        self,
        nodes: list[NodeWithScore],
        query_bundle: QueryBundle | None = None,
    ) -> list[NodeWithScore]:
        """Re-score every node by retention at ``now`` and sort, best first (stable).

        Raises:
            NodeMetadataError: A node's metadata holds a value that cannot be read (names the
                node, the key and the value).
        """
        moment = current_time(self.now)
        scored = [self._rescore(n, moment) for n in nodes]
        ranked = sorted(scored, key=lambda n: -(1.0 if n.score is None else n.score))
        return ranked if self.top_n is None else ranked[: self.top_n]

    # ------------------------------------------------------------------ one node
    def _rescore(self, item: NodeWithScore, moment: datetime) -> NodeWithScore:
        node = item.node
        label = f"node {node.node_id!r}"
        meta: Mapping[str, Any] = node.metadata or {}
        created = self._time(meta, self.created_at_key, label)
        accessed = self._time(meta, self.last_accessed_at_key, label)
        formed = created if created is not None else accessed
        if formed is None:
            keys = [k for k in (self.created_at_key, self.last_accessed_at_key) if k]
            return self._copy(
                item,
                item.score,
                {
                    "score": item.score,
                    "original_score": item.score,
                    "retention": None,
                    "note": f"no timestamp in metadata {keys}: not decayed, score kept",
                },
            )
        relevance, note = self._relevance(item.score, label)
        importance = self._importance(meta, label)
        record = MemoryRecord(
            id=node.node_id,
            text="",
            created_at=formed,
            last_accessed_at=accessed,
            memory_type=self._memory_type(meta, label),
            importance=importance,
            stability=self._stability(meta, importance, label),
            pinned=self._pinned(meta, label),
        )
        r = retention(record, moment, self.config)
        alpha = effective_exponent(record, self.config)
        score = retention_score(relevance, r, alpha)
        explanation = {
            "score": score,
            "original_score": item.score,
            "relevance": relevance,
            "retention": r,
            "alpha": alpha,
            "decay_factor": r**alpha,
            "age_days": record.age_days(moment),
            "measured_from": "last_accessed_at" if accessed is not None else "created_at",
            "reference_time": iso(record.reference_time),
            "now": iso(moment),
            "memory_type": record.memory_type,
            "importance": record.importance,
            "stability": record.stability,
            "pinned": record.pinned,
            "half_life_days": _half_life_days(
                record.memory_type, record.importance, self.config, record.stability
            ),
            "note": note,
        }
        return self._copy(item, score, explanation)

    def _copy(
        self, item: NodeWithScore, score: float | None, explanation: dict[str, Any]
    ) -> NodeWithScore:
        node = item.node
        key = self.explanation_key
        node = node.model_copy(
            update={
                "metadata": {**(node.metadata or {}), key: explanation},
                "excluded_llm_metadata_keys": _with(node.excluded_llm_metadata_keys, key),
                "excluded_embed_metadata_keys": _with(node.excluded_embed_metadata_keys, key),
            }
        )
        return NodeWithScore(node=node, score=score)

    # ------------------------------------------------------------------ metadata readers
    def _time(self, meta: Mapping[str, Any], key: str | None, label: str) -> datetime | None:
        if key is None or meta.get(key) is None:
            return None
        value = meta[key]
        if isinstance(value, str) and not value.strip():
            return None
        name = f"{label}: metadata[{key!r}]"
        try:
            return parse_timestamp(value, name, naive_timezone=self.naive_timezone)
        except (InvalidInputError, InvalidTypeError) as exc:
            raise NodeMetadataError(str(exc)) from exc

    def _relevance(self, score: float | None, label: str) -> tuple[float, str | None]:
        if score is None:
            return 1.0, "the node had no score: relevance taken as 1.0"
        if math.isnan(score):
            raise NodeMetadataError(f"{label} has a NaN score")
        if score < 0:
            return 0.0, f"negative score {score:g} taken as relevance 0"
        return float(score), None

    def _memory_type(self, meta: Mapping[str, Any], label: str) -> MemoryType:
        key = self.memory_type_key
        if key is None or meta.get(key) is None:
            return self.default_memory_type
        value = meta[key]
        if value not in MEMORY_TYPES:
            raise NodeMetadataError(
                f"{label}: metadata[{key!r}] = {value!r} is not a memory type; "
                f"known: {', '.join(MEMORY_TYPES)} (set memory_type_key=None to ignore the key)"
            )
        chosen: MemoryType = value
        return chosen

    def _importance(self, meta: Mapping[str, Any], label: str) -> float:
        key = self.importance_key
        if key is None or meta.get(key) is None:
            default = self.default_importance
            return self.config.default_importance if default is None else default
        return _unit(meta[key], f"{label}: metadata[{key!r}]", 0.0, 1.0)

    def _stability(self, meta: Mapping[str, Any], importance: float, label: str) -> float:
        key = self.stability_key
        if key is None or meta.get(key) is None:
            return initial_stability(importance, self.config)
        return _unit(meta[key], f"{label}: metadata[{key!r}]", MIN_STABILITY, MAX_STABILITY)

    def _pinned(self, meta: Mapping[str, Any], label: str) -> bool:
        key = self.pinned_key
        if key is None or meta.get(key) is None:
            return False
        value = meta[key]
        if not isinstance(value, bool):
            raise NodeMetadataError(
                f"{label}: metadata[{key!r}] = {value!r} must be a bool (pinned or not)"
            )
        return value


def _unit(value: object, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NodeMetadataError(f"{name} = {value!r} must be a number in [{low:g}, {high:g}]")
    number = float(value)
    if math.isnan(number) or not low <= number <= high:
        raise NodeMetadataError(f"{name} = {value!r} must be in [{low:g}, {high:g}]")
    return number


def _with(keys: list[str], key: str) -> list[str]:
    return keys if key in keys else [*keys, key]
