"""Where a folder store's bytes go, beside bare Chroma holding the same memories. Prints one
JSON object.

One namespace of ``--size`` memories (made-up notes of 8-14 words, 384-dimension vectors from
:class:`cogmem.testing.HashingEmbedder`, the same vectors for both), built in batches of 1,000
and closed:

* **cogmem**: ``CognitiveMemory(path=...)``, plain adds (dedup off, episodic: no statement is
  read, which stores nothing of its own);
* **chroma**: ``chromadb.PersistentClient`` and one collection (cosine space) holding the same
  ids, texts and vectors, no metadata.

Each folder's bytes are split by what holds them: Chroma's SQLite file table by table (its
``dbstat`` view: records, metadata rows, full-text index, the log), Chroma's HNSW files, and
cogmem's derived files by kind (the vector slots, the record table, the BM25 arrays, the
rest). ``extra`` is cogmem's bytes less bare Chroma's, part by part: what the issue's "1.8×"
is made of.

    python benchmarks/disk.py                  # 100,000 memories (~3 min)
    python benchmarks/disk.py --size 20000     # a quick look
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scale import WORDS

__all__ = ["split_folder"]

DIM = 384
BATCH = 1000
NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
MB = 2**20

# cogmem's derived files by the end of their names (cogmem.index, cogmem.vectors, ...).
_DERIVED = (
    (".vectors", "vector slots"),
    (".records.pkl", "record table"),
    (".bm25.npz", "bm25 arrays"),
    (".changes", "changes since the saved index"),
)


def notes(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    return [f"note {n}: {' '.join(rng.sample(WORDS, rng.randint(8, 14)))}" for n in range(count)]


def split_folder(folder: Path) -> dict[str, float]:
    """MB of ``folder`` by what holds them: ``sqlite: <table or index>``, ``hnsw: <file>``,
    cogmem's derived files by kind, ``other``."""
    parts: dict[str, float] = defaultdict(float)
    for path in (p for p in folder.rglob("*") if p.is_file()):
        size = path.stat().st_size / MB
        if path.name == "chroma.sqlite3":
            parts.update(_sqlite_tables(path))
            continue
        if path.suffix == ".bin" or path.name == "index_metadata.pickle":
            parts[f"hnsw: {path.name}"] += size
            continue
        kind = next((k for end, k in _DERIVED if path.name.endswith(end)), None)
        parts[kind or ("cogmem: other" if "cogmem-index" in path.parts else "other")] += size
    return {k: round(v, 2) for k, v in sorted(parts.items(), key=lambda kv: -kv[1]) if v >= 0.01}


def _sqlite_tables(path: Path) -> dict[str, float]:
    """MB of each table and index of a SQLite file (its free pages as ``sqlite: free``)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
        pages, page = (
            db.execute("PRAGMA page_count").fetchone()[0],
            db.execute("PRAGMA page_size").fetchone()[0],
        )
    finally:
        db.close()
    out = {f"sqlite: {name}": used / MB for name, used in rows}
    out["sqlite: free"] = max(0.0, pages * page / MB - sum(out.values()))
    return out


def build_cogmem(folder: Path, texts: Sequence[str]) -> tuple[list[str], float]:
    from cogmem import CognitiveMemory, CognitiveMemoryConfig
    from cogmem.testing import HashingEmbedder

    config = CognitiveMemoryConfig(dedup_threshold=None, default_memory_type="episodic")
    began = time.perf_counter()
    ids: list[str] = []
    with CognitiveMemory(path=folder, embedder=HashingEmbedder(DIM), config=config) as mem:
        for start in range(0, len(texts), BATCH):
            outcomes = mem.add_many(texts[start : start + BATCH], now=NOW, progress=False)
            ids += outcomes  # add_many returns the ids
    return ids, time.perf_counter() - began


def build_chroma(folder: Path, texts: Sequence[str], ids: Sequence[str]) -> float:
    import chromadb

    from cogmem.testing import HashingEmbedder

    embedder = HashingEmbedder(DIM)
    began = time.perf_counter()
    client = chromadb.PersistentClient(path=str(folder))
    collection = client.create_collection("bare", metadata={"hnsw:space": "cosine"})
    for start in range(0, len(texts), BATCH):
        chunk = list(texts[start : start + BATCH])
        collection.add(
            ids=list(ids[start : start + BATCH]),
            documents=chunk,
            embeddings=embedder.embed_documents(chunk),
        )
    seconds = time.perf_counter() - began
    del collection
    client.close() if hasattr(client, "close") else None
    return seconds


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    args = parser.parse_args(argv)
    texts = notes(args.size)
    out: dict[str, Any] = {"size": args.size, "dim": DIM, "embedder": f"HashingEmbedder({DIM})"}
    with tempfile.TemporaryDirectory() as root:
        ids, seconds = build_cogmem(Path(root) / "cogmem", texts)
        chroma_seconds = build_chroma(Path(root) / "chroma", texts, ids)
        parts = {name: split_folder(Path(root) / name) for name in ("cogmem", "chroma")}
    total = {name: round(sum(p.values()), 1) for name, p in parts.items()}
    keys = dict.fromkeys([*parts["cogmem"], *parts["chroma"]])
    extra = {k: round(parts["cogmem"].get(k, 0.0) - parts["chroma"].get(k, 0.0), 2) for k in keys}
    extra = {k: v for k, v in extra.items() if abs(v) >= 0.01}
    out.update(
        {
            "build_seconds": {"cogmem": round(seconds, 1), "chroma": round(chroma_seconds, 1)},
            "disk_mb": total,
            "ratio": round(total["cogmem"] / total["chroma"], 3),
            "parts_mb": parts,
            "extra_mb": dict(sorted(extra.items(), key=lambda kv: -kv[1])),
            "target_ratio_at_most_1.3": total["cogmem"] <= 1.3 * total["chroma"],
        }
    )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
