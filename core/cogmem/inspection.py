"""Looking into a store: open one without changing it, count and summarise its memories.

What ``cogmem stats|search|show`` print is built here, as plain functions of records and
results, so that notebooks and tests use the same numbers:

* :func:`open_memory` opens a persistent folder or a Chroma server, refusing (with a
  :class:`StoreUnavailableError` that names the path or address) anything that is not an
  existing cogmem store, unless asked to create one;
* :func:`namespace_stats` / :func:`format_stats`: counts by type and status, and a text
  histogram of retention;
* :func:`retentions`: every memory's retention R at ``now``, by type (for histograms);
* :func:`explanation_rows`: search results as flat rows (a table in a notebook);
* :func:`format_results` / :func:`format_record`: what ``search`` and ``show`` print.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from .checks import ensure_aware
from .clients import http_client
from .config import CognitiveMemoryConfig
from .embedding import Embedder
from .errors import InvalidInputError, InvalidTypeError, StorageError, StoreError, StoreLockedError
from .memory import CognitiveMemory
from .records import MEMORY_TYPES, STATUSES, MemoryRecord, SearchResult
from .retention import half_life_days, retention
from .transfer import record_to_json, stored_records
from .wording import counted

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_PORT",
    "NamespaceStats",
    "StoreUnavailableError",
    "explanation_rows",
    "format_record",
    "format_results",
    "format_stats",
    "namespace_stats",
    "open_memory",
    "retentions",
    "text_histogram",
]

DEFAULT_COLLECTION = "cogmem"
DEFAULT_PORT = 8000
_SQLITE = "chroma.sqlite3"


class StoreUnavailableError(StoreError):
    """The store named cannot be used: no such folder, not a cogmem store, no such collection,
    or an unreachable server (the message names the path or address)."""


# ---------------------------------------------------------------------- opening
def open_memory(
    *,
    path: str | Path | None = None,
    host: str | None = None,
    port: int = DEFAULT_PORT,
    collection: str = DEFAULT_COLLECTION,
    embedder: Embedder | None = None,
    config: CognitiveMemoryConfig | None = None,
    create: bool = False,
    read_only: bool | None = None,
) -> CognitiveMemory:
    """Open a cogmem store (a folder or a Chroma server); nothing is created unless ``create``.

    Args:
        path: Folder of a persistent store (``CognitiveMemory(path=...)``).
        host: Host of a Chroma server (``chromadb.HttpClient``); excludes ``path``.
        port: Port of the server.
        collection: The store's collection name (``CognitiveMemory(collection=...)``).
        embedder: Embeds queries and imported texts (default: the offline MiniLM).
        config: Tunables (default :class:`~cogmem.CognitiveMemoryConfig`).
        create: Create the folder and collection when missing (for imports). A folder that
            exists, is not empty and holds no Chroma store is refused even then.
        read_only: Open a folder store read-only (default: unless ``create``): any number of
            readers at once, never written.

    Returns:
        The memory; close it when done.

    Raises:
        InvalidInputError: Neither or both of ``path`` and ``host``.
        StoreUnavailableError: The folder is missing or not a cogmem store, the server cannot
            be reached, or the collection does not exist (and ``create`` is off).
    """
    if (path is None) == (host is None):
        raise InvalidInputError("give the store's folder (path) or a Chroma server (host)")
    if not isinstance(collection, str) or not collection:
        raise InvalidInputError("collection must be a non-empty str")
    if path is not None:
        folder = Path(path).expanduser()
        _check_folder(folder, create=create)
        try:  # a folder store: locked, and read-only unless something is to be created
            return CognitiveMemory(
                path=folder,
                collection=collection,
                embedder=embedder,
                config=config,
                read_only=not create if read_only is None else read_only,
            )
        except (StorageError, StoreLockedError) as exc:
            raise StoreUnavailableError(str(exc)) from exc
        except StoreError as exc:  # e.g. a collection cogmem did not create
            raise StoreUnavailableError(f"collection {collection!r} of {folder}: {exc}") from exc
    if not isinstance(host, str) or not host:
        raise InvalidInputError("host must be a non-empty str")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
        raise InvalidInputError(f"port must be an integer in 1..65535, got {port!r}")
    client = _http_client(host, port)
    _check_collection(client, collection, f"the Chroma server at {host}:{port}", create=create)
    return CognitiveMemory(client=client, collection=collection, embedder=embedder, config=config)


def _check_folder(folder: Path, *, create: bool) -> None:
    if not folder.exists():
        if not create:
            raise StoreUnavailableError(f"{folder}: no such directory")
        return
    if not folder.is_dir():
        raise StoreUnavailableError(f"{folder} is not a directory")
    empty = not any(folder.iterdir())
    if not (folder / _SQLITE).is_file() and not (create and empty):
        raise StoreUnavailableError(f"{folder} is not a cogmem store (it has no {_SQLITE})")


def _http_client(host: str, port: int) -> Any:
    try:
        return http_client(host, port)
    except StoreError as exc:  # CogmemConnectionError names the address
        raise StoreUnavailableError(str(exc)) from exc


def _check_collection(client: Any, name: str, where: str, *, create: bool) -> None:
    try:
        found = {(c if isinstance(c, str) else c.name): c for c in client.list_collections()}
    except Exception as exc:
        raise StoreUnavailableError(f"cannot list the collections of {where}: {exc}") from exc
    if name not in found:
        if create:
            return
        bases = sorted(n for n in found if ".ns." not in n)
        listed = f"it has {', '.join(map(repr, bases))}" if bases else "it has no collections"
        raise StoreUnavailableError(f"{where} has no cogmem collection {name!r} ({listed})")
    collection = found[name]
    meta = (
        client.get_collection(name).metadata if isinstance(collection, str) else collection.metadata
    ) or {}
    if meta.get("created_by") != "cogmem":
        raise StoreUnavailableError(f"collection {name!r} of {where} was not created by cogmem")


# ---------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class NamespaceStats:
    """What one namespace holds.

    Attributes:
        namespace: Its name.
        counts: ``(memory_type, status) -> count`` for every type and status (zeros included).
        pinned: Pinned memories.
        never_recalled: Memories no search has returned yet.
        retention: Retention R at ``now`` of every memory (every status), by type.
        now: When retention was computed.
    """

    namespace: str
    counts: Mapping[tuple[str, str], int]
    pinned: int
    never_recalled: int
    retention: Mapping[str, tuple[float, ...]]
    now: datetime

    @property
    def total(self) -> int:
        """Memories held (every status)."""
        return sum(self.counts.values())


def _moment(now: datetime | None) -> datetime:
    return datetime.now(timezone.utc) if now is None else ensure_aware(now, "now")


def _namespaces(memory: CognitiveMemory, namespace: str | None) -> list[str]:
    if namespace is None:
        return memory.namespaces()
    if not isinstance(namespace, str) or not namespace:
        raise InvalidInputError("namespace must be a non-empty str")
    return [namespace]


def namespace_stats(
    memory: CognitiveMemory, namespace: str, *, now: datetime | None = None
) -> NamespaceStats:
    """Counts and retention of one namespace (nothing is reinforced or written).

    Args:
        memory: The store.
        namespace: The namespace (an unknown one has no memories).
        now: When retention is computed (default: the clock).
    """
    moment = _moment(now)
    records = stored_records(memory, namespace)
    counts: dict[tuple[str, str], int] = {(t, s): 0 for t in MEMORY_TYPES for s in STATUSES}
    by_type: dict[str, list[float]] = {t: [] for t in MEMORY_TYPES}
    for r in records:
        counts[(r.memory_type, r.status)] += 1
        by_type[r.memory_type].append(retention(r, moment, memory.config))
    return NamespaceStats(
        namespace=namespace,
        counts=counts,
        pinned=sum(r.pinned for r in records),
        never_recalled=sum(r.access_count == 0 for r in records),
        retention={t: tuple(v) for t, v in by_type.items()},
        now=moment,
    )


def retentions(
    memory: CognitiveMemory, *, namespace: str | None = None, now: datetime | None = None
) -> dict[str, list[float]]:
    """Retention R at ``now`` of every memory (every status), by memory type.

    Args:
        memory: The store.
        namespace: One namespace; default every namespace.
        now: When R is computed (default: the clock).

    Returns:
        ``memory_type -> [R, ...]`` for every type (empty lists included).
    """
    moment = _moment(now)
    out: dict[str, list[float]] = {t: [] for t in MEMORY_TYPES}
    for ns in _namespaces(memory, namespace):
        for r in stored_records(memory, ns):
            out[r.memory_type].append(retention(r, moment, memory.config))
    return out


def text_histogram(values: Sequence[float], *, bins: int = 10, width: int = 40) -> list[str]:
    """A histogram of values in [0, 1] as text lines, one per bin, bars scaled to the fullest.

    >>> text_histogram([0.05, 0.95, 0.97], bins=2, width=4)
    ['0.0-0.5  ██    1', '0.5-1.0  ████  2']
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise InvalidInputError(f"bins must be an integer >= 1, got {bins!r}")
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise InvalidInputError(f"width must be an integer >= 1, got {width!r}")
    counts, edges = np.histogram(np.asarray(values, dtype=float), bins=bins, range=(0.0, 1.0))
    top = max(1, int(counts.max()) if len(counts) else 1)
    digits = 1 if 10 % bins == 0 else 2 if 100 % bins == 0 else 3
    lines = []
    for count, low, high in zip(counts.tolist(), edges[:-1], edges[1:]):
        bar = "█" * round(width * count / top)
        lines.append(f"{low:.{digits}f}-{high:.{digits}f}  {bar:<{width}}  {count}")
    return lines


def format_stats(stats: Sequence[NamespaceStats], *, bins: int = 10, width: int = 40) -> str:
    """The text ``cogmem stats`` prints: per namespace, a count table and a retention histogram."""
    blocks = []
    for s in stats:
        lines = [
            f"namespace {s.namespace!r}: {counted(s.total, 'memory', 'memories')} "
            f"({s.pinned} pinned, {s.never_recalled} never recalled)"
        ]
        if s.total:
            lines.append(
                f"  {'type':<11}" + "".join(f"{st:>13}" for st in STATUSES) + f"{'total':>8}"
            )
            for t in MEMORY_TYPES:
                row = [s.counts[(t, st)] for st in STATUSES]
                lines.append(f"  {t:<11}" + "".join(f"{n:>13}" for n in row) + f"{sum(row):>8}")
            every = [v for values in s.retention.values() for v in values]
            lines.append(
                f"  retention R at {s.now.isoformat(timespec='seconds')} "
                f"(mean {sum(every) / len(every):.2f}):"
            )
            lines.extend(f"    {line}" for line in text_histogram(every, bins=bins, width=width))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


# ---------------------------------------------------------------------- results and records
def explanation_rows(results: Sequence[SearchResult]) -> list[dict[str, Any]]:
    """One flat row per result: rank, memory, score and every part of its explanation.

    Columns: ``rank id memory_type text score relevance retention alpha decay_factor``, one
    ``penalty:<name>`` per penalty any result has (1.0 where a result has none), then ``mode
    via dense_rank cosine lexical_rank bm25 fused source_id newer_version_id``. Feed it to
    ``pandas.DataFrame`` for a table.
    """
    if isinstance(results, SearchResult) or not isinstance(results, Sequence):
        raise InvalidTypeError("results must be a list of SearchResult")
    for r in results:
        if not isinstance(r, SearchResult):
            raise InvalidTypeError(f"results must hold SearchResult, got {type(r).__name__}")
    names = list(dict.fromkeys(n for r in results for n in r.explanation.penalties))
    rows = []
    for rank, r in enumerate(results, start=1):
        e = r.explanation
        row: dict[str, Any] = {
            "rank": rank,
            "id": r.id,
            "memory_type": r.memory.memory_type,
            "text": r.text,
            "score": r.score,
            "relevance": e.relevance,
            "retention": e.retention,
            "alpha": e.alpha,
            "decay_factor": e.decay_factor,
        }
        row.update({f"penalty:{n}": float(e.penalties.get(n, 1.0)) for n in names})
        row.update(
            {
                "mode": e.mode,
                "via": e.via,
                "dense_rank": e.dense_rank,
                "cosine": e.cosine,
                "lexical_rank": e.lexical_rank,
                "bm25": e.bm25,
                "fused": e.fused,
                "source_id": e.source_id,
                "newer_version_id": e.newer_version_id,
            }
        )
        rows.append(row)
    return rows


def format_results(results: Sequence[SearchResult], *, explain: bool = False) -> str:
    """The text ``cogmem search`` prints: one line per result, plus its explanation if asked."""
    if not results:
        return "no memory matches"
    lines = []
    for rank, r in enumerate(results, start=1):
        m = r.memory
        lines.append(f"{rank:>2}. {r.score:.4f}  [{m.memory_type}] {m.text}")
        if explain:
            lines.append(f"    id {m.id}  created {m.created_at.isoformat(timespec='seconds')}")
            lines.append(f"    {r.explanation}")
    return "\n".join(lines)


def format_record(record: MemoryRecord, *, now: datetime, config: CognitiveMemoryConfig) -> str:
    """The text ``cogmem show`` prints: every field (as exported), then R and half-life now."""
    fields = record_to_json(record)
    lines = [f"{key:<17} {_show(value)}" for key, value in fields.items()]
    moment = ensure_aware(now, "now")
    r = retention(record, moment, config)
    half = half_life_days(record.memory_type, record.importance, config, record.stability)
    lines.append(
        f"{'retention':<17} {r:.3f} at {moment.isoformat(timespec='seconds')} "
        f"({record.age_days(moment):.1f} days since last access"
        f"{', pinned' if record.pinned else ''})"
    )
    lines.append(
        f"{'half-life':<17} "
        + ("never decays" if math.isinf(half) else f"{half:.1f} days at this stability")
    )
    return "\n".join(lines)


def _show(value: object) -> str:
    if value is None or value == [] or value == {}:
        return "-"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)
