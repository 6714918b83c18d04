"""Export and import memories as JSON Lines: every field of every memory, vectors optional.

An export file is UTF-8 text, one JSON object per line. The first line is a header::

    {"cogmem_export": 1, "exported_at": "2026-06-01T12:00:00+00:00", "with_embeddings": true,
     "embedder": "all-MiniLM-L6-v2/0123abcd4567/dynamic", "dimension": 384}

and every other line is one memory, with every field of :class:`~cogmem.records.MemoryRecord`
(times as ISO 8601 with their offset, ``null`` for "never")::

    {"id": "m1", "namespace": "default", "text": "Priya prefers code first.",
     "memory_type": "semantic", "importance": 0.5, "confidence": 0.8, "stability": 0.25,
     "created_at": "2026-01-06T09:00:00+00:00", "last_accessed_at": null, "access_count": 0,
     "session_ids": ["s1"], "status": "active", "superseded_by": null, "pinned": false,
     "tags": [], "links": {}, "links_updated_at": null, "metadata": {}, "contradicts": [],
     "previous_version": null, "embedding": [0.01, ...]}

Memories are written namespace by namespace in the order they were formed, so an import
rebuilds the same timeline. ``embedding`` is present only in exports made with
``with_embeddings=True``; without it, :func:`import_jsonl` embeds the texts again with the
target memory's embedder. Hand-written files may leave out the header and every field but
``id``, ``text`` and ``created_at`` (defaults: those of ``MemoryRecord``; ``stability`` is the
initial stability for the importance given).

Progress bars (tqdm, on stderr) appear only when asked (``progress=True``), when stderr is a
terminal, and when the work takes longer than :data:`PROGRESS_DELAY_SECONDS`.
"""

from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, TextIO

from .checks import check_unit_interval, check_user_metadata, ensure_aware
from .config import CognitiveMemoryConfig
from .errors import (
    DimensionMismatchError,
    DuplicateIdError,
    InvalidInputError,
    InvalidTypeError,
    MemoryNotFoundError,
)
from .memory import CognitiveMemory
from .records import MEMORY_TYPES, STATUSES, MemoryRecord
from .retention import initial_stability

__all__ = [
    "FORMAT_VERSION",
    "HEADER_KEY",
    "PROGRESS_DELAY_SECONDS",
    "ExportFile",
    "ExportFormatError",
    "export_jsonl",
    "import_jsonl",
    "read_jsonl",
    "record_from_json",
    "record_to_json",
    "stored_records",
]

FORMAT_VERSION = 1
HEADER_KEY = "cogmem_export"
#: A progress bar appears only once the work has run this long (seconds).
PROGRESS_DELAY_SECONDS = 1.0
_BATCH = 512

_FIELDS = (
    "id",
    "namespace",
    "text",
    "memory_type",
    "importance",
    "confidence",
    "stability",
    "created_at",
    "last_accessed_at",
    "access_count",
    "session_ids",
    "status",
    "superseded_by",
    "pinned",
    "tags",
    "links",
    "links_updated_at",
    "metadata",
    "contradicts",
    "previous_version",
)
_KNOWN = frozenset((*_FIELDS, "embedding"))
_HEADER_FIELDS = frozenset((HEADER_KEY, "exported_at", "with_embeddings", "embedder", "dimension"))


class ExportFormatError(InvalidInputError):
    """A line of an export file cannot be read (the message names the line and the field)."""


# ---------------------------------------------------------------------- one record
def record_to_json(
    record: MemoryRecord, embedding: Sequence[float] | None = None
) -> dict[str, Any]:
    """The JSON object of one memory (every field; ``embedding`` only when given).

    Args:
        record: The memory.
        embedding: Its vector, to include.

    Returns:
        A dict that ``json.dumps`` writes as is; :func:`record_from_json` reads it back into an
        equal record.
    """
    out: dict[str, Any] = {
        "id": record.id,
        "namespace": record.namespace,
        "text": record.text,
        "memory_type": record.memory_type,
        "importance": float(record.importance),
        "confidence": float(record.confidence),
        "stability": float(record.stability),
        "created_at": record.created_at.isoformat(),
        "last_accessed_at": _iso(record.last_accessed_at),
        "access_count": int(record.access_count),
        "session_ids": list(record.session_ids),
        "status": record.status,
        "superseded_by": record.superseded_by,
        "pinned": bool(record.pinned),
        "tags": list(record.tags),
        "links": {str(k): float(v) for k, v in record.links.items()},
        "links_updated_at": _iso(record.links_updated_at),
        "metadata": dict(record.metadata),
        "contradicts": list(record.contradicts),
        "previous_version": record.previous_version,
    }
    if embedding is not None:
        out["embedding"] = [float(x) for x in embedding]
    return out


def record_from_json(
    data: object,
    *,
    where: str = "record",
    config: CognitiveMemoryConfig | None = None,
) -> tuple[MemoryRecord, list[float] | None]:
    """Read one memory written by :func:`record_to_json` (or by hand), checking every field.

    Args:
        data: The decoded JSON object.
        where: How errors name the record, e.g. ``"memories.jsonl line 3"``.
        config: Gives the initial stability when ``stability`` is left out (default config).

    Returns:
        The record and its embedding (``None`` when the object has none).

    Raises:
        ExportFormatError: A field is missing, unknown or malformed (named with ``where``).
    """
    if not isinstance(data, Mapping):
        raise ExportFormatError(f"{where}: expected a JSON object, got {_json_type(data)}")
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise ExportFormatError(f"{where}: unknown field(s) {unknown}")
    missing = [k for k in ("id", "text", "created_at") if k not in data]
    if missing:
        raise ExportFormatError(f"{where}: missing field(s) {missing}")
    try:
        return _decode(data, where, config or CognitiveMemoryConfig())
    except ExportFormatError:
        raise
    except (InvalidInputError, InvalidTypeError) as exc:  # the shared checks name the field
        raise ExportFormatError(str(exc)) from exc


def _decode(
    data: Mapping[str, Any], where: str, config: CognitiveMemoryConfig
) -> tuple[MemoryRecord, list[float] | None]:
    def text(key: str, *, default: str | None = None, blank_ok: bool = False) -> str:
        value = data.get(key, default)
        if not isinstance(value, str):
            raise ExportFormatError(f"{where}: {key} must be a string, got {_json_type(value)}")
        if not (value.strip() if not blank_ok else value):
            raise ExportFormatError(f"{where}: {key} must not be empty")
        return value

    def optional_text(key: str) -> str | None:
        return None if data.get(key) is None else text(key)

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ExportFormatError(f"{where}: {key} must be a list of non-empty strings")
        return tuple(value)

    memory_type = text("memory_type", default="episodic")
    if memory_type not in MEMORY_TYPES:
        raise ExportFormatError(
            f"{where}: memory_type must be one of {', '.join(MEMORY_TYPES)}; got {memory_type!r}"
        )
    status = text("status", default="active")
    if status not in STATUSES:
        raise ExportFormatError(
            f"{where}: status must be one of {', '.join(STATUSES)}; got {status!r}"
        )
    importance = check_unit_interval(data.get("importance", 0.5), f"{where}: importance")
    stability = check_unit_interval(
        data.get("stability", initial_stability(importance, config)), f"{where}: stability"
    )
    access_count = data.get("access_count", 0)
    if isinstance(access_count, bool) or not isinstance(access_count, int) or access_count < 0:
        raise ExportFormatError(f"{where}: access_count must be an integer >= 0")
    pinned = data.get("pinned", False)
    if not isinstance(pinned, bool):
        raise ExportFormatError(f"{where}: pinned must be true or false")
    links = data.get("links", {})
    if not isinstance(links, Mapping):
        raise ExportFormatError(f"{where}: links must be an object of id -> weight")
    metadata = data.get("metadata", {})
    if not isinstance(metadata, Mapping):
        raise ExportFormatError(f"{where}: metadata must be an object")
    record = MemoryRecord(
        id=text("id", blank_ok=True),
        namespace=text("namespace", default="default", blank_ok=True),
        text=text("text"),
        memory_type=memory_type,
        importance=importance,
        confidence=check_unit_interval(data.get("confidence", 0.8), f"{where}: confidence"),
        stability=stability,
        created_at=_time(data["created_at"], f"{where}: created_at"),
        last_accessed_at=_optional_time(data.get("last_accessed_at"), f"{where}: last_accessed_at"),
        access_count=access_count,
        session_ids=strings("session_ids"),
        status=status,
        superseded_by=optional_text("superseded_by"),
        pinned=pinned,
        tags=strings("tags"),
        links={str(k): check_unit_interval(v, f"{where}: links[{k!r}]") for k, v in links.items()},
        links_updated_at=_optional_time(data.get("links_updated_at"), f"{where}: links_updated_at"),
        metadata=check_user_metadata(dict(metadata)),
        contradicts=strings("contradicts"),
        previous_version=optional_text("previous_version"),
    )
    return record, _embedding(data.get("embedding"), where)


def _embedding(value: object, where: str) -> list[float] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value:
        raise ExportFormatError(f"{where}: embedding must be a non-empty list of numbers")
    out: list[float] = []
    for x in value:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise ExportFormatError(f"{where}: embedding must hold finite numbers, got {x!r}")
        out.append(float(x))
    return out


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _time(value: object, name: str) -> datetime:
    if not isinstance(value, str):
        raise ExportFormatError(f"{name} must be an ISO 8601 string, got {_json_type(value)}")
    text = value[:-1] + "+00:00" if value.endswith(("Z", "z")) else value
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ExportFormatError(f"{name}: {value!r} is not an ISO 8601 time") from exc
    if moment.tzinfo is None:
        raise ExportFormatError(
            f"{name}: {value!r} has no UTC offset; write e.g. {value}+00:00 (cogmem never "
            "guesses a time zone)"
        )
    return ensure_aware(moment, name)


def _optional_time(value: object, name: str) -> datetime | None:
    return None if value is None else _time(value, name)


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    if isinstance(value, (int, float)):
        return "a number"
    return type(value).__name__


# ---------------------------------------------------------------------- reading a store
def stored_records(memory: CognitiveMemory, namespace: str) -> list[MemoryRecord]:
    """Every memory of ``namespace``, every status, in the order they were formed."""
    return memory.records(namespace)


def _stored_vectors(
    memory: CognitiveMemory, namespace: str, ids: Sequence[str]
) -> dict[str, list[float]]:
    """The stored embeddings of ``ids``."""
    return {i: v.tolist() for i, v in memory.vectors(ids, namespace=namespace).items()}


# ---------------------------------------------------------------------- export
def export_jsonl(
    memory: CognitiveMemory,
    file: str | os.PathLike[str] | TextIO,
    *,
    namespace: str | None = None,
    with_embeddings: bool = False,
    now: datetime | None = None,
    progress: bool = False,
) -> int:
    """Write every memory (every status, every field) of a store as JSON Lines.

    Args:
        memory: The store to read (nothing in it changes).
        file: A path (written atomically: a failed export leaves no partial file; the new
            file is readable by its owner only, as memories may be private) or an open text
            stream.
        namespace: Only this namespace; default every namespace.
        with_embeddings: Also write each memory's stored vector (an import then needs no
            embedding, but must use the same embedder).
        now: The ``exported_at`` time in the header (default: the clock).
        progress: Show a progress bar on stderr (only on a terminal, only if it takes a while).

    Returns:
        How many memories were written.

    Raises:
        InvalidInputError / InvalidTypeError: A bad argument.
        OSError: The file cannot be written.
    """
    if not isinstance(with_embeddings, bool):
        raise InvalidTypeError("with_embeddings must be a bool")
    moment = datetime.now(timezone.utc) if now is None else ensure_aware(now, "now")
    if namespace is not None and (not isinstance(namespace, str) or not namespace):
        raise InvalidInputError("namespace must be a non-empty str")
    namespaces = memory.namespaces() if namespace is None else [namespace]
    contents = [(ns, stored_records(memory, ns)) for ns in namespaces]
    total = sum(len(records) for _, records in contents)
    header: dict[str, Any] = {
        HEADER_KEY: FORMAT_VERSION,
        "exported_at": moment.isoformat(),
        "with_embeddings": with_embeddings,
    }
    written = 0
    with _writing(file) as out, _progress(total, "exporting", progress) as bar:
        if with_embeddings:
            header["embedder"] = _model_id(memory)
            header["dimension"] = getattr(memory.embedder, "dimension", None)
        out.write(json.dumps(header, ensure_ascii=False) + "\n")
        for ns, records in contents:
            for start in range(0, len(records), _BATCH):
                part = records[start : start + _BATCH]
                vectors = (
                    _stored_vectors(memory, ns, [r.id for r in part]) if with_embeddings else {}
                )
                lines = [
                    json.dumps(record_to_json(r, vectors.get(r.id)), ensure_ascii=False)
                    for r in part
                ]
                out.write("\n".join(lines) + "\n")
                written += len(part)
                bar.update(len(part))
    return written


@contextmanager
def _writing(file: str | os.PathLike[str] | TextIO) -> Iterator[TextIO]:
    if not isinstance(file, (str, os.PathLike)):
        yield file
        return
    target = Path(file)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _model_id(memory: CognitiveMemory) -> str | None:
    value = getattr(memory.embedder, "model_id", None)
    return value if isinstance(value, str) else None


def _family(model_id: str) -> str:
    """The model and its weights (``all-MiniLM-L6-v2/<sha>``), without the variant suffixes
    (``/dynamic``, ``/max128``) whose vectors are interchangeable for search."""
    return "/".join(model_id.split("/")[:2])


# ---------------------------------------------------------------------- import
@dataclass(frozen=True)
class ExportFile:
    """An export file, read and checked (:func:`read_jsonl`).

    Attributes:
        source: The file's name (for messages).
        headers: Its header lines (usually one; none in a hand-written file).
        records: Every memory with its embedding (``None`` when its line has none), in file
            order.
    """

    source: str
    headers: list[dict[str, Any]]
    records: list[tuple[MemoryRecord, list[float] | None]]


def read_jsonl(
    file: str | os.PathLike[str] | TextIO,
    *,
    config: CognitiveMemoryConfig | None = None,
) -> ExportFile:
    """Read and check a whole export file (before touching any store).

    Args:
        file: A path or an open text stream.
        config: See :func:`record_from_json`.

    Returns:
        Its headers and memories; :func:`import_jsonl` takes it as is.

    Raises:
        ExportFormatError: A line is not JSON, not a record or a header, or has a bad field
            (names the file and line).
        OSError: The file cannot be read.
    """
    name = str(file) if isinstance(file, (str, os.PathLike)) else getattr(file, "name", "input")
    headers: list[dict[str, Any]] = []
    records: list[tuple[MemoryRecord, list[float] | None]] = []
    with _reading(file) as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{name} line {number}"
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ExportFormatError(f"{where}: not JSON ({exc.msg})") from None
            if isinstance(data, dict) and HEADER_KEY in data:
                headers.append(_check_header(data, where))
                continue
            records.append(record_from_json(data, where=where, config=config))
    return ExportFile(name, headers, records)


@contextmanager
def _reading(file: str | os.PathLike[str] | TextIO) -> Iterator[IO[str]]:
    if isinstance(file, (str, os.PathLike)):
        with open(file, encoding="utf-8-sig") as fh:  # tolerate a byte-order mark
            yield fh
    elif hasattr(file, "read"):
        yield file
    else:
        raise InvalidTypeError(f"file must be a path or a text stream, got {type(file).__name__}")


def _check_header(data: dict[str, Any], where: str) -> dict[str, Any]:
    if data[HEADER_KEY] != FORMAT_VERSION:
        raise ExportFormatError(
            f"{where}: export format {data[HEADER_KEY]!r} is not supported "
            f"(this cogmem reads format {FORMAT_VERSION})"
        )
    unknown = sorted(set(data) - _HEADER_FIELDS)
    if unknown:
        raise ExportFormatError(f"{where}: unknown header field(s) {unknown}")
    return data


def import_jsonl(
    memory: CognitiveMemory,
    file: str | os.PathLike[str] | TextIO | ExportFile,
    *,
    namespace: str | None = None,
    re_embed: bool = False,
    progress: bool = False,
) -> int:
    """Store the memories of an export file exactly as written (every field kept).

    The whole file is read and checked first (format, ids given twice, ids already stored,
    embedder): a file with a bad line or a clash stores nothing. Memories are then written in
    batches (:meth:`~cogmem.CognitiveMemory.restore`), each to its own namespace.

    Args:
        memory: The store to fill.
        file: A path, an open text stream, or a file already read by :func:`read_jsonl`.
        namespace: Import only the memories of this namespace; default all.
        re_embed: Ignore the embeddings in the file and embed the texts with ``memory``'s
            embedder (needed when the file was embedded with another model). Without
            embeddings in the file, texts are always embedded.
        progress: Show a progress bar on stderr (only on a terminal, only if it takes a while).

    Returns:
        How many memories were stored.

    Raises:
        ExportFormatError: The file is malformed (names the line), mixes lines with and without
            embeddings, or its embeddings do not fit ``memory``'s embedder.
        DuplicateIdError: An id appears twice in the file or is already stored in its namespace.
        OSError: The file cannot be read.
    """
    if not isinstance(re_embed, bool):
        raise InvalidTypeError("re_embed must be a bool")
    export = file if isinstance(file, ExportFile) else read_jsonl(file, config=memory.config)
    name, headers, rows = export.source, export.headers, export.records
    if namespace is not None:
        rows = [(r, v) for r, v in rows if r.namespace == namespace]
    _check_unique(rows, memory)
    use_vectors = not re_embed and any(v is not None for _, v in rows)
    vectors = _check_vectors(rows, headers, memory, name) if use_vectors else None
    records = [r for r, _ in rows]
    with _progress(len(records), "importing", progress) as bar:
        for start in range(0, len(records), _BATCH):
            part = records[start : start + _BATCH]
            memory.restore(part, None if vectors is None else vectors[start : start + _BATCH])
            bar.update(len(part))
    return len(records)


def _check_unique(
    rows: Sequence[tuple[MemoryRecord, list[float] | None]], memory: CognitiveMemory
) -> None:
    seen: set[tuple[str, str]] = set()
    twice: list[str] = []
    for record, _ in rows:
        key = (record.namespace, record.id)
        if key in seen:
            twice.append(record.id)
        seen.add(key)
    if twice:
        raise DuplicateIdError(f"ids given more than once in the file: {sorted(set(twice))[:5]}")
    stored: dict[str, list[str]] = {}
    for ns, memory_id in sorted(seen):
        try:
            memory.get(memory_id, namespace=ns)
        except MemoryNotFoundError:
            continue
        stored.setdefault(ns, []).append(memory_id)
    if stored:
        clashes = "; ".join(
            f"{len(ids)} in namespace {ns!r} (e.g. {ids[:5]})" for ns, ids in stored.items()
        )
        raise DuplicateIdError(
            f"ids of the file are already stored: {clashes}; "
            "import into an empty store or delete them first"
        )


def _check_vectors(
    rows: Sequence[tuple[MemoryRecord, list[float] | None]],
    headers: Sequence[Mapping[str, Any]],
    memory: CognitiveMemory,
    name: str,
) -> list[list[float]]:
    """The file's embeddings, once checked to be complete and to fit ``memory``'s embedder."""
    vectors = [v for _, v in rows if v is not None]
    without = [r.id for r, v in rows if v is None]
    if without:
        raise ExportFormatError(
            f"{name}: some memories have embeddings and some do not (e.g. {without[:3]}); "
            "re-embed them all (re_embed=True, `cogmem import --re-embed`)"
        )
    widths = {len(v) for _, v in rows if v is not None}
    expected = getattr(memory.embedder, "dimension", None)
    if len(widths) > 1:
        raise ExportFormatError(
            f"{name}: embeddings of several widths ({sorted(widths)}); re-embed them "
            "(re_embed=True, `cogmem import --re-embed`)"
        )
    if isinstance(expected, int) and widths != {expected}:
        raise DimensionMismatchError(
            f"{name}: embeddings have dimension {min(widths)}, but this store's embedder makes "
            f"dimension {expected}. Re-embed them (re_embed=True, `cogmem import --re-embed`)"
        )
    mine = _model_id(memory)
    for header in headers:
        theirs = header.get("embedder")
        if isinstance(theirs, str) and mine is not None and _family(theirs) != _family(mine):
            raise ExportFormatError(
                f"{name}: embedded with {theirs}, but this store embeds queries with {mine}; "
                "re-embed the texts (re_embed=True, `cogmem import --re-embed`)"
            )
    return vectors


# ---------------------------------------------------------------------- progress
@contextmanager
def _progress(total: int, what: str, enabled: bool) -> Iterator[Any]:
    """A tqdm bar on stderr, or a silent stand-in (not asked, or not a terminal)."""
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        desc=what,
        unit=" memories",
        file=sys.stderr,
        disable=None if enabled else True,  # None: tqdm stays silent unless stderr is a tty
        delay=PROGRESS_DELAY_SECONDS,
        leave=False,
        dynamic_ncols=True,
    )
    try:
        yield bar
    finally:
        bar.close()
