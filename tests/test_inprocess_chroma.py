"""An in-process ``CognitiveMemory()`` lives beside the caller's own in-memory Chroma.

Chroma keeps one in-memory instance per process and refuses a client whose settings differ
from the first one's, so each case runs in a fresh interpreter: what came first is exactly what
the case says.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

COGMEM = """
from cogmem import CognitiveMemory
from cogmem.testing import HashingEmbedder
mem = CognitiveMemory(embedder=HashingEmbedder())
mem.add("User prefers dark mode", memory_type="semantic")
assert [r.text for r in mem.search("dark mode")] == ["User prefers dark mode"]
"""
CHROMA = """
import chromadb
client = chromadb.EphemeralClient()
mine = client.get_or_create_collection("mine", embedding_function=None)
mine.add(ids=["a"], documents=["x"], embeddings=[[0.1, 0.2, 0.3]])
assert mine.count() == 1
"""
# As LlamaIndex's Chroma guide sets it up.
LLAMAINDEX = """
import chromadb
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.core.schema import TextNode
from llama_index.vector_stores.chroma import ChromaVectorStore
from llamaindex_cogmem import CogmemEmbedding
from cogmem.testing import HashingEmbedder
chroma_client = chromadb.EphemeralClient()
chroma_collection = chroma_client.create_collection("quickstart")
vector_store = ChromaVectorStore(chroma_collection=chroma_collection)
index = VectorStoreIndex(
    [TextNode(text="The office moved to Porto.")],
    storage_context=StorageContext.from_defaults(vector_store=vector_store),
    embed_model=CogmemEmbedding(HashingEmbedder()),
)
nodes = index.as_retriever().retrieve("office")
assert [n.node.get_content() for n in nodes] == ["The office moved to Porto."]
"""
OTHER_SETTINGS = """
import chromadb
from chromadb.config import Settings
client = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False, allow_reset=True))
client.get_or_create_collection("mine", embedding_function=None)
"""
BOTH_STILL_WORK = """
assert [r.text for r in mem.search("dark mode")] == ["User prefers dark mode"]
mem.close()  # drops the collection cogmem made for itself, and nothing else
assert [c.name for c in client.list_collections()] == ["mine"]
print("ok")
"""


def _run(*parts: str) -> None:
    code = "\n".join(textwrap.dedent(p) for p in parts)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "core"), str(ROOT)]))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


@pytest.mark.parametrize(
    "first, second",
    [(COGMEM, CHROMA), (CHROMA, COGMEM), (OTHER_SETTINGS, COGMEM)],
    ids=["cogmem-then-chroma", "chroma-then-cogmem", "chroma-with-other-settings-then-cogmem"],
)
def test_cogmem_and_an_ephemeral_client_share_a_process(first: str, second: str) -> None:
    _run(first, second, BOTH_STILL_WORK)


@pytest.mark.parametrize("order", ["cogmem-first", "llamaindex-first"])
def test_cogmem_beside_a_llamaindex_chroma_vector_store(order: str) -> None:
    first, second = (COGMEM, LLAMAINDEX) if order == "cogmem-first" else (LLAMAINDEX, COGMEM)
    _run(first, second, "assert mem.search('dark mode')\nmem.close()\nprint('ok')")
