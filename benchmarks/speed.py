"""Speed and memory of cogmem against its peers (design §8); prints one JSON object on stdout.

Systems, all on a Chroma ``PersistentClient`` in a temporary folder, all fed the SAME
precomputed vectors (random unit float32 vectors of dimension 384, seeded; speed does not depend
on what they mean):

* ``cogmem`` - :class:`cogmem.CognitiveMemory` with its defaults (hybrid), searched with
  ``reinforce=False`` and with the default ``reinforce=True``;
* ``chroma`` - a bare chromadb collection queried by vector (dense only: the floor);
* ``langchain`` - ``EnsembleRetriever`` over ``BM25Retriever`` + ``langchain_chroma`` (0.5/0.5);
* ``llamaindex`` - ``QueryFusionRetriever`` (reciprocal rerank, ``num_queries=1``) over BM25
  (bm25s) + a ``VectorStoreIndex`` on ``ChromaVectorStore``.

The peers are those of :mod:`benchmarks.peers`, with their Chroma client swapped for a
persistent one. Memories are short realistic texts (SciFact abstract sentences and LoCoMo turns,
cycled with a numeric suffix to reach N) and queries are SciFact claims, so BM25 behaves as it
would on real data. Per size and system this measures:

* build: memories/s when adding all N in batches of 1,000 (``add_many`` / the peers' ``add``;
  the peers rebuild their BM25 index on every ``add``, as their users must);
* search p50/p95 (ms, top 10) over the queries, the query embedding NOT timed (precomputed
  vectors served by a dict lookup), after a few untimed warm-up queries;
* add-then-search: add ONE memory then search at once (p50, p95 and mean over the repetitions):
  this is where the peers rebuild their BM25 index. cogmem holds small adds and writes them to
  Chroma in groups of 64 (``add_flush_size``), so its 200 repetitions include those group
  writes: the mean is the amortised cost. Each repetition first times one search with no add
  before it (``search_alone_p50``), the reference the 1.5x target is checked against;
* open-to-first-search: in a fresh subprocess, open the persisted store and run one search
  (for the peers: reopen Chroma through the framework and rebuild BM25 from the stored
  documents, what their users do on restart); imports are timed separately;
* peak RSS (MiB) of building + searching, each system in its own subprocess.

The build subprocesses of all systems run at once in lockstep (:class:`Gate`): the driver
hands out turns round-robin, one step each (an add batch, a search, an add-then-search
repetition), so one process runs at a time and every system is timed over the same minutes.
``--sequential`` runs them one after the other instead.

Run from the project root::

    python benchmarks/speed.py --quick                 # N = 2,000 smoke test (~1 min)
    python benchmarks/speed.py --sizes 10000,100000    # the target sizes (~30-40 min)

Progress goes to stderr. ``--systems`` picks systems, ``--workdir`` keeps the stores. The driver
first copies cogmem and these modules into its temporary folder and runs every worker from that
copy, so that edits to the working tree during a long run cannot mix two versions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

_ROOT = Path(__file__).resolve().parents[1]
# COGMEM_CORE: import cogmem from another checkout (default: this project's core/).
for _p in (os.environ.get("COGMEM_CORE") or str(_ROOT / "core"), str(_ROOT)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from benchmarks.common import load_locomo, percentiles, rss_peak_mb  # noqa: E402
from benchmarks.data import data_dir  # noqa: E402

SYSTEMS = ("cogmem", "chroma", "langchain", "llamaindex")
PEERS = ("chroma", "langchain", "llamaindex")
DIM = 384
BATCH = 1000
TOP_K = 10
WARMUP = 5
SEED = 8
QUERY_SEED = 9

Number = float | int | None


def log(msg: str) -> None:
    print(f"[speed {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Data


def base_sentences() -> list[str]:
    """Distinct SciFact abstract sentences (split on ". ") and LoCoMo turns, shuffled (seeded)."""
    seen: dict[str, None] = {}
    with (data_dir() / "scifact" / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            for sentence in str(json.loads(line).get("text") or "").split(". "):
                sentence = sentence.strip()
                if len(sentence) >= 20:
                    seen[sentence] = None
    for conversation in load_locomo(data_dir() / "locomo" / "dev.jsonl"):
        for turn in conversation.turns:
            seen[turn.text] = None
    out = list(seen)
    order = np.random.default_rng(SEED).permutation(len(out))
    return [out[i] for i in order.tolist()]


def memory_text(base: Sequence[str], i: int) -> str:
    """Memory ``i``: the base sentences cycled, with the cycle number after the first pass."""
    cycle, j = divmod(i, len(base))
    return base[j] if cycle == 0 else f"{base[j]} ({cycle})"


def query_texts(count: int) -> list[str]:
    with (data_dir() / "scifact" / "queries.jsonl").open(encoding="utf-8") as fh:
        texts = [str(json.loads(line)["text"]) for line in fh]
    if count > len(texts):
        raise SystemExit(f"only {len(texts)} SciFact queries, asked for {count}")
    return texts[:count]


def unit_vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 10_000):
        block = rng.standard_normal((min(10_000, n - start), DIM), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start : start + len(block)] = block
    return out


def read_rows(path: Path, start: int, count: int) -> np.ndarray:
    """Rows ``start:start+count`` of a raw float32 matrix file (read, not mapped: no RSS)."""
    flat = np.fromfile(path, dtype=np.float32, count=count * DIM, offset=start * DIM * 4)
    return flat.reshape(count, DIM)


def current_rss_mb() -> float:
    import psutil

    return float(psutil.Process().memory_info().rss) / (1024 * 1024)


# --------------------------------------------------------------------------------------------
# Lockstep: the build workers take turns, one step each


class Gate:
    """A build worker's turn-taking with the driver (``--gate R,W``: two pipe fds).

    The driver starts every system's build worker at once and hands out turns round-robin:
    each worker blocks in :meth:`step` until the driver writes a byte to ``R``, runs ONE step
    (an add batch, a search, an add-then-search repetition) and reports it done on ``W``. Only
    one worker runs at a time, so no step competes for the CPU, and every system's figures
    are taken across the same minutes: this machine's speed drifts by 20-30% over a run,
    and ratios between systems measured an hour apart would carry that drift. Without
    ``--gate`` (a worker run by hand, ``--sequential``), :meth:`step` does nothing.
    """

    def __init__(self, spec: str | None) -> None:
        self._fds: tuple[int, int] | None = None
        if spec:
            read_fd, write_fd = (int(x) for x in spec.split(","))
            self._fds = (read_fd, write_fd)

    @contextmanager
    def step(self) -> Iterator[None]:
        if self._fds is None:
            yield
            return
        if not os.read(self._fds[0], 1):
            raise SystemExit("driver went away")
        try:
            yield
        finally:
            os.write(self._fds[1], b".")


# --------------------------------------------------------------------------------------------
# Systems under test (worker side)


class LookupEmbedder:
    """cogmem's embedder: vectors looked up in a dict, so embedding costs ~0. A text not in
    the table (a short phrase the version reading of write-time dedup compares) is embedded
    by the model-free hashing embedder: no model is loaded in a worker."""

    def __init__(self) -> None:
        self.table: dict[str, np.ndarray] = {}
        self._other: Any = None

    def put(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.table.update(zip(texts, vectors, strict=True))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        table = self.table
        return np.stack([table[t] if t in table else self._hash(t) for t in texts])

    def _hash(self, text: str) -> np.ndarray:
        if self._other is None:
            from cogmem.testing import HashingEmbedder

            width = len(next(iter(self.table.values())))
            self._other = HashingEmbedder(dimension=width)
        return np.asarray(self._other.embed([text])[0], dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts).tolist()

    def embed_query(self, text: str) -> np.ndarray:
        return self.table[text]


def _chroma_settings() -> Any:
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, allow_reset=False)


def _persistent_client(folder: Path) -> Any:
    import chromadb

    folder.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(folder), settings=_chroma_settings())


class System:
    """What the build worker drives: ``add`` a batch, ``search`` one query, ``persist``."""

    name: str

    def add(self, ids: list[str], texts: list[str], vectors: np.ndarray) -> None:
        raise NotImplementedError

    def search(self, query: str, vector: np.ndarray, *, reinforce: bool | None = None) -> int:
        raise NotImplementedError

    def persist(self) -> dict[str, Any]:
        raise NotImplementedError


class CogmemSystem(System):
    name = "cogmem"

    def __init__(self, folder: Path, start: datetime) -> None:
        from cogmem import CognitiveMemory

        self.embedder = LookupEmbedder()
        self.memory = CognitiveMemory(path=folder, embedder=self.embedder)
        self.start = start
        self.added = 0

    def add(self, ids: list[str], texts: list[str], vectors: np.ndarray) -> None:
        from cogmem import MemoryInput

        self.embedder.put(texts, vectors)
        items = [
            MemoryInput(text=t, id=i, created_at=self.start + timedelta(minutes=self.added + n))
            for n, (i, t) in enumerate(zip(ids, texts, strict=True))
        ]
        self.memory.add_many(items)
        self.added += len(ids)
        self.embedder.table.clear()  # like the peers' tables: only what is being added

    def search(self, query: str, vector: np.ndarray, *, reinforce: bool | None = None) -> int:
        self.embedder.table[query] = vector
        return len(self.memory.search(query, top_k=TOP_K, reinforce=reinforce))

    def persist(self) -> dict[str, Any]:
        self.memory.close()
        return {}


class PeerSystem(System):
    """A :mod:`benchmarks.peers` peer whose Chroma client is a PersistentClient on ``folder``."""

    def __init__(self, name: str, folder: Path) -> None:
        from benchmarks import peers

        self.name = name
        original = peers._chroma_client
        peers._chroma_client = lambda: _persistent_client(folder)  # type: ignore[assignment]
        try:
            if name == "chroma":
                self.peer: Any = peers.BareChroma()
            elif name == "langchain":
                self.peer = peers.LangChainEnsemble()
            elif name == "llamaindex":
                self.peer = peers.LlamaIndexFusion(k=TOP_K)
            else:
                raise ValueError(name)
        finally:
            peers._chroma_client = original

    def add(self, ids: list[str], texts: list[str], vectors: np.ndarray) -> None:
        self.peer.add(ids, texts, vectors)
        table = getattr(self.peer, "_table", None)
        if table is not None:
            # The adapter keeps every vector as a Python list; a framework embedding for real
            # would not: drop them so they do not count in the peer's RSS.
            table._vectors.clear()

    def search(self, query: str, vector: np.ndarray, *, reinforce: bool | None = None) -> int:
        return len(self.peer.search(query, vector, TOP_K))

    def persist(self) -> dict[str, Any]:
        peer = self.peer
        if self.name == "langchain":
            collection = peer._vectorstore._collection.name
        else:
            collection = peer._collection.name
        return {"collection": collection}


# --------------------------------------------------------------------------------------------
# Open-to-first-search (fresh process, worker side)


_PAGE = 10_000


def _stored(get_page: Callable[[int], Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every ``(id, document, metadata)`` of a collection, read ``_PAGE`` at a time."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    offset = 0
    while True:
        got = get_page(offset)
        out.extend(zip(got["ids"], got["documents"], got["metadatas"], strict=True))
        if len(got["ids"]) < _PAGE:
            return out
        offset += _PAGE


def open_and_search(
    system: str, folder: Path, meta: dict[str, Any], query: str, vector: np.ndarray
) -> tuple[dict[str, float], int]:
    """Import, open the persisted store and run one search; returns the timings (s) and hits."""
    t0 = time.perf_counter()
    if system == "cogmem":
        # cogmem imports chromadb lazily: import it here, timed as an import as for the peers.
        import chromadb

        from cogmem import CognitiveMemory

        t1 = time.perf_counter()
        embedder = LookupEmbedder()
        embedder.table[query] = vector
        memory = CognitiveMemory(path=folder, embedder=embedder)
        t2 = time.perf_counter()
        hits = len(memory.search(query, top_k=TOP_K))
        t3 = time.perf_counter()
        memory.close()
    elif system == "chroma":
        import chromadb  # noqa: F401

        t1 = time.perf_counter()
        client = _persistent_client(folder)
        collection = client.get_collection(meta["collection"], embedding_function=None)
        t2 = time.perf_counter()
        res = collection.query(query_embeddings=vector.reshape(1, -1), n_results=TOP_K, include=[])
        hits = len(res["ids"][0])
        t3 = time.perf_counter()
    elif system == "langchain":
        from langchain_chroma import Chroma
        from langchain_classic.retrievers import EnsembleRetriever
        from langchain_community.retrievers import BM25Retriever
        from langchain_core.documents import Document

        from benchmarks.peers import VectorTable, langchain_embeddings

        t1 = time.perf_counter()
        table = VectorTable()
        client = _persistent_client(folder)
        store = Chroma(
            collection_name=meta["collection"],
            embedding_function=langchain_embeddings(table),
            client=client,
        )
        docs = [
            Document(page_content=d, metadata=m or {}, id=i)
            for i, d, m in _stored(lambda o: store.get(limit=_PAGE, offset=o))
        ]
        bm25 = BM25Retriever.from_documents(docs, k=TOP_K)
        ensemble = EnsembleRetriever(
            retrievers=[bm25, store.as_retriever(search_kwargs={"k": TOP_K})],
            weights=[0.5, 0.5],
        )
        t2 = time.perf_counter()
        table.put([query], vector)
        hits = len(ensemble.invoke(query)[:TOP_K])
        t3 = time.perf_counter()
    elif system == "llamaindex":
        from llama_index.core import VectorStoreIndex
        from llama_index.core.llms import MockLLM
        from llama_index.core.retrievers import QueryFusionRetriever
        from llama_index.core.vector_stores.utils import metadata_dict_to_node
        from llama_index.retrievers.bm25 import BM25Retriever as LIBM25Retriever
        from llama_index.vector_stores.chroma import ChromaVectorStore

        from benchmarks.peers import VectorTable, llamaindex_embedding

        t1 = time.perf_counter()
        table = VectorTable()
        client = _persistent_client(folder)
        collection = client.get_collection(meta["collection"], embedding_function=None)
        vector_store = ChromaVectorStore(chroma_collection=collection)
        index = VectorStoreIndex.from_vector_store(
            vector_store, embed_model=llamaindex_embedding(table)
        )
        # ChromaVectorStore.get_nodes(None) reads everything in one call, which Chroma refuses
        # past ~30k records (too many SQL variables): page as a user has to.
        nodes = [
            metadata_dict_to_node(m, text=d)
            for _, d, m in _stored(
                lambda o: collection.get(limit=_PAGE, offset=o, include=["documents", "metadatas"])
            )
        ]
        bm25 = LIBM25Retriever.from_defaults(nodes=nodes, similarity_top_k=TOP_K)
        fusion = QueryFusionRetriever(
            [index.as_retriever(similarity_top_k=TOP_K), bm25],
            llm=MockLLM(),
            mode="reciprocal_rerank",  # type: ignore[arg-type]
            num_queries=1,
            similarity_top_k=TOP_K,
            use_async=False,
        )
        t2 = time.perf_counter()
        table.put([query], vector)
        hits = len(fusion.retrieve(query)[:TOP_K])
        t3 = time.perf_counter()
    else:
        raise ValueError(system)
    return {
        "import_s": t1 - t0,
        "open_s": t2 - t1,
        "first_search_s": t3 - t2,
        "open_to_first_search_s": t3 - t1,
        "with_imports_s": t3 - t0,
    }, hits


# --------------------------------------------------------------------------------------------
# Workers


def _ms(seconds: Sequence[float]) -> dict[str, float]:
    return {k: round(v * 1000.0, 3) for k, v in percentiles(seconds).items()}


def _time_searches(
    system: System,
    queries: Sequence[str],
    vectors: np.ndarray,
    variants: Sequence[tuple[str, bool | None]],
    warmup: int,
    gate: Gate,
) -> dict[str, dict[str, Any]]:
    """Time each search variant (``(key, reinforce)``) over the same queries, interleaved: query
    by query, every variant in turn, the first one rotating, so that no variant runs on caches
    another warmed (timing them one pass after the other made the second pass look faster)."""
    for q, v in zip(queries[:warmup], vectors[:warmup], strict=True):
        for _, reinforce in variants:
            with gate.step():
                system.search(q, v, reinforce=reinforce)
    times: dict[str, list[float]] = {key: [] for key, _ in variants}
    hits: dict[str, list[int]] = {key: [] for key, _ in variants}
    for n, (q, v) in enumerate(zip(queries[warmup:], vectors[warmup:], strict=True)):
        order = list(variants[n % len(variants) :]) + list(variants[: n % len(variants)])
        for key, reinforce in order:
            with gate.step():
                t = time.perf_counter()
                found = system.search(q, v, reinforce=reinforce)
                times[key].append(time.perf_counter() - t)
            hits[key].append(found)
    out: dict[str, dict[str, Any]] = {}
    for key, values in times.items():
        summary: dict[str, Any] = _ms(values)
        summary["mean_ms"] = round(statistics.fmean(values) * 1000.0, 3)
        summary["queries"] = len(values)
        summary["mean_results"] = round(statistics.fmean(hits[key]), 2)
        out[key] = summary
    return out


def build_worker(args: argparse.Namespace) -> dict[str, Any]:
    gate = Gate(args.gate)
    t_setup = time.perf_counter()
    size: int = args.size
    work = Path(args.dir)
    folder = work / args.system
    start = datetime.now(timezone.utc) - timedelta(minutes=size + 10 * args.reps + 60)
    system: System = (
        CogmemSystem(folder, start) if args.system == "cogmem" else PeerSystem(args.system, folder)
    )
    setup_s = time.perf_counter() - t_setup
    base = base_sentences()
    queries = query_texts(args.queries + WARMUP)
    qvecs = read_rows(work / "queries.f32", 0, len(queries))
    vec_file = work / "memories.f32"
    rss_before = current_rss_mb()
    log(f"{args.system} N={size}: building ({len(base)} base sentences)")

    add_seconds = 0.0
    for batch_start in range(0, size, BATCH):
        n = min(BATCH, size - batch_start)
        ids = [f"m{i}" for i in range(batch_start, batch_start + n)]
        texts = [memory_text(base, i) for i in range(batch_start, batch_start + n)]
        vecs = read_rows(vec_file, batch_start, n)
        with gate.step():
            t = time.perf_counter()
            system.add(ids, texts, vecs)
            add_seconds += time.perf_counter() - t
        done = batch_start + n
        if done % (10 * BATCH) == 0 or done == size:
            log(f"{args.system} N={size}: {done} added, {done / add_seconds:.0f}/s")
    result: dict[str, Any] = {
        "system": args.system,
        "size": size,
        "setup_s": round(setup_s, 3),
        "build_s": round(add_seconds, 2),
        "add_per_s": round(size / add_seconds, 1),
        "rss_before_build_mb": round(rss_before, 1),
    }

    log(f"{args.system} N={size}: searching")
    variants: list[tuple[str, bool | None]] = (
        [("search", False), ("search_reinforce", True)]
        if args.system == "cogmem"
        else [("search", None)]
    )
    result.update(_time_searches(system, queries, qvecs, variants, WARMUP, gate))

    # The peers rebuild BM25 on every add (seconds at 100k), so a few reps show them; cogmem
    # and Chroma get enough reps to include cogmem's group writes (add_flush_size = 64).
    reps = args.reps if args.system in ("cogmem", "chroma") else min(args.reps, args.peer_reps)
    log(f"{args.system} N={size}: add-then-search x{reps}")
    ats_variants: list[tuple[str, bool | None]] = (
        [("add_then_search", False), ("add_then_search_reinforce", True)]
        if args.system == "cogmem"
        else [("add_then_search", None)]
    )
    next_id = size
    for key, reinforce in ats_variants:
        adds: list[float] = []
        searches: list[float] = []
        alone: list[float] = []
        totals: list[float] = []
        for r in range(reps):
            i = next_id
            next_id += 1
            text = memory_text(base, i)
            vec = read_rows(vec_file, i, 1)
            q = queries[WARMUP + (r % args.queries)]
            qv = qvecs[WARMUP + (r % args.queries)]
            # The reference: a search with no add before it, taken in the same minute as
            # the add-then-search it is compared with (another query, half the list away).
            ref = WARMUP + (r + args.queries // 2) % args.queries
            with gate.step():
                t = time.perf_counter()
                system.search(queries[ref], qvecs[ref], reinforce=reinforce)
                alone.append(time.perf_counter() - t)
                t0 = time.perf_counter()
                system.add([f"m{i}"], [text], vec)
                t1 = time.perf_counter()
                system.search(q, qv, reinforce=reinforce)
                t2 = time.perf_counter()
            adds.append(t1 - t0)
            searches.append(t2 - t1)
            totals.append(t2 - t0)
        result[key] = {
            **_ms(totals),
            "mean_ms": round(statistics.fmean(totals) * 1000.0, 3),
            "add_p50": _ms(adds)["p50"],
            "add_mean_ms": round(statistics.fmean(adds) * 1000.0, 3),
            "search_p50": _ms(searches)["p50"],
            "search_alone_p50": _ms(alone)["p50"],
            "reps": reps,
        }
    result["rss_peak_mb"] = round(rss_peak_mb(), 1)
    result["rss_growth_mb"] = round(result["rss_peak_mb"] - rss_before, 1)
    with gate.step():
        t = time.perf_counter()
        result["meta"] = system.persist()
        result["persist_s"] = round(time.perf_counter() - t, 3)
    result["stored"] = next_id
    log(f"{args.system} N={size}: done, peak RSS {result['rss_peak_mb']} MiB")
    return result


def open_worker(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.dir)
    meta = json.loads(args.meta)
    query = query_texts(WARMUP + 1)[WARMUP]
    vector = read_rows(work / "queries.f32", WARMUP, 1)[0]
    timings, hits = open_and_search(args.system, work / args.system, meta, query, vector)
    out: dict[str, Any] = {k: round(v, 4) for k, v in timings.items()}
    out["results"] = hits
    out["rss_peak_mb"] = round(rss_peak_mb(), 1)
    return out


# --------------------------------------------------------------------------------------------
# Driver


def snapshot(root: Path) -> Path:
    """Copy cogmem and the benchmark modules under ``root``: every worker of the run then
    runs the same code, even if the working tree is edited meanwhile."""
    import cogmem

    snap = root / "snapshot"
    if snap.exists():
        shutil.rmtree(snap)
    shutil.copytree(
        Path(cogmem.__file__).resolve().parent,
        snap / "core" / "cogmem",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (snap / "benchmarks").mkdir(parents=True)
    for module in (_ROOT / "benchmarks").glob("*.py"):  # what the workers import, and more
        shutil.copy2(module, snap / "benchmarks" / module.name)
    return snap


def _source_info() -> dict[str, Any]:
    """The commit of this checkout and its uncommitted files under core/ (what was measured)."""

    def git(*cmd: str) -> str:
        proc = subprocess.run(["git", *cmd], cwd=_ROOT, capture_output=True, text=True, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    return {
        "commit": git("rev-parse", "--short", "HEAD") or None,
        "uncommitted_in_core": git("status", "--porcelain", "--", "core").splitlines(),
    }


_SNAPSHOT: Path | None = None


def _worker_command(argv: list[str]) -> tuple[list[str], dict[str, str]]:
    script = (_SNAPSHOT or _ROOT) / "benchmarks" / "speed.py"
    env = dict(os.environ, COGMEM_DATA=str(data_dir().resolve()))
    if _SNAPSHOT is not None:
        env["COGMEM_CORE"] = str(_SNAPSHOT / "core")
    return [sys.executable, str(script), *argv], env


def _worker_result(argv: list[str], returncode: int, stdout: str) -> dict[str, Any]:
    lines = stdout.strip().splitlines()
    if returncode != 0 or not lines:
        # Recorded, not raised: one failing system must not lose an hour of the others.
        log(f"worker {argv[:4]} FAILED with exit code {returncode} (traceback above)")
        return {"error": f"exit code {returncode}"}
    result = dict(json.loads(lines[-1]))
    log(f"result: {lines[-1]}")  # in the log too, in case the run dies later
    return result


def _run_worker(argv: list[str]) -> dict[str, Any]:
    cmd, env = _worker_command(argv)
    proc = subprocess.run(cmd, cwd=_ROOT, env=env, stdout=subprocess.PIPE, text=True, check=False)
    return _worker_result(argv, proc.returncode, proc.stdout)


def _run_lockstep(argvs: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Run the build workers at once, one step at a time each, round-robin (see :class:`Gate`).

    A worker that has no steps left (or died) drops out of the rotation; the others go on.
    """
    running: dict[str, tuple[subprocess.Popen[str], int, int, Any, list[str]]] = {}
    results: dict[str, dict[str, Any]] = {}
    with ExitStack() as files:
        for name, argv in argvs.items():
            go_r, go_w = os.pipe()
            done_r, done_w = os.pipe()
            full = [*argv, "--gate", f"{go_r},{done_w}"]
            cmd, env = _worker_command(full)
            out = files.enter_context(tempfile.TemporaryFile(mode="w+"))
            proc = subprocess.Popen(
                cmd, cwd=_ROOT, env=env, stdout=out, text=True, pass_fds=(go_r, done_w)
            )
            os.close(go_r)
            os.close(done_w)
            running[name] = (proc, go_w, done_r, out, full)
        while running:
            for name in list(running):
                proc, go_w, done_r, out, argv = running[name]
                try:
                    os.write(go_w, b".")
                    more = bool(os.read(done_r, 1))
                except BrokenPipeError:
                    more = False
                if more:
                    continue
                os.close(go_w)
                os.close(done_r)
                proc.wait()
                out.seek(0)
                results[name] = _worker_result(argv, proc.returncode, out.read())
                del running[name]
    return {name: results[name] for name in argvs}


def _ratio(a: Number, b: Number) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return round(float(a) / float(b), 3)


def _median(values: Sequence[float]) -> float:
    return round(float(statistics.median(values)), 4)


def _at(d: Any, *keys: str) -> Any:
    """``d[k1][k2]...``, or ``None`` where something is missing (a worker failed)."""
    for key in keys:
        if not isinstance(d, dict) or key not in d:
            return None
        d = d[key]
    return d


def _scaled(factor: float, value: Number, digits: int = 3) -> float | None:
    return None if value is None else round(factor * float(value), digits)


def _summarize_opens(runs: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in runs if "error" not in r]
    out: dict[str, Any] = {
        key: _median([r[key] for r in ok]) if ok else None
        for key in (
            "open_to_first_search_s",
            "open_s",
            "first_search_s",
            "import_s",
            "with_imports_s",
            "rss_peak_mb",
        )
    }
    out["runs"] = runs
    return out


def run_size(size: int, args: argparse.Namespace, root: Path) -> dict[str, Any]:
    work = root / f"n{size}"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    extra = 2 * args.reps + 10
    log(f"N={size}: precomputing {size + extra} memory and {args.queries + WARMUP} query vectors")
    unit_vectors(size + extra, SEED).tofile(work / "memories.f32")
    unit_vectors(args.queries + WARMUP, QUERY_SEED).tofile(work / "queries.f32")

    builds: dict[str, list[str]] = {}
    for name in args.systems:
        build = ["--worker", "build", "--system", name, "--size", str(size), "--dir", str(work)]
        build += ["--queries", str(args.queries), "--reps", str(args.reps)]
        build += ["--peer-reps", str(args.peer_reps)]
        builds[name] = build
    if args.sequential:
        systems = {name: _run_worker(build) for name, build in builds.items()}
    else:
        systems = _run_lockstep(builds)
    for name in args.systems:
        if "error" in systems[name]:
            continue
        runs = []
        meta = json.dumps(systems[name].get("meta", {}))
        for r in range(args.open_reps):
            log(f"N={size}: {name} open-to-first-search {r + 1}/{args.open_reps}")
            argv = ["--worker", "open", "--system", name, "--dir", str(work), "--meta", meta]
            runs.append(_run_worker(argv))
        systems[name]["open"] = _summarize_opens(runs)
    for name in args.systems:
        folder = work / name
        systems[name]["disk_mb"] = round(
            sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20, 1
        )
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    out: dict[str, Any] = {"systems": systems}
    if "cogmem" in systems:
        out["ratios"] = ratios(systems)
        out["targets"] = targets(systems)
    return out


def _metrics(s: dict[str, Any]) -> dict[str, Number]:
    return {
        "search_p50_ms": _at(s, "search", "p50"),
        "search_p95_ms": _at(s, "search", "p95"),
        "add_per_s": _at(s, "add_per_s"),
        "add_then_search_p50_ms": _at(s, "add_then_search", "p50"),
        "open_to_first_search_s": _at(s, "open", "open_to_first_search_s"),
        "open_with_imports_s": _at(s, "open", "with_imports_s"),
        "rss_peak_mb": _at(s, "rss_peak_mb"),
        "rss_growth_mb": _at(s, "rss_growth_mb"),
        "disk_mb": _at(s, "disk_mb"),
    }


def ratios(systems: dict[str, dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """cogmem / peer for every metric (for throughput >1 is better, for the rest <1)."""
    cog = systems["cogmem"]
    mine = _metrics(cog)
    out: dict[str, dict[str, float | None]] = {}
    for peer in PEERS:
        if peer not in systems:
            continue
        theirs = _metrics(systems[peer])
        row = {k: _ratio(v, theirs[k]) for k, v in mine.items()}
        row["search_reinforce_p50_ms"] = _ratio(
            _at(cog, "search_reinforce", "p50"), theirs["search_p50_ms"]
        )
        row["search_reinforce_p95_ms"] = _ratio(
            _at(cog, "search_reinforce", "p95"), theirs["search_p95_ms"]
        )
        row["add_then_search_reinforce_p50_ms"] = _ratio(
            _at(cog, "add_then_search_reinforce", "p50"), theirs["add_then_search_p50_ms"]
        )
        out[f"cogmem/{peer}"] = row
    return out


def _target(value: Number, limit: Number, check: Callable[[float, float], bool]) -> dict[str, Any]:
    ok = None if value is None or limit is None else bool(check(float(value), float(limit)))
    return {"value": value, "limit": limit, "pass": ok}


def targets(systems: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The targets (official at 100k; smaller sizes shown for information).

    ``pass`` is ``None`` when a figure is missing (a system was not run or its worker failed).
    """
    cog = systems["cogmem"]
    chroma = systems.get("chroma", {})
    li_p50 = _at(systems.get("llamaindex", {}), "search", "p50")

    def lt(a: float, b: float) -> bool:
        return a < b

    def le(a: float, b: float) -> bool:
        return a <= b

    def ge(a: float, b: float) -> bool:
        return a >= b

    return {
        "search_p50_below_llamaindex (reinforce=True, default)": _target(
            _at(cog, "search_reinforce", "p50"), li_p50, lt
        ),
        "search_p50_below_llamaindex (reinforce=False)": _target(
            _at(cog, "search", "p50"), li_p50, lt
        ),
        "add_then_search <= 1.5x own search p50 (reinforce=True, default)": _target(
            _at(cog, "add_then_search_reinforce", "p50"),
            _scaled(1.5, _at(cog, "add_then_search_reinforce", "search_alone_p50")),
            le,
        ),
        "add_then_search <= 1.5x own search p50 (reinforce=False)": _target(
            _at(cog, "add_then_search", "p50"),
            _scaled(1.5, _at(cog, "add_then_search", "search_alone_p50")),
            le,
        ),
        "add_throughput >= 0.8x bare chroma": _target(
            _at(cog, "add_per_s"), _scaled(0.8, _at(chroma, "add_per_s"), 1), ge
        ),
        "peak_rss <= 1.2x bare chroma": _target(
            _at(cog, "rss_peak_mb"), _scaled(1.2, _at(chroma, "rss_peak_mb"), 1), le
        ),
        "open_to_first_search <= 3 s": _target(_at(cog, "open", "open_to_first_search_s"), 3.0, le),
    }


def _filesystem(path: Path) -> str | None:
    """The type of the filesystem holding ``path`` (Linux: from /proc/mounts), e.g. ``tmpfs``."""
    try:
        mounts = [line.split() for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return None
    target = str(path.resolve())
    best = max(
        (m for m in mounts if len(m) > 2 and (target + "/").startswith(m[1].rstrip("/") + "/")),
        key=lambda m: len(m[1]),
        default=None,
    )
    return None if best is None else best[2]


def _machine() -> dict[str, Any]:
    import chromadb

    info: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "chromadb": chromadb.__version__,
    }
    try:
        import psutil

        info["ram_gb"] = round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:
        pass
    return info


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="cogmem vs LangChain / LlamaIndex / bare Chroma: speed and memory (JSON)."
    )
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated N")
    parser.add_argument("--quick", action="store_true", help="N=2,000 smoke test")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--queries", type=int, default=200, help="timed queries per system")
    parser.add_argument(
        "--reps", type=int, default=200, help="add-then-search repetitions (cogmem, chroma)"
    )
    parser.add_argument(
        "--peer-reps", type=int, default=10, help="add-then-search repetitions (the peers)"
    )
    parser.add_argument("--open-reps", type=int, default=3, help="fresh-process opens")
    parser.add_argument("--workdir", default=None, help="keep the stores here")
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="build one system after the other instead of in lockstep",
    )
    # Internal: the per-system subprocesses.
    parser.add_argument("--worker", choices=("build", "open"), help=argparse.SUPPRESS)
    parser.add_argument("--system", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--dir", help=argparse.SUPPRESS)
    parser.add_argument("--meta", default="{}", help=argparse.SUPPRESS)
    parser.add_argument("--gate", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        # The frameworks' deprecation notices would drown the progress lines.
        warnings.simplefilter("ignore", DeprecationWarning)
    if args.worker == "build":
        print(json.dumps(build_worker(args)), flush=True)
        return
    if args.worker == "open":
        print(json.dumps(open_worker(args)), flush=True)
        return

    sizes = [2000] if args.quick else [int(s) for s in args.sizes.split(",") if s.strip()]
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = sorted(set(args.systems) - set(SYSTEMS))
    if unknown:
        parser.error(f"unknown systems {unknown}; pick from {', '.join(SYSTEMS)}")
    root = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="cogmem-speed-"))
    root.mkdir(parents=True, exist_ok=True)
    global _SNAPSHOT
    _SNAPSHOT = snapshot(root)
    started = time.perf_counter()
    report: dict[str, Any] = {
        "benchmark": "speed",
        "settings": {
            "sizes": sizes,
            "systems": args.systems,
            "dimension": DIM,
            "batch": BATCH,
            "top_k": TOP_K,
            "queries": args.queries,
            "warmup_queries": WARMUP,
            "add_then_search_reps": args.reps,
            "add_then_search_peer_reps": args.peer_reps,
            "open_reps": args.open_reps,
            "lockstep": not args.sequential,
            "store": "chromadb.PersistentClient in a temp folder, for every system",
            "store_filesystem": _filesystem(root),
            "notes": [
                "search and add-then-search times exclude query embedding (dict lookups)",
                "peers rebuild BM25 on every add(), as their users must",
                "cogmem search: reinforce=False ('search') and the default reinforce=True",
                "open: fresh subprocess, median of open_reps; imports timed separately",
                "peak RSS: one subprocess per system, build + all searches",
                "build workers in lockstep (one step each in turn) unless --sequential",
                "add_then_search target: against search_alone_p50, timed in the same reps",
            ],
        },
        "machine": _machine(),
        "cogmem_source": _source_info(),
        "sizes": {},
    }
    try:
        for size in sizes:
            report["sizes"][str(size)] = run_size(size, args, root)
        if "cogmem" in args.systems:  # what each optional retrieval stage adds to a search
            from benchmarks.stage_costs import measure

            at = 10_000 if 10_000 in sizes else min(sizes)
            log(f"stage costs at N={at}")
            report["stage_costs"] = measure(at, args.queries)
    finally:
        if not args.workdir:
            shutil.rmtree(root, ignore_errors=True)
    report["elapsed_s"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
