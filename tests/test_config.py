"""CognitiveMemoryConfig: the defaults of docs/design.md, and errors naming the field."""

from __future__ import annotations

import math

import pytest

from cogmem import CognitiveMemoryConfig, ConfigError


def test_spec_defaults() -> None:
    c = CognitiveMemoryConfig()
    assert c.retrieval_score_exponent == 0.3
    assert c.deep_recall_penalty == 0.5
    assert c.contradiction_penalty == 0.3
    assert (c.rrf_k, c.k_dense, c.k_sparse) == (60, 50, 50)
    assert (c.bm25_k1, c.bm25_b) == (1.2, 0.4)  # short memories: lift_variants.json
    assert (c.query_list_weight, c.variant_list_weight, c.k_rerank) == (2.0, 1.0, 20)
    assert (c.rank_bonus_first, c.rank_bonus_top3) == (0.05, 0.02)
    assert c.dedup_threshold == 0.92
    assert c.consolidation_group_size == 5
    assert c.graph_expansion_hops == 1
    assert dict(c.type_time_constant_days) == {
        "episodic": 45.0,
        "semantic": 240.0,
        "procedural": math.inf,
        "core": 120.0,
    }
    assert c.retention_floor["core"] == 0.6 and c.retention_floor["episodic"] == 0.02
    assert c.mode == "hybrid"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("retrieval_score_exponent", -0.1),
        ("retrieval_score_exponent", float("nan")),
        ("deep_recall_penalty", 1.5),
        ("mode", "fuzzy"),
        ("fusion", "max"),
        ("decay_model", "linear"),
        ("k_dense", 0),
        ("top_k", 2.5),
        ("rrf_k", True),
        ("token_budget", 0),
        ("consolidation_group_size", 1),
        ("reinforce_on_search", "yes"),
        ("subject_focus", 1),
        ("type_time_constant_days", {"episodic": 1.0}),
        ("retention_floor", {"episodic": 2.0, "semantic": 0.0, "procedural": 0.0, "core": 0.6}),
        ("default_memory_type", "dream"),
    ],
)
def test_bad_values_name_the_field(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=field):
        CognitiveMemoryConfig(**{field: value})  # type: ignore[arg-type]


def test_replace_validates_and_rejects_unknown_fields() -> None:
    c = CognitiveMemoryConfig()
    assert c.replace(top_k=3).top_k == 3
    assert c.top_k == 10
    with pytest.raises(ConfigError, match="nonsense"):
        c.replace(nonsense=1)
    with pytest.raises(ConfigError, match="top_k"):
        c.replace(top_k=0)


def test_tables_are_read_only() -> None:
    c = CognitiveMemoryConfig()
    with pytest.raises(TypeError):
        c.type_time_constant_days["episodic"] = 1.0  # type: ignore[index]
