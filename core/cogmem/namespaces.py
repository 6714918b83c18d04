"""The namespaces of one memory: opened on first use, and written to as one.

:class:`Namespaces` opens the store's client and its collections (:mod:`cogmem.clients`) and
keeps one :class:`~cogmem.namespace.Namespace` per namespace in use. What touches several
namespaces at once lives here: storing one call's new memories all or none, refusing ids
already taken, checking vector widths, flushing and closing. Not thread-safe:
:class:`~cogmem.CognitiveMemory` calls it under its lock.
"""

from __future__ import annotations

import logging
import uuid
from bisect import bisect_left, insort
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .checks import check_name
from .clients import (
    DEFAULT_NAMESPACE,
    base_collections,
    collection_name,
    digest,
    drop_collection,
    list_namespaces,
    open_collection,
)
from .config import CognitiveMemoryConfig
from .dedup import Judge
from .disk import add_bytes, check_space, update_bytes
from .errors import (
    CogmemError,
    DimensionMismatchError,
    DuplicateIdError,
    MemoryNotFoundError,
    StorageError,
    StoreClosedError,
)
from .held import JOURNALS_SUPPORTED
from .intake import plan_writes
from .lexical import Tokenizer
from .listing import unwatch, watch
from .namespace import Namespace, StoreContext
from .records import MemoryRecord, WriteOutcome
from .recovery import doubt_path
from .shared_namespaces import Packing
from .store import ChromaStore, FloatArray
from .table import RecordTable
from .type_reading import TypeReading
from .versions import Versions

__all__ = ["DEFAULT_COLLECTION", "Namespaces"]

log = logging.getLogger("cogmem")

DEFAULT_COLLECTION = "cogmem"


class Namespaces:
    """The namespaces of one store: the default one a Chroma collection, the others packed
    into two shared ones (:mod:`cogmem.shared_namespaces`) or, made before, their own.

    Args:
        client: The Chroma client.
        config: The memory's configuration.
        path: A folder store's folder (``None``: in-process or a server).
        collection: The default namespace's collection (``None``: ``cogmem``, or a fresh
            ``cogmem-<random>`` for an in-process store, so two in-process memories never
            share data).
        index_dir: Where derived indexes and journals go (default ``path``).
        read_only: Opened for reading only.
        served: ``client`` was given (a server others may write).

    Raises:
        StorageError: Read-only, and the store has no such collection.
        StoreError: A collection exists that cogmem did not create, or Chroma failed.
    """

    def __init__(
        self,
        client: Any,
        config: CognitiveMemoryConfig,
        *,
        path: Path | None,
        collection: str | None,
        index_dir: Path | None,
        read_only: bool,
        served: bool,
    ) -> None:
        ephemeral = path is None and not served
        # An in-process store under a name cogmem chose is private: nothing else reaches it.
        private = ephemeral and collection is None
        if collection is None:
            collection = f"cogmem-{uuid.uuid4().hex[:12]}" if ephemeral else DEFAULT_COLLECTION
        self.base = check_name(collection, "collection")
        self._drop_on_close = ephemeral and self.base.startswith("cogmem-")
        root = index_dir if index_dir is not None else path
        interval = config.sync_interval_seconds
        if interval is None:
            interval = 0.0 if served else 1.0
        self.context = StoreContext(
            client=client,
            writer=uuid.uuid4().hex[:16],  # the "wb" token of this object's writes
            config=config,
            tokenizer=Tokenizer(language=config.stemmer_language),
            folder=path,
            index_dir=None if root is None else Path(root) / "cogmem-index" / self.base,
            read_only=read_only,
            private=private,
            sole_writer=private or path is not None,  # private, or a locked folder
            sync_interval_ns=int(interval * 1e9),
            # Small adds are written in groups where cogmem alone decides when Chroma sees
            # them: a private store, or a folder (journaled). A client= store is read by
            # other processes: written at once.
            buffered=config.add_flush_size > 0
            and (private or (path is not None and JOURNALS_SUPPORTED)),
        )
        self._open: OrderedDict[str, Namespace] = OrderedDict()  # least recently used first
        self._evicted: set[str] = set()  # closed by trim(): dropped at close if _drop_on_close
        self._names: list[str] | None = None  # every namespace, sorted, once listed (names())
        self._packed: set[str] = set()  # of those, the packed ones (cogmem.shared_namespaces)
        self._packing = Packing(
            client, self.base, create=not read_only, sole=self.context.sole_writer
        )
        if self.context.sole_writer and self.context.index_dir is not None:
            watch(self.context.index_dir, self.context.writer)  # scanned once (cogmem.listing)
        self._closed = False
        self._reserve = int(config.disk_reserve_mb * 2**20)
        if not read_only:
            self.require(DEFAULT_NAMESPACE)
        elif self.get(DEFAULT_NAMESPACE) is None:
            held = base_collections(client)
            listed = f"it has {', '.join(map(repr, held))}" if held else "it has none"
            raise StorageError(
                f"the store at {path} has no cogmem collection {self.base!r} ({listed})",
                path=str(path),
            )

    def names(self, prefix: str = "") -> list[str]:
        """The namespaces that hold (or held) memories and whose names start with ``prefix``,
        sorted. A store nothing else writes lists Chroma's collections once and keeps the list
        sorted (listing costs about 0.3 ms per namespace; a prefix is then found by bisection,
        whatever the number of namespaces); a shared one lists them on every call."""
        self._refuse_closed()
        known = self._known()
        start = bisect_left(known, prefix)
        end = start
        while end < len(known) and known[end].startswith(prefix):
            end += 1
        return known[start:end]

    def _known(self) -> list[str]:
        if self._names is None or not self.context.sole_writer:
            packed = self._packing.listed().values()
            self._packed = set(packed)
            self._names = sorted(
                set(list_namespaces(self.context.client, self.base)) | self._packed
            )
        return self._names

    @staticmethod
    def _holds(known: list[str], name: str) -> bool:
        at = bisect_left(known, name)
        return at < len(known) and known[at] == name

    def get(self, name: str, *, create: bool = False) -> Namespace | None:
        """The namespace ``name``, opened on first use; ``None`` when its collection does not
        exist and ``create`` is off.

        Raises:
            StoreClosedError: The store was closed.
        """
        self._refuse_closed()
        found = self._open.get(name)
        if found is not None:
            self._open.move_to_end(name)
            return found
        ctx = self.context
        if not create and ctx.sole_writer and not self._holds(self._known(), name):
            return None  # no collection: the list is complete where nothing else writes
        collection = self._collection(name, create=create)
        if collection is None:
            return None
        if self._names is not None and not self._holds(self._names, name):
            insort(self._names, name)
        folder, reserve, stem = ctx.folder, self._reserve, digest(name)
        noted = ctx.sole_writer and ctx.index_dir is not None and not ctx.read_only
        store = ChromaStore(
            collection,
            writer=ctx.writer,
            space=None if folder is None else lambda needed: check_space(folder, needed, reserve),
            doubt_file=doubt_path(ctx.index_dir, stem, ctx.writer)
            if noted and ctx.index_dir is not None
            else None,
        )
        found = self._open[name] = Namespace(name, stem, store, ctx)
        return found

    def _collection(self, name: str, *, create: bool) -> Any:
        """The collection (or packed view) of namespace ``name``; ``None`` when it does not
        exist and ``create`` is off. A namespace made in a collection of its own stays there;
        a new one other than the default is packed when ``config.pack_namespaces`` says so."""
        ctx, key = self.context, digest(name)
        if name == DEFAULT_NAMESPACE:
            return open_collection(ctx.client, self.base, name, create=create)

        def own(make: bool) -> Any:
            return open_collection(ctx.client, collection_name(self.base, name), name, create=make)

        if ctx.sole_writer:  # the listing says which layout a known namespace has
            if name in self._packed or (
                not self._holds(self._known(), name) and ctx.config.pack_namespaces
            ):
                found = self._packing.namespace(key, name, create=create)
                if found is not None:
                    self._packed.add(name)
                return found
            return own(create)
        found = self._packing.namespace(key, name, create=False) or own(False)
        if found is not None or not create:
            return found
        if ctx.config.pack_namespaces:
            return self._packing.namespace(key, name, create=True)
        return own(True)

    def table(self, name: str) -> RecordTable | None:
        """The records of namespace ``name`` for a read that needs nothing else from Chroma
        (caught up if it can be, as held if a server is unreachable); ``None`` when it does
        not exist."""
        found = self.get(name)
        return None if found is None else found.synced(offline=True).records

    def require(self, name: str) -> Namespace:
        """The namespace ``name``, created if needed (on a writable store).

        Raises:
            MemoryNotFoundError: Read-only, and it does not exist.
        """
        found = self.get(name, create=not self.context.read_only)
        if found is None:
            raise MemoryNotFoundError(f"namespace {name!r} holds no memories")
        return found

    def write(
        self,
        records: list[MemoryRecord],
        vectors: FloatArray,
        chosen: set[str],
        what: str,
        judge: Judge | None = None,
        versions: Versions | None = None,
        version_judge: Judge | None = None,
        reading: TypeReading | None = None,
    ) -> list[WriteOutcome]:
        """One call's writes, all or none: widths checked, caller-chosen ids (``chosen``)
        refused if taken, write-time dedup planned (:func:`cogmem.intake.plan_writes`, with
        its judges; ids not in ``chosen`` only), then the new memories stored and the stored
        ones the plan changed written back. ``what`` names the vectors in a width error.

        Returns:
            Each record's outcome, in order.
        """
        self.check_widths(records, vectors, what)
        self.refuse_taken(records, chosen)  # before anything is written
        ctx = self.context
        plan = plan_writes(
            records,
            vectors,
            chosen,
            self.get,
            ctx.config,
            ctx.tokenizer,
            judge,
            versions,
            version_judge=version_judge,
            reading=reading,
        )
        fresh = [plan.records[i] for i in plan.new]
        rewrites = sum(len(updated) for updated in plan.rewritten.values())
        self._check_room(add_bytes(int(vectors.shape[1]), [r.text for r in fresh]), rewrites)
        self.store_new(fresh, vectors[plan.new])
        try:
            for name, updated in plan.rewritten.items():
                self.require(name).rewrite(updated)
        except BaseException:
            self.take_back(fresh)  # one call, one outcome
            raise
        return plan.outcomes

    def check_widths(self, records: Sequence[MemoryRecord], vectors: FloatArray, what: str) -> None:
        """Refuse vectors of another width than a namespace they go to holds."""
        width = int(vectors.shape[1])
        for name in dict.fromkeys(r.namespace for r in records):
            found = self.get(name)
            if found is not None:
                found.check_width(width, what)
            elif name != DEFAULT_NAMESPACE and self.context.config.pack_namespaces:
                shared = self._packing.width()
                if shared is not None and shared != width:
                    raise DimensionMismatchError(
                        f"{what} have dimension {width}, but the namespaces this store packs "
                        f"together (cogmem.shared_namespaces) hold vectors of dimension "
                        f"{shared}, and a new namespace {name!r} would join them: open the "
                        "store with the embedder it was built with"
                    )

    def refuse_taken(self, records: Sequence[MemoryRecord], chosen: set[str]) -> None:
        """Raise :class:`DuplicateIdError` if a caller-chosen id among ``records`` is stored
        (a namespace not created yet holds nothing, and is not created here)."""
        by_namespace: dict[str, list[str]] = {}
        for r in records:
            if r.id in chosen:
                by_namespace.setdefault(r.namespace, []).append(r.id)
        for name, ids in by_namespace.items():
            found = self.get(name)
            taken = set() if found is None else found.taken(ids)
            if taken:
                raise DuplicateIdError(
                    f"ids already stored in namespace {name!r}: {sorted(taken)[:5]}; "
                    "delete them first or pick others"
                )

    def store_new(self, records: list[MemoryRecord], vectors: FloatArray) -> None:
        """Store new memories (ids checked free) namespace by namespace: all, or none. A small
        add to one namespace may be held back from Chroma (see :mod:`cogmem.held`)."""
        if not records:
            return
        by_namespace: dict[str, list[int]] = {}
        for i, r in enumerate(records):
            by_namespace.setdefault(r.namespace, []).append(i)
        may_hold = len(by_namespace) == 1 and len(records) < self.context.config.add_flush_size
        written: list[MemoryRecord] = []
        try:
            for name, rows in by_namespace.items():
                part = [records[i] for i in rows]
                matrix = vectors if len(rows) == len(records) else vectors[rows]
                self.require(name).add(part, matrix, may_hold=may_hold)
                written.extend(part)
        except BaseException:
            self.take_back(written)  # one call, one outcome
            raise

    def take_back(self, records: Sequence[MemoryRecord]) -> None:
        """Delete memories a call just stored (a later step of the call failed)."""
        by_namespace: dict[str, list[str]] = {}
        for r in records:
            by_namespace.setdefault(r.namespace, []).append(r.id)
        for name, ids in by_namespace.items():
            self.require(name).take_back(ids)

    def flush(self) -> None:
        """Write every namespace's held adds and recalls, and save their indexes."""
        self._refuse_closed()
        self._write_out([self._open[name] for name in sorted(self._open)])

    def _write_out(self, group: Sequence[Namespace]) -> None:
        """Flush the namespaces of ``group`` in turn, the packed ones' recalls together
        (:meth:`~cogmem.shared_namespaces.Packing.together`: three Chroma calls for all of
        them, where each alone makes three). On failure every one of them keeps the recalls
        it had to write, for the next try."""
        unwritten = [(ns, ns.unwritten_recalls()) for ns in group]
        keys = [key for ns, recalls in unwritten if recalls and (key := ns.packed_key)]
        try:
            with self._packing.together(keys):
                for ns in group:
                    ns.flush()
        except BaseException:
            for ns, recalls in unwritten:
                ns.keep_unwritten(recalls)
            raise

    def trim(self) -> None:
        """Close the least recently used namespaces beyond ``config.open_namespaces``, and a
        quarter of the limit more (so that they are written out together, not one per call):
        each is written out (held adds and recalls to Chroma, its index saved) and let go of.
        Called between calls (:class:`~cogmem.handle.CallLock`), never inside one, so no
        namespace a call holds is closed under it. Namespaces that cannot be written out stay
        open (tried again after the next call) and the call that opened them is not failed."""
        limit = self.context.config.open_namespaces
        if self._closed or len(self._open) <= limit:
            return
        group = list(self._open.values())[: len(self._open) - limit + limit // 4]
        try:
            self._write_out(group)
        except CogmemError:  # each alone, then: those that can be written out are closed
            group = [ns for ns in group if self._written_out_alone(ns)]
        for oldest in group:
            oldest.close(flushed=not oldest.held_ids)
            del self._open[oldest.name]
            if self._drop_on_close:
                self._evicted.add(oldest.name)

    def _written_out_alone(self, namespace: Namespace) -> bool:
        """Write ``namespace`` out by itself; whether it was (a failure is logged)."""
        try:
            self._write_out([namespace])
        except CogmemError as exc:
            log.warning("namespace %r kept open: writing it out failed: %s", namespace.name, exc)
            return False
        return True

    def close(self, *, flushed: bool) -> None:
        """Let go of every namespace (``flushed``: all was written); an in-process store
        under a name cogmem chose is dropped (nothing else can reach it). Every later call
        raises :class:`StoreClosedError`."""
        self._closed = True
        if self.context.index_dir is not None:
            unwatch(self.context.index_dir, self.context.writer)
        for name, namespace in self._open.items():
            namespace.close(flushed=flushed)
            if self._drop_on_close and name not in self._packed:  # packed: dropped below
                namespace.drop()
        self._open.clear()
        for name in sorted(self._evicted - set(self._open) - self._packed):
            drop_collection(self.context.client, collection_name(self.base, name))
        self._evicted.clear()
        if self._drop_on_close:
            self._packing.drop()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def unwritten(self) -> int:
        """How many acknowledged adds are journaled but not yet in Chroma (none in a private
        in-process store, whose adds live and die with it)."""
        if self.context.private:
            return 0
        return sum(len(ns.held_ids) for ns in self._open.values())

    def _check_room(self, add: int, rewrites: int) -> None:
        """Refuse a whole call up front (a folder store) when the disk cannot take its adds
        (``add`` bytes) and its ``rewrites``, so that no part of it is written.

        Raises:
            DiskFullError: The space is not there.
        """
        folder = self.context.folder
        if folder is not None and not self.context.read_only:
            check_space(folder, add + update_bytes(rewrites), self._reserve)

    def _refuse_closed(self) -> None:
        if self._closed:
            raise StoreClosedError(
                f"the store {self.base!r} (at {self.context.folder or 'a Chroma client'}) was "
                "closed: open a new CognitiveMemory on it"
            )
