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
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any, TextIO

from .checks import resolve_now
from .codec import ExportFormatError, record_from_json, record_to_json
from .config import CognitiveMemoryConfig
from .errors import (
    DimensionMismatchError,
    DuplicateIdError,
    InvalidInputError,
    InvalidTypeError,
    MemoryNotFoundError,
)
from .memory import CognitiveMemory
from .records import MemoryRecord

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

_HEADER_FIELDS = frozenset((HEADER_KEY, "exported_at", "with_embeddings", "embedder", "dimension"))


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
    moment = resolve_now(now)
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
