"""Every tunable number of cogmem, with the defaults of design §2–6, validated on construction."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Literal

from frozendict import frozendict

from .errors import ConfigError

__all__ = ["CognitiveMemoryConfig", "DecayModel", "Fusion", "Mode"]

Mode = Literal["dense", "lexical", "hybrid"]
Fusion = Literal["rrf", "weighted"]
DecayModel = Literal["exponential", "power"]

_MODES = ("dense", "lexical", "hybrid")
_FUSIONS = ("rrf", "weighted")
_DECAY_MODELS = ("exponential", "power")
_TYPES = ("episodic", "semantic", "procedural", "core")

_DEFAULT_BETA: Mapping[str, float] = frozendict(
    {"episodic": 45.0, "semantic": 240.0, "procedural": math.inf, "core": 120.0}
)
_DEFAULT_SCALE: Mapping[str, float] = frozendict(
    {"episodic": 0.1, "semantic": 1.0, "procedural": 1.0, "core": 1.0}
)
_DEFAULT_FLOOR: Mapping[str, float] = frozendict(
    {"episodic": 0.02, "semantic": 0.02, "procedural": 0.02, "core": 0.60}
)


@dataclass(frozen=True)
class CognitiveMemoryConfig:
    """Configuration of a :class:`~cogmem.CognitiveMemory`.

    Every field is validated when the config is built; a bad value raises
    :class:`~cogmem.errors.ConfigError` naming the field. Use :meth:`replace` to derive variants.

    Retention (design §2)::

        R = max(floor, exp(-Δt / (S · B · β_type)))             decay_model="exponential"
        R = max(floor, (1 + Δt / (S · B · β_type)) ** -γ)       decay_model="power"
        S₀ = clamp(stability_base + stability_per_importance · importance, 0.01, 1)
        B  = min(1 + importance_boost · importance, importance_boost_cap)

    Reinforcement on recall::

        S += reinforcement_gain · min(reinforcement_max_multiplier, Δt / reinforcement_spacing_days)

    Scoring (design §3)::

        score = relevance · R^(α · s_type) · penalties       (see cogmem.scoring)
    """

    # --- retention (§2) ---
    decay_model: DecayModel = "exponential"
    power_gamma: float = 1.4427
    type_time_constant_days: Mapping[str, float] = field(default_factory=lambda: _DEFAULT_BETA)
    retention_floor: Mapping[str, float] = field(default_factory=lambda: _DEFAULT_FLOOR)
    stability_base: float = 0.1
    stability_per_importance: float = 0.3
    importance_boost: float = 2.0
    importance_boost_cap: float = 3.0
    default_importance: float = 0.5
    default_confidence: float = 0.8
    # The type of a memory written without one: "auto" (default) reads the text, a statement
    # of how things are ("I live in Berlin.", "Ana is vegetarian.") is semantic, anything else
    # (an event, a conversation turn, a fragment) episodic (design §1).
    default_memory_type: str = "auto"

    # --- reinforcement and core promotion (§2) ---
    reinforce_on_search: bool = True
    reinforcement_flush_size: int = 64
    # How stale a client= store's view of other writers may get, in seconds: before a read,
    # the catch-up with Chroma (see CognitiveMemory) runs only if this long has passed since
    # the last one (two Chroma calls). None: 0 for a client= store (a
    # server other processes share), 1.0 for a path= folder, which never catches up (it is
    # locked: nothing else writes it) and uses this only to age its held adds (below).
    sync_interval_seconds: float | None = None
    # Small adds are written to Chroma in groups of up to this many (0: each at once). A Chroma
    # add costs 4-8 ms whatever its size; until its group is written a memory is searchable from
    # the in-memory index and, on a path= folder, durable in a journal (see cogmem.held).
    # Groups are written when full, when older than sync_interval_seconds (folder stores), and
    # before anything else reads or changes Chroma. client= stores always write at once.
    add_flush_size: int = 64
    # At most this many namespaces are kept open (their index in RAM, their journal and vector
    # files open); after a call, the least recently used beyond it are written out and closed,
    # and opened again from their saved index when next used. Bounds RAM and file descriptors
    # for stores with many users (one namespace each).
    open_namespaces: int = 32
    # Namespaces other than the default one share two Chroma collections (a user costs what
    # it holds, not an HNSW index of its own: cogmem.shared_namespaces). False: each new one
    # gets a collection of its own. Namespaces already made keep their layout either way.
    pack_namespaces: bool = True
    # A folder store's Chroma keeps at most this many HNSW indexes loaded for queries (about
    # 3 MB of RAM and four open files each); Chroma's own choice, file limit // 5, assumes it is
    # alone in the process (cogmem.clients.index_cache).
    loaded_indexes: int = 16
    # A folder store refuses a write (DiskFullError, nothing written) that would leave less than
    # this much disk free: Chroma's embedded store does not survive a full disk (cogmem.disk).
    disk_reserve_mb: float = 64.0
    reinforcement_gain: float = 0.1
    association_reinforcement_gain: float = 0.05
    reinforcement_spacing_days: float = 7.0
    reinforcement_max_multiplier: float = 2.0
    core_promotion_access_count: int = 10
    core_promotion_stability: float = 0.85
    core_promotion_sessions: int = 2

    # --- scoring (§3) ---
    retrieval_score_exponent: float = 0.3
    type_exponent_scale: Mapping[str, float] = field(default_factory=lambda: _DEFAULT_SCALE)
    version_exponent: float = 2.0
    version_similarity: float = 0.40
    version_similarity_full: float = 0.70
    version_candidates: int = 6
    # An explicit newer version (previous_version, set by write-time dedup) that is a candidate
    # with at least version_relevance_ratio of the older memory's relevance caps the older
    # one's score at version_margin of its own: the older ranks right below it. None: off.
    version_margin: float | None = 0.9
    version_relevance_ratio: float = 0.0
    # What tells two memories are versions of one fact (design §3, §6): "slots" (default) the
    # claims a parse reads in them, the same subject and attribute with another value, at
    # write time (dedup links) and at read time; "similarity" the cosine ramp above at read
    # time, and words only at write time; "links" only the links dedup wrote.
    version_evidence: Literal["slots", "similarity", "links"] = "slots"
    # The newest version of a fact takes the place of its family's best-scoring version (the
    # older ones follow it at version_margin); False: it keeps its own score.
    version_takes_rank: bool = True
    # Among the version_candidates most relevant memories, those that name the query's
    # subject are ordered by what they say of it, the name masked (design §3, cogmem.focus).
    subject_focus: bool = True
    context_spread: float = 0.8
    context_span: int = 2
    context_seeds: int = 5
    context_window_seconds: float = 3600.0
    deep_recall_penalty: float = 0.5
    # "retention": an archived (superseded) memory is scored as if its retention were
    # multiplied by deep_recall_penalty, so the score factor is penalty^(α·s_type) (0.81 for
    # facts, 0.98 for episodes); "score": the plain formula, the score × penalty. Measured in
    # benchmarks/lifecycle.py: "score" buries consolidated originals (docs/design.md §3).
    deep_recall_scope: Literal["retention", "score"] = "retention"
    contradiction_penalty: float = 0.3

    # --- retrieval (§3) ---
    mode: Mode = "hybrid"
    fusion: Fusion = "weighted"
    rrf_k: int = 60
    rrf_dense_weight: float = 1.0
    rrf_lexical_weight: float = 1.0
    weighted_dense_weight: float = 0.7
    k_dense: int = 50
    k_sparse: int = 50
    # Optional stages (cogmem.stages, seed 004): each query variant (the query, its expansions,
    # a HyDE document) is a list; lists are fused with these weights and a top-rank bonus, and
    # a reranker reorders the first k_rerank.
    query_list_weight: float = 2.0
    variant_list_weight: float = 1.0
    rank_bonus_first: float = 0.05
    rank_bonus_top3: float = 0.02
    k_rerank: int = 20

    # --- assembly (§4) ---
    top_k: int = 10
    token_budget: int | None = None
    min_score: float = 0.0
    token_counter: Literal["chars", "tiktoken"] = "chars"
    mmr_lambda: float = 0.6

    # --- lexical index (§5) ---
    bm25_k1: float = 1.2
    bm25_b: float = 0.4
    bm25_epsilon: float = 0.25
    stemmer_language: str = "english"

    # --- lifecycle (§6) ---
    # Write-time dedup (cogmem.dedup). A write with a generated id is compared word by word
    # with its stored neighbours at cosine >= dedup_candidate_similarity: a restatement is
    # merged; otherwise it is stored, and recorded as the newer version of its nearest
    # neighbour when that one is at cosine >= dedup_threshold. None: no write-time dedup.
    dedup_threshold: float | None = 0.92
    dedup_candidate_similarity: float = 0.70
    # Episodes merge by dedup only when formed this close in time (None: any time).
    episodic_dedup_window_seconds: float | None = 3600.0
    dedup_stability_gain: float = 0.05
    consolidation_retention_threshold: float = 0.20
    consolidation_similarity: float = 0.70
    consolidation_group_size: int = 5
    consolidation_link_weight: float = 0.8
    link_gain: float = 0.1
    link_time_constant_days: float = 90.0
    link_threshold: float = 0.3
    graph_expansion_hops: int = 1
    hop_decay: float = 0.5
    # maintain(conflict_detector=...): at most conflict_pairs pairs per call, of active memories
    # at cosine > conflict_similarity, among the conflict_scan most recent.
    conflict_pairs: int = 50
    conflict_scan: int = 1000
    conflict_similarity: float = 0.85

    def __post_init__(self) -> None:
        for name in ("type_time_constant_days", "retention_floor", "type_exponent_scale"):
            object.__setattr__(self, name, frozendict(getattr(self, name)))
        self._validate()

    def replace(self, **changes: object) -> CognitiveMemoryConfig:
        """A copy with ``changes`` applied (validated like a new config)."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ConfigError(f"unknown config field(s): {', '.join(unknown)}")
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return CognitiveMemoryConfig(**values)

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        _choice(self, "decay_model", _DECAY_MODELS)
        _choice(self, "mode", _MODES)
        _choice(self, "fusion", _FUSIONS)
        _choice(self, "deep_recall_scope", ("retention", "score"))
        _choice(self, "token_counter", ("chars", "tiktoken"))
        _choice(self, "default_memory_type", (*_TYPES, "auto"))
        _choice(self, "version_evidence", ("slots", "similarity", "links"))
        for name in (
            "power_gamma",
            "importance_boost_cap",
            "reinforcement_spacing_days",
            "link_time_constant_days",
            "bm25_k1",
        ):
            _number(self, name, low=0.0, low_open=True)
        for name in (
            "stability_base",
            "stability_per_importance",
            "importance_boost",
            "reinforcement_gain",
            "association_reinforcement_gain",
            "reinforcement_max_multiplier",
            "retrieval_score_exponent",
            "version_exponent",
            "context_window_seconds",
            "rrf_dense_weight",
            "rrf_lexical_weight",
            "min_score",
            "bm25_epsilon",
            "dedup_stability_gain",
            "link_gain",
            "disk_reserve_mb",
            "query_list_weight",
            "variant_list_weight",
            "rank_bonus_first",
            "rank_bonus_top3",
        ):
            _number(self, name, low=0.0)
        for name in (
            "default_importance",
            "default_confidence",
            "core_promotion_stability",
            "deep_recall_penalty",
            "contradiction_penalty",
            "weighted_dense_weight",
            "conflict_similarity",
            "mmr_lambda",
            "bm25_b",
            "consolidation_retention_threshold",
            "consolidation_similarity",
            "consolidation_link_weight",
            "link_threshold",
            "hop_decay",
            "version_similarity",
            "version_similarity_full",
            "dedup_candidate_similarity",
            "version_relevance_ratio",
            "context_spread",
        ):
            _number(self, name, low=0.0, high=1.0)
        if self.dedup_threshold is not None:
            _number(self, "dedup_threshold", low=0.0, high=1.0)
        if self.version_margin is not None:
            _number(self, "version_margin", low=0.0, high=1.0)
        if self.episodic_dedup_window_seconds is not None:
            _number(self, "episodic_dedup_window_seconds", low=0.0)
        for name in (
            "rrf_k",
            "k_dense",
            "k_sparse",
            "conflict_pairs",
            "conflict_scan",
            "top_k",
            "core_promotion_access_count",
            "k_rerank",
        ):
            _integer(self, name, low=1)
        _integer(self, "core_promotion_sessions", low=1)
        _integer(self, "consolidation_group_size", low=2)
        _integer(self, "graph_expansion_hops", low=0)
        _integer(self, "version_candidates", low=1)
        _integer(self, "reinforcement_flush_size", low=1)
        _integer(self, "add_flush_size", low=0)
        _integer(self, "open_namespaces", low=1)
        _integer(self, "loaded_indexes", low=1)
        if self.sync_interval_seconds is not None:
            _number(self, "sync_interval_seconds", low=0.0)
        _integer(self, "context_span", low=0)
        _integer(self, "context_seeds", low=0)
        if self.token_budget is not None:
            _integer(self, "token_budget", low=1)
        if self.rrf_dense_weight == 0 and self.rrf_lexical_weight == 0:
            raise ConfigError("rrf_dense_weight and rrf_lexical_weight cannot both be 0")
        for name in ("reinforce_on_search", "version_takes_rank", "subject_focus"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be a bool, got {getattr(self, name)!r}")
        self._validate_per_type()

    def _validate_per_type(self) -> None:
        for name in ("type_time_constant_days", "retention_floor", "type_exponent_scale"):
            table: Mapping[str, float] = getattr(self, name)
            missing = [t for t in _TYPES if t not in table]
            extra = [t for t in table if t not in _TYPES]
            if missing or extra:
                raise ConfigError(
                    f"{name} must map exactly the memory types {_TYPES}; "
                    f"missing {missing}, unknown {extra}"
                )
            for memory_type, value in table.items():
                if (
                    isinstance(value, bool)
                    or not isinstance(value, (int, float))
                    or math.isnan(value)
                ):
                    raise ConfigError(f"{name}[{memory_type!r}] must be a number, got {value!r}")
                if name == "type_time_constant_days" and value <= 0:
                    raise ConfigError(f"{name}[{memory_type!r}] must be > 0 days, got {value!r}")
                if name == "type_exponent_scale" and value < 0:
                    raise ConfigError(f"{name}[{memory_type!r}] must be >= 0, got {value!r}")
                if name == "retention_floor" and not 0.0 <= value <= 1.0:
                    raise ConfigError(f"{name}[{memory_type!r}] must be in [0, 1], got {value!r}")


def _choice(config: CognitiveMemoryConfig, name: str, options: tuple[str, ...]) -> None:
    value = getattr(config, name)
    if value not in options:
        raise ConfigError(f"{name} must be one of {', '.join(options)}; got {value!r}")


def _number(
    config: CognitiveMemoryConfig,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
) -> None:
    value = getattr(config, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if math.isnan(value) or math.isinf(value):
        raise ConfigError(f"{name} must be finite, got {value!r}")
    if low is not None and (value < low or (low_open and value == low)):
        bound = ">" if low_open else ">="
        raise ConfigError(f"{name} must be {bound} {low:g}, got {value!r}")
    if high is not None and value > high:
        raise ConfigError(f"{name} must be <= {high:g}, got {value!r}")


def _integer(config: CognitiveMemoryConfig, name: str, *, low: int) -> None:
    value = getattr(config, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < low:
        raise ConfigError(f"{name} must be >= {low}, got {value!r}")
