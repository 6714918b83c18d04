"""Load on one shared memory served by a Chroma server; prints one JSON object on stdout.

Starts its own ``chroma run`` (a temporary folder, a free port on 127.0.0.1), then runs
``--workers`` processes (default 4) that share ONE collection through
``CognitiveMemory(client=chromadb.HttpClient(...), collection="load")``, as several agents
sharing a memory do. Between them they make ``--adds`` adds (default 10,000; one ``add`` call
each, with explicit ids ``w<worker>-<n>``) and ``--searches`` searches (default 10,000; hybrid,
top 10, default reinforcement, written behind), interleaved: add, search, add, search ...

Embeddings come from :class:`cogmem.testing.HashingEmbedder` (dimension 384, the width of
all-MiniLM-L6-v2): deterministic, no model, a few microseconds per short text, so the figures
measure cogmem and the Chroma server, not a model. Texts are short sentences drawn from a fixed
vocabulary (seeded); queries are three words from it.

Reported: wall time and throughput (operations/s over all workers), p50/p99 latency (ms) of
adds and of searches, errors (must be 0: every exception any call raised, by type), and the
final counts, which must match: Chroma's own count of the collection, the count a fresh
``CognitiveMemory`` reads, and the adds acknowledged. Exit status 1 if either check fails.

Run from the project root::

    python benchmarks/load.py            # 4 workers, 10,000 adds + 10,000 searches
    python benchmarks/load.py --quick    # 4 workers, 1,000 + 1,000 (smoke test)

Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

_ROOT = Path(__file__).resolve().parents[1]
for _p in (os.environ.get("COGMEM_CORE") or str(_ROOT / "core"), str(_ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

COLLECTION = "load"
DIM = 384
TOP_K = 10
WORDS = [
    "alpha",
    "budget",
    "launch",
    "friday",
    "coffee",
    "tea",
    "train",
    "harbour",
    "ferry",
    "schedule",
    "invoice",
    "postgres",
    "deploy",
    "release",
    "marathon",
    "garden",
    "piano",
    "lecture",
    "museum",
    "weather",
    "bicycle",
    "kitchen",
    "recipe",
    "passport",
    "visa",
    "dentist",
    "meeting",
    "roadmap",
    "sprint",
    "retro",
    "server",
    "memory",
    "index",
    "vector",
    "token",
    "window",
    "summary",
    "error",
    "backup",
    "restore",
    "network",
    "printer",
    "laptop",
    "monitor",
    "keyboard",
    "camera",
    "holiday",
    "birthday",
    "concert",
    "ticket",
]


def log(message: str) -> None:
    print(f"[load] {message}", file=sys.stderr, flush=True)


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def worker(
    number: int, host: str, port: int, adds: int, searches: int, start_at: float
) -> dict[str, Any]:
    """One agent: ``adds`` adds and ``searches`` searches, interleaved; returns its timings."""
    from cogmem import CognitiveMemory
    from cogmem.clients import http_client
    from cogmem.testing import HashingEmbedder

    rng = random.Random(1000 + number)
    mem = CognitiveMemory(
        client=http_client(host, port), collection=COLLECTION, embedder=HashingEmbedder(DIM)
    )
    add_ms: list[float] = []
    search_ms: list[float] = []
    errors: Counter[str] = Counter()
    acknowledged: list[str] = []
    steps = max(adds, searches)
    while time.time() < start_at:  # all workers start together
        time.sleep(0.005)
    began = time.perf_counter()
    for i in range(steps):
        if i < adds:
            memory_id = f"w{number}-{i}"
            text = f"{sentence(rng, 8)} (note {number}.{i})"
            t0 = time.perf_counter()
            try:
                mem.add(text, id=memory_id)
                acknowledged.append(memory_id)
            except Exception as exc:  # counted, reported, and fail the run
                errors[f"add: {type(exc).__name__}: {exc}"[:200]] += 1
            add_ms.append((time.perf_counter() - t0) * 1000)
        if i < searches:
            t0 = time.perf_counter()
            try:
                mem.search(sentence(rng, 3), top_k=TOP_K)
            except Exception as exc:
                errors[f"search: {type(exc).__name__}: {exc}"[:200]] += 1
            search_ms.append((time.perf_counter() - t0) * 1000)
    try:
        mem.close()  # writes the reinforcements still pending
    except Exception as exc:
        errors[f"close: {type(exc).__name__}: {exc}"[:200]] += 1
    return {
        "worker": number,
        "seconds": time.perf_counter() - began,
        "add_ms": add_ms,
        "search_ms": search_ms,
        "errors": dict(errors),
        "acknowledged": acknowledged,
    }


def _run(args: argparse.Namespace) -> dict[str, Any]:
    from cogmem import CognitiveMemory
    from cogmem.testing import HashingEmbedder
    from tests.chroma_server import ChromaServer

    with tempfile.TemporaryDirectory(prefix="cogmem-load-") as tmp:
        server = ChromaServer(Path(tmp) / "chroma")
        t0 = time.perf_counter()
        server.start()
        log(f"chroma run up at {server.address} in {time.perf_counter() - t0:.1f} s")
        try:
            # Create the collection once, before the workers race to.
            CognitiveMemory(
                client=server.client(), collection=COLLECTION, embedder=HashingEmbedder(DIM)
            ).close()
            per_add = [args.adds // args.workers] * args.workers
            per_search = [args.searches // args.workers] * args.workers
            for k in range(args.adds % args.workers):
                per_add[k] += 1
            for k in range(args.searches % args.workers):
                per_search[k] += 1
            start_at = time.time() + 3.0 + 0.5 * args.workers  # time for spawn + imports
            log(f"{args.workers} workers: {args.adds} adds + {args.searches} searches")
            context = mp.get_context("spawn")
            wall0 = time.time()
            with context.Pool(args.workers) as pool:
                results = pool.starmap(
                    worker,
                    [
                        (n, server.host, server.port, per_add[n], per_search[n], start_at)
                        for n in range(args.workers)
                    ],
                )
            wall = time.time() - max(start_at, wall0)
            log(f"workers done in {wall:.1f} s; counting")
            client = server.client()
            chroma_count = int(client.get_collection(COLLECTION).count())
            with CognitiveMemory(
                client=client, collection=COLLECTION, embedder=HashingEmbedder(DIM)
            ) as reader:
                cogmem_count = reader.count()
                stored_ids = {m.id for m in reader.memories()}
        finally:
            server.stop()

    add_ms = [x for r in results for x in r["add_ms"]]
    search_ms = [x for r in results for x in r["search_ms"]]
    acknowledged = [i for r in results for i in r["acknowledged"]]
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])
    missing = sorted(set(acknowledged) - stored_ids)
    counts_match = chroma_count == cogmem_count == len(acknowledged) == args.adds and not missing

    def stats(xs: list[float]) -> dict[str, float]:
        arr = np.asarray(xs, dtype=np.float64)
        return {
            "n": int(arr.size),
            "p50_ms": round(float(np.percentile(arr, 50)), 3) if arr.size else float("nan"),
            "p99_ms": round(float(np.percentile(arr, 99)), 3) if arr.size else float("nan"),
            "mean_ms": round(float(arr.mean()), 3) if arr.size else float("nan"),
        }

    return {
        "benchmark": "load",
        "server": "chroma run (local, 127.0.0.1)",
        "chromadb": _version("chromadb"),
        "embedder": f"cogmem.testing.HashingEmbedder(dimension={DIM}) (no model)",
        "workers": args.workers,
        "collection": "one collection shared by every worker",
        "wall_seconds": round(wall, 3),
        "throughput_ops_per_s": round((len(add_ms) + len(search_ms)) / wall, 1),
        "adds_per_s": round(len(add_ms) / wall, 1),
        "searches_per_s": round(len(search_ms) / wall, 1),
        "add": stats(add_ms),
        "search": stats(search_ms),
        "errors": sum(errors.values()),
        "error_types": dict(errors),
        "counts": {
            "adds_requested": args.adds,
            "adds_acknowledged": len(acknowledged),
            "chroma_count": chroma_count,
            "cogmem_count": cogmem_count,
            "missing_acknowledged": len(missing),
            "match": counts_match,
        },
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--adds", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="1,000 adds + 1,000 searches")
    args = parser.parse_args(argv)
    if args.quick:
        args.adds, args.searches = 1_000, 1_000
    if args.workers < 1 or args.adds < 0 or args.searches < 0:
        parser.error("--workers must be >= 1, --adds and --searches >= 0")
    report = _run(args)
    print(json.dumps(report, indent=2))
    ok = report["errors"] == 0 and report["counts"]["match"]
    log("OK" if ok else "FAILED: errors or counts that do not match")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
