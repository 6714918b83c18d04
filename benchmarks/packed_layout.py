"""Bare Chroma with every user in one shared collection: the layout issue 28 would pack
namespaces into. Prints one JSON object.

``--users`` users of 20 records each (384-dimension random vectors, a ``ns`` metadata key per
record), one ``add`` per user into one collection of a ``PersistentClient``; then, for 200
users drawn at random: a ``get`` of the user's records by its key (what reading a cold user in
would cost), a ``query`` filtered by the key (what searching one through Chroma would cost),
and 200 single adds. Reported: the build's seconds per thousand users, the process's open
files, the p50s, and the folder's size. Compare with ``benchmarks/scale.py``, where each user
is a collection of its own.

    ulimit -n 1024; python benchmarks/packed_layout.py --users 10000   # ~5 min
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

PER_USER = 20
DIM = 384
SAMPLE = 200


def _p50_ms(seconds: Sequence[float]) -> float:
    return round(1000 * statistics.median(seconds), 2)


def measure(users: int, root: Path) -> dict[str, Any]:
    import chromadb

    client = chromadb.PersistentClient(path=str(root))
    collection = client.create_collection("packed", metadata={"hnsw:space": "cosine"})
    rng = np.random.default_rng(0)
    per_thousand: list[float] = []
    began = time.perf_counter()
    for user in range(users):
        collection.add(
            ids=[f"u{user}-{n}" for n in range(PER_USER)],
            embeddings=rng.standard_normal((PER_USER, DIM)).astype(np.float32),
            documents=[f"user {user} note {n}" for n in range(PER_USER)],
            metadatas=[{"ns": f"u{user}"} for _ in range(PER_USER)],
        )
        if (user + 1) % 1000 == 0:
            per_thousand.append(round(time.perf_counter() - began, 1))
            began = time.perf_counter()
    open_files = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    gets, queries, adds = [], [], []
    for user in random.Random(1).sample(range(users), min(SAMPLE, users)):
        where = {"ns": f"u{user}"}
        began = time.perf_counter()
        collection.get(where=where, include=["embeddings", "metadatas", "documents"])
        gets.append(time.perf_counter() - began)
        query = rng.standard_normal((1, DIM)).astype(np.float32)
        began = time.perf_counter()
        collection.query(query_embeddings=query, n_results=5, where=where)
        queries.append(time.perf_counter() - began)
    for n in range(SAMPLE):
        began = time.perf_counter()
        collection.add(
            ids=[f"x{n}"],
            embeddings=rng.standard_normal((1, DIM)).astype(np.float32),
            documents=["x"],
            metadatas=[{"ns": f"u{random.Random(n).randrange(users)}"}],
        )
        adds.append(time.perf_counter() - began)
    size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
    return {
        "users": users,
        "per_user": PER_USER,
        "build_seconds_per_thousand": per_thousand,
        "open_files": open_files,
        "get_user_ms_p50": _p50_ms(gets),
        "query_user_ms_p50": _p50_ms(queries),
        "single_add_ms_p50": _p50_ms(adds),
        "disk_mb": round(size / 2**20, 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=10_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        print(json.dumps(measure(args.users, Path(root)), indent=2))


if __name__ == "__main__":
    main()
