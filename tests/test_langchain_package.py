"""The langchain_cogmem package: public API, lazy imports, LangChain embeddings as embedder."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding, FakeEmbeddings

import langchain_cogmem
from cogmem import CognitiveMemory
from langchain_cogmem import CognitiveMemoryRetriever, CognitiveMemoryStore

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "core"), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )


def test_importing_cogmem_never_imports_langchain() -> None:
    done = _run(
        "import cogmem, sys; "
        "assert not any(m.startswith('langchain') for m in sys.modules), "
        "sorted(m for m in sys.modules if m.startswith('langchain'))"
    )
    assert done.returncode == 0, done.stderr


def test_adapters_are_imported_on_first_use() -> None:
    done = _run(
        "import sys, langchain_cogmem; "
        "assert 'langchain_core' not in sys.modules; "
        "langchain_cogmem.CognitiveMemoryRetriever; "
        "assert 'langchain_core' in sys.modules; "
        "assert 'langchain_classic' not in sys.modules and 'langgraph' not in sys.modules"
    )
    assert done.returncode == 0, done.stderr


def test_public_api_is_documented() -> None:
    assert sorted(langchain_cogmem.__all__) == sorted(set(langchain_cogmem.__all__))
    for name in langchain_cogmem.__all__:
        obj = getattr(langchain_cogmem, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            doc = inspect.getdoc(obj) or ""
            assert len(doc) > 40, f"{name} needs a docstring"
    assert "summarizer_from" in dir(langchain_cogmem)
    with pytest.raises(AttributeError, match="no attribute"):
        langchain_cogmem.NoSuchThing  # noqa: B018


def test_langchain_embeddings_work_end_to_end() -> None:
    embedder = DeterministicFakeEmbedding(size=64)
    memory = CognitiveMemory(embedder=embedder)
    ids = memory.add_many(
        ["The user prefers window seats", "The user is allergic to cats", "Meeting moved"],
        now=NOW,
    )
    retriever = CognitiveMemoryRetriever(memory=memory, k=2, now=lambda: NOW)
    docs = retriever.invoke("The user is allergic to cats")
    assert docs[0].id == ids[1]
    assert docs[0].metadata["explanation"]["cosine"] == pytest.approx(1.0, abs=1e-5)

    store = CognitiveMemoryStore(memory, now=lambda: NOW)
    store.put(("u",), "seat", {"text": "window seat please"})
    assert store.search(("u",), query="window seat")[0].key == "seat"
    memory.close()

    # Even a random (non-deterministic) embedder serves: BM25 still finds the words.
    noisy = CognitiveMemory(embedder=FakeEmbeddings(size=16))
    noisy.add("The user speaks Portuguese", now=NOW)
    noisy.add("The weather was rainy", now=NOW)
    noisy.add("The train was late", now=NOW)
    assert noisy.search("Portuguese", top_k=1, now=NOW, mode="lexical")[0].text == (
        "The user speaks Portuguese"
    )
    noisy.close()
