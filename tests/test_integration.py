"""The real all-MiniLM-L6-v2 model end to end (slower; marked ``model``)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from cogmem import CognitiveMemory, MemoryInput, MiniLMEmbedder
from cogmem.demo import run_demo
from tests.conftest import NOW

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_meaning_is_found_without_shared_words(minilm: MiniLMEmbedder) -> None:
    with CognitiveMemory(embedder=minilm) as mem:
        mem.add_many(
            [
                MemoryInput(
                    text="The user adopted a golden retriever puppy named Biscuit.",
                    memory_type="semantic",
                ),
                MemoryInput(
                    text="The quarterly report is due on the 15th.", memory_type="semantic"
                ),
                MemoryInput(text="The user is allergic to peanuts.", memory_type="semantic"),
            ],
            now=NOW - timedelta(days=3),
        )
        top = mem.search("what pet does the user have?", top_k=1, now=NOW, reinforce=False)[0]
        assert "Biscuit" in top.text
        assert top.explanation.cosine is not None and top.explanation.cosine > 0.3


def test_the_current_version_of_a_fact_comes_first(minilm: MiniLMEmbedder) -> None:
    with CognitiveMemory(embedder=minilm) as mem:
        mem.add_many(
            [
                MemoryInput(
                    text="Dana's team uses PostgreSQL for the billing service.",
                    memory_type="semantic",
                    created_at=NOW - timedelta(days=240),
                    id="old",
                ),
                MemoryInput(
                    text="Dana said the billing service switched to CockroachDB.",
                    memory_type="semantic",
                    created_at=NOW - timedelta(days=9),
                    id="new",
                ),
                MemoryInput(
                    text="Dana's favourite editor is Helix.",
                    memory_type="semantic",
                    created_at=NOW - timedelta(days=30),
                    id="other",
                ),
            ],
            now=NOW,
        )
        results = mem.search(
            "Which database does Dana's billing service use?", now=NOW, reinforce=False
        )
        order = [r.id for r in results]
        assert order.index("new") < order.index("old")
        stale = next(r for r in results if r.id == "old")
        assert stale.explanation.newer_version_id == "new"


def test_persisted_store_with_the_real_model(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    with CognitiveMemory(path=tmp_path, embedder=minilm) as mem:
        mem.add("Priya prefers code first, explanation after.", memory_type="semantic", now=NOW)
        before = [
            (r.id, r.score)
            for r in mem.search("how should answers be formatted?", now=NOW, reinforce=False)
        ]
    with CognitiveMemory(path=tmp_path, embedder=minilm) as mem:
        after = [
            (r.id, r.score)
            for r in mem.search("how should answers be formatted?", now=NOW, reinforce=False)
        ]
    assert after == before and before


def test_the_demo_runs_offline_and_shows_what_it_promises(
    minilm: MiniLMEmbedder, tmp_path: Path
) -> None:
    lines: list[str] = []
    run_demo(lines.append, folder=tmp_path / "demo", embedder=minilm)
    text = "\n".join(lines)
    assert "same results for every query: True" in text
    # the database question: the newer fact first, the old one penalised as an older version
    first = text.index('search: "what database does the billing service use?"')
    block = text[first : text.index("search:", first + 10)]
    assert block.index("CockroachDB") < block.index("PostgreSQL 13")
    assert "newer_version" in block
    reinforced, untouched = (
        float(line.split("R = ")[1].split()[0]) for line in lines if "day 200" in line
    )
    assert reinforced > untouched
