"""One large namespace: cogmem's folder store against bare Chroma + bm25s, at growing sizes.
Prints one JSON object.

For each size in ``--sizes``, one process builds both stores, taking turns batch by batch (so
both see the same machine load), from the same texts and vectors:

* **cogmem**: ``CognitiveMemory(path=...)``, ``add_many`` of 10,000 at a time with
  ``dedup_threshold=None`` (a bulk import: nothing is compared or read), each memory
  ``semantic`` (a fact: a search reads the versions among its best candidates);
* **bare**: ``chromadb.PersistentClient``, one collection (cosine) holding the same ids (the
  ones cogmem generated), texts and vectors, and a bm25s index of the texts (English stop
  words) saved beside it: the hybrid a user would write by hand, without decay, versions or
  explanations.

Then child processes, taking turns, ``--rounds`` each (every one a fresh process), measure for
each system:

* ``open_to_first_search_s``: from opening the store (the client, and bm25s loaded with
  ``mmap``) to the first search's results;
* ``search_ms``: p50 and p95 of ``--queries`` searches after it (top 10: cogmem's ``search``;
  bare: Chroma's query and bm25s's retrieval fused by reciprocal rank);
* ``peak_rss_mb`` (the child's ``VmHWM``); for cogmem ``close_s``, closing after 20 adds
  (its index saved).

``disk_mb`` is each folder's size after the build. ``ratios`` are cogmem / bare; ``growth``
the exponent ``b`` of ``value ∝ size^b`` fitted over the sizes (least squares on logs).

Texts are 12 words drawn from a Zipf vocabulary of 50,000 made-up words, vectors come from
:class:`cogmem.testing.HashingEmbedder` (384 dimensions): the figures measure storage and
search, not embedding. Queries are three words of the vocabulary. Run from the project root::

    python benchmarks/scale_namespace.py                          # 10k and 100k (~10 min)
    python benchmarks/scale_namespace.py --sizes 300000,1000000  # about an hour

Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
for _p in (str(_ROOT / "core"), str(_ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from benchmarks.scale import disk_mb  # noqa: E402

DIM = 384
BARE_IDS = "bare-ids.txt"
BATCH = 10_000
WORDS_PER_TEXT = 12
VOCABULARY = 50_000
NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
SYSTEMS = ("cogmem", "bare")


def log(message: str) -> None:
    print(f"[scale_namespace {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


@functools.cache
def vocabulary() -> tuple[list[str], list[float]]:
    """Made-up words (two to four syllables) and their Zipf weights, ``1 / rank^1.05``."""
    rng = random.Random(3)
    words = sorted(
        {
            "".join(rng.choice("bcdfgklmnprstvz") + rng.choice("aeiou") for _ in range(n))
            for n in rng.choices((2, 3, 4), k=3 * VOCABULARY)
        }
    )[:VOCABULARY]
    rng.shuffle(words)
    return words, [1 / (rank + 1) ** 1.05 for rank in range(len(words))]


@functools.cache
def _cumulative() -> list[float]:
    """The vocabulary's weights summed, as ``random.choices`` sums them for each call (passed
    as ``cum_weights``, they draw the same words, without 50,000 additions per text)."""
    return list(itertools.accumulate(vocabulary()[1]))


def texts(start: int, count: int) -> list[str]:
    """Memories ``start`` .. ``start + count - 1``: each the same whatever the batch."""
    words, cumulative = vocabulary()[0], _cumulative()
    out = []
    for n in range(start, start + count):
        rng = random.Random(n)
        out.append(" ".join(rng.choices(words, cum_weights=cumulative, k=WORDS_PER_TEXT)))
    return out


def queries(count: int) -> list[str]:
    words, weights = vocabulary()
    rng = random.Random(11)
    head = words[:5000]  # words the texts use often enough to be found
    return [" ".join(rng.choices(head, weights[:5000], k=3)) for _ in range(count)]


# --------------------------------------------------------------------------- building
def build(root: Path, size: int) -> dict[str, Any]:
    """Both stores of ``size`` memories in ``root/cogmem`` and ``root/bare``."""
    import bm25s
    import chromadb

    from cogmem import CognitiveMemory, CognitiveMemoryConfig
    from cogmem.testing import HashingEmbedder

    embedder = HashingEmbedder(DIM)
    seconds = dict.fromkeys(SYSTEMS, 0.0)
    bulk = CognitiveMemoryConfig(dedup_threshold=None)
    mem = CognitiveMemory(path=root / "cogmem", embedder=embedder, config=bulk)
    client = chromadb.PersistentClient(path=str(root / "bare"))
    bare = client.create_collection("bare", metadata={"hnsw:space": "cosine"})
    every: list[str] = []
    every_id: list[str] = []
    for start in range(0, size, BATCH):
        batch = texts(start, min(BATCH, size - start))
        every += batch
        began = time.perf_counter()
        ids = mem.add_many(
            [{"text": t, "memory_type": "semantic"} for t in batch], now=NOW, progress=False
        )
        seconds["cogmem"] += time.perf_counter() - began
        every_id += ids
        began = time.perf_counter()
        for at in range(0, len(batch), 5000):  # Chroma's largest add
            part = batch[at : at + 5000]
            bare.add(
                ids=ids[at : at + 5000], documents=part, embeddings=embedder.embed_documents(part)
            )
        seconds["bare"] += time.perf_counter() - began
        log(f"built {start + len(batch):,} of {size:,}")
    began = time.perf_counter()
    mem.close()
    seconds["cogmem"] += time.perf_counter() - began
    began = time.perf_counter()
    index = bm25s.BM25()
    index.index(bm25s.tokenize(every, stopwords="en", show_progress=False), show_progress=False)
    index.save(str(root / "bare" / "bm25s"), show_progress=False)
    # bm25s numbers its documents; their ids, in that order, are kept outside the folder
    # measured (a user would keep them somewhere: not counted against bare).
    (root / BARE_IDS).write_text("\n".join(every_id), encoding="utf-8")
    del bare, client
    seconds["bare"] += time.perf_counter() - began
    return {s: round(v, 1) for s, v in seconds.items()}


# --------------------------------------------------------------------------- children
def peak_rss_mb() -> float:
    """This process's peak resident set (``VmHWM``; ``ru_maxrss`` would count the parent's
    too, kept across ``exec`` on Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _searcher(system: str, folder: Path) -> tuple[Callable[[str], list[str]], Any]:
    """Open ``system``'s store in ``folder``: a search function and the store."""
    from cogmem.testing import HashingEmbedder

    embedder = HashingEmbedder(DIM)
    if system == "cogmem":
        from cogmem import CognitiveMemory

        mem = CognitiveMemory(path=folder, embedder=embedder)

        def search(query: str) -> list[str]:
            return [r.id for r in mem.search(query, top_k=10, now=NOW, reinforce=False)]

        return search, mem
    import bm25s
    import chromadb

    client = chromadb.PersistentClient(path=str(folder))
    collection = client.get_collection("bare")
    index = bm25s.BM25.load(str(folder / "bm25s"), mmap=True, show_progress=False)
    numbered = (folder.parent / BARE_IDS).read_text(encoding="utf-8").split("\n")

    def hybrid(query: str) -> list[str]:
        dense = collection.query(
            query_embeddings=[embedder.embed_query(query)], n_results=10, include=[]
        )["ids"][0]
        words = [w for w in query.split() if w in index.vocab_dict]
        found = index.retrieve([words], k=10, show_progress=False)[0][0].tolist() if words else []
        fused: dict[str, float] = {}
        for ranked in (dense, [numbered[i] for i in found]):
            for rank, memory_id in enumerate(ranked):
                fused[memory_id] = fused.get(memory_id, 0.0) + 1 / (60 + rank + 1)
        return sorted(fused, key=lambda i: -fused[i])[:10]

    return hybrid, client


def child(system: str, folder: Path, count: int) -> dict[str, Any]:
    asked = queries(count + 1)
    began = time.perf_counter()
    search, store = _searcher(system, folder)
    first = search(asked[0])
    opened = time.perf_counter() - began
    times = []
    for query in asked[1:]:
        began = time.perf_counter()
        search(query)
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    out: dict[str, Any] = {
        "open_to_first_search_s": round(opened, 3),
        "first_found": len(first),
        "search_ms": {
            "p50": round(statistics.median(times), 3),
            "p95": round(times[int(0.95 * (len(times) - 1))], 3),
        },
        "peak_rss_mb": peak_rss_mb(),
    }
    if system == "cogmem":
        store.add_many([{"text": t} for t in texts(10**9, 20)], now=NOW, progress=False)
        began = time.perf_counter()
        store.close()
        out["close_s"] = round(time.perf_counter() - began, 3)
    return out


def run_child(system: str, folder: Path, count: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", system, "--folder", str(folder)]
    done = subprocess.run(
        [*command, "--queries", str(count)], capture_output=True, text=True, check=False
    )
    if done.returncode:
        tail = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return {"error": tail[0]}
    return dict(json.loads(done.stdout))


# --------------------------------------------------------------------------- summary
def _median_of(runs: Sequence[dict[str, Any]], *keys: str) -> float | None:
    values = []
    for run in runs:
        value: Any = run
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, int | float):
            values.append(float(value))
    return round(statistics.median(values), 3) if values else None


def summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, float | None]]:
    keys = {
        "open_to_first_search_s": ("open_to_first_search_s",),
        "search_p50_ms": ("search_ms", "p50"),
        "search_p95_ms": ("search_ms", "p95"),
        "peak_rss_mb": ("peak_rss_mb",),
        "close_s": ("close_s",),
    }
    return {s: {k: _median_of(r, *path) for k, path in keys.items()} for s, r in runs.items()}


def growth(sizes: Sequence[int], values: Sequence[float | None]) -> float | None:
    """``b`` of ``value ∝ size^b``, least squares on logs (None with fewer than two)."""
    pairs = [(math.log(s), math.log(v)) for s, v in zip(sizes, values, strict=True) if v]
    if len(pairs) < 2:
        return None
    mx = statistics.fmean(x for x, _ in pairs)
    my = statistics.fmean(y for _, y in pairs)
    slope = sum((x - mx) * (y - my) for x, y in pairs) / sum((x - mx) ** 2 for x, _ in pairs)
    return round(slope, 3)


def run_size(size: int, rounds: int, count: int, keep: Path | None) -> dict[str, Any]:
    root = keep / f"n{size}" if keep else Path(tempfile.mkdtemp(prefix="cogmem-scale-ns-"))
    try:
        if not (root / BARE_IDS).exists():
            build_seconds: dict[str, Any] = build(root, size)
        else:
            build_seconds = {"reused": str(root)}
        disk = {s: disk_mb(root / s) for s in SYSTEMS}
        runs: dict[str, list[dict[str, Any]]] = {s: [] for s in SYSTEMS}
        for turn in range(rounds):
            for system in SYSTEMS if turn % 2 == 0 else SYSTEMS[::-1]:
                runs[system].append(run_child(system, root / system, count))
                log(f"{size:,} {system}: {runs[system][-1]}")
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    medians = summary(runs)
    return {
        "build_seconds": build_seconds,
        "disk_mb": disk,
        "systems": medians,
        "ratios": {
            key: round(mine / theirs, 3) if mine and theirs else None
            for key in ("open_to_first_search_s", "search_p50_ms", "peak_rss_mb")
            for mine, theirs in [(medians["cogmem"][key], medians["bare"][key])]
        }
        | {"disk": round(disk["cogmem"] / disk["bare"], 3)},
        "runs": runs,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated memory counts")
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per system")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="build in (and reuse from) this folder")
    parser.add_argument("--child", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.folder, args.queries)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    out: dict[str, Any] = {
        "embedder": f"HashingEmbedder({DIM})",
        "words_per_text": WORDS_PER_TEXT,
        "vocabulary": VOCABULARY,
        "rounds": args.rounds,
        "queries": args.queries,
        "sizes": {},
    }
    for size in sizes:
        out["sizes"][str(size)] = run_size(size, args.rounds, args.queries, args.keep)
    by_size = [out["sizes"][str(s)] for s in sizes]
    out["growth"] = {
        system: {
            key: growth(sizes, [r["systems"][system][key] for r in by_size])
            for key in ("open_to_first_search_s", "search_p50_ms", "peak_rss_mb")
        }
        for system in SYSTEMS
    }
    largest = by_size[-1]
    out["targets_at_largest"] = {
        "size": sizes[-1],
        "search_p50_at_most_bare": (largest["ratios"]["search_p50_ms"] or math.inf) <= 1.0,
        "open_to_first_search_at_most_3_s": (
            largest["systems"]["cogmem"]["open_to_first_search_s"] or math.inf
        )
        <= 3.0,
        "close_at_most_1_s": (largest["systems"]["cogmem"]["close_s"] or math.inf) <= 1.0,
        "disk_at_most_1.3x_bare": largest["ratios"]["disk"] <= 1.3,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
