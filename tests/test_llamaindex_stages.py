"""Retrieval stages from LlamaIndex: expansion and HyDE from an LLM, a reranker from a node
postprocessor, each through the real LlamaIndex classes, in a query engine."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

import pytest
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockLLM
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle
from pydantic import Field

from cogmem import CognitiveMemory, InvalidTypeError, Stages
from llamaindex_cogmem import CognitiveMemoryRetriever, expander_from, hyde_from, reranker_from

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


class ScriptedLLM(CustomLLM):
    """A completion LLM that answers from a script and keeps the prompts it was sent."""

    replies: list[str] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata()

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return CompletionResponse(text=self.replies[len(self.prompts) - 1])

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError


class KeywordRerank(BaseNodePostprocessor):
    """A reranker stand-in: the nodes naming a keyword, scored by how often, top_n kept."""

    keyword: str
    top_n: int = 2

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        scored = [
            NodeWithScore(node=n.node, score=float(n.node.get_content().count(self.keyword)))
            for n in nodes
        ]
        return sorted(scored, key=lambda n: -(n.score or 0.0))[: self.top_n]


def fill(mem: CognitiveMemory) -> None:
    mem.add_many(
        [
            {"text": "Clara gives violin lessons on Saturdays.", "id": "violin"},
            {"text": "The garage door squeaks, the door sticks.", "id": "door"},
            {"text": "Bob repairs bicycles in his shed.", "id": "bikes"},
        ],
        now=NOW,
    )


def test_expansion_and_hyde_from_an_llm_in_a_query_engine(mem: CognitiveMemory) -> None:
    fill(mem)
    llm = ScriptedLLM(replies=["1. violin lessons\n2. music teacher", "Clara teaches violin."])
    mem.stages = Stages(expand=expander_from(llm, count=2), hyde=hyde_from(llm))
    retriever = CognitiveMemoryRetriever(mem, similarity_top_k=1, now=NOW, reinforce=False)
    response = RetrieverQueryEngine.from_args(retriever, llm=MockLLM()).query("who teaches music")
    [node] = response.source_nodes
    assert node.node.node_id == "violin"
    stages = node.node.metadata["explanation"]["stages"]
    assert stages["expansion 1 #"] == 1 and stages["hyde #"] == 1
    assert "who teaches music" in llm.prompts[0] and "Write 2 rewrites" in llm.prompts[0]


def test_a_node_postprocessor_reranks(mem: CognitiveMemory) -> None:
    fill(mem)
    mem.stages = Stages(rerank=reranker_from(KeywordRerank(keyword="door", top_n=1)))
    results = mem.search("violin lessons on Saturdays", now=NOW, reinforce=False)
    assert results[0].id == "door"
    assert results[0].explanation.stages == {"rerank": 2.0, "rerank #": 1}
    dropped: Sequence[float] = [r.explanation.stages["rerank"] for r in results if r.id != "door"]
    assert dropped and all(s < 2.0 for s in dropped)
    with pytest.raises(InvalidTypeError, match="BaseNodePostprocessor"):
        reranker_from(MockLLM())  # type: ignore[arg-type]
