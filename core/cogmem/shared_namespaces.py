"""Many namespaces in one Chroma collection: what makes a user cost what it holds.

A collection per namespace costs Chroma an HNSW index per user (about 3 MB of RAM and four
open files while loaded), and its work per collection grows with the number of collections
(building 10,000 users of 20 memories slowed from 20 to 130 s per thousand). So a store's
namespaces other than the default one share two collections (design §7, Many namespaces):

* ``<base>.ns.packed`` holds their memories. Each record's Chroma id is
  ``<digest>/<id>`` and it carries the namespace's digest under :data:`NAMESPACE_KEY`, so one
  namespace's records are read by that key and no two namespaces' ids meet.
* ``<base>.ns.names`` holds one entry per namespace (id: its digest): its name and what a
  collection keeps in its metadata (creator, write generation, vector width). Listing the
  namespaces reads it; no collection is listed. It also holds the namespace's two *marks*
  (:data:`~cogmem.chroma_layout.WRITTEN_KEY` and ``DELETED_KEY``), tokens that every write
  and every delete renew, so that another process's catch-up learns whether anything changed
  from one read by id: a filtered ``get`` of the shared collection grows with every user of
  the store.

:class:`PackedNamespace` is one namespace's view of the two, with the methods of a Chroma
collection that :class:`~cogmem.store.ChromaStore` calls, so everything above it (the index,
the catch-up, the held adds, the integrity checks) is the same for both layouts. cogmem never
asks the shared collection's HNSW index anything: a packed namespace of any size is searched
by an exact scan of its own vectors (:mod:`cogmem.scan`; Chroma's query filtered by the key
took 127 ms at 200,000 records), so that index is built for writing only
(:data:`WRITE_ONLY_INDEX`). Namespaces made in a collection of their own stay there. All
packed namespaces of a store share one vector width (one HNSW index).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .catchup import SYNC_OVERLAP_NS
from .chroma_layout import DELETED_KEY, DIMENSION_KEY, STAMP_KEY, WRITTEN_KEY, marks_of
from .clients import cogmem_collection, drop_collection
from .store import chroma_error

__all__ = ["NAMESPACE_KEY", "PackedNamespace", "Packing", "names_collection", "packed_collection"]

NAMESPACE_KEY = "cogmem_ns"  # the digest of a packed record's namespace
# The entry's marks (chroma_layout.WRITTEN_KEY, DELETED_KEY) are each written anew (a writer's
# token and the time, ns) after the namespace's records changed: the written mark after every
# add and update, the deleted mark after every delete and after a write that reached Chroma
# too late for the catch-up's look back by write stamp (half of SYNC_OVERLAP_NS after its
# stamp). Only a change means anything; neither is written back from an entry read before.
_MARKS = (WRITTEN_KEY, DELETED_KEY)
_LATE_NS = SYNC_OVERLAP_NS // 2
# The shared collection's HNSW index is written and never asked (a packed namespace of any size
# is searched by its exact scan), so it is built cheaply: with Chroma's defaults (100, 16) a
# 20-record add cost 21 ms at 10,000 records and 39 at 80,000, with these a flat 20 (vectors
# only, no metadata; docs/design.md §7). It is written at Chroma's own pace: one that writes
# the index with every add (chroma_layout.EARLY_SYNC) made each add slower as the collection
# grew (17 to 36 ms from 10,000 to 40,000 records), and Chroma 1.5.9 does not change a live
# index's pace afterwards.
WRITE_ONLY_INDEX = {"ef_construction": 16, "max_neighbors": 8}
_SEPARATOR = "/"
_ENTRY_VECTOR = [1.0]  # the names collection holds no meaning: a one-wide vector each
# Ids per Chroma call when queued writes are sent (Packing.together): below every batch limit
# a Chroma client states (5,461 for an embedded one).
_SEND_BATCH = 1_000


def _token() -> str:
    """A new mark: a random token and the time (ns), unique to one write."""
    return f"{uuid.uuid4().hex[:16]}:{time.time_ns()}"


def _batches(ids: list[str]) -> list[list[str]]:
    return [ids[i : i + _SEND_BATCH] for i in range(0, len(ids), _SEND_BATCH)]


def packed_collection(base: str) -> str:
    """The collection of the packed namespaces of the store whose default one is ``base``."""
    return f"{base}.ns.packed"


def names_collection(base: str) -> str:
    """The collection of the packed namespaces' entries (names, generations, widths)."""
    return f"{base}.ns.names"


@dataclass
class _Queue:
    """Writes to the shared collections held back by :meth:`Packing.together`."""

    entries: dict[str, dict[str, Any] | None]  # as read when the group began (None: no entry)
    upserts: dict[str, dict[str, Any]] = field(default_factory=dict)  # digest -> entry fields
    updates: dict[str, Mapping[str, Any]] = field(default_factory=dict)  # record id -> metadata
    marks: dict[str, set[str]] = field(default_factory=dict)  # digest -> marks to renew

    def __bool__(self) -> bool:
        return bool(self.upserts or self.updates or self.marks)


class Packing:
    """The two shared collections of a store's packed namespaces, opened on first use.

    Args:
        client: The Chroma client.
        base: The store's default collection's name.
        create: Create the collections when missing (a writable store).
        sole: Nothing else writes the store (a locked folder, a private in-process store):
            the entries are read from Chroma once, and a namespace made here is known to be
            empty until its first add (no Chroma read for either).
    """

    def __init__(self, client: Any, base: str, *, create: bool, sole: bool) -> None:
        self._client = client
        self._base = base
        self._create = create
        self._sole = sole
        self._records: Any = None
        self._names: Any = None
        self._entries: dict[str, dict[str, Any]] | None = None  # all of them, where sole
        self._queue: _Queue | None = None  # writes held back while together() runs

    def _open(self, name: str, configuration: Mapping[str, Any], *, create: bool) -> Any:
        made = create and self._create
        return cogmem_collection(self._client, name, create=made, configuration=configuration)

    def records(self, *, create: bool = False) -> Any:
        """The collection of the packed memories (``None``: not made yet)."""
        if self._records is None:
            conf = {"hnsw": {"space": "cosine", **WRITE_ONLY_INDEX}}
            self._records = self._open(packed_collection(self._base), conf, create=create)
        return self._records

    def names(self, *, create: bool = False) -> Any:
        """The collection of the packed namespaces' entries (``None``: not made yet)."""
        if self._names is None:
            conf = {"hnsw": {"space": "l2"}}
            self._names = self._open(names_collection(self._base), conf, create=create)
        return self._names

    def width(self) -> int | None:
        """The width of the packed namespaces' vectors (``None`` until one is written)."""
        records = self.records()
        if records is None:
            return None
        try:
            width = (records.metadata or {}).get(DIMENSION_KEY)
        except Exception as exc:
            raise chroma_error("reading the collection's metadata", exc, records) from exc
        return None if width is None else int(width)

    def listed(self) -> dict[str, str]:
        """Every packed namespace: digest → name."""
        return {
            key: str(entry["cogmem_namespace"])
            for key, entry in self._all_entries().items()
            if "cogmem_namespace" in entry
        }

    def _all_entries(self) -> dict[str, dict[str, Any]]:
        if self._entries is not None:
            return self._entries
        names = self.names()
        if names is None:
            return {}
        try:
            got = names.get(include=["metadatas"])
        except Exception as exc:
            raise chroma_error("listing the namespaces (Chroma get)", exc, names) from exc
        entries = {i: dict(meta or {}) for i, meta in zip(got["ids"], got["metadatas"])}
        if self._sole:
            self._entries = entries
        return entries

    def entry(self, key: str) -> dict[str, Any] | None:
        """The entry of the packed namespace whose digest is ``key`` (``None``: none), with
        what :meth:`together` holds back for it."""
        queue = self._queue
        if queue is None or key not in queue.entries:
            found = self._stored_entry(key)
        else:
            found = queue.entries[key]
        if queue is not None and key in queue.upserts:
            found = {**(found or {}), **queue.upserts[key]}
        return None if found is None else dict(found)

    def _stored_entry(self, key: str) -> dict[str, Any] | None:
        if self._sole:
            found = self._all_entries().get(key)
            return None if found is None else dict(found)
        names = self.names()
        if names is None:
            return None
        got = names.get(ids=[key], include=["metadatas"])
        return dict(got["metadatas"][0] or {}) if got["ids"] else None

    def set_entry(self, key: str, entry: Mapping[str, Any]) -> None:
        """Write the entry of the packed namespace whose digest is ``key``. Its marks are left
        as stored (Chroma merges an upsert's metadata by key): an entry read before another
        process's write must not put the older marks back."""
        written = {k: v for k, v in entry.items() if k not in _MARKS}
        if self._queue is not None:
            self._queue.upserts[key] = {**self._queue.upserts.get(key, {}), **written}
        else:
            self.names().upsert(ids=[key], embeddings=[_ENTRY_VECTOR], metadatas=[written])
        if self._entries is not None:
            self._entries[key] = {**self._entries.get(key, {}), **written}

    def mark(self, key: str, *marks: str) -> None:
        """Renew ``marks`` in the entry of the packed namespace whose digest is ``key`` (another
        process's catch-up then reads what changed). A sole writer writes none: nothing else
        catches up with it, and an index loaded afresh catches up in full the first time."""
        if self._sole:
            return
        if self._queue is not None:
            self._queue.marks.setdefault(key, set()).update(marks)
            return
        self.names().update(ids=[key], metadatas=[dict.fromkeys(marks, _token())])

    def update_records(self, ids: Sequence[str], metadatas: Sequence[Mapping[str, Any]]) -> None:
        """Rewrite the metadata of packed records (ids with their namespace's prefix)."""
        if self._queue is not None:
            self._queue.updates.update(zip(ids, metadatas, strict=True))
        else:
            self.records().update(ids=list(ids), metadatas=list(metadatas))

    @contextmanager
    def together(self, keys: Sequence[str]) -> Iterator[None]:
        """Write the packed namespaces ``keys`` out together: within the block, their entries'
        changes, their records' metadata updates and their marks are held back, and sent when
        it ends in three Chroma calls (per :data:`_SEND_BATCH` ids), in the order one namespace
        writes them: entries (a write generation raised), records, then the marks, so that a
        catch-up that sees a mark finds the records. Their entries are read in one call at
        the start. Anything else written meanwhile (an add, a delete) sends what is held back
        first. A block that raises sends nothing more (the caller keeps what it had to
        write); one already inside another joins it.

        Raises:
            StoreError: Chroma refused what was held back.
        """
        if self._queue is not None:
            yield
            return
        self._queue = _Queue(self._read_entries(keys))
        try:
            yield
            self.send_held()
        finally:
            self._queue = None

    def send_held(self) -> None:
        """Send what :meth:`together` holds back (nothing outside it)."""
        queue = self._queue
        if queue is None or not queue:
            return
        upserts, updates, marks = queue.upserts, queue.updates, queue.marks
        queue.upserts, queue.updates, queue.marks = {}, {}, {}
        names, records = self.names(), self.records()
        try:
            for part in _batches(list(upserts)):
                names.upsert(
                    ids=part,
                    embeddings=[_ENTRY_VECTOR] * len(part),
                    metadatas=[upserts[k] for k in part],
                )
            for part in _batches(list(updates)):
                records.update(ids=part, metadatas=[dict(updates[i]) for i in part])
            token = _token()
            for part in _batches(list(marks)):
                names.update(ids=part, metadatas=[dict.fromkeys(marks[k], token) for k in part])
        except Exception as exc:
            raise chroma_error("writing packed namespaces out together", exc, records) from exc

    def _read_entries(self, keys: Sequence[str]) -> dict[str, dict[str, Any] | None]:
        """The entries of ``keys``, in one read (none where nothing else writes: known)."""
        names = None if self._sole or not keys else self.names()
        if names is None:
            return {}
        try:
            got = names.get(ids=list(keys), include=["metadatas"])
        except Exception as exc:
            raise chroma_error("reading the namespaces' entries", exc, names) from exc
        found: dict[str, dict[str, Any] | None] = dict.fromkeys(keys)
        found.update((i, dict(meta or {})) for i, meta in zip(got["ids"], got["metadatas"]))
        return found

    def forget(self, key: str) -> None:
        """Delete the entry of the packed namespace whose digest is ``key``."""
        self.send_held()
        names = self.names()
        if names is not None:
            names.delete(ids=[key])
        if self._entries is not None:
            self._entries.pop(key, None)

    def namespace(self, key: str, name: str, *, create: bool) -> PackedNamespace | None:
        """The view of packed namespace ``name`` (digest ``key``); ``None`` when it has no
        entry and ``create`` is off (else its entry is written)."""
        found = self.entry(key)
        if found is not None:
            return PackedNamespace(self, key, name, entry=found)
        if not create:
            return None
        self.records(create=True)
        self.names(create=True)
        self.set_entry(key, {"created_by": "cogmem", "cogmem_namespace": name})
        return PackedNamespace(self, key, name, empty=self._sole)

    def drop(self) -> None:
        """Delete both collections (an in-process store nothing else can reach)."""
        for name in (packed_collection(self._base), names_collection(self._base)):
            drop_collection(self._client, name)
        self._records = self._names = None
        self._entries = {} if self._sole else None


class PackedNamespace:
    """One packed namespace, seen as a Chroma collection of its own.

    It answers the calls :class:`~cogmem.store.ChromaStore` makes of a collection (``add``,
    ``get``, ``update``, ``delete``, ``count``, ``query``, ``metadata``, ``modify``) on the
    shared collection: ids are given the namespace's prefix on the way in and lose it on the
    way out, reads are filtered by :data:`NAMESPACE_KEY`, and the metadata is the namespace's
    entry in the names collection.
    """

    def __init__(
        self,
        packing: Packing,
        key: str,
        name: str,
        *,
        empty: bool = False,
        entry: Mapping[str, Any] | None = None,
    ) -> None:
        self._packing = packing
        self._empty = empty  # made by a sole writer, nothing added yet: reads need no Chroma
        # The entry as read to open the view: the first read of it is this one (a namespace
        # opened is loaded at once, and its load reads the entry), later reads ask Chroma.
        self._opened_with = None if entry is None else dict(entry)
        self._key = key
        self._prefix = f"{key}{_SEPARATOR}"
        self.name = f"{packed_collection(packing._base)}[{name}]"

    @property
    def key(self) -> str:
        """The namespace's digest: its entry's id and its records' prefix."""
        return self._key

    @property
    def _client(self) -> Any:
        """The client behind the shared collection (what ``chroma_address`` names)."""
        shared = self._packing._records
        return self._packing._client if shared is None else getattr(shared, "_client", None)

    # -------------------------------------------------------------- what ChromaStore asks
    @property
    def configuration(self) -> Mapping[str, Any]:
        """The shared collection's (its distance and how often its index is written)."""
        return dict(self._packing.records().configuration)

    @property
    def metadata(self) -> dict[str, Any]:
        """The namespace's entry; the shared width when it has recorded none."""
        entry = self._entry() or {}
        if DIMENSION_KEY not in entry:
            shared = (self._packing.records().metadata or {}).get(DIMENSION_KEY)
            if shared is not None:
                entry[DIMENSION_KEY] = shared
        return entry

    def modify(self, metadata: Mapping[str, Any] | None = None, configuration: Any = None) -> None:
        """Write the namespace's entry. The index's pace belongs to the shared collection
        (:data:`WRITE_ONLY_INDEX`), so a namespace's ``configuration`` is not applied."""
        if metadata is None:
            return
        entry = dict(metadata)
        self._packing.set_entry(self._key, entry)
        records = self._packing.records()
        shared = dict(records.metadata or {})
        if DIMENSION_KEY in entry and DIMENSION_KEY not in shared:
            records.modify(metadata={**shared, DIMENSION_KEY: entry[DIMENSION_KEY]})

    def count(self) -> int:
        if self._empty:
            return 0
        return len(self._packing.records().get(where=self._where(None), include=[])["ids"])

    def width(self) -> int | None:
        """The packed namespaces' vector width, as the shared collection records it (read
        when the collection was opened: no call), ``None`` if it recorded none then."""
        return self._packing.width()

    def marks(self) -> tuple[str, str]:
        """The namespace's written and deleted marks (``""`` where never written): one read
        by id, what a catch-up asks before it reads the shared collection."""
        return marks_of({} if self._empty else self._entry() or {})

    def get(
        self,
        ids: Sequence[str] | None = None,
        where: Mapping[str, Any] | None = None,
        limit: int | None = None,
        offset: int | None = None,
        include: Sequence[str] = (),
    ) -> dict[str, Any]:
        if self._empty:
            return {"ids": [], "documents": [], "metadatas": [], "embeddings": []}
        records = self._packing.records()
        if ids is not None:
            got = records.get(
                ids=self._ids(ids), where=where, limit=limit, offset=offset, include=list(include)
            )
        else:
            got = records.get(
                where=self._where(where), limit=limit, offset=offset, include=list(include)
            )
        return {**got, "ids": self._bare(got["ids"])}

    def add(
        self,
        ids: Sequence[str],
        embeddings: Any,
        metadatas: Sequence[Mapping[str, Any]],
        documents: Sequence[str],
    ) -> None:
        self._empty = False  # before: a failed add may leave some of it
        self._packing.send_held()
        self._packing.records().add(
            ids=self._ids(ids),
            embeddings=embeddings,
            metadatas=[self._mark(m) for m in metadatas],
            documents=list(documents),
        )
        self._written(metadatas)

    def update(self, ids: Sequence[str], metadatas: Sequence[Mapping[str, Any]]) -> None:
        self._packing.update_records(self._ids(ids), [self._mark(m) for m in metadatas])
        self._written(metadatas)

    def delete(self, ids: Sequence[str]) -> None:
        self._packing.send_held()
        self._packing.records().delete(ids=self._ids(ids))
        self._packing.mark(self._key, DELETED_KEY)

    def _written(self, metadatas: Sequence[Mapping[str, Any]]) -> None:
        """Renew the written mark after an add or update; the deleted mark too when it was
        marked later than a catch-up's look back by stamp reaches."""
        self._packing.mark(self._key, WRITTEN_KEY)
        stamps = [int(m[STAMP_KEY]) for m in metadatas if STAMP_KEY in m]
        if stamps and time.time_ns() - min(stamps) > _LATE_NS:
            self._packing.mark(self._key, DELETED_KEY)

    def query(
        self,
        query_embeddings: Any,
        n_results: int,
        where: Mapping[str, Any] | None = None,
        include: Sequence[str] = ("distances",),
    ) -> dict[str, Any]:
        got = self._packing.records().query(
            query_embeddings=query_embeddings,
            n_results=n_results,
            where=self._where(where),
            include=list(include),
        )
        return {**got, "ids": [self._bare(row) for row in got["ids"]]}

    # -------------------------------------------------------------- the namespace as a whole
    def drop(self) -> None:
        """Delete the namespace's records and its entry."""
        if not self._empty:
            self._packing.records().delete(where={NAMESPACE_KEY: self._key})
        self._packing.forget(self._key)

    # -------------------------------------------------------------- mapping
    def _entry(self) -> dict[str, Any] | None:
        opened, self._opened_with = self._opened_with, None
        return opened if opened is not None else self._packing.entry(self._key)

    def _ids(self, ids: Sequence[str]) -> list[str]:
        return [self._prefix + i for i in ids]

    def _bare(self, ids: Sequence[str]) -> list[str]:
        cut = len(self._prefix)
        return [i[cut:] for i in ids]

    def _mark(self, metadata: Mapping[str, Any]) -> dict[str, Any]:
        return {**metadata, NAMESPACE_KEY: self._key}

    def _where(self, where: Mapping[str, Any] | None) -> dict[str, Any]:
        mine = {NAMESPACE_KEY: self._key}
        return mine if not where else {"$and": [mine, dict(where)]}
