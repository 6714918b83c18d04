"""Records and results are plain data: they pickle, deep-copy and go through ``asdict``, and
stay immutable; a memory itself is a handle that copies as itself and refuses to pickle."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from datetime import timedelta
from typing import Any

import pytest

from cogmem import (
    CognitiveMemory,
    CognitiveMemoryConfig,
    ConsolidationReport,
    Explanation,
    InvalidTypeError,
    MemoryRecord,
    SearchResult,
)
from cogmem.testing import HashingEmbedder
from tests.conftest import NOW


@pytest.fixture
def found(mem: CognitiveMemory) -> tuple[SearchResult, ConsolidationReport]:
    mem.add_many(
        [
            {
                "text": "Sam and I lifted weights at the gym on Monday",
                "id": "g1",
                "metadata": {"project": "fitness", "prio": 2},
                "tags": ["gym"],
            },
            {"text": "Sam and I lifted weights at the gym on Tuesday", "id": "g2"},
            {"text": "The gym closes at ten", "memory_type": "semantic", "id": "hours"},
        ],
        now=NOW,
    )
    mem.contradict("g1", "hours")
    report = mem.consolidate(NOW + timedelta(days=300))
    results = mem.search("gym", now=NOW + timedelta(days=300), deep_recall=True, reinforce=False)
    return next(r for r in results if r.id == "g1"), report


def _values(found: tuple[SearchResult, ConsolidationReport]) -> list[Any]:
    result, report = found
    assert result.memory.metadata and result.explanation.penalties and report.groups
    return [
        result.memory,
        result,
        result.explanation,
        report,
        report.groups[0],
        CognitiveMemoryConfig(),
    ]


def test_records_and_results_pickle_and_deep_copy_equal(
    found: tuple[SearchResult, ConsolidationReport],
) -> None:
    for value in _values(found):
        assert pickle.loads(pickle.dumps(value)) == value, type(value).__name__
        assert copy.deepcopy(value) == value, type(value).__name__
        assert copy.copy(value) == value


def test_asdict_gives_plain_json_ready_mappings(
    found: tuple[SearchResult, ConsolidationReport],
) -> None:
    for value in _values(found):
        as_dict = dataclasses.asdict(value)
        assert isinstance(as_dict, dict), type(value).__name__
    result, _ = found
    record = dataclasses.asdict(result)["memory"]
    assert record["metadata"] == {"project": "fitness", "prio": 2}
    assert json.loads(json.dumps(record["metadata"])) == {"project": "fitness", "prio": 2}
    explanation = dataclasses.asdict(result.explanation)
    assert explanation["penalties"] == dict(result.explanation.penalties)


def test_records_stay_immutable(found: tuple[SearchResult, ConsolidationReport]) -> None:
    result, _ = found
    record: MemoryRecord = result.memory
    with pytest.raises(TypeError):
        record.metadata["project"] = "other"  # type: ignore[index]
    with pytest.raises(TypeError):
        record.links["x"] = 1.0  # type: ignore[index]
    with pytest.raises(TypeError):
        result.explanation.penalties["deep_recall"] = 1.0  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.text = "changed"  # type: ignore[misc]
    # A mapping given to a record is copied: changing it afterwards changes nothing.
    given = {"a": 1}
    made = MemoryRecord(id="m", text="t", created_at=NOW, metadata=given)
    given["a"] = 2
    assert made.metadata == {"a": 1}
    penalties = {"deep_recall": 0.5}
    explanation = Explanation(
        mode="dense",
        dense_rank=1,
        cosine=0.5,
        lexical_rank=None,
        bm25=None,
        fused=0.5,
        relevance=0.5,
        retention=1.0,
        alpha=0.3,
        decay_factor=1.0,
        score=0.25,
        penalties=penalties,
    )
    penalties["deep_recall"] = 1.0
    assert explanation.penalties == {"deep_recall": 0.5}


def test_a_memory_copies_as_itself_and_refuses_to_pickle(mem: CognitiveMemory) -> None:
    assert copy.copy(mem) is mem
    assert copy.deepcopy(mem) is mem
    assert copy.deepcopy({"memory": mem})["memory"] is mem
    with pytest.raises(InvalidTypeError, match=r"cannot be pickled.*export_jsonl"):
        pickle.dumps(mem)


def test_the_langchain_retriever_deep_copies_sharing_its_memory(mem: CognitiveMemory) -> None:
    from langchain_cogmem import CognitiveMemoryRetriever

    mem.add("User prefers dark mode", memory_type="semantic", now=NOW)
    retriever = CognitiveMemoryRetriever(memory=mem, k=2, now=lambda: NOW)
    for twin in (copy.deepcopy(retriever), retriever.model_copy(deep=True)):
        assert twin is not retriever and twin.memory is mem
        assert [d.page_content for d in twin.invoke("theme")] == ["User prefers dark mode"]


def test_the_llamaindex_adapters_deep_copy_sharing_their_memory(mem: CognitiveMemory) -> None:
    from llamaindex_cogmem import CognitiveMemoryBlock, CognitiveMemoryRetriever

    mem.add("User prefers dark mode", memory_type="semantic", now=NOW)
    retriever = copy.deepcopy(CognitiveMemoryRetriever(mem, similarity_top_k=2, now=lambda: NOW))
    assert [n.node.get_content() for n in retriever.retrieve("theme")] == ["User prefers dark mode"]
    block = CognitiveMemoryBlock(memory=mem)
    assert copy.deepcopy(block).memory is mem


def test_the_config_round_trips_through_pickle_with_its_mappings() -> None:
    config = CognitiveMemoryConfig(
        type_time_constant_days={
            "episodic": 30.0,
            "semantic": 200.0,
            "procedural": float("inf"),
            "core": 100.0,
        }
    )
    again = pickle.loads(pickle.dumps(config))
    assert again == config and again.type_time_constant_days["episodic"] == 30.0
    with pytest.raises(TypeError):
        config.retention_floor["core"] = 0.1  # type: ignore[index]
    memory = CognitiveMemory(embedder=HashingEmbedder(), config=again)
    memory.close()
