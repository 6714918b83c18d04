"""Many app processes on one Chroma server, sharing many tenants; prints one JSON object.

The simulation of design §7 ("Past one machine"): one ``chroma run`` (a temporary folder, a
free port on 127.0.0.1) holds ``--tenants`` users of ``--per-tenant`` memories each, every user
a namespace of one store (``CognitiveMemory(client=HttpClient(...), collection="tenants")``,
as a LangGraph app gives each user a namespace). Then, for ``--seconds``:

* ``--writers`` processes each write one memory at a time, ``--rate`` writes per second, to
  users drawn from ``--active`` of them (the users online), and announce every write that
  returned (acknowledged) to every reader;
* ``--readers`` processes serve the users a router sends them (user ``n`` to reader
  ``n mod readers``, so each keeps its users' lexical index warm): each takes turns between
  a search for each announced write in one of its users, repeated until the write is found
  (the **freshness lag**: found minus acknowledged, on the machine's one clock, so it holds
  the announcement's trip and the reader's own queue; ``found_by_first_search``: the share a
  reader's first search after the announcement found), and an
  ordinary search in one of its users (``repeat``: a user it has read before; ``cold``: one it
  has not, so it reads the user's memories in full to build its index).

Afterwards every reader looks up every acknowledged write by id in its namespace, its own
users and the others' (``missing`` must be 0), and reports its RSS. ``catch_up_ms`` is what a
read pays for another process's new write: the first search after a write (found at once)
less a repeat search that found nothing new (p50s). ``cold_ms`` is the price of a user this
process never served: the full read that a server-side sparse (BM25) index would save (local
Chroma refuses one, so that seam is priced here, not run).

Every app process (the builder, writers and readers) runs under a limit of ``--app-files``
open files (1,024, a common default); the server keeps the limit of the shell that started the
run, and a config file that keeps at most ``--server-indexes`` (1,000) HNSW indexes loaded:
by default ``chroma run`` keeps every index it has touched (a cache of 65,536, four open files
each) and failed at about 4,950 users under ``ulimit -n 20000``, at about 250 under 1,024
("unable to open database file").

Embeddings come from :class:`cogmem.testing.HashingEmbedder` (384 dimensions, no model): the
figures measure cogmem and the server. Run from the project root::

    python benchmarks/serve.py                    # 10,000 users (~11 min)
    python benchmarks/serve.py --tenants 500 --seconds 20  # a smoke run (~1 min)

Progress goes to stderr. Exit status 1 if anything acknowledged is missing from a reader, or
a call raised.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[1]
for _p in (str(_ROOT / "core"), str(_ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

COLLECTION = "tenants"
DIM = 384
FOUND_WITHIN = 10.0  # seconds a reader looks for an announced write before calling it late
WORDS = [
    "tea", "coffee", "lisbon", "porto", "piano", "cello", "garden", "roses", "whales", "pasta",
    "train", "budget", "launch", "friday", "sister", "brother", "doctor", "dentist", "flight",
    "hotel", "museum", "river", "mountain", "bicycle", "guitar", "novel",
]  # fmt: skip
Probe = tuple[str, str, str, float]  # namespace, id, the word only it holds, acknowledged at


def log(message: str) -> None:
    print(f"[serve] {message}", file=sys.stderr, flush=True)


def tenant(n: int) -> str:
    return f"user-{n:05d}"


def note(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(6))


def p50_p95(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
        "max": round(ordered[-1], 3),
    }


def open_memory(host: str, port: int) -> Any:
    from cogmem import CognitiveMemory
    from cogmem.clients import http_client
    from cogmem.testing import HashingEmbedder

    return CognitiveMemory(
        client=http_client(host, port), collection=COLLECTION, embedder=HashingEmbedder(DIM)
    )


def limit_files(files: int) -> None:
    """This process's soft limit of open files (an app process under a common default)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(files, hard), hard))


def rss_mb() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 2**20, 1)


def build(host: str, port: int, tenants: int, per_tenant: int) -> list[float]:
    """Every user's memories, 50 users per call; the seconds per thousand users."""
    mem = open_memory(host, port)
    rng = random.Random(7)
    per_thousand, started = [], time.perf_counter()
    try:
        for first in range(0, tenants, 50):
            mem.add_many(
                [
                    {"text": note(rng), "namespace": tenant(n), "id": f"{tenant(n)}-{k}"}
                    for n in range(first, min(first + 50, tenants))
                    for k in range(per_tenant)
                ],
                progress=False,
            )
            done = min(first + 50, tenants)
            if done % 1000 == 0 or done == tenants:
                per_thousand.append(round(time.perf_counter() - started, 2))
                started = time.perf_counter()
                log(f"built {done:,} users")
    finally:
        mem.close()
    return per_thousand


def writer(
    number: int, host: str, port: int, active: list[int], rate: float, seconds: float,
    start_at: float, announce: list[Any], files: int,
) -> dict[str, Any]:  # fmt: skip
    """Writes at ``rate`` per second for ``seconds``; announces each acknowledged write."""
    limit_files(files)
    rng = random.Random(100 + number)
    mem = open_memory(host, port)
    add_ms: list[float] = []
    errors: list[str] = []
    acknowledged = 0
    while time.time() < start_at:
        time.sleep(0.005)
    for n in range(int(rate * seconds)):
        time.sleep(max(0.0, start_at + n / rate - time.time()))  # paced, not bursting
        namespace, word = tenant(rng.choice(active)), f"probe{number}x{n}"
        memory_id = f"w{number}-{n}"
        t0 = time.time()
        try:
            mem.add(f"{word} {note(rng)}", id=memory_id, namespace=namespace)
        except Exception as exc:  # counted and reported: the run fails
            errors.append(f"add: {type(exc).__name__}: {exc}"[:200])
            continue
        acked = time.time()
        add_ms.append(1000 * (acked - t0))
        acknowledged += 1
        for inbox in announce:
            inbox.put((namespace, memory_id, word, acked))
    for inbox in announce:
        inbox.put(None)  # this writer is done
    mem.close()
    return {"add_ms": p50_p95(add_ms), "acknowledged": acknowledged, "errors": errors,
            "rss_mb": rss_mb()}  # fmt: skip


def reader(
    number: int, readers: int, writers: int, host: str, port: int, active: list[int],
    inbox: Any, files: int,
) -> dict[str, Any]:  # fmt: skip
    """Serves its users until every writer is done; then checks every acknowledged write."""
    limit_files(files)
    from cogmem import MemoryNotFoundError

    rng = random.Random(200 + number)
    mine = [n for n in active if n % readers == number]
    mem = open_memory(host, port)
    lags: list[float] = []
    timings: dict[str, list[float]] = {"cold": [], "repeat": [], "after_write": []}
    served: set[str] = set()
    every: list[Probe] = []
    errors: list[str] = []
    first_try: list[bool] = []
    late = 0
    done = 0

    def timed_search(namespace: str, query: str) -> tuple[list[str], float]:
        t0 = time.perf_counter()
        found = [r.id for r in mem.search(query, namespace=namespace, top_k=5)]
        return found, 1000 * (time.perf_counter() - t0)

    def look_for(namespace: str, memory_id: str, word: str, acked: float) -> bool:
        """Search for an announced write until found (its lag kept) or FOUND_WITHIN."""
        kind = "after_write" if namespace in served else "cold"
        found, ms = timed_search(namespace, word)
        timings[kind].append(ms)
        served.add(namespace)
        first_try.append(memory_id in found)
        while memory_id not in found and time.time() - acked < FOUND_WITHIN:
            found, _ = timed_search(namespace, word)
        if memory_id in found:
            lags.append(1000 * (time.time() - acked))
        return memory_id in found

    while done < writers:
        try:
            probe = inbox.get(timeout=0.01)
        except queue.Empty:
            probe = ""
        if probe is None:
            done += 1
            continue
        try:
            if probe:
                every.append(probe)
                namespace, memory_id, word, acked = probe
                if int(namespace.split("-")[1]) % readers == number:
                    late += not look_for(namespace, memory_id, word, acked)
                if not inbox.empty():
                    continue  # announcements first: their lag is not this reader's queue
            namespace = tenant(rng.choice(mine))  # an ordinary read between announcements
            kind = "repeat" if namespace in served else "cold"
            _, ms = timed_search(namespace, " ".join(rng.sample(WORDS, 3)))
            timings[kind].append(ms)
            served.add(namespace)
        except Exception as exc:
            errors.append(f"search: {type(exc).__name__}: {exc}"[:200])
    missing = 0
    for namespace, memory_id, _, _ in every:  # the others' users too
        try:
            mem.get(memory_id, namespace=namespace)
        except MemoryNotFoundError:
            missing += 1
        except Exception as exc:
            errors.append(f"get: {type(exc).__name__}: {exc}"[:200])
    figures = {
        "users_served": len(served),
        "freshness_lag_ms": p50_p95(lags),
        "found_by_first_search": round(sum(first_try) / max(len(first_try), 1), 4),
        "late": late,
        "search_ms": {kind: p50_p95(values) for kind, values in timings.items()},
        "checked": len(every),
        "missing": missing,
        "errors": errors,
        "rss_mb": rss_mb(),
    }
    mem.close()
    return figures


def simulate(args: argparse.Namespace) -> dict[str, Any]:
    from tests.chroma_server import ChromaServer

    settings = ("tenants", "per_tenant", "writers", "readers", "seconds", "rate", "active",
                "app_files", "server_indexes")  # fmt: skip
    out: dict[str, Any] = {key: getattr(args, key) for key in settings}
    out["server_files"] = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    out["embedder"] = f"HashingEmbedder({DIM})"
    out["cpus"] = os.cpu_count()
    with tempfile.TemporaryDirectory(prefix="cogmem-serve-") as tmp:
        server = ChromaServer(Path(tmp) / "chroma", loaded_indexes=args.server_indexes).start()
        limit_files(args.app_files)  # the server keeps the limit it started with
        try:
            out["build_seconds_per_thousand"] = build(
                server.host, server.port, args.tenants, args.per_tenant
            )
            active = random.Random(3).sample(range(args.tenants), min(args.active, args.tenants))
            context = mp.get_context("spawn")
            manager = context.Manager()
            inboxes = [manager.Queue() for _ in range(args.readers)]
            start_at = time.time() + 5.0  # for spawn and imports
            log(f"{args.writers} writers, {args.readers} readers, {args.seconds} s")
            with context.Pool(args.writers + args.readers) as pool:
                reading = [
                    pool.apply_async(reader, (n, args.readers, args.writers, server.host,
                                              server.port, active, inboxes[n], args.app_files))
                    for n in range(args.readers)
                ]  # fmt: skip
                writing = [
                    pool.apply_async(writer, (n, server.host, server.port, active, args.rate,
                                              args.seconds, start_at, inboxes, args.app_files))
                    for n in range(args.writers)
                ]  # fmt: skip
                out["writers_report"] = [w.get() for w in writing]
                out["readers_report"] = [r.get() for r in reading]
            import psutil

            served = psutil.Process(server.pid)
            out["server_rss_mb"] = round(served.memory_info().rss / 2**20, 1)
            out["server_open_files"] = served.num_fds()
        finally:
            server.stop()
    lags = [r["freshness_lag_ms"]["p95"] for r in out["readers_report"] if r["freshness_lag_ms"]]
    out["freshness_lag_p95_ms"] = max(lags) if lags else None
    out["catch_up_ms"] = [_less(r, "after_write", "repeat") for r in out["readers_report"]]
    out["cold_ms"] = [_less(r, "cold", "repeat") for r in out["readers_report"]]
    out["missing"] = sum(r["missing"] for r in out["readers_report"])
    out["errors"] = sum(len(s["errors"]) for s in out["writers_report"] + out["readers_report"])
    out["target_lag_p95_at_most_1s"] = lags != [] and max(lags) <= 1000
    return out


def _less(report: dict[str, Any], kind: str, base: str) -> float | None:
    """The p50 of a reader's searches of ``kind`` less that of its ``base`` ones (ms)."""
    a, b = report["search_ms"][kind], report["search_ms"][base]
    return None if a is None or b is None else round(a["p50"] - b["p50"], 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tenants", type=int, default=10_000)
    parser.add_argument("--per-tenant", type=int, default=20)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=5.0, help="writes per second per writer")
    parser.add_argument("--active", type=int, default=1000, help="users online")
    parser.add_argument(
        "--server-indexes", type=int, default=1000, help="HNSW indexes the server keeps loaded"
    )
    parser.add_argument(
        "--app-files", type=int, default=1024, help="each app process's limit of open files"
    )
    out = simulate(parser.parse_args())
    print(json.dumps(out, indent=2))
    sys.exit(1 if out["missing"] or out["errors"] else 0)


if __name__ == "__main__":
    main()
