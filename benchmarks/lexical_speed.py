"""Speed and memory of :class:`cogmem.lexical.BM25Index` on a synthetic corpus; prints JSON.

100k documents of ~20 tokens drawn from a Zipfian (s = 1) vocabulary of 50k terms. Reports the
bulk build time, the memory held (tracemalloc, which sees numpy buffers, and the arrays' own
``nbytes``), query latency for 5-term queries (p50/p95, top 10), the latency of adding one
document and then querying (the first query after a write recomputes the mean idf), remove
latency, and save/load time and file size. ``--compare`` also times ``rank_bm25`` on the same
corpus (slow: it rebuilds everything and scores every document per query).

Run: ``python benchmarks/lexical_speed.py [--docs N] [--vocab V] [--compare]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))

from cogmem.lexical import BM25Index


def _corpus(docs: int, vocab: int, seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()
    lengths = rng.integers(10, 31, size=docs)  # mean 20 tokens
    flat = rng.choice(vocab, size=int(lengths.sum()), p=weights)
    words = [f"t{i}" for i in range(vocab)]
    out: list[list[str]] = []
    start = 0
    for length in lengths.tolist():
        out.append([words[i] for i in flat[start : start + length].tolist()])
        start += length
    return out


def _queries(count: int, vocab: int, seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()
    return [[f"t{i}" for i in rng.choice(vocab, size=5, p=weights).tolist()] for _ in range(count)]


def _ms(seconds: list[float], q: float) -> float:
    return round(float(np.percentile(seconds, q)) * 1000, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--vocab", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--compare", action="store_true", help="also time rank_bm25")
    args = parser.parse_args()

    corpus = _corpus(args.docs, args.vocab, seed=1)
    queries = _queries(args.queries, args.vocab, seed=2)
    items = [(f"doc-{i}", tokens) for i, tokens in enumerate(corpus)]
    result: dict[str, Any] = {
        "documents": args.docs,
        "vocabulary": args.vocab,
        "tokens": sum(map(len, corpus)),
    }

    # Build (bulk), timed without tracing.
    gc.collect()
    t0 = time.perf_counter()
    index = BM25Index()
    index.add_many(items)
    result["build_add_many_s"] = round(time.perf_counter() - t0, 3)
    stats = index.stats()
    result["postings"] = stats["postings"]
    result["terms"] = stats["terms"]
    result["array_nbytes"] = stats["array_bytes"]
    # Memory held, measured by tracemalloc (numpy reports its buffers to it) on a second build.
    del index
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    index = BM25Index()
    index.add_many(items)
    gc.collect()
    result["memory_tracemalloc_bytes"] = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    result["memory_bytes_per_posting"] = round(
        result["memory_tracemalloc_bytes"] / result["postings"], 2
    )

    # Build one document at a time (the incremental path).
    t0 = time.perf_counter()
    one_by_one = BM25Index()
    for doc_id, tokens in items:
        one_by_one.add(doc_id, tokens)
    result["build_add_one_by_one_s"] = round(time.perf_counter() - t0, 3)
    del one_by_one

    # Queries (first call warms the cached statistics).
    index.search(queries[0], k=10)
    times = []
    matched = []
    for query in queries:
        t0 = time.perf_counter()
        index.search(query, k=10)
        times.append(time.perf_counter() - t0)
        matched.append(len(index.get_scores(query)))
    result["query5_top10_p50_ms"] = _ms(times, 50)
    result["query5_top10_p95_ms"] = _ms(times, 95)
    result["query5_matched_docs_median"] = int(statistics.median(matched))
    rare = [[f"t{i}" for i in range(args.vocab - 5 - j, args.vocab - j)] for j in range(100)]
    times = []
    for query in rare:
        t0 = time.perf_counter()
        index.search(query, k=10)
        times.append(time.perf_counter() - t0)
    result["query5_rare_terms_p50_ms"] = _ms(times, 50)

    # Add one document then query (vs the same query without the write, interleaved so that
    # machine noise hits both alike); remove one document.
    add_times, add_query_times, plain_query_times, remove_times = [], [], [], []
    for i in range(200):
        query = queries[i % len(queries)]
        t0 = time.perf_counter()
        index.search(query, k=10)
        plain_query_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        index.add(f"new-{i}", corpus[i])
        t1 = time.perf_counter()
        index.search(query, k=10)
        t2 = time.perf_counter()
        add_times.append(t1 - t0)
        add_query_times.append(t2 - t0)
    for i in range(200):
        t0 = time.perf_counter()
        index.remove(f"doc-{i * 7}")
        remove_times.append(time.perf_counter() - t0)
    result["add_one_p50_ms"] = _ms(add_times, 50)
    result["add_one_then_query_p50_ms"] = _ms(add_query_times, 50)
    result["same_query_without_add_p50_ms"] = _ms(plain_query_times, 50)
    result["remove_one_p50_ms"] = _ms(remove_times, 50)
    result["dead_slots_before_compact"] = index.stats()["dead_slots"]
    t0 = time.perf_counter()
    index.compact()
    result["compact_s"] = round(time.perf_counter() - t0, 3)

    # Save / load.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bm25.npz")
        t0 = time.perf_counter()
        index.save(path)
        result["save_s"] = round(time.perf_counter() - t0, 3)
        result["file_bytes"] = os.path.getsize(path)
        t0 = time.perf_counter()
        loaded = BM25Index.load(path)
        result["load_s"] = round(time.perf_counter() - t0, 3)
        del loaded
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        loaded = BM25Index.load(path)
        gc.collect()
        result["memory_after_load_tracemalloc_bytes"] = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        same = loaded.search(queries[0], k=10) == index.search(queries[0], k=10)
        result["load_round_trip_equal"] = same and loaded.fingerprint() == index.fingerprint()

    if args.compare:
        from rank_bm25 import BM25Okapi

        live = [tokens for doc_id, tokens in items if doc_id in index]
        t0 = time.perf_counter()
        reference = BM25Okapi(live)
        result["rank_bm25_build_s"] = round(time.perf_counter() - t0, 3)
        times = []
        for query in queries[:5]:
            t0 = time.perf_counter()
            reference.get_scores(query)
            times.append(time.perf_counter() - t0)
        result["rank_bm25_query5_p50_ms"] = _ms(times, 50)
        del reference
        gc.collect()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        reference = BM25Okapi(live)
        gc.collect()
        result["rank_bm25_memory_tracemalloc_bytes"] = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()

    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
