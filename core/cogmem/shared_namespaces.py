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
  namespaces reads it; no collection is listed.

:class:`PackedNamespace` is one namespace's view of the two, with the methods of a Chroma
collection that :class:`~cogmem.store.ChromaStore` calls, so everything above it (the index,
the catch-up, the held adds, the integrity checks) is the same for both layouts. cogmem never
asks Chroma's HNSW index of a small namespace anything (the exact scan answers,
:mod:`cogmem.scan`); a packed namespace larger than ``scan.EXACT_SCAN`` is queried with
Chroma's filter on its key (127 ms at 200,000 records, against 1-2 ms for a collection of
its own: give such a namespace its own store). Namespaces made in a collection of their own
stay there. All packed namespaces of a store share one vector width (one HNSW index).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .chroma_layout import DIMENSION_KEY, EARLY_SYNC, RELAX_SYNC_AT, set_sync, syncs_early
from .clients import drop_collection
from .errors import CogmemConnectionError
from .store import chroma_error

__all__ = ["NAMESPACE_KEY", "PackedNamespace", "Packing", "names_collection", "packed_collection"]

NAMESPACE_KEY = "cogmem_ns"  # the digest of a packed record's namespace
_SEPARATOR = "/"
_CREATED = {"created_by": "cogmem"}
_ENTRY_VECTOR = [1.0]  # the names collection holds no meaning: a one-wide vector each


def packed_collection(base: str) -> str:
    """The collection of the packed namespaces of the store whose default one is ``base``."""
    return f"{base}.ns.packed"


def names_collection(base: str) -> str:
    """The collection of the packed namespaces' entries (names, generations, widths)."""
    return f"{base}.ns.names"


class Packing:
    """The two shared collections of a store's packed namespaces, opened on first use.

    Args:
        client: The Chroma client.
        base: The store's default collection's name.
        create: Create the collections when missing (a writable store).
    """

    def __init__(self, client: Any, base: str, *, create: bool) -> None:
        self._client = client
        self._base = base
        self._create = create
        self._records: Any = None
        self._names: Any = None
        self._early: bool | None = None
        self._size: int | None = None  # records of the packed collection, while it syncs early

    def _open(self, name: str, configuration: Mapping[str, Any], *, create: bool) -> Any:
        try:
            if create and self._create:
                return self._client.get_or_create_collection(
                    name,
                    embedding_function=None,
                    configuration=dict(configuration),
                    metadata=dict(_CREATED),
                )
            try:
                return self._client.get_collection(name, embedding_function=None)
            except Exception as exc:  # absent: Chroma raises NotFoundError/ValueError by version
                error = chroma_error("Chroma get_collection", exc, self._client)
                if isinstance(error, CogmemConnectionError):  # unreachable is not "absent"
                    raise error from exc
                return None
        except CogmemConnectionError:
            raise
        except Exception as exc:
            raise chroma_error(f"opening Chroma collection {name!r}", exc, self._client) from exc

    def records(self, *, create: bool = False) -> Any:
        """The collection of the packed memories (``None``: not made yet)."""
        if self._records is None:
            conf = {"hnsw": {"space": "cosine", **EARLY_SYNC}}
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
        names = self.names()
        if names is None:
            return {}
        try:
            got = names.get(include=["metadatas"])
        except Exception as exc:
            raise chroma_error("listing the namespaces (Chroma get)", exc, names) from exc
        return {
            i: str(meta["cogmem_namespace"])
            for i, meta in zip(got["ids"], got["metadatas"])
            if meta and "cogmem_namespace" in meta
        }

    def entry(self, key: str) -> dict[str, Any] | None:
        """The entry of the packed namespace whose digest is ``key`` (``None``: none)."""
        names = self.names()
        if names is None:
            return None
        got = names.get(ids=[key], include=["metadatas"])
        return dict(got["metadatas"][0] or {}) if got["ids"] else None

    def set_entry(self, key: str, entry: Mapping[str, Any]) -> None:
        """Write the entry of the packed namespace whose digest is ``key``."""
        self.names().upsert(ids=[key], embeddings=[_ENTRY_VECTOR], metadatas=[dict(entry)])

    def namespace(self, key: str, name: str, *, create: bool) -> PackedNamespace | None:
        """The view of packed namespace ``name`` (digest ``key``); ``None`` when it has no
        entry and ``create`` is off (else its entry is written)."""
        entry = self.entry(key)
        if entry is None:
            if not create:
                return None
            self.records(create=True)
            self.names(create=True)
            self.set_entry(key, {**_CREATED, "cogmem_namespace": name})
        return PackedNamespace(self, key, name)

    def grew(self, added: int) -> None:
        """After ``added`` records went into the packed collection: once it holds
        :data:`~cogmem.chroma_layout.RELAX_SYNC_AT`, Chroma writes its index at its own pace
        (every add while smaller, see :data:`~cogmem.chroma_layout.EARLY_SYNC`)."""
        records = self.records()
        if self._early is None:
            self._early = syncs_early(records)
        if not self._early:
            return
        if self._size is None:
            self._size = int(records.count())
        else:
            self._size += added
        if self._size >= RELAX_SYNC_AT:
            set_sync(records, early=False)
            self._early = False

    def drop(self) -> None:
        """Delete both collections (an in-process store nothing else can reach)."""
        for name in (packed_collection(self._base), names_collection(self._base)):
            drop_collection(self._client, name)
        self._records = self._names = None


class PackedNamespace:
    """One packed namespace, seen as a Chroma collection of its own.

    It answers the calls :class:`~cogmem.store.ChromaStore` makes of a collection (``add``,
    ``get``, ``update``, ``delete``, ``count``, ``query``, ``metadata``, ``modify``) on the
    shared collection: ids are given the namespace's prefix on the way in and lose it on the
    way out, reads are filtered by :data:`NAMESPACE_KEY`, and the metadata is the namespace's
    entry in the names collection.
    """

    def __init__(self, packing: Packing, key: str, name: str) -> None:
        self._packing = packing
        self._key = key
        self._prefix = f"{key}{_SEPARATOR}"
        self.name = f"{packed_collection(packing._base)}[{name}]"

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
        entry = self._packing.entry(self._key) or {}
        if DIMENSION_KEY not in entry:
            shared = (self._packing.records().metadata or {}).get(DIMENSION_KEY)
            if shared is not None:
                entry[DIMENSION_KEY] = shared
        return entry

    def modify(self, metadata: Mapping[str, Any] | None = None, configuration: Any = None) -> None:
        """Write the namespace's entry. The index's pace belongs to the shared collection
        (:meth:`Packing.grew`), so a namespace's ``configuration`` is not applied."""
        if metadata is None:
            return
        entry = dict(metadata)
        self._packing.set_entry(self._key, entry)
        records = self._packing.records()
        shared = dict(records.metadata or {})
        if DIMENSION_KEY in entry and DIMENSION_KEY not in shared:
            records.modify(metadata={**shared, DIMENSION_KEY: entry[DIMENSION_KEY]})

    def count(self) -> int:
        return len(self._packing.records().get(where=self._where(None), include=[])["ids"])

    def get(
        self,
        ids: Sequence[str] | None = None,
        where: Mapping[str, Any] | None = None,
        limit: int | None = None,
        offset: int | None = None,
        include: Sequence[str] = (),
    ) -> dict[str, Any]:
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
        self._packing.records().add(
            ids=self._ids(ids),
            embeddings=embeddings,
            metadatas=[self._mark(m) for m in metadatas],
            documents=list(documents),
        )
        self._packing.grew(len(ids))

    def update(self, ids: Sequence[str], metadatas: Sequence[Mapping[str, Any]]) -> None:
        self._packing.records().update(
            ids=self._ids(ids), metadatas=[self._mark(m) for m in metadatas]
        )

    def delete(self, ids: Sequence[str]) -> None:
        self._packing.records().delete(ids=self._ids(ids))

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
        records = self._packing.records()
        records.delete(where={NAMESPACE_KEY: self._key})
        names = self._packing.names()
        if names is not None:
            names.delete(ids=[self._key])

    # -------------------------------------------------------------- mapping
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
