"""RetentionPostprocessor: design §2–3 on nodes from any retriever, and why not TimeWeighted."""

from __future__ import annotations

import asyncio
import math
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from llama_index.core.llms.mock import MockLLM
from llama_index.core.postprocessor import TimeWeightedPostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode

from cogmem import (
    CogmemError,
    CognitiveMemory,
    CognitiveMemoryConfig,
    InvalidInputError,
    InvalidTypeError,
)
from cogmem.testing import HashingEmbedder
from llamaindex_cogmem import CognitiveMemoryRetriever, NodeMetadataError, RetentionPostprocessor
from tests.llamaindex_fixtures import NOW, chroma_index

DAY = timedelta(days=1)
# A semantic node of importance 0.5 (the defaults): S₀ = 0.1 + 0.3·0.5 = 0.25,
# B = 1 + 2·0.5 = 2, β = 240 days, so τ = S·B·β = 120 days; α = 0.3.
TAU = 120.0
ALPHA = 0.3


def node(
    score: float | None, node_id: str = "n", text: str = "a document", **metadata: Any
) -> NodeWithScore:
    return NodeWithScore(node=TextNode(id_=node_id, text=text, metadata=metadata), score=score)


def expected(
    score: float, age_days: float, tau: float = TAU, alpha: float = ALPHA, floor: float = 0.02
) -> float:
    """score · R^α with R = max(floor, exp(-Δt/τ)) (design §2–3, computed by hand)."""
    return float(score * max(floor, math.exp(-age_days / tau)) ** alpha)


def run(nodes: list[NodeWithScore], **fields: Any) -> list[NodeWithScore]:
    fields.setdefault("now", NOW)
    return RetentionPostprocessor(**fields).postprocess_nodes(nodes)


def explanation(item: NodeWithScore) -> dict[str, Any]:
    value: dict[str, Any] = item.node.metadata["retention_explanation"]
    return value


# ---------------------------------------------------------------------------- the formula
@pytest.mark.parametrize(
    "created",
    [
        (NOW - 60 * DAY).isoformat(),  # ISO 8601 text
        (NOW - 60 * DAY).strftime("%Y-%m-%dT%H:%M:%SZ"),  # ... with a Z
        NOW - 60 * DAY,  # a datetime
        (NOW - 60 * DAY).timestamp(),  # epoch seconds
        int((NOW - 60 * DAY).timestamp()),
        (NOW - 60 * DAY).astimezone(timezone(timedelta(hours=-5))).isoformat(),  # another zone
    ],
)
def test_score_is_relevance_times_retention_to_the_alpha(created: Any) -> None:
    [out] = run([node(0.8, created_at=created)])
    # R = exp(-60/120) = 0.607; R^0.3 = exp(-0.15) = 0.861
    assert out.score == pytest.approx(0.8 * math.exp(-0.15))
    e = explanation(out)
    assert e["retention"] == pytest.approx(math.exp(-0.5))
    assert e["alpha"] == pytest.approx(ALPHA)
    assert e["decay_factor"] == pytest.approx(math.exp(-0.15))
    assert e["relevance"] == pytest.approx(0.8)
    assert e["original_score"] == pytest.approx(0.8)
    assert e["age_days"] == pytest.approx(60)
    assert e["measured_from"] == "created_at"
    assert e["memory_type"] == "semantic" and e["importance"] == 0.5
    assert e["stability"] == pytest.approx(0.25)
    assert e["half_life_days"] == pytest.approx(TAU * math.log(2))  # 83 days, not 9 minutes
    assert e["score"] == pytest.approx(out.score)


def test_decay_runs_from_the_last_access_when_there_is_one() -> None:
    [out] = run(
        [
            node(
                1.0,
                created_at=(NOW - 300 * DAY).isoformat(),
                last_accessed_at=(NOW - 12 * DAY).isoformat(),
            )
        ]
    )
    assert out.score == pytest.approx(expected(1.0, 12))
    assert explanation(out)["measured_from"] == "last_accessed_at"
    [only_accessed] = run([node(1.0, last_accessed_at=(NOW - 12 * DAY).isoformat())])
    assert only_accessed.score == pytest.approx(out.score)


def test_type_importance_stability_and_pinning_come_from_metadata() -> None:
    age = (NOW - 90 * DAY).isoformat()
    nodes = [
        node(0.5, "plain", created_at=age),
        node(0.5, "important", created_at=age, importance=0.9),
        node(0.5, "stable", created_at=age, stability=1.0),
        node(0.5, "episode", created_at=age, memory_type="episodic"),
        node(
            0.5, "recent episode", created_at=(NOW - 10 * DAY).isoformat(), memory_type="episodic"
        ),
        node(0.5, "howto", created_at=age, memory_type="procedural"),
        node(0.5, "pinned", created_at=age, pinned=True),
        node(0.5, "core", created_at=(NOW - 3000 * DAY).isoformat(), memory_type="core"),
    ]
    scores = {n.node.node_id: n.score for n in run(nodes)}
    assert scores["plain"] == pytest.approx(expected(0.5, 90))
    # importance 0.9: S = 0.37, B = 2.8 -> τ = 0.37 · 2.8 · 240 days
    assert scores["important"] == pytest.approx(expected(0.5, 90, tau=0.37 * 2.8 * 240))
    assert scores["stable"] == pytest.approx(expected(0.5, 90, tau=1.0 * 2 * 240))
    # episodes: β = 45 days (τ = 22.5: R hits the floor, 0.02), decay at a tenth of α
    assert scores["episode"] == pytest.approx(0.5 * 0.02**0.03)
    assert scores["episode"] == pytest.approx(expected(0.5, 90, tau=0.25 * 2 * 45, alpha=0.03))
    assert scores["recent episode"] == pytest.approx(0.5 * math.exp(-10 / 22.5) ** 0.03)
    assert scores["howto"] == pytest.approx(0.5)  # procedural: R = 1
    assert scores["pinned"] == pytest.approx(0.5)
    assert scores["core"] == pytest.approx(0.5 * 0.6**ALPHA)  # core's floor: R ≥ 0.6


def test_defaults_and_keys_are_configurable() -> None:
    nodes = [node(0.5, "x", when=(NOW - 90 * DAY).isoformat(), kind="procedural", memory_type="?")]
    [out] = run(nodes, created_at_key="when", memory_type_key="kind")
    assert out.score == pytest.approx(0.5)
    [episodic] = run(
        nodes,
        created_at_key="when",
        memory_type_key=None,
        default_memory_type="episodic",
        default_importance=0.0,
    )
    # importance 0: S = 0.1, B = 1, β = 45 -> τ = 4.5 days (R at its floor); α = 0.03
    assert episodic.score == pytest.approx(expected(0.5, 90, tau=4.5, alpha=0.03))
    [power] = run(
        [node(0.5, created_at=(NOW - 60 * DAY).isoformat())],
        config=CognitiveMemoryConfig(decay_model="power"),
    )
    assert power.score == pytest.approx(0.5 * ((1 + 60 / TAU) ** -1.4427) ** ALPHA)


# ---------------------------------------------------------------------------- edge cases
def test_nodes_without_a_timestamp_keep_their_score_and_say_so() -> None:
    dated = node(0.9, "dated", created_at=(NOW - 400 * DAY).isoformat())
    undated = node(0.6, "undated", source="wiki")
    unscored = node(None, "unscored")
    blank = node(0.3, "blank", created_at="  ")
    out = run([dated, undated, unscored, blank])
    by_id = {n.node.node_id: n for n in out}
    assert by_id["undated"].score == 0.6
    assert by_id["unscored"].score is None
    assert by_id["blank"].score == 0.3
    note = explanation(by_id["undated"])["note"]
    assert "no timestamp" in note and "created_at" in note and "last_accessed_at" in note
    assert explanation(by_id["undated"])["retention"] is None
    # The old dated node decayed below the undated one.
    assert by_id["dated"].score == pytest.approx(expected(0.9, 400))
    assert [n.node.node_id for n in out] == ["unscored", "undated", "dated", "blank"]


def test_zero_stays_zero_none_counts_as_one_and_negative_as_zero() -> None:
    created = (NOW - 60 * DAY).isoformat()
    out = {
        n.node.node_id: n
        for n in run(
            [
                node(0.0, "zero", created_at=created),
                node(None, "none", created_at=created),
                node(-0.4, "negative", created_at=created),
            ]
        )
    }
    assert out["zero"].score == 0.0
    assert out["none"].score == pytest.approx(expected(1.0, 60))
    assert "no score" in explanation(out["none"])["note"]
    assert out["negative"].score == 0.0
    assert "negative" in explanation(out["negative"])["note"]


def test_future_timestamps_do_not_decay() -> None:
    [out] = run([node(0.7, created_at=(NOW + 3 * DAY).isoformat())])
    assert out.score == pytest.approx(0.7)


def test_naive_timestamps_are_read_in_naive_timezone() -> None:
    naive = (NOW - 60 * DAY).replace(tzinfo=None).isoformat()
    [utc] = run([node(1.0, created_at=naive)])
    assert utc.score == pytest.approx(expected(1.0, 60))
    plus_twelve = timezone(timedelta(hours=12))
    [shifted] = run([node(1.0, created_at=naive)], naive_timezone=plus_twelve)
    assert explanation(shifted)["age_days"] == pytest.approx(60.5)
    [day] = run([node(1.0, created_at=(NOW - 60 * DAY).date().isoformat())])  # "2026-04-02"
    assert explanation(day)["age_days"] == pytest.approx(60.5)  # since midnight UTC
    with pytest.raises(NodeMetadataError, match="no time zone"):
        run([node(1.0, created_at=naive)], naive_timezone=None)


@pytest.mark.parametrize(
    ("metadata", "match"),
    [
        ({"created_at": "last tuesday"}, r"node 'bad': metadata\['created_at'\] = 'last tuesday'"),
        ({"created_at": [2026, 5, 1]}, "ISO 8601 text, a datetime or epoch seconds"),
        ({"created_at": True}, "bool"),
        ({"created_at": float("nan")}, "finite"),
        ({"created_at": NOW.isoformat(), "memory_type": "fact"}, "'fact' is not a memory type"),
        ({"created_at": NOW.isoformat(), "importance": 1.5}, r"importance'\] = 1.5 must be in"),
        ({"created_at": NOW.isoformat(), "importance": "high"}, "must be a number"),
        ({"created_at": NOW.isoformat(), "stability": 0.0}, r"stability'\] = 0.0"),
        ({"created_at": NOW.isoformat(), "pinned": "yes"}, "must be a bool"),
    ],
)
def test_unreadable_metadata_raises_naming_the_node_and_key(
    metadata: dict[str, Any], match: str
) -> None:
    with pytest.raises(NodeMetadataError, match=match) as caught:
        run([node(0.5, "ok", created_at=NOW.isoformat()), node(0.5, "bad", **metadata)])
    assert isinstance(caught.value, CogmemError) and isinstance(caught.value, ValueError)


def test_nan_scores_are_refused() -> None:
    with pytest.raises(NodeMetadataError, match="NaN"):
        run([node(float("nan"), created_at=NOW.isoformat())])


# ---------------------------------------------------------------------------- the nodes
def test_returns_copies_with_the_explanation_out_of_the_llms_view() -> None:
    original = node(0.8, "doc", text="The office is in Porto", created_at=NOW.isoformat())
    [out] = run([original])
    assert "retention_explanation" not in original.node.metadata
    assert original.score == 0.8
    assert out.node is not original.node and out.node.node_id == "doc"
    assert out.node.metadata["created_at"] == NOW.isoformat()
    llm_view = out.node.get_content(metadata_mode=MetadataMode.LLM)
    assert "The office is in Porto" in llm_view and "created_at" in llm_view
    assert "retention" not in llm_view
    assert "retention" not in out.node.get_content(metadata_mode=MetadataMode.EMBED)
    [renamed] = run([original], explanation_key="decay")
    assert renamed.node.metadata["decay"]["retention"] == pytest.approx(1.0)


def test_keeps_every_node_in_order_unless_top_n() -> None:
    nodes = [
        node(0.9, "old", created_at=(NOW - 500 * DAY).isoformat()),
        node(0.5, "new", created_at=(NOW - 1 * DAY).isoformat()),
        node(0.4, "mid", created_at=(NOW - 30 * DAY).isoformat()),
    ]
    assert [n.node.node_id for n in run(nodes)] == ["new", "mid", "old"]
    assert [n.node.node_id for n in run(nodes, top_n=2)] == ["new", "mid"]
    with pytest.raises(ValueError, match="top_n"):
        RetentionPostprocessor(top_n=0)


def test_now_as_datetime_epoch_seconds_clock_or_the_wall_clock() -> None:
    nodes = [node(1.0, created_at=(NOW - 30 * DAY).isoformat())]
    want = expected(1.0, 30)
    assert run(nodes, now=NOW)[0].score == pytest.approx(want)
    assert run(nodes, now=NOW.timestamp())[0].score == pytest.approx(want)
    assert run(nodes, now=lambda: NOW)[0].score == pytest.approx(want)
    wall = datetime.now(timezone.utc)
    recent = [node(1.0, created_at=(wall - 30 * DAY).isoformat())]
    by_wall = RetentionPostprocessor().postprocess_nodes(recent)[0]
    assert by_wall.score == pytest.approx(want, abs=1e-4)  # "now" is read at the call
    with pytest.raises(InvalidInputError, match="naive"):
        RetentionPostprocessor(now=datetime(2026, 6, 1))
    with pytest.raises(InvalidTypeError, match="now"):
        RetentionPostprocessor(now="yesterday")


def test_async_postprocessing_gives_the_same_nodes() -> None:
    nodes = [
        node(0.9, "old", created_at=(NOW - 500 * DAY).isoformat()),
        node(0.5, "new", created_at=(NOW - 1 * DAY).isoformat()),
    ]
    pp = RetentionPostprocessor(now=NOW)
    sync = pp.postprocess_nodes(nodes)
    out = asyncio.run(pp.apostprocess_nodes(nodes, query_str="anything"))
    assert [(n.node.node_id, n.score) for n in out] == [(n.node.node_id, n.score) for n in sync]


# ---------------------------------------------------------------------------- vs TimeWeighted
def test_the_drop_in_fix_for_time_weighted_postprocessor() -> None:
    """Where TimeWeightedPostprocessor goes wrong, with its defaults, and what this does."""
    now = NOW.timestamp()

    def dated(score: float | None, node_id: str, age: timedelta | None) -> NodeWithScore:
        meta: dict[str, Any] = {}
        if age is not None:
            meta["__last_accessed__"] = (NOW - age).timestamp()
        return node(score, node_id, **meta)

    def time_weighted(nodes: list[NodeWithScore]) -> dict[str, float | None]:
        pp = TimeWeightedPostprocessor(now=now, top_k=len(nodes), time_access_refresh=False)
        return {n.node.node_id: n.score for n in pp.postprocess_nodes(nodes)}

    def retention(nodes: list[NodeWithScore]) -> dict[str, float | None]:
        pp = RetentionPostprocessor(now=now, last_accessed_at_key="__last_accessed__")
        return {n.node.node_id: n.score for n in pp.postprocess_nodes(nodes)}

    # 1. Its recency term halves every ~9 minutes: (1 - 0.99) ** (9/60 h) ≈ 0.5.
    nine_minutes = time_weighted([dated(0.0, "n", timedelta(minutes=9))])["n"]
    assert nine_minutes is not None and nine_minutes - 1.0 == pytest.approx(0.5, abs=0.01)
    # 2. ...and adds it, so an irrelevant note from a minute ago beats yesterday's answer.
    nodes = [dated(0.9, "answer", DAY), dated(0.2, "noise", timedelta(minutes=1))]
    tw = time_weighted(nodes)
    assert tw["noise"] > tw["answer"]  # type: ignore[operator]
    ours = retention(nodes)
    assert ours["answer"] > ours["noise"]  # type: ignore[operator]
    # 3. It turns a score of 0.0 into 1.0 (then adds recency); here 0.0 stays 0.0.
    assert time_weighted([dated(0.0, "irrelevant", 30 * DAY)])["irrelevant"] == pytest.approx(1.0)
    assert retention([dated(0.0, "irrelevant", 30 * DAY)])["irrelevant"] == 0.0
    # 4. A node without a timestamp counts as accessed just now there (the largest boost);
    #    here it keeps its score.
    assert time_weighted([dated(0.3, "undated", None)])["undated"] == pytest.approx(1.3)
    assert retention([dated(0.3, "undated", None)])["undated"] == 0.3
    # 5. Its default keeps one node.
    assert len(TimeWeightedPostprocessor(now=now).postprocess_nodes(nodes)) == 1
    assert len(RetentionPostprocessor(now=now).postprocess_nodes(nodes)) == 2


# ---------------------------------------------------------------------------- a real index
def test_reranks_a_chroma_vector_index_in_a_query_engine() -> None:
    docs = [
        TextNode(
            id_="old",
            text="The team office is located in Lisbon near the river",
            metadata={"created_at": (NOW - 400 * DAY).isoformat()},
        ),
        TextNode(
            id_="new",
            text="The team moved to a new office in Porto",
            metadata={"created_at": (NOW - 10 * DAY).isoformat()},
        ),
        TextNode(
            id_="menu", text="Lunch menu for Friday", metadata={"created_at": NOW.timestamp()}
        ),
        TextNode(id_="undated", text="Where is the office located? See the wiki"),
    ]
    index = chroma_index(docs)
    question = "Where is the team office located?"
    plain = index.as_retriever(similarity_top_k=4).retrieve(question)
    raw = {n.node.node_id: n.get_score() for n in plain}
    assert raw["old"] > raw["new"]  # by words alone, the outdated document wins

    pp = RetentionPostprocessor(now=NOW)
    engine = RetrieverQueryEngine.from_args(
        index.as_retriever(similarity_top_k=4), llm=MockLLM(), node_postprocessors=[pp]
    )
    response = engine.query(question)
    ranked = [n.node.node_id for n in response.source_nodes]
    assert ranked.index("new") < ranked.index("old")
    scores = {n.node.node_id: n for n in response.source_nodes}
    assert scores["undated"].score == pytest.approx(raw["undated"])
    assert scores["old"].score == pytest.approx(expected(raw["old"] or 0.0, 400))
    assert explanation(scores["old"])["relevance"] == pytest.approx(raw["old"])
    # MockLLM echoes the prompt: the current office comes first in the context it was given.
    prompt = str(response)
    assert prompt.index("Porto") < prompt.index("Lisbon near the river")
    assert "retention" not in prompt


def test_its_default_keys_read_cogmem_memory_nodes_as_the_core_does() -> None:
    """A memory node's metadata (from CognitiveMemoryRetriever) gives the core's own R."""
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        mem.add("The user likes jazz", memory_type="semantic", importance=0.9, now=NOW - 90 * DAY)
        mem.add("We went to a jazz bar", importance=0.2, now=NOW - 20 * DAY)
        mem.add("How to brew jazz coffee", memory_type="procedural", now=NOW - 400 * DAY)
        mem.search("jazz", now=NOW - 10 * DAY)  # reinforce: stability and last access change
        retriever = CognitiveMemoryRetriever(mem, now=NOW, reinforce=False)
        nodes = retriever.retrieve("jazz")
    assert len(nodes) == 3
    for item in RetentionPostprocessor(now=NOW).postprocess_nodes(nodes):
        core = item.node.metadata["explanation"]
        ours = explanation(item)
        assert ours["retention"] == pytest.approx(core["retention"])
        assert ours["alpha"] == pytest.approx(core["alpha"])
        assert ours["measured_from"] == "last_accessed_at"
