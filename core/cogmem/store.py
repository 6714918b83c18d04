"""The Chroma collection that holds every memory: the source of truth (design §1).

:class:`ChromaStore` reads and writes one collection, always with explicit vectors, and turns
Chroma's errors into cogmem's (:func:`chroma_error`). How a record is laid out in Chroma is
:mod:`cogmem.chroma_layout`; opening clients and collections is :mod:`cogmem.clients`.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import numpy as np
import numpy.typing as npt

from .chroma_layout import (
    DIMENSION_KEY,
    GENERATION_KEY,
    RELAX_SYNC_AT,
    STAMP_KEY,
    from_chroma,
    marks_of,
    set_sync,
    syncs_early,
    to_metadata,
    writer_of,
)
from .disk import add_bytes, is_disk_full, update_bytes
from .errors import CogmemConnectionError, DiskFullError, StoreError
from .filters import Where
from .records import MemoryRecord

__all__ = ["ChromaStore", "FloatArray", "Stamped", "chroma_address", "chroma_error"]

log = logging.getLogger("cogmem")

# How Chroma words a failure that leaves its embedded store unsafe to write in this process.
_UNSAFE_WORDS = ("error in compaction", "failed to apply logs")
_GET_BATCH = 5000  # Chroma caps how many ids one get may name; stay well below.

FloatArray = npt.NDArray[np.float32]


def chroma_address(target: Any) -> str | None:
    """The address (``scheme://host:port``) of the Chroma server behind a client or collection.

    Returns:
        ``None`` for an embedded (in-process or persistent) client, or when it cannot be told.
    """
    for owner in ("_client", "_server", None):  # a collection, a client, the server API itself
        api = getattr(target, owner, None) if owner is not None else target
        get_url = getattr(api, "get_api_url", None)
        if callable(get_url):
            try:
                url = str(get_url())
            except Exception:  # not an HTTP client after all
                return None
            parts = urlsplit(url)
            return f"{parts.scheme}://{parts.netloc}" if parts.netloc else url
    return None


def _is_connection_failure(exc: BaseException) -> bool:
    """Whether ``exc``, or an error it was raised from or while handling, is a network failure
    (the built-in ``ConnectionError`` or any ``httpx.TransportError``: refused, reset, timed
    out, closed mid-response)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionError):
            return True
        if any(
            c.__name__ == "TransportError" and c.__module__.split(".")[0] == "httpx"
            for c in type(current).__mro__
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


def chroma_error(action: str, exc: BaseException, target: Any = None) -> StoreError:
    """The cogmem error for a failed Chroma call (the caller raises it ``from exc``).

    Args:
        action: What failed, e.g. ``"Chroma add"``.
        exc: What Chroma raised.
        target: The client or collection called, to name the server's address.

    Returns:
        A :class:`CogmemConnectionError` naming the server's address when the server could not
        be reached, else a :class:`StoreError`.
    """
    if _is_connection_failure(exc):
        address = chroma_address(target)
        where = f"the Chroma server at {address}" if address else "the Chroma server"
        return CogmemConnectionError(
            f"{action} failed: cannot reach {where} ({exc}); is it running? "
            "Calls that returned are stored; retry this one once the server is back.",
            address=address,
        )
    return StoreError(f"{action} failed: {exc}")


# A stored record as read back: the record, its insertion stamp (seq) and its write stamp.
Stamped = tuple[MemoryRecord, int, int]


class ChromaStore:
    """One Chroma collection of memories, always written with explicit vectors.

    Args:
        collection: A Chroma collection created with no embedding function and cosine space.
        writer: The token written as ``wb`` with every add and update (default: a fresh random
            one), so that :meth:`changed_since` can leave out this writer's own writes.
        space: Called with the bytes a write may need before each write (a folder store's
            free-space check, :func:`cogmem.disk.check_space`); it raises to refuse the write.
        doubt_file: Where the failed adds still in doubt are noted while they are (a folder
            store), so that the next open settles them if this process cannot
            (:func:`settle_noted`).

    After Chroma failed on a full disk, or failed compacting its log, every later write is
    refused at once (:class:`~cogmem.errors.DiskFullError`, or :class:`StoreError`: Chroma's
    embedded store can block forever on the next write, see :mod:`cogmem.disk`): close the
    store and open it again once there is room.

    A write Chroma raised on may still have been applied, in part or whole. A failed ``add``
    is *settled* before anything else is written: the records of its batches that Chroma holds
    (this writer's, with those batches' write stamps) are deleted, so the failed call leaves
    no trace; until that succeeds (a server still down), every write is refused with what
    stopped it. :meth:`unsettled` says which ids are still in doubt.
    """

    def __init__(
        self,
        collection: Any,
        writer: str | None = None,
        space: Callable[[int], None] | None = None,
        doubt_file: Path | None = None,
    ) -> None:
        self._collection = collection
        # a packed namespace (cogmem.shared_namespaces), which keeps marks in its entry
        self._packed = hasattr(collection, "marks")
        self._doubt_file = doubt_file
        self._seq_lock = threading.Lock()
        self._last_seq = 0
        self.writer = writer if writer is not None else uuid.uuid4().hex[:16]
        self._own_stamps: list[int] = []  # write stamps of this writer not yet past a sync
        self._space = space
        # What Chroma said when a write failed leaving it unsafe, and the error to refuse with.
        self._unsafe: tuple[type[StoreError], str] | None = None
        self._early_sync = syncs_early(collection)
        self._doubt: list[tuple[list[str], set[int]]] = []  # failed adds: ids, batch stamps

    @property
    def collection(self) -> Any:
        """The underlying Chroma collection."""
        return self._collection

    def next_seqs(self, n: int) -> list[int]:
        """``n`` increasing insertion stamps (ns since the epoch, unique in this process)."""
        with self._seq_lock:
            start = max(self._last_seq + 1, time.time_ns())
            self._last_seq = start + n - 1
        return list(range(start, start + n))

    def pace(self, count: int) -> None:
        """Set how often Chroma writes the collection's index to disk for ``count`` records:
        with every add below :data:`~cogmem.chroma_layout.RELAX_SYNC_AT` (see
        :data:`~cogmem.chroma_layout.EARLY_SYNC`), at Chroma's own pace from there. A failure
        is logged, not raised (and not tried again by this object); nothing is asked of a
        Chroma that failed unsafely before (:meth:`before_write`)."""
        early = count < RELAX_SYNC_AT
        if early == self._early_sync:
            return
        self._early_sync = early
        try:
            self.before_write(1024)
            set_sync(self._collection, early=early)
        except Exception as exc:
            log.warning(
                "could not set how often Chroma writes %s's index: %s", self._collection.name, exc
            )

    def count(self) -> int:
        """Number of records in the collection."""
        try:
            return int(self._collection.count())
        except Exception as exc:
            raise chroma_error("Chroma count", exc, self._collection) from exc

    def generation_and_marks(self) -> tuple[int, tuple[str, str] | None]:
        """:meth:`generation` and :meth:`marks` (one read of a packed namespace's entry)."""
        meta = self._metadata()
        return int(meta.get(GENERATION_KEY, 0)), marks_of(meta) if self._packed else None

    @property
    def packed_key(self) -> str | None:
        """A packed namespace's digest (:class:`~cogmem.shared_namespaces.PackedNamespace`),
        ``None`` for a collection of its own."""
        return str(self._collection.key) if self._packed else None

    def marks(self) -> tuple[str, str] | None:
        """A packed namespace's written and deleted marks, renewed by every write and every
        delete (:meth:`cogmem.shared_namespaces.PackedNamespace.marks`); ``None`` for a
        collection of its own, whose reads by stamp and :meth:`count` are as cheap."""
        if not self._packed:
            return None
        try:
            return cast(tuple[str, str], self._collection.marks())
        except Exception as exc:
            raise chroma_error("reading the namespace's marks", exc, self._collection) from exc

    def _metadata(self) -> dict[str, Any]:
        try:
            return dict(self._collection.metadata or {})
        except Exception as exc:
            raise chroma_error("reading the collection's metadata", exc, self._collection) from exc

    def generation(self) -> int:
        """The write generation recorded in the collection's metadata (0 if never written)."""
        return int(self._metadata().get(GENERATION_KEY, 0))

    def set_generation(self, generation: int) -> None:
        """Record a new write generation (keeps the collection's other metadata)."""
        self._set_metadata(GENERATION_KEY, int(generation))

    def dimension(self) -> int | None:
        """The width of the collection's vectors: as recorded, else read from one stored
        vector; ``None`` while it holds none."""
        recorded = self._collection.width() if self._packed else None  # no read
        if recorded is None:
            recorded = self._metadata().get(DIMENSION_KEY)
        if recorded is not None:
            return int(recorded)
        got = self._call("get", limit=1, include=["embeddings"])
        embeddings = got.get("embeddings")
        if embeddings is None or len(embeddings) == 0:
            return None
        return int(np.asarray(embeddings[0]).shape[-1])

    def set_dimension(self, dimension: int) -> None:
        """Record the width of the collection's vectors (before its first vector is written)."""
        self._set_metadata(DIMENSION_KEY, int(dimension))

    def _set_metadata(self, key: str, value: int) -> None:
        self.before_write(1024)
        # A packed namespace's entry is merged by key (no read); a collection's metadata is
        # replaced whole.
        meta = {} if self._packed else self._metadata()
        meta[key] = value
        try:
            self._collection.modify(metadata=meta)
        except Exception as exc:
            raise self._failed("Chroma modify", exc) from exc

    def vectors(self, ids: Sequence[str]) -> dict[str, FloatArray]:
        """The stored embeddings of ``ids`` (missing ids are absent from the result)."""
        out: dict[str, FloatArray] = {}
        for start in range(0, len(ids), _GET_BATCH):
            got = self._call(
                "get", ids=list(ids[start : start + _GET_BATCH]), include=["embeddings"]
            )
            matrix = np.asarray(got["embeddings"], dtype=np.float32)
            out.update(zip(got["ids"], matrix))
        return out

    def all_records(
        self, page: int = _GET_BATCH, *, vectors: dict[str, FloatArray] | None = None
    ) -> dict[str, Stamped]:
        """Every record with its seq and write stamp (read ``page`` at a time, by id past the
        first page); their embeddings put in ``vectors`` when given (read in the same calls)."""
        return self._stamped(None, page, vectors=vectors)

    def changed_since(
        self, after: int, page: int = _GET_BATCH, *, vectors: dict[str, FloatArray] | None = None
    ) -> dict[str, Stamped]:
        """The records other writers added or updated with a write stamp above ``after``
        (their embeddings put in ``vectors`` when given, read in the same call).

        One filtered ``get`` (``w > after``; about 2 ms on a 10k collection when nothing
        changed). The stamps this writer wrote since ``after`` (one per Chroma batch, so a
        handful) are excluded in Chroma with ``$nin``, so that a writer's own large batch is
        not read back; records left of its own (an older batch) are dropped here.
        """
        self._own_stamps = [x for x in self._own_stamps if x > after]
        where: Where = {STAMP_KEY: {"$gt": int(after)}}
        if self._own_stamps:
            where = {"$and": [where, {STAMP_KEY: {"$nin": list(self._own_stamps)}}]}
        return self._stamped(where, page, skip_writer=self.writer, vectors=vectors)

    def stamped(self, ids: Sequence[str]) -> dict[str, Stamped]:
        """The records of ``ids`` with their seq and write stamp (missing ids are absent)."""
        out: dict[str, Stamped] = {}
        self._read_ids(ids, _GET_BATCH, ["documents", "metadatas"], out)
        return out

    def _read_ids(
        self,
        ids: Sequence[str],
        page: int,
        include: list[str],
        out: dict[str, Stamped],
        skip_writer: str | None = None,
        vectors: dict[str, FloatArray] | None = None,
    ) -> None:
        """Read ``ids`` into ``out``, ``page`` at a time (see :meth:`_take`)."""
        for start in range(0, len(ids), page):
            got = self._call("get", ids=list(ids[start : start + page]), include=include)
            self._take(got, out, skip_writer, vectors)

    @staticmethod
    def _take(
        got: Mapping[str, Any],
        out: dict[str, Stamped],
        skip_writer: str | None = None,
        vectors: dict[str, FloatArray] | None = None,
    ) -> None:
        if vectors is not None and len(got["ids"]):
            vectors.update(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32)))
        for memory_id, doc, meta in zip(got["ids"], got["documents"], got["metadatas"]):
            if skip_writer is not None and writer_of(meta) == skip_writer:
                continue
            out[memory_id] = (
                from_chroma(memory_id, doc, meta),
                int(meta.get("seq", 0)),
                int(meta.get(STAMP_KEY, 0)),
            )

    def _stamped(
        self,
        where: Where | None,
        page: int,
        skip_writer: str | None = None,
        vectors: dict[str, FloatArray] | None = None,
    ) -> dict[str, Stamped]:
        """The records ``where`` selects: one call when they fit in a ``page``; past it, their
        ids are listed in one call and read by id, ``page`` at a time.

        Chroma's ``offset`` costs in proportion to where the page starts (about 7 s per page
        near a million records), so paging by offset is quadratic in the collection; a read
        by id costs the same wherever the ids sit. A record deleted between the listing and
        its read is left out, as it would have been by a read a moment later.
        """
        out: dict[str, Stamped] = {}
        include = ["documents", "metadatas"] + (["embeddings"] if vectors is not None else [])
        got = self._call("get", where=where, include=include, limit=page)
        self._take(got, out, skip_writer, vectors)
        if len(got["ids"]) < page:
            return out
        first = set(got["ids"])
        rest = [i for i in self._call("get", where=where, include=[])["ids"] if i not in first]
        self._read_ids(rest, page, include, out, skip_writer, vectors)
        return out

    def existing(self, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are stored."""
        found: set[str] = set()
        for start in range(0, len(ids), _GET_BATCH):
            chunk = list(ids[start : start + _GET_BATCH])
            found.update(self._call("get", ids=chunk, include=[])["ids"])
        return found

    def add(
        self,
        memories: Sequence[MemoryRecord],
        vectors: FloatArray,
        seqs: Sequence[int] | None = None,
    ) -> tuple[list[int], list[int]]:
        """Write new memories (the caller has checked that their ids are free).

        Each Chroma batch is stamped when it is sent (not when the call began), so that a
        long ``add`` does not write stamps far older than the moment they become visible.

        Args:
            memories: The records.
            vectors: Their embeddings, one row each.
            seqs: Their insertion stamps, when already given (adds written late keep the order
                they were made in); default: new ones.

        Returns:
            Their insertion stamps (seq) and write stamps (w), in order.
        """
        seqs = self.next_seqs(len(memories)) if seqs is None else list(seqs)
        self.before_write(add_bytes(int(np.shape(vectors)[-1]), [m.text for m in memories]))
        stamps: list[int] = []
        sent: set[int] = set()
        try:
            for start in range(0, len(memories), _GET_BATCH):
                part = memories[start : start + _GET_BATCH]
                stamp = self.next_seqs(1)[0]
                self._own_stamps.append(stamp)
                sent.add(stamp)
                self._call(
                    "add",
                    ids=[m.id for m in part],
                    documents=[m.text for m in part],
                    embeddings=vectors[start : start + _GET_BATCH],
                    metadatas=[
                        to_metadata(m, s, stamp=stamp, writer=self.writer)
                        for m, s in zip(part, seqs[start : start + _GET_BATCH])
                    ],
                )
                stamps += [stamp] * len(part)
        except BaseException:
            # One call, one outcome: none of it stays, the earlier batches included.
            self._doubt.append(([m.id for m in memories], sent))
            self._note_doubt()
            try:
                self._settle()
            except StoreError as exc:
                log.warning("a failed Chroma add is settled before the next write: %s", exc)
            raise
        return seqs, stamps

    def unsettled(self) -> list[str]:
        """The ids of failed adds that Chroma may still hold (not settled yet)."""
        return [i for ids, _ in self._doubt for i in ids]

    def _settle(self) -> None:
        """Delete what failed adds left in Chroma: their records written by this writer with
        the stamps of their batches (an id stored before, by anyone, is left alone).

        Raises:
            StoreError: Chroma could not be read or written (they stay in doubt).
        """
        while self._doubt:
            ids, stamps = self._doubt[0]
            left: list[str] = []
            for start in range(0, len(ids), _GET_BATCH):
                got = self._call("get", ids=ids[start : start + _GET_BATCH], include=["metadatas"])
                left += [
                    i
                    for i, meta in zip(got["ids"], got["metadatas"])
                    if writer_of(meta) == self.writer and int(meta.get(STAMP_KEY, 0)) in stamps
                ]
            if left:
                self._call("delete", ids=left)
                log.warning("took back %d memories a failed Chroma add had stored", len(left))
            self._doubt.pop(0)
            self._note_doubt()

    def _note_doubt(self) -> None:
        """Keep the doubt file in step with the failed adds in doubt (deleted once none is);
        a note that cannot be written is logged, naming the ids."""
        path = self._doubt_file
        if path is None:
            return
        try:
            if not self._doubt:
                path.unlink(missing_ok=True)
                return
            note = {
                "writer": self.writer,
                "adds": [[ids, sorted(stamps)] for ids, stamps in self._doubt],
            }
            path.parent.mkdir(parents=True, exist_ok=True)
            part = path.with_name(f"{path.name}.part")
            part.write_text(json.dumps(note), encoding="utf-8")
            os.replace(part, path)
        except OSError as exc:
            log.error(
                "could not note the failed Chroma adds in doubt in %s (%s): if this process "
                "cannot take them back, these ids may appear on the next open: %s",
                path,
                exc,
                self.unsettled()[:20],
            )

    def settle_noted(self, path: Path) -> list[str]:
        """Take back what a dead writer's failed adds, noted at ``path``, left in Chroma, and
        delete the note; returns the ids taken back.

        Raises:
            StoreError: Chroma failed (the note stays for the next open).
        """
        try:
            note = json.loads(path.read_text(encoding="utf-8"))
            writer = str(note["writer"])
            adds = [(list(map(str, ids)), {int(s) for s in stamps}) for ids, stamps in note["adds"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.error("could not read the note of failed Chroma adds %s: %s", path, exc)
            return []
        taken: list[str] = []
        for ids, stamps in adds:
            for start in range(0, len(ids), _GET_BATCH):
                got = self._call("get", ids=ids[start : start + _GET_BATCH], include=["metadatas"])
                taken += [
                    i
                    for i, meta in zip(got["ids"], got["metadatas"])
                    if writer_of(meta) == writer and int(meta.get(STAMP_KEY, 0)) in stamps
                ]
        if taken:
            self._call("delete", ids=taken)
            log.warning("took back %d memories a dead writer's failed add had stored", len(taken))
        path.unlink(missing_ok=True)
        return taken

    def update(self, memories: Sequence[MemoryRecord]) -> int:
        """Rewrite the metadata of stored memories (text, vector and seq are unchanged).

        Returns:
            The write stamp written (0 when there was nothing to write).
        """
        if not memories:
            return 0
        self.before_write(update_bytes(len(memories)))
        stamp = self.next_seqs(1)[0]
        self._own_stamps.append(stamp)
        self._call(
            "update",
            ids=[m.id for m in memories],
            metadatas=[to_metadata(m, stamp=stamp, writer=self.writer) for m in memories],
        )
        return stamp

    def delete(self, ids: Sequence[str], *, undo: bool = False) -> None:
        """Delete records by id. ``undo``: taking back what a failing call just wrote, which
        the reserve kept by the space check is there for (never refused for space)."""
        if ids:
            if not undo:
                self.before_write(update_bytes(len(ids)))
            self._call("delete", ids=list(ids))

    def ids(self, where: Where | None = None) -> list[str]:
        """Every id (matching ``where``)."""
        out: list[str] = []
        offset = 0
        page = 50_000
        while True:
            got = self._call("get", where=where, include=[], limit=page, offset=offset)
            out.extend(got["ids"])
            if len(got["ids"]) < page:
                return out
            offset += page

    def nearest(
        self, vector: FloatArray, k: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest ids to ``vector`` (under ``where``) with their cosine, nearest first.

        Only ids and distances are fetched: it is the records that are slow to read.
        """
        return self.nearest_many(np.atleast_2d(vector), k, where)[0]

    def nearest_many(
        self,
        vectors: FloatArray,
        k: int,
        where: Where | None = None,
        *,
        found: dict[str, FloatArray] | None = None,
    ) -> list[list[tuple[str, float]]]:
        """For each row of ``vectors``, :meth:`nearest` (one Chroma query for all rows); the
        embeddings of the memories found put in ``found`` when given (read in the same call)."""
        include = ["distances", "embeddings"] if found is not None else ["distances"]
        got = self._call(
            "query", query_embeddings=vectors, n_results=k, where=where, include=include
        )
        if found is not None:
            for ids, matrix in zip(got["ids"], got["embeddings"], strict=True):
                found.update(zip(ids, np.asarray(matrix, dtype=np.float32)))
        return [
            [(i, 1.0 - float(d)) for i, d in zip(ids, distances)]
            for ids, distances in zip(got["ids"], got["distances"], strict=True)
        ]

    def _call(self, method: str, **kwargs: Any) -> dict[str, Any]:
        """Call the collection's ``method``; Chroma's errors become cogmem's.

        Raises:
            CogmemConnectionError: The Chroma server could not be reached (names its address).
            StoreError: Chroma failed otherwise (names the operation).
        """
        try:
            return cast(dict[str, Any], getattr(self._collection, method)(**kwargs))
        except Exception as exc:  # Chroma raises many types; name the operation that failed
            raise self._failed(f"Chroma {method}", exc) from exc

    def _failed(self, action: str, exc: BaseException) -> StoreError:
        """The cogmem error for a failed Chroma call; a full disk, or a failed compaction of
        Chroma's log, is remembered."""
        if any(word in str(exc).lower() for word in _UNSAFE_WORDS) and not is_disk_full(exc):
            self._unsafe = (StoreError, f"{action} failed: {exc}")
            return StoreError(
                f"{action} failed: Chroma could not compact its log ({exc}), usually for want "
                "of disk space. Chroma's later writes in this process are not safe: close this "
                "store, free space, and open it again (every call that returned before is "
                "stored)"
            )
        if is_disk_full(exc):
            self._unsafe = (DiskFullError, f"{action} failed: {exc}")
            return DiskFullError(
                f"{action} failed: the disk is full ({exc}). Chroma's later writes in this "
                "process are not safe: close this store, free space, and open it again (every "
                "call that returned before is stored)"
            )
        return chroma_error(action, exc, self._collection)

    def before_write(self, needed: int) -> None:
        """Refuse a write of up to ``needed`` bytes up front: after Chroma failed in a way
        that leaves it unsafe, while a failed add cannot be settled, or when the space check
        says no.

        Raises:
            DiskFullError: A full disk, now or earlier (nothing was written).
            StoreError: Chroma failed earlier, or cannot settle a failed add now.
        """
        if self._unsafe is not None:
            error, said = self._unsafe
            raise error(
                f"Chroma failed earlier in this process ({said}); close this store and open it "
                "again once space is freed (nothing was written now)"
            )
        self._settle()
        if self._space is not None:
            self._space(needed)
