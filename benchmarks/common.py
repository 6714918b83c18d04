"""Plumbing shared by the benchmarks: data loaders, metrics, an embedding cache, timing.

The evaluation data is read from :func:`benchmarks.data.data_dir` (``$COGMEM_DATA``, else
``~/.cache/cogmem/data``; ``make data`` fills it); cogmem's own sets fall back to the copies
shipped in ``benchmarks/data/``.

Nothing here imports cogmem or a retrieval framework, so every benchmark (ours and the peers in
:mod:`benchmarks.peers`) can use it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.data import data_dir, dataset

__all__ = [
    "CATEGORY_NAMES",
    "DATE_FORMAT",
    "Conversation",
    "EmbeddingCache",
    "Question",
    "Timer",
    "Turn",
    "UpdateCase",
    "UpdateMemory",
    "data_dir",
    "hit_at_k",
    "load_locomo",
    "load_scifact",
    "load_updates",
    "ndcg_at_k",
    "parse_session_date",
    "percentiles",
    "recall_at_k",
    "rss_peak_mb",
    "summarize_locomo",
    "update_success",
]

DATE_FORMAT = "%I:%M %p on %d %B, %Y"
"""How LoCoMo writes session dates, e.g. ``1:56 pm on 8 May, 2023``."""

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
"""LoCoMo question categories (5, adversarial, has no evidence and is left out of retrieval)."""

DEFAULT_CACHE_DIR = Path(__file__).resolve().parent / ".cache"


# --------------------------------------------------------------------------------------------
# Data location


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file, blank lines skipped."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


# --------------------------------------------------------------------------------------------
# LoCoMo


@dataclass(frozen=True)
class Turn:
    """One dialogue turn, stored as one memory. ``text`` is ``"speaker: text"``."""

    id: str
    text: str
    created_at: datetime


@dataclass(frozen=True)
class Question:
    """A LoCoMo question with the ids of the turns that hold its answer."""

    text: str
    category: int
    evidence: tuple[str, ...]
    answer: str

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES.get(self.category, str(self.category))


@dataclass(frozen=True)
class Conversation:
    """One LoCoMo conversation: its turns in order, its retrievable questions and a ``now``."""

    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    now: datetime
    """One day after the conversation's last session, the moment the questions are asked."""


def parse_session_date(value: str) -> datetime:
    """Parse a LoCoMo session date (``%I:%M %p on %d %B, %Y``) as a UTC-aware datetime."""
    return datetime.strptime(value.strip(), DATE_FORMAT).replace(tzinfo=timezone.utc)


def load_locomo(path: str | os.PathLike[str] | None = None) -> list[Conversation]:
    """Load LoCoMo conversations (``locomo/dev.jsonl`` by default).

    Questions of category 5 (adversarial) and questions without evidence are dropped: they have
    nothing to retrieve. On the shipped dev set: 4 conversations, 2,080 turns, 582 questions.
    """
    p = Path(path) if path is not None else dataset("locomo/dev.jsonl")
    conversations: list[Conversation] = []
    for obj in read_jsonl(p):
        turns = tuple(
            Turn(
                id=str(t["dia_id"]),
                text=f"{t['speaker']}: {t['text']}",
                created_at=parse_session_date(t["session_date_time"]),
            )
            for t in obj["turns"]
        )
        questions = tuple(
            Question(
                text=str(q["question"]),
                category=int(q["category"]),
                evidence=tuple(str(e) for e in q.get("evidence") or ()),
                answer="" if q.get("answer") is None else str(q["answer"]),
            )
            for q in obj["qa"]
            if int(q["category"]) != 5 and q.get("evidence")
        )
        session_dates = [parse_session_date(s["date_time"]) for s in obj.get("sessions", ())]
        session_dates += [t.created_at for t in turns]
        now = max(session_dates) + timedelta(days=1)
        conversations.append(
            Conversation(sample_id=str(obj["sample_id"]), turns=turns, questions=questions, now=now)
        )
    return conversations


# --------------------------------------------------------------------------------------------
# Knowledge updates


@dataclass(frozen=True)
class UpdateMemory:
    id: str
    text: str
    days_ago: float


@dataclass(frozen=True)
class UpdateCase:
    """A fact that changed: ``current`` must rank above every id in ``stale``."""

    id: str
    query: str
    memories: tuple[UpdateMemory, ...]
    current: str
    stale: tuple[str, ...]


def load_updates(path: str | os.PathLike[str] | None = None) -> list[UpdateCase]:
    """Load the knowledge-update cases (``updates/dev.jsonl`` by default; 200 cases)."""
    p = Path(path) if path is not None else dataset("updates/dev.jsonl")
    return [
        UpdateCase(
            id=str(obj["id"]),
            query=str(obj["query"]),
            memories=tuple(
                UpdateMemory(id=str(m["id"]), text=str(m["text"]), days_ago=float(m["days_ago"]))
                for m in obj["memories"]
            ),
            current=str(obj["current"]),
            stale=tuple(str(s) for s in obj["stale"]),
        )
        for obj in read_jsonl(p)
    ]


# --------------------------------------------------------------------------------------------
# SciFact (BEIR)


def load_scifact(
    path: str | os.PathLike[str] | None = None, split: str = "train"
) -> tuple[dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    """Load BEIR SciFact from ``path`` (``scifact/`` by default).

    Returns ``(corpus, queries, qrels)``: ``corpus[doc_id] = title + " " + text``; ``queries``
    holds only the queries judged in ``qrels/<split>.tsv``; ``qrels[qid][doc_id] = score``.
    """
    root = Path(path) if path is not None else dataset("scifact")
    corpus: dict[str, str] = {}
    for obj in read_jsonl(root / "corpus.jsonl"):
        title = str(obj.get("title") or "").strip()
        text = str(obj.get("text") or "").strip()
        corpus[str(obj["_id"])] = f"{title} {text}".strip()
    qrels: dict[str, dict[str, int]] = {}
    with (root / "qrels" / f"{split}.tsv").open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or (i == 0 and not parts[2].lstrip("-").isdigit()):
                continue  # header or blank line
            qid, did, score = parts[0], parts[1], int(parts[2])
            qrels.setdefault(qid, {})[did] = score
    queries = {
        str(obj["_id"]): str(obj["text"])
        for obj in read_jsonl(root / "queries.jsonl")
        if str(obj["_id"]) in qrels
    }
    return corpus, queries, qrels


# --------------------------------------------------------------------------------------------
# Metrics


def recall_at_k(ranked_ids: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """Fraction of the relevant ids found in the top ``k`` (0.0 when nothing is relevant)."""
    rel = set(relevant)
    if not rel:
        return 0.0
    return len(rel.intersection(ranked_ids[:k])) / len(rel)


def hit_at_k(ranked_ids: Sequence[str], relevant: Iterable[str], k: int) -> float:
    """1.0 if any relevant id is in the top ``k``, else 0.0."""
    rel = set(relevant)
    return 1.0 if any(i in rel for i in ranked_ids[:k]) else 0.0


def ndcg_at_k(ranked_ids: Sequence[str], qrels_for_query: Mapping[str, int], k: int = 10) -> float:
    """BEIR/trec_eval-style nDCG@k: gain = graded relevance, discount = log2(rank + 1).

    Each id counts once (the first occurrence); the ideal ranking sorts the judged positive
    grades. 0.0 when the query has no positive judgement.
    """
    seen: set[str] = set()
    dcg = 0.0
    rank = 0
    for doc_id in ranked_ids:
        if rank >= k:
            break
        if doc_id in seen:
            continue
        seen.add(doc_id)
        rank += 1
        gain = qrels_for_query.get(doc_id, 0)
        if gain > 0:
            dcg += gain / math.log2(rank + 1)
    ideal = sorted((g for g in qrels_for_query.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def update_success(ranked_ids_top10: Sequence[str], current: str, stale: Iterable[str]) -> bool:
    """True when ``current`` is in the top 10 and above every stale version that is there too."""
    top = list(ranked_ids_top10[:10])
    if current not in top:
        return False
    pos = top.index(current)
    return all(top.index(s) > pos for s in stale if s in top)


def summarize_locomo(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Aggregate per-question LoCoMo rows into overall and per-category means.

    Each row needs ``category`` (int) and either ``ranked`` (ids, best first) plus ``evidence``,
    or the precomputed ``recall@5``, ``recall@10``, ``hit@5``, ``hit@10``. Returns
    ``{"overall": {...}, "by_category": {"multi-hop": {...}, ...}}`` with every figure rounded
    to 3 decimals and ``n`` the number of questions.
    """
    metrics = ("recall@5", "recall@10", "hit@5", "hit@10")
    per_cat: dict[int, list[dict[str, float]]] = {}
    every: list[dict[str, float]] = []
    for row in rows:
        if "ranked" in row:
            ranked = list(row["ranked"])
            ev = list(row["evidence"])
            vals = {
                "recall@5": recall_at_k(ranked, ev, 5),
                "recall@10": recall_at_k(ranked, ev, 10),
                "hit@5": hit_at_k(ranked, ev, 5),
                "hit@10": hit_at_k(ranked, ev, 10),
            }
        else:
            vals = {m: float(row[m]) for m in metrics}
        every.append(vals)
        per_cat.setdefault(int(row["category"]), []).append(vals)

    def agg(items: list[dict[str, float]]) -> dict[str, Any]:
        out: dict[str, Any] = {
            m: round(sum(v[m] for v in items) / len(items), 3) if items else 0.0 for m in metrics
        }
        out["n"] = len(items)
        return out

    return {
        "overall": agg(every),
        "by_category": {CATEGORY_NAMES.get(c, str(c)): agg(per_cat[c]) for c in sorted(per_cat)},
    }


# --------------------------------------------------------------------------------------------
# Embedding cache


def _key(model_id: str, text: str) -> str:
    return hashlib.sha1(f"{model_id}\x00{text}".encode()).hexdigest()


def _safe_name(model_id: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_id)[:60]
    return f"{keep}-{hashlib.sha1(model_id.encode()).hexdigest()[:10]}"


def _atomic_write(path: Path, write: Callable[[Any], None], mode: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, mode) as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@dataclass
class EmbeddingCache:
    """Disk cache in front of an embedding function, so benchmark reruns don't re-embed.

    Vectors are keyed by ``sha1(model_id + text)`` and stored per ``model_id`` as one ``.npy``
    matrix plus one JSON index (key -> row), both written atomically after each call that
    embedded something new. Only texts missing from the cache reach ``embed_fn`` (deduplicated).
    """

    embed_fn: Callable[[list[str]], np.ndarray]
    model_id: str
    cache_dir: Path | str = DEFAULT_CACHE_DIR
    calls: int = field(default=0, init=False)
    """How many times ``embed_fn`` was called."""
    embedded: int = field(default=0, init=False)
    """How many texts ``embed_fn`` was asked to embed."""

    def __post_init__(self) -> None:
        self.cache_dir = Path(self.cache_dir)
        stem = _safe_name(self.model_id)
        self._npy = self.cache_dir / f"{stem}.npy"
        self._idx = self.cache_dir / f"{stem}.json"
        self._index: dict[str, int] = {}
        self._matrix: np.ndarray | None = None
        if self._npy.exists() and self._idx.exists():
            index = json.loads(self._idx.read_text(encoding="utf-8"))
            matrix = np.load(self._npy, allow_pickle=False)
            if index.get("model_id") == self.model_id and len(index["rows"]) == matrix.shape[0]:
                self._index = {k: int(v) for k, v in index["rows"].items()}
                self._matrix = matrix.astype(np.float32, copy=False)

    def __len__(self) -> int:
        return len(self._index)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts`` as a float32 ``(len(texts), d)`` array, in order."""
        texts = list(texts)
        keys = [_key(self.model_id, t) for t in texts]
        missing: dict[str, str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in self._index and k not in missing:
                missing[k] = t
        if missing:
            new = np.asarray(self.embed_fn(list(missing.values())), dtype=np.float32)
            self.calls += 1
            self.embedded += len(missing)
            if new.ndim != 2 or new.shape[0] != len(missing):
                raise ValueError(f"embed_fn returned shape {new.shape} for {len(missing)} texts")
            start = 0 if self._matrix is None else self._matrix.shape[0]
            if self._matrix is not None and self._matrix.shape[1] != new.shape[1]:
                raise ValueError(
                    f"embed_fn returned dimension {new.shape[1]}, cache holds "
                    f"{self._matrix.shape[1]} for model_id {self.model_id!r}"
                )
            self._matrix = new if self._matrix is None else np.vstack([self._matrix, new])
            for i, k in enumerate(missing):
                self._index[k] = start + i
            self._save()
        if not texts:
            dim = 0 if self._matrix is None else self._matrix.shape[1]
            return np.zeros((0, dim), dtype=np.float32)
        assert self._matrix is not None
        rows = np.fromiter((self._index[k] for k in keys), dtype=np.int64, count=len(keys))
        return np.ascontiguousarray(self._matrix[rows], dtype=np.float32)

    def _save(self) -> None:
        assert self._matrix is not None
        matrix = self._matrix
        # The matrix goes first: an index never points past the rows on disk.
        _atomic_write(self._npy, lambda fh: np.save(fh, matrix, allow_pickle=False), "wb")
        payload = json.dumps({"model_id": self.model_id, "rows": self._index})
        _atomic_write(self._idx, lambda fh: fh.write(payload), "w")


# --------------------------------------------------------------------------------------------
# Resources and timing


def rss_peak_mb() -> float:
    """Peak resident set size of this process so far, in MiB."""
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        # Linux reports KiB, macOS bytes.
        return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
    except (ImportError, AttributeError):  # Windows: no resource module
        import psutil

        info = psutil.Process().memory_info()
        return float(getattr(info, "peak_wset", info.rss)) / (1024 * 1024)


class Timer:
    """``with Timer() as t: ...`` then ``t.seconds`` (``time.perf_counter``)."""

    def __init__(self) -> None:
        self.start = 0.0
        self.end: float | None = None

    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        self.end = None
        return self

    def __exit__(self, *exc: object) -> None:
        self.end = time.perf_counter()

    @property
    def seconds(self) -> float:
        end = self.end if self.end is not None else time.perf_counter()
        return end - self.start

    @property
    def ms(self) -> float:
        return self.seconds * 1000.0


def percentiles(xs: Iterable[float], ps: Sequence[float] = (50, 95)) -> dict[str, float]:
    """``{"p50": ..., "p95": ...}`` (linear interpolation, numpy's default); NaN when empty."""
    arr = np.asarray(list(xs), dtype=np.float64)
    out: dict[str, float] = {}
    for p in ps:
        key = f"p{p:g}"
        out[key] = float(np.percentile(arr, p)) if arr.size else float("nan")
    return out
