"""Many users on one machine: cogmem's folder store against bare Chroma; prints one JSON object.

Each user is a namespace (cogmem) or a collection (bare Chroma) of ``--per-user`` memories
(20), as a LangGraph app gives each user a namespace. For each size in ``--users`` (default
1,000), three child processes run one after another, each measured alone (RSS and open files
are the child's): cogmem's core API, bare Chroma (a ``PersistentClient``, one collection per
user, with a bm25s index per user built on its first search and kept for the 32 users used
last, cogmem's lexical leg), and cogmem's LangGraph store. Each reports:

* ``build_seconds_per_thousand``: the time to write each thousand users (constant when a
  user costs what it holds);
* ``first_search_ms`` / ``repeat_search_ms``: p50 and p95 of a search in a user not touched
  since the build (cold), then of the same search again, over ``--touch`` users (1,000);
* ``rss_mb`` and ``open_files`` after touching them; ``close_seconds``; ``disk_mb``;
* the store: ``search_ms`` in one user's namespace and ``list_namespaces_ms`` under a prefix,
  p50 over 200 users.

Embeddings come from :class:`cogmem.testing.HashingEmbedder` (384 dimensions): no model, so
the figures measure storage and search, not embedding. Texts are short notes from a fixed
vocabulary (seeded). Run from the project root::

    python benchmarks/scale.py                     # 1,000 users (~3 min)
    python benchmarks/scale.py --users 1000,10000  # and 10,000 (~45 min)

The process's file limit (``ulimit -n``) is the children's, and recorded; a system that fails
(out of files) is reported with its last error line.

Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
for _p in (str(_ROOT / "core"), str(_ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

DIM = 384
WORDS = [
    "tea", "coffee", "lisbon", "porto", "piano", "cello", "garden", "roses", "whales", "pasta",
    "train", "budget", "launch", "friday", "sister", "brother", "doctor", "dentist", "flight",
    "hotel", "museum", "river", "mountain", "bicycle", "guitar", "novel",
]  # fmt: skip
QUERY = "tea garden friday"
SYSTEMS = ("cogmem", "chroma", "store")


def notes(user: int, count: int) -> list[str]:
    rng = random.Random(user)
    return [f"user {user} note {n}: {' '.join(rng.sample(WORDS, 6))}" for n in range(count)]


def p50_p95(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"p50": 0.0, "p95": 0.0}
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"p50": round(pick(0.5), 3), "p95": round(pick(0.95), 3)}


def disk_mb(folder: Path) -> float:
    return round(sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20, 1)


def process_figures() -> dict[str, float]:
    import psutil

    me = psutil.Process()
    return {"rss_mb": round(me.memory_info().rss / 2**20, 1), "open_files": me.num_fds()}


def touched(users: int, touch: int) -> list[int]:
    """The users searched after the build: spread over all, none of the last 64 written."""
    pool = list(range(max(0, users - 64)))
    return random.Random(7).sample(pool, min(touch, len(pool)))


def searched(
    per_thousand: list[float],
    first: list[float],
    repeat: list[float],
    close: Any,
    folder: Path,
) -> dict[str, Any]:
    """A system's figures once its searches ran: then it is closed, and the close timed."""
    figures = process_figures()
    began = time.perf_counter()
    close()
    return {
        "build_seconds_per_thousand": per_thousand,
        "first_search_ms": p50_p95(first),
        "repeat_search_ms": p50_p95(repeat),
        **figures,
        "close_seconds": round(time.perf_counter() - began, 2),
        "disk_mb": disk_mb(folder),
    }


# ------------------------------------------------------------------ the children
def run_cogmem(folder: Path, users: int, per_user: int, touch: int) -> dict[str, Any]:
    from cogmem import CognitiveMemory
    from cogmem.testing import HashingEmbedder

    mem = CognitiveMemory(path=folder, embedder=HashingEmbedder(DIM))
    per_thousand, start = [], time.perf_counter()
    for user in range(users):
        mem.add_many([{"text": t, "namespace": f"u{user}"} for t in notes(user, per_user)])
        if (user + 1) % 1000 == 0:
            now = time.perf_counter()
            per_thousand.append(round(now - start, 2))
            start = now
            print(f"cogmem: {user + 1} users", file=sys.stderr)
    first, repeat = [], []
    for user in touched(users, touch):
        for into in (first, repeat):
            began = time.perf_counter()
            found = mem.search(QUERY, namespace=f"u{user}", top_k=5, reinforce=False)
            into.append((time.perf_counter() - began) * 1000)
            assert found, f"user {user} found nothing"
    return searched(per_thousand, first, repeat, mem.close, folder)


def run_chroma(folder: Path, users: int, per_user: int, touch: int) -> dict[str, Any]:
    import bm25s
    import chromadb
    import numpy as np

    from cogmem.testing import HashingEmbedder

    embedder = HashingEmbedder(DIM)
    client = chromadb.PersistentClient(path=str(folder))
    per_thousand, start = [], time.perf_counter()
    for user in range(users):
        texts = notes(user, per_user)
        collection = client.create_collection(
            f"user-{user}", configuration={"hnsw": {"space": "cosine"}}
        )
        collection.add(
            ids=[f"{user}-{n}" for n in range(per_user)],
            documents=texts,
            embeddings=np.asarray(embedder.embed_documents(texts), dtype=np.float32),
        )
        if (user + 1) % 1000 == 0:
            now = time.perf_counter()
            per_thousand.append(round(now - start, 2))
            start = now
            print(f"chroma: {user + 1} users", file=sys.stderr)
    lexical: OrderedDict[int, tuple[Any, list[str]]] = OrderedDict()
    query = np.asarray(embedder.embed_query(QUERY), dtype=np.float32)

    def search(user: int) -> list[str]:
        collection = client.get_collection(f"user-{user}")
        dense = collection.query(query_embeddings=[query], n_results=5)["ids"][0]
        if user not in lexical:
            held = collection.get(include=["documents"])
            index = bm25s.BM25()
            index.index(bm25s.tokenize(held["documents"], show_progress=False), show_progress=False)
            lexical[user] = (index, held["ids"])
            if len(lexical) > 32:
                lexical.popitem(last=False)
        lexical.move_to_end(user)
        index, ids = lexical[user]
        hits, _ = index.retrieve(
            bm25s.tokenize([QUERY], show_progress=False), k=5, show_progress=False
        )
        return list(dict.fromkeys(dense + [ids[i] for i in hits[0]]))

    first, repeat = [], []
    for user in touched(users, touch):
        for into in (first, repeat):
            began = time.perf_counter()
            assert search(user)
            into.append((time.perf_counter() - began) * 1000)
    # clear_system_cache stops Chroma's system: what closing the client does
    return searched(per_thousand, first, repeat, client.clear_system_cache, folder)


def run_store(folder: Path, users: int, per_user: int, touch: int) -> dict[str, Any]:
    from langgraph.store.base import PutOp

    from cogmem import CognitiveMemory
    from cogmem.testing import HashingEmbedder
    from langchain_cogmem import CognitiveMemoryStore

    mem = CognitiveMemory(path=folder, embedder=HashingEmbedder(DIM))
    store = CognitiveMemoryStore(mem, fields=["text"], reinforce=False)
    per_thousand, start = [], time.perf_counter()
    for user in range(users):
        namespace = ("users", f"u{user}", "memories")
        store.batch(
            [PutOp(namespace, f"n{n}", {"text": t}) for n, t in enumerate(notes(user, per_user))]
        )
        if (user + 1) % 1000 == 0:
            now = time.perf_counter()
            per_thousand.append(round(now - start, 2))
            start = now
            print(f"store: {user + 1} users", file=sys.stderr)
    sample = touched(users, 200)
    searches, listings = [], []
    for user in sample:
        began = time.perf_counter()
        found = store.search(("users", f"u{user}"), query=QUERY, limit=5)
        searches.append((time.perf_counter() - began) * 1000)
        assert found and found[0].namespace[1] == f"u{user}"
        began = time.perf_counter()
        listed = store.list_namespaces(prefix=("users", f"u{user}"))
        listings.append((time.perf_counter() - began) * 1000)
        assert listed == [("users", f"u{user}", "memories")]
    figures = process_figures()
    began = time.perf_counter()
    mem.close()
    return {
        "build_seconds_per_thousand": per_thousand,
        "search_ms": p50_p95(searches),
        "list_namespaces_ms": p50_p95(listings),
        **figures,
        "close_seconds": round(time.perf_counter() - began, 2),
    }


RUNNERS = {"cogmem": run_cogmem, "chroma": run_chroma, "store": run_store}


# ------------------------------------------------------------------ the parent
def child(system: str, users: int, per_user: int, touch: int) -> dict[str, Any]:
    """Run one system in a fresh process (its RSS and open files its own)."""
    folder = Path(tempfile.mkdtemp(prefix=f"cogmem-scale-{system}-"))
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", system, "--users", str(users),
             "--per-user", str(per_user), "--touch", str(touch), "--folder", str(folder)],
            capture_output=True,
            text=True,
        )  # fmt: skip
        sys.stderr.write(done.stderr[-2000:])
        if done.returncode != 0:  # a system that cannot serve this many: said, not hidden
            return {"failed": done.stderr.strip().splitlines()[-1][:300]}
        return dict(json.loads(done.stdout))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", default="1000", help="comma-separated sizes (default 1000)")
    parser.add_argument("--per-user", type=int, default=20)
    parser.add_argument("--touch", type=int, default=1000, help="users searched after the build")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--child", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        users = int(args.users)
        print(json.dumps(RUNNERS[args.child](args.folder, users, args.per_user, args.touch)))
        return
    sizes = [int(s) for s in args.users.split(",") if s]
    systems = [s for s in args.systems.split(",") if s]
    out: dict[str, Any] = {
        "per_user": args.per_user,
        "touch": args.touch,
        "embedder": f"HashingEmbedder({DIM})",
        "cpus": os.cpu_count(),
        "file_limit": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
        "tenants": {},
    }
    for users in sizes:
        out["tenants"][str(users)] = {
            s: child(s, users, args.per_user, args.touch) for s in systems
        }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
