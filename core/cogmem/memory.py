"""``CognitiveMemory``: the engine behind one small interface (design §7).

It owns a Chroma collection (the source of truth), one incremental BM25 index per namespace
(derived from Chroma, rebuilt or reconciled from it whenever it is absent or stale), and an
embedder. Searching is: candidates from the dense and lexical lists under the same filters,
temporal-context neighbours of the best episodes, scoring (:mod:`cogmem.scoring`), packing
(:mod:`cogmem.packing`), then reinforcement of what was returned (:mod:`cogmem.retention`).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from .associations import current_links, prune_links, spread, strengthen_links
from .config import CognitiveMemoryConfig
from .consolidation import (
    ConsolidationGroup,
    ConsolidationReport,
    ExtractiveSummarizer,
    MaintenanceReport,
    Summarizer,
    cluster,
    summary_record,
    superseded,
)
from .consolidation import candidates as consolidation_candidates
from .dedup import Judge, Neighbour, decide
from .disk import check_space, storage_error
from .embedding import Embedder, MiniLMEmbedder, embed_query_vector, embed_texts
from .errors import (
    CogmemConnectionError,
    DimensionMismatchError,
    DuplicateIdError,
    EmbedderError,
    InvalidInputError,
    InvalidTypeError,
    MemoryNotFoundError,
    ReadOnlyError,
    StorageError,
    StoreError,
)
from .index import NamespaceIndex
from .lexical import BM25Index, Tokenizer
from .lock import lock_folder
from .packing import TokenCounter, char_token_count, mmr_order, pack, tiktoken_counter
from .pending import (
    JOURNALS_SUPPORTED,
    AddJournal,
    JournalEntry,
    PendingAdds,
    claim_orphans,
    journal_path,
    read_orphans,
)
from .records import (
    MEMORY_TYPES,
    STATUSES,
    MemoryRecord,
    SearchResult,
    WriteOutcome,
    check_unit_interval,
    ensure_aware,
)
from .retention import initial_stability
from .retention import reinforce as reinforce_memory
from .scoring import Candidate, fuse, score_candidates
from .store import (
    ChromaStore,
    FloatArray,
    Where,
    build_where,
    check_unicode,
    check_user_metadata,
    chroma_error,
    compile_filters,
)
from .table import RecordTable

__all__ = ["CognitiveMemory", "MemoryInput"]

log = logging.getLogger("cogmem")

_MODES = ("dense", "lexical", "hybrid")
DEFAULT_COLLECTION = "cogmem"
DEFAULT_NAMESPACE = "default"


@dataclass(frozen=True)
class MemoryInput:
    """One memory to add, as :meth:`CognitiveMemory.add_many` takes it (dicts work too)."""

    text: str
    memory_type: str | None = None
    importance: float | None = None
    confidence: float | None = None
    tags: Sequence[str] = ()
    created_at: datetime | None = None
    id: str | None = None
    metadata: Mapping[str, Any] | None = None
    namespace: str = DEFAULT_NAMESPACE
    pinned: bool = False
    session_id: str | None = None


_INPUT_FIELDS = frozenset(MemoryInput.__dataclass_fields__)


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _resolve_now(now: datetime | None) -> datetime:
    return _utcnow() if now is None else ensure_aware(now, "now")


def _check_text(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidTypeError(f"{name} must be a str, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{name} must not be empty or whitespace")
    return check_unicode(value, name)


# Write-time dedup compares a write with this many nearest stored memories (and as many of the
# earlier inputs of its call).
_DEDUP_NEIGHBOURS = 5
# Co-recall links grow among this many of a search's first direct results (bounds link growth).
_CO_RECALL = 5
# Spreading activation starts from this many of the best-matching candidates.
_ASSOCIATION_SEEDS = 10
# maintain(): contradiction checks per call, and how many recent memories to look around.
_CONFLICT_PAIRS = 50
_CONFLICT_SCAN = 1000
_CONFLICT_COSINE = 0.85

ConflictDetector = Callable[[str, str], bool]
# Catching up with other writers re-reads this far behind the newest write stamp taken in
# (ns): a write stamped on the writer's clock just before it reached Chroma, or on a clock up
# to this much behind, is still seen. Re-reading is idempotent (each record's stamp is kept).
_SYNC_OVERLAP_NS = 5_000_000_000
# add_many / restore: a progress bar over the embedding beyond this many memories.
_PROGRESS_OVER = 1000
_PROGRESS_CHUNK = 256
# Dedup within one add_many call compares inputs in blocks of at most this many cosines.
_SIMILARITY_CELLS = 4_000_000


def _check_name(value: object, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidTypeError(f"{name} must be a str, got {type(value).__name__}")
    if not value:
        raise InvalidInputError(f"{name} must not be empty")
    return check_unicode(value, name)


def _check_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise InvalidInputError(f"{name} must be >= 1, got {value}")
    return value


class _Given:
    """Vectors handed in by the caller, read through the embedder checks."""

    def __init__(self, vectors: object) -> None:
        self._vectors = vectors

    def __repr__(self) -> str:
        return "given vectors"

    def embed_documents(self, texts: list[str]) -> object:
        return self._vectors

    def embed_query(self, text: str) -> object:  # pragma: no cover - never queried
        raise NotImplementedError


def _check_record(position: int, record: object) -> MemoryRecord:
    """Validate a record handed to :meth:`CognitiveMemory.restore`."""
    where = f"record {position}"
    if not isinstance(record, MemoryRecord):
        raise InvalidTypeError(f"{where}: expected MemoryRecord, got {type(record).__name__}")
    _check_text(record.text, f"{where}: text")
    _check_name(record.id, f"{where}: id")
    _check_name(record.namespace, f"{where}: namespace")
    if record.memory_type not in MEMORY_TYPES:
        raise InvalidInputError(f"{where}: unknown memory_type {record.memory_type!r}")
    if record.status not in STATUSES:
        raise InvalidInputError(f"{where}: unknown status {record.status!r}")
    for name in ("importance", "confidence", "stability"):
        check_unit_interval(getattr(record, name), f"{where}: {name}")
    ensure_aware(record.created_at, f"{where}: created_at")
    for name in ("last_accessed_at", "links_updated_at"):
        value = getattr(record, name)
        if value is not None:
            ensure_aware(value, f"{where}: {name}")
    if isinstance(record.access_count, bool) or not isinstance(record.access_count, int):
        raise InvalidTypeError(f"{where}: access_count must be an int")
    if record.access_count < 0:
        raise InvalidInputError(f"{where}: access_count must be >= 0")
    for tag in record.tags:
        _check_name(tag, f"{where}: tag")
    for other in record.contradicts:
        _check_name(other, f"{where}: contradicts")
    if record.previous_version is not None:
        _check_name(record.previous_version, f"{where}: previous_version")
    for other, weight in record.links.items():
        _check_name(other, f"{where}: link")
        check_unit_interval(weight, f"{where}: links[{other!r}]")
    check_user_metadata(record.metadata)
    return record


class CognitiveMemory:
    """A long-term memory that forgets, reinforces and recalls like a person (design §7).

    Each namespace is its own Chroma collection (``collection`` for the default namespace,
    ``<collection>.ns.<hash>`` for the others), so that a search never filters by namespace
    inside Chroma (a filtered vector query is a full scan there).

    Args:
        path: Folder of a persistent store (Chroma ``PersistentClient``); ``None`` and no
            ``client``: an in-process store that lives as long as this object.
        client: Any Chroma client (e.g. ``chromadb.HttpClient``); excludes ``path``.
        collection: Collection name. Default ``cogmem``, or for an in-process store a fresh
            name, so that two in-process memories never share data (Chroma keeps one in-process
            database per process).
        embedder: Anything with ``embed_documents`` / ``embed_query`` (a LangChain
            ``Embeddings`` fits); default: the offline all-MiniLM-L6-v2.
        config: Tunables; default :class:`CognitiveMemoryConfig()`.
        index_dir: Where to keep the derived lexical index and timeline between runs; default
            ``path`` (none for in-process or client stores: they are rebuilt from Chroma when a
            namespace is first used).
        dedup_judge: ``(stored_text, new_text) -> bool``, asked by write-time dedup about a
            write that differs from its nearest memory in no word that clearly carries meaning
            (an inflection, a plain word added): ``True`` merges it. Default ``None``: such a
            write is stored as a newer version. Each adapter builds one from an LLM
            (``dedup_judge_from``).
        read_only: Open a folder store for reading only: it is never written (no
            reinforcement, no saved index, a write raises :class:`~cogmem.errors.ReadOnlyError`),
            any number of processes may read it at once, and none may write it meanwhile.

    A folder store is opened by one process at a time (Chroma's embedded mode is
    single-process): the folder is locked while this object is open (``cogmem.lock``), and a
    second opener gets :class:`~cogmem.errors.StoreLockedError`. To share one memory between
    processes, run a Chroma server and pass ``client=``.

    Raises:
        StoreLockedError: Another process (or object) has the folder store open.
        StorageError: The folder cannot be created, read or written (names it and why).
        DimensionMismatchError: The embedder states a width the store does not hold.
        StoreError: A collection exists with a distance other than cosine, or Chroma failed.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        client: Any = None,
        collection: str | None = None,
        embedder: Embedder | None = None,
        config: CognitiveMemoryConfig | None = None,
        index_dir: str | Path | None = None,
        dedup_judge: Judge | None = None,
        read_only: bool = False,
    ) -> None:
        if path is not None and client is not None:
            raise InvalidInputError("pass either path= or client=, not both")
        if not isinstance(read_only, bool):
            raise InvalidTypeError(f"read_only must be a bool, got {type(read_only).__name__}")
        if read_only and path is None:
            raise InvalidInputError("read_only=True opens a folder store: pass path=")
        if config is not None and not isinstance(config, CognitiveMemoryConfig):
            raise InvalidTypeError(
                f"config must be a CognitiveMemoryConfig, got {type(config).__name__}"
            )
        if dedup_judge is not None and not callable(dedup_judge):
            raise InvalidTypeError("dedup_judge must be a callable: (str, str) -> bool")
        self.config = config or CognitiveMemoryConfig()
        self.dedup_judge = dedup_judge
        self.embedder: Embedder = embedder if embedder is not None else MiniLMEmbedder()
        self._ephemeral = path is None and client is None
        self._owns_client = client is None
        self._read_only = read_only
        self._closed = True  # until the store is open
        self._folder_lock = None if path is None else lock_folder(Path(path), read_only)
        try:
            self._client = client if client is not None else _make_client(path)
            self._open(path, client, collection, index_dir)
        except BaseException:
            self._let_go()
            raise

    def _open(
        self,
        path: str | Path | None,
        client: Any,
        collection: str | None,
        index_dir: str | Path | None,
    ) -> None:
        # Only an in-process store under a name cogmem chose has no other writer to catch up with.
        self._private = self._ephemeral and collection is None
        # A private store, or a folder (one process at a time, locked): this object is the only
        # writer, so its index knows every stored id.
        self._sole_writer = self._private or path is not None
        self._writer = uuid.uuid4().hex[:16]  # the "wb" token of this object's writes
        if collection is None:
            collection = (
                f"cogmem-{uuid.uuid4().hex[:12]}" if self._ephemeral else DEFAULT_COLLECTION
            )
        self._base = _check_name(collection, "collection")
        root = index_dir if index_dir is not None else path
        self._index_dir = Path(root) / "cogmem-index" / self._base if root is not None else None
        self._tokenizer = Tokenizer(language=self.config.stemmer_language)
        self._stores: dict[str, ChromaStore] = {}
        self._indexes: dict[str, NamespaceIndex] = {}
        self._synced_at: dict[str, int] = {}  # ns: when each namespace's last catch-up began
        self._folder = Path(path) if path is not None else None
        interval = self.config.sync_interval_seconds
        if interval is None:
            interval = 0.0 if client is not None else 1.0
        self._sync_interval_ns = int(interval * 1e9)
        self._generation: dict[str, int] = {}  # the Chroma generation each index reflects
        self._saved: set[str] = set()  # namespaces whose saved index is up to date
        self._bumped: set[str] = set()  # namespaces whose generation this process has bumped
        self._pending: dict[str, dict[str, MemoryRecord]] = {}  # reinforcements not yet written
        self._judged: set[tuple[str, str, str]] = set()  # (namespace, a, b) pairs judged
        self._adds: dict[str, PendingAdds] = {}  # adds not yet written to Chroma
        # Small adds are written in groups (config.add_flush_size) where cogmem alone decides
        # when Chroma sees them: a private in-process store, or a folder (journaled, see
        # cogmem.pending). A client= store is read by other processes: written at once.
        self._buffered = self.config.add_flush_size > 0 and (
            self._private or (path is not None and JOURNALS_SUPPORTED)
        )
        self._lock = threading.RLock()
        self._count_tokens: TokenCounter = (
            tiktoken_counter() if self.config.token_counter == "tiktoken" else char_token_count
        )
        self._widths: dict[str, int] = {}  # the width of each namespace's vectors, once known
        self._space_reserve = int(self.config.disk_reserve_mb * 2**20)
        if self._read_only:
            if self._store(DEFAULT_NAMESPACE) is None:
                held = self._client.list_collections()
                names = [c if isinstance(c, str) else c.name for c in held]
                bases = sorted(n for n in names if ".ns." not in n)
                listed = f"it has {', '.join(map(repr, bases))}" if bases else "it has none"
                raise StorageError(
                    f"the store at {path} has no cogmem collection {self._base!r} ({listed})",
                    path=str(path),
                )
        else:
            self._writable(DEFAULT_NAMESPACE)
        self._closed = False
        stated = getattr(self.embedder, "dimension", None)
        # A read-only store checks at search only: stats, exports and reads need no embedder.
        if isinstance(stated, int) and not isinstance(stated, bool) and not self._read_only:
            self._check_width(DEFAULT_NAMESPACE, stated, f"the embedder ({self.embedder!r})")

    def _let_go(self) -> None:
        """Release what an open holds (the client cogmem made, the folder lock); idempotent."""
        client = getattr(self, "_client", None)
        if self._owns_client and client is not None and hasattr(client, "close"):
            # A client cogmem created: release it, so that a later open (here or after
            # another process wrote) reads the store afresh.
            try:
                client.close()
            except Exception as exc:
                log.debug("closing the Chroma client failed: %s", exc)
        if self._folder_lock is not None:
            self._folder_lock.release()
            self._folder_lock = None

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Write what is held, save the derived indexes (if the store has a folder) and release
        the folder. Idempotent.

        If writing fails (a full disk, a server gone), the folder is released all the same and
        the error raised: held adds stay in their journal for the next open to write, and at
        most the recalls not yet written are lost. An in-process store whose collection name
        cogmem chose is dropped: nothing else can reach it.
        """
        with self._lock:
            if self._closed:
                return
            failed: BaseException | None = None
            try:
                if not self._read_only:
                    self.flush()
            except BaseException as exc:
                failed = exc
            for adds in self._adds.values():
                if adds.journal is not None:
                    if failed is None:
                        adds.journal.discard()  # empty: everything it held is in Chroma
                    else:
                        adds.journal.release()  # left for the next open to write
            self._adds.clear()
            for index in self._indexes.values():
                index.close()
            self._closed = True
            if self._ephemeral and self._base.startswith("cogmem-"):
                for store in self._stores.values():
                    try:
                        self._client.delete_collection(store.collection.name)
                    except Exception as exc:  # already gone; nothing to free
                        log.debug("could not drop %s: %s", store.collection.name, exc)
            self._let_go()
            if failed is not None:
                raise failed

    def flush(self) -> None:
        """Write held adds and pending reinforcements to Chroma, and save the in-memory indexes.

        Small adds are written in groups (``config.add_flush_size``; journaled on a folder
        store, so a process that dies loses none). Reinforcement is written behind
        (``config.reinforcement_flush_size`` memories at a time): a process that dies loses at
        most that many recalls, never a memory.
        """
        with self._lock:
            if self._read_only:
                return
            for namespace in sorted(self._indexes):
                self._flush_adds(namespace)
                self._write_pending(namespace)
                if self._index_dir is not None and namespace not in self._saved:
                    self._save_index(namespace, self._index_dir)

    def _save_index(self, namespace: str, folder: Path) -> None:
        """Save a namespace's derived index beside the store. It is a cache: when the disk
        refuses, say so and go on (the next open rebuilds it from Chroma)."""
        try:
            self._indexes[namespace].save(folder, _digest(namespace), self._generation[namespace])
        except OSError as exc:
            log.warning(
                "could not save the index of namespace %r in %s (%s); it will be rebuilt from "
                "Chroma on the next open",
                namespace,
                folder,
                storage_error("saving the index", folder, exc),
            )
            return
        self._saved.add(namespace)
        self._bumped.discard(namespace)

    def __enter__(self) -> CognitiveMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # A memory is a handle to one open store (a locked folder, a server collection), like a
    # database connection: copying it gives the same handle (so frameworks that deep-copy
    # their components, e.g. a LangChain retriever's ``model_copy(deep=True)``, share the
    # store instead of failing), and pickling it is refused with a reason.
    def __copy__(self) -> CognitiveMemory:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> CognitiveMemory:
        return self

    def __reduce__(self) -> NoReturn:
        raise InvalidTypeError(
            "a CognitiveMemory is a handle to an open store and cannot be pickled; give each "
            "process its own (CognitiveMemory(client=...) to share one store), or move its "
            "memories with cogmem.transfer.export_jsonl / import_jsonl"
        )

    def __len__(self) -> int:
        return sum(self.count(ns) for ns in self.namespaces())

    def count(self, namespace: str | None = None) -> int:
        """Memories stored (every status), in one namespace or in all."""
        if namespace is None:
            return len(self)
        namespace = _check_name(namespace, "namespace")
        with self._lock:
            if self._store(namespace, flush=False) is None:
                return 0
            return len(self._sync(namespace, offline=True))

    def namespaces(self) -> list[str]:
        """The namespaces that hold (or held) memories, sorted."""
        found = {DEFAULT_NAMESPACE}
        prefix = f"{self._base}.ns."
        try:
            for col in self._client.list_collections():
                name = col if isinstance(col, str) else col.name
                if name.startswith(prefix):
                    meta = (
                        (self._client.get_collection(name).metadata or {})
                        if isinstance(col, str)
                        else (col.metadata or {})
                    )
                    if "cogmem_namespace" in meta:
                        found.add(str(meta["cogmem_namespace"]))
        except Exception as exc:
            raise chroma_error("Chroma list_collections", exc, self._client) from exc
        return sorted(found)

    # ------------------------------------------------------------------ writing
    def add(
        self,
        text: str,
        *,
        memory_type: str | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        tags: Sequence[str] = (),
        created_at: datetime | None = None,
        id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        namespace: str = DEFAULT_NAMESPACE,
        pinned: bool = False,
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> str:
        """Store one memory and return its id (see :meth:`write` for what dedup does).

        Args:
            text: What to remember (non-empty).
            memory_type: ``episodic`` (default) | ``semantic`` | ``procedural`` | ``core``.
            importance: In [0, 1] (default 0.5); raises initial stability and the time constant.
            confidence: In [0, 1] (default 0.8).
            tags: Labels to filter on.
            created_at: When it was formed (timezone-aware); default ``now``.
            id: Your id; default a new UUID. Must not be stored already in the namespace.
            metadata: Free filterable metadata (str/int/float/bool values).
            namespace: The agent, user or project it belongs to.
            pinned: Pinned memories never decay.
            session_id: The session it was formed in.
            now: The current time (default: the clock).

        Returns:
            The id of the new memory, or of the stored memory it restates (merged into it).

        Raises:
            InvalidInputError / InvalidTypeError: Bad input (nothing is stored).
            DuplicateIdError: ``id`` is stored already.
        """
        return self.write(
            text,
            memory_type=memory_type,
            importance=importance,
            confidence=confidence,
            tags=tags,
            created_at=created_at,
            id=id,
            metadata=metadata,
            namespace=namespace,
            pinned=pinned,
            session_id=session_id,
            now=now,
        ).id

    def write(
        self,
        text: str,
        *,
        memory_type: str | None = None,
        importance: float | None = None,
        confidence: float | None = None,
        tags: Sequence[str] = (),
        created_at: datetime | None = None,
        id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        namespace: str = DEFAULT_NAMESPACE,
        pinned: bool = False,
        session_id: str | None = None,
        now: datetime | None = None,
    ) -> WriteOutcome:
        """Store one memory, and say what the write did: :meth:`add` with its outcome.

        Write-time dedup (:mod:`cogmem.dedup`) compares a write whose id is generated with its
        nearest memories, word by word:

        * a restatement (the same words up to case, punctuation, articles and a framing phrase
          such as "Note:") is **merged**: the stored memory is reinforced and takes the
          write's tags, metadata keys and session id; nothing new is stored;
        * a write that changes a detail of its nearest memory (a number, date, name, negation,
          a swapped word) is **stored** as a new memory recorded as its **newer version**
          (``previous_version``): both are kept, and the older ranks below it;
        * anything else is **stored**.

        A write with a caller-chosen ``id`` is always stored as itself. Arguments as for
        :meth:`add`.

        Returns:
            A :class:`~cogmem.records.WriteOutcome`: the id, the action (``stored``,
            ``merged`` or ``new_version``), the memory merged into or updated, and what differs.
        """
        return self._write(
            [
                MemoryInput(
                    text=text,
                    memory_type=memory_type,
                    importance=importance,
                    confidence=confidence,
                    tags=tags,
                    created_at=created_at,
                    id=id,
                    metadata=metadata,
                    namespace=namespace,
                    pinned=pinned,
                    session_id=session_id,
                )
            ],
            now,
            None,
            batch=False,
        )[0]

    def add_many(
        self,
        items: Iterable[MemoryInput | Mapping[str, Any] | str],
        *,
        now: datetime | None = None,
        progress: bool | None = None,
    ) -> list[str]:
        """Store many memories at once (one embedding batch, one Chroma write per namespace).

        Every item is validated, and every vector computed, before anything is written: one bad
        item stores none. Items are ``MemoryInput``, dicts with the same keys as :meth:`add`, or
        plain strings. Memories given in one call keep their order as their temporal context.
        Dedup works as in :meth:`write`, among the items too (a later item may restate an
        earlier one).

        Args:
            items: The memories.
            now: The current time (default: the clock).
            progress: A progress bar over the embedding (tqdm, on stderr); default: on a
                terminal, for more than 1,000 memories. ``False`` silences it.

        Returns:
            The ids, in input order (an item merged into another memory gives that one's id).
        """
        return [o.id for o in self.write_many(items, now=now, progress=progress)]

    def write_many(
        self,
        items: Iterable[MemoryInput | Mapping[str, Any] | str],
        *,
        now: datetime | None = None,
        progress: bool | None = None,
    ) -> list[WriteOutcome]:
        """:meth:`add_many`, with each item's :class:`~cogmem.records.WriteOutcome` (see
        :meth:`write`), in input order."""
        if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
            raise InvalidTypeError("add_many takes an iterable of memories")
        return self._write(list(items), now, progress, batch=True)

    def _write(
        self,
        items: Sequence[MemoryInput | Mapping[str, Any] | str],
        now: datetime | None,
        progress: bool | None,
        *,
        batch: bool,
    ) -> list[WriteOutcome]:
        """:meth:`write_many`; error messages name the item only in a ``batch``."""
        moment = _resolve_now(now)
        self._writes()
        made = [
            self._record(f"item {i}: " if batch else "", item, moment)
            for i, item in enumerate(items)
        ]
        if not made:
            return []
        records = [r for r, _ in made]
        # Generated ids are fresh uuid4s; only the ones the caller chose can already be stored.
        chosen = {r.id for r, given in made if given}
        keys = [(r.namespace, r.id) for r in records]
        if len(set(keys)) != len(keys):
            dupes = sorted({k[1] for k in keys if keys.count(k) > 1})
            raise DuplicateIdError(f"ids given more than once in one call: {dupes}")
        vectors = self._embed([r.text for r in records], progress)
        with self._lock:
            for namespace in dict.fromkeys(r.namespace for r in records):
                what = f"the vectors of the embedder ({self.embedder!r})"
                self._check_width(namespace, int(vectors.shape[1]), what)
            self._refuse_taken(records, chosen)  # before anything is written
            records, outcomes, rewritten = self._deduplicate(records, vectors, chosen)
            keep = [i for i, o in enumerate(outcomes) if o.action != "merged"]
            fresh = [records[i] for i in keep]
            self._write_new(fresh, vectors[keep], chosen, checked=True)
            try:
                self._rewrite(rewritten)
            except BaseException:
                self._take_back(fresh)  # one call, one outcome
                raise
        return outcomes

    def _embed(self, texts: list[str], progress: bool | None) -> FloatArray:
        """Embed ``texts``; in chunks under a tqdm bar when there are many (or asked)."""
        show = len(texts) > _PROGRESS_OVER if progress is None else progress
        if not show:
            return embed_texts(self.embedder, texts)
        from tqdm.auto import tqdm

        parts: list[FloatArray] = []
        # Asked for: always shown; by default: only on a terminal (tqdm's disable=None).
        hidden = None if progress is None else False
        with tqdm(total=len(texts), desc="embedding", unit="memory", disable=hidden) as bar:
            for start in range(0, len(texts), _PROGRESS_CHUNK):
                chunk = texts[start : start + _PROGRESS_CHUNK]
                parts.append(embed_texts(self.embedder, chunk))
                bar.update(len(chunk))
        return np.concatenate(parts) if parts else embed_texts(self.embedder, texts)

    def _deduplicate(
        self, records: list[MemoryRecord], vectors: FloatArray, chosen: set[str]
    ) -> tuple[list[MemoryRecord], list[WriteOutcome], dict[str, list[MemoryRecord]]]:
        """Write-time dedup (:func:`cogmem.dedup.decide`), deciding only (nothing is written).

        Each input with a generated id is compared with its nearest stored memories (one
        batched nearest-neighbour query per namespace) and with the earlier inputs of the call
        most similar to it.

        Returns:
            The inputs as they are to be stored (``previous_version`` set where they update a
            memory; an earlier input that later ones restate, with those merged in), every
            input's outcome, and per namespace the stored memories to write back (restated
            ones, merged from the index's records: their pending recalls come with them).
        """
        outcomes = [WriteOutcome(r.id, "stored") for r in records]
        records = list(records)
        rows = [i for i, r in enumerate(records) if r.id not in chosen]
        if self.config.dedup_threshold is None or not rows:
            return records, outcomes, {}
        stored_near = self._stored_neighbours(records, vectors, rows, _DEDUP_NEIGHBOURS)
        batch_near = _earlier_neighbours(records, vectors, rows, _DEDUP_NEIGHBOURS)
        views: dict[str, _CallView] = {}
        for record in records:  # the call's inputs, as undecided so far
            if record.namespace not in views:
                index = self._indexes.get(record.namespace)
                views[record.namespace] = _CallView(index.records if index else None)
            views[record.namespace].put(record, stored=False)
        row_of = {r.id: i for i, r in enumerate(records)}
        for i in rows:
            record = records[i]
            view = views[record.namespace]
            found: dict[str, Neighbour] = {}
            for other, similarity in stored_near.get(i, ()):
                held = view.get(other)
                if held is not None:
                    found[other] = Neighbour(held, similarity)
            for j, similarity in batch_near.get(i, ()):
                target = outcomes[j].id  # an earlier input, or what it was merged into
                held = view.get(target)
                if held is not None and target not in found:
                    found[target] = Neighbour(held, similarity)
            decision = decide(
                record,
                list(found.values()),
                self.config,
                self._tokenizer,
                self.dedup_judge,
                view.newer_versions,
            )
            for rewritten in decision.rewritten:  # neighbours written back (merged, relinked)
                view.put(rewritten, stored=rewritten.id not in row_of)
                if rewritten.id in row_of:
                    records[row_of[rewritten.id]] = rewritten
            if decision.record is not None:
                records[i] = decision.record
                view.put(decision.record, stored=False)
            merged_into = decision.existing_id if decision.action == "merged" else None
            outcomes[i] = WriteOutcome(
                merged_into or record.id, decision.action, decision.existing_id, decision.changes
            )
        changed = {ns: view.stored_changes() for ns, view in views.items()}
        return records, outcomes, {ns: held for ns, held in changed.items() if held}

    def _rewrite(self, rewritten: Mapping[str, list[MemoryRecord]]) -> None:
        """Write back stored memories that dedup changed (merged into, relinked)."""
        for namespace, updated in rewritten.items():
            self._will_write(namespace)
            stamp = self._writable(namespace).update(updated)
            self._index(namespace).update(updated, stamp)
            pending = self._pending.get(namespace, {})
            for record in updated:
                pending.pop(record.id, None)

    def _take_back(self, records: Sequence[MemoryRecord]) -> None:
        """Delete memories this call just stored (a later step of the call failed)."""
        by_namespace: dict[str, list[str]] = {}
        for r in records:
            by_namespace.setdefault(r.namespace, []).append(r.id)
        for namespace, ids in by_namespace.items():
            try:
                self._writable(namespace).delete(ids)
                self._index(namespace).remove(ids)
            except Exception as exc:  # the store is unreachable: say what remains
                log.error("could not take back %d memories of %r: %s", len(ids), namespace, exc)

    def _stored_neighbours(
        self, records: list[MemoryRecord], vectors: FloatArray, rows: list[int], k: int
    ) -> dict[int, list[tuple[str, float]]]:
        """The ``k`` nearest stored memories of each input in ``rows`` (one batched query per
        namespace; none for a namespace not created yet)."""
        out: dict[int, list[tuple[str, float]]] = {}
        for namespace in dict.fromkeys(records[i].namespace for i in rows):
            mine = [i for i in rows if records[i].namespace == namespace]
            store = self._store(namespace, flush=False)
            if store is None:
                continue
            size = len(self._index(namespace))
            if size == 0:
                continue
            nearest = self._nearest(namespace, store, vectors[mine], min(size, k))
            out.update(zip(mine, nearest, strict=True))
        return out

    def restore(
        self,
        records: Iterable[MemoryRecord],
        vectors: Sequence[Sequence[float]] | FloatArray | None = None,
        *,
        progress: bool | None = None,
    ) -> list[str]:
        """Store memories exactly as given, every field kept (stability, access count, status,
        links, ...): to import an export, or to move memories between stores.

        Each record goes to its own ``namespace``. All are validated, and all vectors computed,
        before anything is written: one bad record stores none.

        Args:
            records: :class:`MemoryRecord` objects (e.g. from :meth:`get` / :meth:`memories`
                of another store, or decoded from an export).
            vectors: Their embeddings, one per record (e.g. exported with them); default:
                embedded now from their texts.
            progress: A progress bar while re-embedding (as for :meth:`add_many`).

        Returns:
            The ids, in order.

        Raises:
            InvalidTypeError / InvalidInputError: A record or vector is malformed (named).
            DuplicateIdError: An id is given twice or already stored in its namespace.
        """
        self._writes()
        if isinstance(records, (str, bytes, MemoryRecord)) or not isinstance(records, Iterable):
            raise InvalidTypeError("restore takes an iterable of MemoryRecord")
        checked = [_check_record(i, r) for i, r in enumerate(records)]
        if not checked:
            return []
        keys = [(r.namespace, r.id) for r in checked]
        if len(set(keys)) != len(keys):
            dupes = sorted({k[1] for k in keys if keys.count(k) > 1})
            raise DuplicateIdError(f"ids given more than once in one call: {dupes}")
        if vectors is None:
            matrix = self._embed([r.text for r in checked], progress)
        else:
            try:
                matrix = embed_texts(_Given(vectors), [r.text for r in checked])
            except EmbedderError as exc:
                message = str(exc).replace("given vectors returned", "vectors:")
                raise InvalidInputError(message) from exc
        with self._lock:
            what = "the vectors given" if vectors is not None else "the embedder's vectors"
            for namespace in dict.fromkeys(r.namespace for r in checked):
                self._check_width(namespace, int(matrix.shape[1]), what)
            self._write_new(checked, matrix, {r.id for r in checked})
        return [r.id for r in checked]

    def _refuse_taken(self, records: Sequence[MemoryRecord], chosen: set[str]) -> None:
        """Raise :class:`DuplicateIdError` if a caller-chosen id among ``records`` is stored.

        The index knows this object's writes (held ones too), and every write where it is the
        sole writer; elsewhere Chroma is asked too (a get: ~1 ms for one id, ~0.1 ms per id in
        a batch of 1,000 at 100k memories).
        """
        by_namespace: dict[str, list[str]] = {}
        for r in records:
            if r.id in chosen:
                by_namespace.setdefault(r.namespace, []).append(r.id)
        for namespace, ids in by_namespace.items():
            if self._store(namespace, flush=False) is None:
                continue  # a namespace not created yet holds nothing (and is not created here)
            index = self._index(namespace)
            taken = {i for i in ids if i in index}
            if not taken and not self._sole_writer:
                taken = self._writable(namespace, flush=False).existing(ids)
            if taken:
                raise DuplicateIdError(
                    f"ids already stored in namespace {namespace!r}: {sorted(taken)[:5]}; "
                    "delete them first or pick others"
                )

    def _write_new(
        self,
        records: list[MemoryRecord],
        vectors: FloatArray,
        chosen: set[str],
        *,
        checked: bool = False,
    ) -> None:
        """Write new memories to Chroma, then to the index; ``chosen``: ids that may clash
        (``checked``: the caller has just refused clashes under the lock)."""
        if not records:
            return
        by_namespace: dict[str, list[int]] = {}
        for i, r in enumerate(records):
            by_namespace.setdefault(r.namespace, []).append(i)
        held = (
            self._buffered and len(by_namespace) == 1 and len(records) < self.config.add_flush_size
        )
        with self._lock:
            if not checked:
                self._refuse_taken(records, chosen)
            for namespace in by_namespace:
                self._claim_width(namespace, int(vectors.shape[1]))
            if held and self._hold(records[0].namespace, records, vectors):
                return
            written: list[MemoryRecord] = []
            try:
                for namespace, rows in by_namespace.items():
                    store = self._writable(namespace)  # held adds are written first
                    index = self._index(namespace)  # load first, so this write is incremental
                    part = [records[i] for i in rows]
                    matrix = vectors if len(rows) == len(records) else vectors[rows]
                    self._will_write(namespace)
                    seqs, stamps = store.add(part, matrix)
                    written.extend(part)  # in Chroma now: taken back if anything below fails
                    index.add(part, seqs, vectors=matrix)
                    index.set_stamps([r.id for r in part], stamps)
            except BaseException:
                self._take_back(written)  # one call, one outcome
                raise

    def _record(
        self, label: str, item: MemoryInput | Mapping[str, Any] | str, now: datetime
    ) -> tuple[MemoryRecord, bool]:
        """The record an input describes, and whether its id was given (not generated).

        ``label`` starts every error message: ``"item 3: "`` in a batch, ``""`` for one write.
        """
        if isinstance(item, str):
            item = MemoryInput(text=item)
        elif isinstance(item, Mapping):
            unknown = sorted(set(item) - _INPUT_FIELDS)
            if unknown:
                raise InvalidInputError(f"{label}unknown field(s) {unknown}")
            if "text" not in item:
                raise InvalidInputError(f"{label}missing 'text'")
            item = MemoryInput(**item)
        elif not isinstance(item, MemoryInput):
            raise InvalidTypeError(
                f"{label}expected str, dict or MemoryInput, got {type(item).__name__}"
            )
        cfg = self.config
        text = _check_text(item.text, f"{label}text")
        memory_type = item.memory_type if item.memory_type is not None else cfg.default_memory_type
        if memory_type not in MEMORY_TYPES:
            raise InvalidInputError(
                f"{label}memory_type must be one of {', '.join(MEMORY_TYPES)}; got {memory_type!r}"
            )
        importance = check_unit_interval(
            cfg.default_importance if item.importance is None else item.importance,
            f"{label}importance",
        )
        confidence = check_unit_interval(
            cfg.default_confidence if item.confidence is None else item.confidence,
            f"{label}confidence",
        )
        if isinstance(item.tags, str) or not isinstance(item.tags, (list, tuple)):
            raise InvalidTypeError(f"{label}tags must be a list of str")
        tags = tuple(dict.fromkeys(_check_name(t, f"{label}tag") for t in item.tags))
        created_at = (
            now if item.created_at is None else ensure_aware(item.created_at, f"{label}created_at")
        )
        memory_id = str(uuid.uuid4()) if item.id is None else _check_name(item.id, f"{label}id")
        namespace = _check_name(item.namespace, f"{label}namespace")
        if not isinstance(item.pinned, bool):
            raise InvalidTypeError(f"{label}pinned must be a bool")
        sessions = (
            () if item.session_id is None else (_check_name(item.session_id, f"{label}session_id"),)
        )
        record = MemoryRecord(
            id=memory_id,
            text=text,
            memory_type=memory_type,
            importance=importance,
            confidence=confidence,
            stability=initial_stability(importance, cfg),
            created_at=created_at,
            session_ids=sessions,
            pinned=item.pinned,
            tags=tags,
            namespace=namespace,
            metadata=check_user_metadata(item.metadata),
        )
        return record, item.id is not None

    def delete(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> None:
        """Forget a memory for good.

        Raises:
            MemoryNotFoundError: The namespace has no memory with this id.
        """
        self._writes()
        with self._lock:
            self.get(id, namespace=namespace)  # under the lock: two deletes cannot both pass
            index = self._index(namespace)
            self._pending.get(namespace, {}).pop(id, None)
            self._will_write(namespace)
            self._writable(namespace).delete([id])
            index.remove([id])

    def supersede(
        self, old_id: str, new_id: str, *, namespace: str = DEFAULT_NAMESPACE
    ) -> MemoryRecord:
        """Mark ``old_id`` as replaced by ``new_id``; returns the updated old memory.

        Normal search skips superseded memories; ``deep_recall=True`` still finds them, with
        the deep-recall penalty. Nothing is deleted.

        Raises:
            MemoryNotFoundError: Either id is not stored in the namespace.
            InvalidInputError: ``old_id == new_id``.
        """
        self._writes()
        if old_id == new_id:
            raise InvalidInputError("a memory cannot supersede itself")
        with self._lock:  # read and write under one lock: a concurrent recall is not undone
            old = self.get(old_id, namespace=namespace)
            self.get(new_id, namespace=namespace)
            updated = replace(old, status="superseded", superseded_by=new_id)
            self._will_write(namespace)
            stamp = self._writable(namespace).update([updated])
            self._index(namespace).update([updated], stamp)
            self._pending.get(namespace, {}).pop(old_id, None)
        return updated

    def contradict(
        self, a_id: str, b_id: str, *, namespace: str = DEFAULT_NAMESPACE
    ) -> tuple[MemoryRecord, MemoryRecord]:
        """Record that two memories contradict each other; returns both, updated.

        Both stay searchable. When both are candidates for a query, the weaker (lower
        confidence · R; the older on a tie) is demoted × ``contradiction_penalty`` (0.3), shown
        as the ``contradiction`` penalty in its explanation. Recording a pair twice changes
        nothing.

        Raises:
            MemoryNotFoundError: Either id is not stored in the namespace.
            InvalidInputError: ``a_id == b_id``.
        """
        self._writes()
        if a_id == b_id:
            raise InvalidInputError("a memory cannot contradict itself")
        with self._lock:  # read and write under one lock: a concurrent recall is not undone
            a = self.get(a_id, namespace=namespace)
            b = self.get(b_id, namespace=namespace)
            changed = [
                replace(m, contradicts=(*m.contradicts, other))
                for m, other in ((a, b_id), (b, a_id))
                if other not in m.contradicts
            ]
            if changed:
                self._will_write(namespace)
                stamp = self._writable(namespace).update(changed)
                self._index(namespace).update(changed, stamp)
                pending = self._pending.get(namespace, {})
                for m in changed:
                    pending.pop(m.id, None)
            return self.get(a_id, namespace=namespace), self.get(b_id, namespace=namespace)

    def consolidate(
        self,
        now: datetime | None = None,
        summarizer: Summarizer | None = None,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        dry_run: bool = False,
        progress: bool | None = None,
    ) -> ConsolidationReport:
        """Merge faded, similar memories into summaries (design §6, :mod:`cogmem.consolidation`).

        Candidates are active, non-core, non-pinned memories with R(now) below
        ``consolidation_retention_threshold``; each group of 2 to ``consolidation_group_size``
        similar ones (cosine ≥ ``consolidation_similarity``, same type) becomes one summary
        linked to its originals, which become ``superseded`` (never deleted: ``deep_recall``
        finds them). Summaries are written before their originals are marked, and a summary's
        id is derived from its originals, so an interrupted run is completed by running again;
        consolidating again at the same ``now`` changes nothing.

        Args:
            now: The time retention is computed at (default: the clock).
            summarizer: texts -> summary text; default :class:`ExtractiveSummarizer` on this
                memory's embedder.
            namespace: The namespace to consolidate.
            dry_run: Only report what would be merged.
            progress: A progress bar over the groups (tqdm); default: on a terminal, for
                more than 20 groups.

        Returns:
            A :class:`ConsolidationReport`.
        """
        moment = _resolve_now(now)
        namespace = _check_name(namespace, "namespace")
        if not dry_run:
            self._writes()
        if summarizer is not None and not callable(summarizer):
            raise InvalidTypeError("summarizer must be a callable: list[str] -> str")
        summarize = summarizer or ExtractiveSummarizer(self.embedder)
        cfg = self.config
        with self._lock:
            store = self._store(namespace)
            if store is None:
                return ConsolidationReport(moment, namespace, 0, (), dry_run)
            index = self._sync(namespace)
            faded = consolidation_candidates(list(index.records.values()), moment, cfg)
            vectors = store.vectors([m.id for m in faded])
        faded = [m for m in faded if m.id in vectors]
        matrix = np.stack([vectors[m.id] for m in faded]) if faded else np.zeros((0, 1), np.float32)
        groups = cluster(faded, matrix, cfg)
        from tqdm.auto import tqdm

        show = (len(groups) > 20) if progress is None else progress
        hidden = True if not show else (None if progress is None else False)
        bar = tqdm(groups, desc="consolidating", unit="group", disable=hidden)
        summaries: list[tuple[MemoryRecord, list[MemoryRecord]]] = []
        for group in bar:
            members = [faded[i] for i in group]
            text = summarize([m.text for m in members])
            summaries.append((summary_record(members, text, moment, cfg), members))
        report = ConsolidationReport(
            moment,
            namespace,
            len(faded),
            tuple(
                ConsolidationGroup(s.id, tuple(m.id for m in ms), s.memory_type, s.text)
                for s, ms in summaries
            ),
            dry_run,
        )
        if dry_run or not summaries:
            return report
        with self._lock:
            index = self._index(namespace)
            new = [s for s, _ in summaries if s.id not in index]
            if new:
                self._write_new(new, embed_texts(self.embedder, [s.text for s in new]), set())
            # From the records as they are now (a search may have reinforced one meanwhile),
            # skipping any deleted meanwhile.
            current = [(index.records.get(m.id), s) for s, ms in summaries for m in ms]
            originals = [superseded(c, s) for c, s in current if c is not None]
            self._will_write(namespace)
            stamp = self._writable(namespace).update(originals)
            index.update(originals, stamp)
            pending = self._pending.get(namespace, {})
            for m in originals:
                pending.pop(m.id, None)
        return report

    def maintain(
        self,
        now: datetime | None = None,
        *,
        summarizer: Summarizer | None = None,
        conflict_detector: ConflictDetector | None = None,
        namespace: str = DEFAULT_NAMESPACE,
    ) -> MaintenanceReport:
        """Consolidation, conflict detection and link decay in one call, for a scheduler.

        * :meth:`consolidate` at ``now``.
        * With a ``conflict_detector`` (``(text_a, text_b) -> bool``, e.g. from an LLM through
          an adapter): up to 50 pairs of active memories with cosine > 0.85, around the 1,000
          most recent, not yet judged by this object; pairs judged contradictory are recorded
          with :meth:`contradict`. A detector that raises on a pair is reported in
          ``conflict_errors`` and that pair is asked again next time.
        * Links decayed to ``now`` and faded ones dropped.

        Running it twice with the same ``now`` changes nothing the second time.
        """
        moment = _resolve_now(now)
        namespace = _check_name(namespace, "namespace")
        self._writes()
        if conflict_detector is not None and not callable(conflict_detector):
            raise InvalidTypeError("conflict_detector must be a callable: (str, str) -> bool")
        report = self.consolidate(moment, summarizer, namespace=namespace)
        found: list[tuple[str, str]] = []
        failed: list[tuple[str, str, str]] = []
        checked = 0
        if conflict_detector is not None:
            for a, b in self._conflict_pairs(namespace):
                checked += 1
                try:
                    verdict = conflict_detector(
                        self.get(a, namespace=namespace).text,
                        self.get(b, namespace=namespace).text,
                    )
                except Exception as exc:  # a model timing out must not stop the maintenance
                    failed.append((a, b, f"{type(exc).__name__}: {exc}"))
                    continue
                self._judged.add((namespace, a, b))  # judged: not asked again by this object
                if verdict:
                    self.contradict(a, b, namespace=namespace)
                    found.append((a, b))
        with self._lock:
            decayed = []
            if self._store(namespace) is not None:
                index = self._index(namespace)
                for memory_id in list(index.records):
                    record = index.records[memory_id]
                    pruned = prune_links(record, moment, self.config) if record.links else None
                    if pruned is not None:
                        decayed.append(pruned)
            if decayed:
                self._remember(namespace, decayed)
                self._write_pending(namespace)
        return MaintenanceReport(report, tuple(found), checked, len(decayed), tuple(failed))

    def _conflict_pairs(self, namespace: str) -> list[tuple[str, str]]:
        """Unjudged pairs of active memories with cosine > 0.85, newest memories first."""
        with self._lock:
            store = self._store(namespace)
            if store is None:
                return []
            index = self._index(namespace)
            recent = sorted(
                (m for m in index.records.values() if m.status == "active"),
                key=lambda m: (m.created_at, m.id),
                reverse=True,
            )[:_CONFLICT_SCAN]
            if len(recent) < 2:
                return []
            vectors = store.vectors([m.id for m in recent])
            rows = [m for m in recent if m.id in vectors]
            got = store._call(
                "query",
                query_embeddings=np.stack([vectors[m.id] for m in rows]),
                n_results=min(len(index), 6),
                include=["distances"],
            )
        pairs: list[tuple[str, str]] = []
        for m, found, distances in zip(rows, got["ids"], got["distances"], strict=True):
            for other, distance in zip(found, distances, strict=True):
                if other == m.id or 1.0 - float(distance) <= _CONFLICT_COSINE:
                    continue
                a, b = sorted((m.id, other))
                partner = index.records.get(other)
                if (
                    partner is None
                    or partner.status != "active"
                    or other in m.contradicts
                    or (namespace, a, b) in self._judged
                    or (a, b) in pairs
                ):
                    continue
                pairs.append((a, b))
                if len(pairs) >= _CONFLICT_PAIRS:
                    return pairs
        return pairs

    def reinforce(
        self,
        ids: Sequence[str],
        *,
        namespace: str = DEFAULT_NAMESPACE,
        now: datetime | None = None,
        session_id: str | None = None,
    ) -> list[MemoryRecord]:
        """Reinforce memories as if a search had returned them (for callers that pick results
        themselves, e.g. after their own filtering or paging).

        Raises:
            MemoryNotFoundError: An id is not stored in the namespace (nothing is changed).
        """
        moment = _resolve_now(now)
        self._writes()
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
            raise InvalidTypeError(
                f"ids must be a list of memory ids, got {type(ids).__name__}"
                + (" (one id: pass [id])" if isinstance(ids, str) else "")
            )
        if session_id is not None:
            _check_name(session_id, "session_id")
        with self._lock:  # read and write under one lock: concurrent recalls all count
            records = [self.get(i, namespace=namespace) for i in ids]
            updated = [
                reinforce_memory(m, moment, self.config, session_id=session_id) for m in records
            ]
            self._remember(namespace, updated)
        return updated

    def clear(self, namespace: str = DEFAULT_NAMESPACE) -> int:
        """Forget every memory of a namespace; returns how many were deleted."""
        namespace = _check_name(namespace, "namespace")
        self._writes()
        with self._lock:
            if self._store(namespace) is None:
                return 0
            index = self._index(namespace)
            ids = list(index.records)
            if ids:
                self._pending.pop(namespace, None)
                self._will_write(namespace)
                self._writable(namespace).delete(ids)
                index.remove(ids)
        return len(ids)

    # ------------------------------------------------------------------ reading
    def get(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> MemoryRecord:
        """The stored memory with this id.

        Raises:
            MemoryNotFoundError: The namespace has no memory with this id.
        """
        _check_name(id, "id")
        namespace = _check_name(namespace, "namespace")
        with self._lock:
            record = (
                self._sync(namespace, offline=True).records.get(id)
                if self._store(namespace, flush=False) is not None
                else None
            )
        if record is None:
            raise MemoryNotFoundError(f"no memory with id {id!r} in namespace {namespace!r}")
        return record

    def memories(
        self,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        filters: Mapping[str, Any] | None = None,
        deep_recall: bool = False,
    ) -> list[MemoryRecord]:
        """Every memory of a namespace that passes ``filters``, newest first.

        ``deep_recall=True`` includes superseded memories. Nothing is reinforced.
        """
        namespace = _check_name(namespace, "namespace")
        allowed = compile_filters(filters, include_superseded=deep_recall)
        with self._lock:
            if self._store(namespace, flush=False) is None:
                return []
            held = self._sync(namespace, offline=True).records
            records = [r for r in held.values() if allowed(r)]
        return sorted(records, key=lambda r: (r.created_at, r.id), reverse=True)

    def records(self, namespace: str = DEFAULT_NAMESPACE) -> list[MemoryRecord]:
        """Every memory of a namespace, whatever its status, in the order they were formed
        (creation time, then insertion order): for exports and inspection. Nothing is
        reinforced."""
        namespace = _check_name(namespace, "namespace")
        with self._lock:
            if self._store(namespace, flush=False) is None:
                return []
            table = self._sync(namespace, offline=True).records
            held = [(table[i], table.seq(i)) for i in table]
        held.sort(key=lambda pair: (pair[0].created_at, pair[1], pair[0].id))
        return [record for record, _ in held]

    def vectors(
        self, ids: Sequence[str], *, namespace: str = DEFAULT_NAMESPACE
    ) -> dict[str, FloatArray]:
        """The stored embeddings of ``ids`` (from the vector file beside the index; what it
        lacks, from Chroma).

        Raises:
            MemoryNotFoundError: An id is not stored in the namespace.
        """
        namespace = _check_name(namespace, "namespace")
        if isinstance(ids, str):
            raise InvalidTypeError("ids must be a list of ids, not one str")
        wanted = [_check_name(i, "id") for i in ids]
        with self._lock:
            store = self._store(namespace, flush=False)
            found = {} if store is None else self._vectors_of(namespace, store, wanted)
        missing = [i for i in wanted if i not in found]
        if missing:
            raise MemoryNotFoundError(
                f"no memory with id(s) {missing[:5]} in namespace {namespace!r}"
            )
        return found

    def search(
        self,
        query: str,
        *,
        top_k: int | None = None,
        token_budget: int | None = None,
        filters: Mapping[str, Any] | None = None,
        mode: str | None = None,
        deep_recall: bool = False,
        now: datetime | None = None,
        reinforce: bool | None = None,
        namespace: str = DEFAULT_NAMESPACE,
        session_id: str | None = None,
        min_score: float | None = None,
        diversity: bool = False,
    ) -> list[SearchResult]:
        """Recall the memories that best answer ``query`` now.

        Args:
            query: The cue (non-empty).
            top_k: At most this many results (default ``config.top_k``).
            token_budget: At most this many tokens of memory text (default none).
            filters: See :func:`cogmem.store.build_where`.
            mode: ``hybrid`` (default) | ``dense`` | ``lexical``.
            deep_recall: Also return superseded memories (with the deep-recall penalty).
            now: The current time (default: the clock); decay is computed at it.
            reinforce: Strengthen what is returned (default ``config.reinforce_on_search``, off
                on a read-only store); ``False`` leaves the store exactly as it was.
            namespace: Whose memories to search.
            session_id: Recorded on reinforced memories (spaced recall across sessions).
            min_score: Drop results scoring below this (default ``config.min_score``).
            diversity: Order by maximal marginal relevance before packing (aggregation queries).

        Returns:
            Results best first, each with ``.memory``, ``.score`` and ``.explanation``.
        """
        cfg = self.config
        text = _check_text(query, "query")
        moment = _resolve_now(now)
        k = _check_positive_int(cfg.top_k if top_k is None else top_k, "top_k")
        budget = (
            cfg.token_budget
            if token_budget is None
            else _check_positive_int(token_budget, "token_budget")
        )
        search_mode = cfg.mode if mode is None else mode
        if search_mode not in _MODES:
            raise InvalidInputError(f"mode must be one of {', '.join(_MODES)}; got {search_mode!r}")
        floor = cfg.min_score if min_score is None else min_score
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or math.isnan(floor):
            raise InvalidTypeError(f"min_score must be a number, got {floor!r}")
        namespace = _check_name(namespace, "namespace")
        if session_id is not None:
            _check_name(session_id, "session_id")
        default = cfg.reinforce_on_search and not self._read_only
        do_reinforce = default if reinforce is None else reinforce
        if not isinstance(do_reinforce, bool) or not isinstance(deep_recall, bool):
            raise InvalidTypeError("reinforce and deep_recall must be bool")
        if do_reinforce:
            self._writes()
        where = build_where(filters, include_superseded=deep_recall)
        allowed = compile_filters(filters, include_superseded=deep_recall)

        query_vector = embed_query_vector(self.embedder, text)
        with self._lock:
            store = self._store(namespace, flush=False)
            if store is None:
                return []
            what = f"the query's vector (from {self.embedder!r})"
            self._check_width(namespace, len(query_vector), what)
            index = self._sync(namespace)
            found = self._candidates(
                namespace, store, index, text, query_vector, search_mode, where, allowed
            )
            fused = fuse(found, search_mode, cfg)  # neighbours found next add nothing to it
            found += self._context(index, found, fused, allowed)
            found += self._associations(index, found, fused, allowed, moment)
            # Without a token budget or diversity, packing takes the first k: explain only those.
            limit = k if budget is None and not diversity and not deep_recall else None
            ranked = score_candidates(
                found, mode=search_mode, now=moment, config=cfg, limit=limit, fused=fused
            )
            if deep_recall:
                # A summary and the originals it replaced say the same thing: deep recall asks
                # for the originals, so a summary gives way when one of its originals is found.
                # (A newer version from supersede() is not a summary: it keeps its place.)
                opened = {(r.memory.superseded_by, r.id) for r in ranked if r.memory.superseded_by}
                ranked = [
                    r
                    for r in ranked
                    if not any((r.id, original) in opened for original in r.memory.links)
                ]
            if diversity:
                vectors = {c.memory.id: c.vector for c in found if c.vector is not None}
                missing = [r.id for r in ranked if r.id not in vectors]
                vectors.update(self._vectors_of(namespace, store, missing))
                ranked = [r for r in ranked if r.id in vectors]
                ranked = mmr_order(ranked, [vectors[r.id] for r in ranked], lambda_=cfg.mmr_lambda)
            results = pack(
                ranked,
                top_k=k,
                token_budget=budget,
                min_score=float(floor),
                count_tokens=self._count_tokens,
            )
            if do_reinforce and results:
                updated = [
                    reinforce_memory(
                        r.memory,
                        moment,
                        cfg,
                        session_id=session_id,
                        via_association=r.explanation.via == "association",
                    )
                    for r in results
                ]
                # Co-recall: the first few memories the query itself found grow linked.
                direct = [i for i, r in enumerate(results) if r.explanation.via == "search"]
                linked = direct[:_CO_RECALL]
                if len(linked) >= 2:
                    strengthened = strengthen_links([updated[i] for i in linked], moment, cfg)
                    for i, record in zip(linked, strengthened):
                        updated[i] = record
                self._remember(namespace, updated)
        return results

    # ------------------------------------------------------------------ async twins
    # Each runs its synchronous twin in a worker thread (``asyncio.to_thread``): the work is
    # CPU-bound embedding and index reads plus Chroma calls that have no async API in-process,
    # and the memory's lock makes concurrent calls safe. One implementation, no async copy.
    async def aadd(self, text: str, **kwargs: Any) -> str:
        """:meth:`add`, awaitable."""
        return await asyncio.to_thread(self.add, text, **kwargs)

    async def aadd_many(
        self,
        items: Iterable[MemoryInput | Mapping[str, Any] | str],
        *,
        now: datetime | None = None,
        progress: bool | None = None,
    ) -> list[str]:
        """:meth:`add_many`, awaitable."""
        return await asyncio.to_thread(self.add_many, items, now=now, progress=progress)

    async def asearch(self, query: str, **kwargs: Any) -> list[SearchResult]:
        """:meth:`search`, awaitable."""
        return await asyncio.to_thread(self.search, query, **kwargs)

    async def aget(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> MemoryRecord:
        """:meth:`get`, awaitable."""
        return await asyncio.to_thread(self.get, id, namespace=namespace)

    async def adelete(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> None:
        """:meth:`delete`, awaitable."""
        await asyncio.to_thread(self.delete, id, namespace=namespace)

    async def areinforce(self, ids: Sequence[str], **kwargs: Any) -> list[MemoryRecord]:
        """:meth:`reinforce`, awaitable."""
        return await asyncio.to_thread(self.reinforce, ids, **kwargs)

    # ------------------------------------------------------------------ internals
    def _candidates(
        self,
        namespace: str,
        store: ChromaStore,
        index: NamespaceIndex,
        query: str,
        query_vector: FloatArray,
        mode: str,
        where: Where,
        allowed: Callable[[MemoryRecord], bool],
    ) -> list[Candidate]:
        """The dense and lexical lists under one filter, each up to ``k_dense``/``k_sparse``.

        Chroma is asked for ids and distances only (records come from the in-memory index),
        unfiltered (a filtered vector query is a scan there), and filtered here; when the filter
        leaves fewer than ``k_dense``, four times as many are asked for, and only if that is
        still short does Chroma run the filtered query. Adds not yet written to Chroma are
        scanned exactly beside it (:meth:`_nearest`).
        """
        cfg = self.config
        records = index.records
        size = len(records)
        if size == 0:
            return []
        # id -> its record if held and passing the filter, else None. Records are built from
        # columns, once each, a batch at a time.
        kept: dict[str, MemoryRecord | None] = {}

        def admit(ids: Iterable[str]) -> None:
            new = list(dict.fromkeys(i for i in ids if i not in kept))
            for memory_id, record in zip(new, records.records_of(new), strict=True):
                kept[memory_id] = record if record is not None and allowed(record) else None

        dense: list[tuple[str, float]] = []
        if mode in ("dense", "hybrid"):
            want = min(size, cfg.k_dense)
            for n in (want, min(size, 4 * want)):
                nearest = self._nearest(namespace, store, query_vector[None, :], n)[0]
                admit(i for i, _ in nearest)
                dense = [(i, c) for i, c in nearest if kept[i]]
                if len(dense) >= want or len(nearest) == size:
                    break
            if len(dense) < want and len(nearest) < size:  # a narrow filter: Chroma's scan
                self._flush_adds(namespace)  # so that Chroma holds every candidate
                dense = [
                    (i, c) for i, c in store.nearest(query_vector, want, where) if i in records
                ]
            dense = dense[:want]
        tokens = index.tokenizer(query)
        lexical: list[tuple[str, float]] = []
        if mode in ("lexical", "hybrid"):
            for chunk in index.bm25.ranked(tokens, chunk_size=cfg.k_sparse):
                admit(i for i, _ in chunk)
                lexical += [(i, s) for i, s in chunk if kept[i]]
                if len(lexical) >= cfg.k_sparse:
                    break
            lexical = lexical[: cfg.k_sparse]
        cosine = dict(dense)
        keep = list(dict.fromkeys([i for i, _ in dense] + [i for i, _ in lexical]))
        # Vectors are read only where they are used: the cosine of a lexical-only hit, and the
        # similarity between versions when facts are among the candidates.
        chosen = {i: kept.get(i) or records[i] for i in keep}
        facts = any(r.memory_type in ("semantic", "core") for r in chosen.values())
        vectors = self._vectors_of(
            namespace, store, keep if facts else [i for i in keep if i not in cosine]
        )
        dense_rank = {i: n for n, (i, _) in enumerate(dense, start=1)}
        lexical_rank = {i: n for n, (i, _) in enumerate(lexical, start=1)}
        bm25 = dict(lexical)
        if mode != "dense":
            missing = [i for i in keep if i not in bm25]
            if missing:
                bm25.update(index.bm25.score(tokens, missing))
        lexical_only = [i for i in keep if i not in cosine and i in vectors]
        if lexical_only:
            matrix = np.stack([vectors[i] for i in lexical_only])
            norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query_vector))
            sims = (matrix @ query_vector) / np.where(norms > 0, norms, 1.0)
            cosine.update(zip(lexical_only, sims.tolist()))
        return [
            Candidate(
                memory=chosen[i],
                vector=vectors.get(i),
                cosine=cosine[i],
                dense_rank=dense_rank.get(i),
                bm25=bm25.get(i) if mode != "dense" else None,
                lexical_rank=lexical_rank.get(i),
            )
            for i in keep
            if i in cosine
        ]

    def _context(
        self,
        index: NamespaceIndex,
        found: list[Candidate],
        fused: Mapping[str, float],
        allowed: Callable[[MemoryRecord], bool],
    ) -> list[Candidate]:
        """Episodes formed right before or after the best-matching episodes (temporal context).

        A neighbour within ``context_span`` places of a seed on the namespace's timeline and
        ``context_window_seconds`` of it in time inherits ``context_spread`` × the seed's fused
        relevance. Its cosine is not computed (it was not found by meaning).
        """
        cfg = self.config
        if cfg.context_spread <= 0 or cfg.context_span <= 0 or cfg.context_seeds <= 0:
            return []
        seeds = sorted(
            (c for c in found if c.memory.memory_type == "episodic"),
            key=lambda c: -fused.get(c.memory.id, 0.0),
        )[: cfg.context_seeds]
        reached: list[tuple[str, float, str]] = []  # (neighbour, inherited, seed)
        for seed in seeds:
            inherited = cfg.context_spread * fused.get(seed.memory.id, 0.0)
            for neighbour in index.neighbours(
                seed.memory.id, cfg.context_span, cfg.context_window_seconds
            ):
                reached.append((neighbour, inherited, seed.memory.id))
        known = {c.memory.id: c.memory for c in found}
        built = index.records.records_of([n for n, _, _ in reached if n not in known])
        known.update((r.id, r) for r in built if r is not None)
        return [
            Candidate(
                memory=known[neighbour],
                vector=None,
                cosine=None,
                via="context",
                inherited=inherited,
                source_id=seed_id,
            )
            for neighbour, inherited, seed_id in reached
            if neighbour in known and allowed(known[neighbour])
        ]

    def _associations(
        self,
        index: NamespaceIndex,
        found: list[Candidate],
        fused: Mapping[str, float],
        allowed: Callable[[MemoryRecord], bool],
        now: datetime,
    ) -> list[Candidate]:
        """Memories linked to the best-matching ones (spreading activation, design §6): each
        inherits ``relevance(seed) · Π (w · 0.5)`` along links of weight ≥ ``link_threshold``."""
        cfg = self.config
        if cfg.graph_expansion_hops <= 0:
            return []
        direct = {c.memory.id: c.memory for c in found if c.via == "search"}
        seeds = dict(sorted(fused.items(), key=lambda kv: -kv[1])[:_ASSOCIATION_SEEDS])
        if not any(direct[i].links for i in seeds if i in direct):
            return []
        records = index.records

        def neighbours(memory_id: str) -> dict[str, float]:
            record = direct.get(memory_id) or records.get(memory_id)
            if record is None:
                return {}
            return {o: w for o, w in current_links(record, now, cfg).items() if o in records}

        out: list[Candidate] = []
        for other, (inherited, origin) in spread(seeds, neighbours, cfg).items():
            record = records[other]
            if allowed(record):
                out.append(
                    Candidate(
                        memory=record,
                        vector=None,
                        cosine=None,
                        via="association",
                        inherited=inherited,
                        source_id=origin,
                    )
                )
        return out

    def _writable(self, namespace: str, *, flush: bool = True) -> ChromaStore:
        """The namespace's collection, created if needed (see :meth:`_store` for ``flush``)."""
        store = self._store(namespace, create=True, flush=flush)
        if store is None:  # get_or_create never returns nothing
            raise StoreError(f"could not create the collection of namespace {namespace!r}")
        return store

    def _store(
        self, namespace: str, *, create: bool = False, flush: bool = True
    ) -> ChromaStore | None:
        """The namespace's collection (``None`` if it does not exist and ``create`` is off).

        With ``flush`` (the default), adds held back from Chroma are written first, so that the
        caller finds Chroma complete. Only the paths that read held adds themselves (adding,
        searching, reading the index) pass ``flush=False``.
        """
        store = self._stores.get(namespace)
        if store is not None:
            if flush:
                self._flush_adds(namespace)
            return store
        if namespace == DEFAULT_NAMESPACE:
            name = self._base
        else:
            name = f"{self._base}.ns.{_digest(namespace)}"
        collection = _open_collection(self._client, name, namespace, create=create)
        if collection is None:
            return None
        store = ChromaStore(collection, writer=self._writer, space=self._space_check())
        self._stores[namespace] = store
        return store

    def _space_check(self) -> Callable[[int], None] | None:
        """The free-space check of a folder store's writes (None for other stores)."""
        folder = self._folder
        if folder is None:
            return None
        reserve = self._space_reserve
        return lambda needed: check_space(folder, needed, reserve)

    # ------------------------------------------------------------------ vector widths
    def _width(self, namespace: str) -> int | None:
        """The width of a namespace's vectors, once anything holds one (``None`` before)."""
        width = self._widths.get(namespace)
        if width is not None:
            return width
        held = self._adds.get(namespace)
        if held:
            width = int(held.matrix().shape[1])
        else:
            store = self._store(namespace, flush=False)
            width = store.dimension() if store is not None else None
        if width is not None:
            self._widths[namespace] = width
        return width

    def _check_width(self, namespace: str, width: int, what: str) -> None:
        """Refuse vectors of another width than the namespace holds.

        Raises:
            DimensionMismatchError: It holds vectors of another width (names both).
        """
        held = self._width(namespace)
        if held is not None and held != width:
            raise DimensionMismatchError(
                f"{what} have dimension {width}, but namespace {namespace!r} of this store holds "
                f"vectors of dimension {held}: open it with the embedder it was built with "
                "(or re-embed it: export, then import into a new store with --re-embed)"
            )

    def _claim_width(self, namespace: str, width: int) -> None:
        """Record a namespace's width before its first vector is written."""
        if self._width(namespace) is None:
            self._writable(namespace, flush=False).set_dimension(width)
            self._widths[namespace] = width

    def _writes(self) -> None:
        """Refuse a write on a read-only store.

        Raises:
            ReadOnlyError: It was opened with ``read_only=True``.
        """
        if self._read_only:
            raise ReadOnlyError(
                f"the store at {self._folder} was opened with read_only=True; open it without "
                "to write (one writer at a time)"
            )

    def _index(self, namespace: str) -> NamespaceIndex:
        """The namespace's in-memory index: loaded from its saved copy when that is current,
        else read from Chroma (records) and reconciled (BM25, by id)."""
        index = self._indexes.get(namespace)
        if index is not None:
            return index
        cfg = self.config
        found = self._store(namespace) if self._read_only else self._writable(namespace)
        if found is None:
            raise MemoryNotFoundError(f"namespace {namespace!r} holds no memories")
        store = found
        generation = store.generation()
        index, saved = None, None
        # A single writer keeps its vector file beside the index; elsewhere another process
        # could be appending to it (or, read-only, nothing may be written), so vectors go to a
        # temporary file (see cogmem.vectors).
        keep = self._sole_writer and self._index_dir is not None and not self._read_only
        if self._index_dir is not None:
            try:
                index, saved = NamespaceIndex.load(
                    self._index_dir, _digest(namespace), self._tokenizer, keep_vectors=keep
                )
                bm25 = index.bm25
                if (bm25.k1, bm25.b, bm25.epsilon) != (cfg.bm25_k1, cfg.bm25_b, cfg.bm25_epsilon):
                    index, saved = None, None
            except StoreError as exc:
                if (self._index_dir / f"{_digest(namespace)}.bm25.npz").exists():
                    log.warning("rebuilding the index of namespace %r: %s", namespace, exc)
                index, saved = None, None
        if index is None:
            index = NamespaceIndex(
                BM25Index(k1=cfg.bm25_k1, b=cfg.bm25_b, epsilon=cfg.bm25_epsilon),
                self._tokenizer,
                namespace,
                vector_home=(self._index_dir, _digest(namespace))
                if keep and self._index_dir is not None
                else None,
            )
        if saved is None or saved != generation:
            index.replace_records(store.all_records())
        else:
            self._saved.add(namespace)
        self._indexes[namespace] = index
        self._generation[namespace] = generation
        if self._index_dir is not None:
            self._replay(namespace, store, index, self._index_dir)
        return index

    def _replay(
        self, namespace: str, store: ChromaStore, index: NamespaceIndex, folder: Path
    ) -> None:
        """Write to Chroma what dead writers' journals in ``folder`` hold and Chroma lacks
        (adds they acknowledged but had not written yet), then delete those journals.

        A journal that held bytes that could not be read back (damage: a flipped bit, a frame
        that does not decode) or memories of another vector width is never deleted: what
        checks out is written, the rest reported (an ERROR log line naming the file), and the
        file moved aside (``<name>.damaged-<time>``) for a person to look at. A read-only
        store writes nothing: it indexes what the journals hold, held in memory.
        """
        if self._read_only:
            self._show_orphans(namespace, index, folder)
            return
        for journal in claim_orphans(folder, _digest(namespace)):
            try:
                read = journal.read()
                fresh = [e for e in read.entries if e.record.id not in index]
                if fresh:
                    present = store.existing([e.record.id for e in fresh])
                    fresh = [e for e in fresh if e.record.id not in present]
                written, refused = self._write_back(namespace, store, index, fresh)
            except BaseException:
                journal.release()  # left for the next open
                raise
            if written:
                log.info(
                    "namespace %r: wrote %d acknowledged adds left in %s",
                    namespace,
                    written,
                    journal.path.name,
                )
            if not read.damage and not refused:
                journal.discard()
                continue
            kept = journal.set_aside()
            problems = [f"{d.length} bytes at {d.offset} ({d.reason})" for d in read.damage]
            problems += [f"{refused} memories of another vector width"] if refused else []
            log.error(
                "namespace %r: the add journal %s held what could not be written back: %s. "
                "Acknowledged adds may be lost there; the %d memories that checked out are "
                "stored. The journal was kept as %s",
                namespace,
                journal.path.name,
                "; ".join(problems),
                written,
                kept,
            )

    def _write_back(
        self,
        namespace: str,
        store: ChromaStore,
        index: NamespaceIndex,
        entries: Sequence[JournalEntry],
    ) -> tuple[int, int]:
        """Write journaled memories to Chroma and the index; returns how many were written and
        how many were refused for a vector width the namespace does not hold."""
        width = self._width(namespace)
        if width is None and entries:
            width = len(entries[0].vector)
        fits = [e for e in entries if len(e.vector) == width]
        if fits and width is not None:
            self._claim_width(namespace, width)
            records = [e.record for e in fits]
            self._will_write(namespace)
            matrix = np.stack([e.vector for e in fits])
            seqs, stamps = store.add(records, matrix, seqs=[e.seq for e in fits])
            index.add(records, seqs, stamps, vectors=matrix)
        return len(fits), len(entries) - len(fits)

    def _show_orphans(self, namespace: str, index: NamespaceIndex, folder: Path) -> None:
        """On a read-only store: index what dead writers' journals hold (no writer can be alive
        while it is open), held in memory beside Chroma's memories, never written."""
        width = self._width(namespace)
        entries = [
            e
            for e in read_orphans(folder, _digest(namespace))
            if e.record.id not in index and (width is None or len(e.vector) == width)
        ]
        if not entries:
            return
        records = [e.record for e in entries]
        matrix = np.stack([e.vector for e in entries])
        index.add(records, [e.seq for e in entries], vectors=matrix)
        held = self._adds.setdefault(namespace, PendingAdds(None))
        held.add(records, [e.seq for e in entries], matrix)

    # ------------------------------------------------------------------ held adds
    def _hold(self, namespace: str, records: list[MemoryRecord], vectors: FloatArray) -> bool:
        """Hold new memories of one namespace back from Chroma (indexed, and journaled on a
        folder store); ``False`` if they must be written at once (no journal could be opened).
        The held group is written first when these would overfill it, or when it is older than
        ``sync_interval_seconds`` on a store other processes may read."""
        pending = self._adds.get(namespace)
        if pending is None:
            journal = None
            if not self._private and self._index_dir is not None:
                path = journal_path(self._index_dir, _digest(namespace), self._writer)
                try:
                    journal = AddJournal(path)
                except StoreError as exc:
                    log.warning("writing every add at once: %s", exc)
                    self._buffered = False
                    return False
            pending = self._adds[namespace] = PendingAdds(journal)
        aged = (
            not self._private
            and pending.since is not None
            and time.monotonic_ns() - pending.since >= self._sync_interval_ns
        )
        if aged or len(pending) + len(records) > self.config.add_flush_size:
            self._flush_adds(namespace)
        index = self._index(namespace)
        seqs = self._writable(namespace, flush=False).next_seqs(len(records))
        index.add(records, seqs, vectors=vectors)
        try:
            pending.add(records, seqs, vectors)  # the commit point: journaled, or nothing
        except BaseException:
            index.remove([r.id for r in records])
            raise
        return True

    def _flush_adds(self, namespace: str) -> None:
        """Write the namespace's held adds to Chroma (as the index holds them now: a recall
        since is included) and empty its journal. On failure they stay held. (A read-only
        store's held adds are a dead writer's, shown, never written.)"""
        pending = self._adds.get(namespace)
        if not pending or self._read_only:
            return
        store = self._stores[namespace]
        table = self._indexes[namespace].records
        ids = [i for i in pending.ids if i in table]
        vectors = pending.vectors(ids)
        self._will_write(namespace)
        _, stamps = store.add(
            [table[i] for i in ids],
            np.stack([vectors[i] for i in ids]) if ids else pending.matrix()[:0],
            seqs=[table.seq(i) for i in ids],
        )
        self._indexes[namespace].set_stamps(ids, stamps)
        pending.written()

    def _nearest(
        self, namespace: str, store: ChromaStore, vectors: FloatArray, k: int
    ) -> list[list[tuple[str, float]]]:
        """For each row of ``vectors``, the ``k`` nearest memories by cosine, nearest first:
        Chroma's ANN results merged with an exact scan of the adds not written yet."""
        pending = self._adds.get(namespace)
        held = len(pending) if pending else 0
        in_chroma = min(k, len(self._indexes[namespace]) - held)
        found = (
            store.nearest_many(vectors, in_chroma)
            if in_chroma > 0
            else [[] for _ in range(len(vectors))]
        )
        if pending:
            found = [
                sorted(ours + theirs, key=lambda pair: -pair[1])[:k]
                for ours, theirs in zip(found, pending.nearest(vectors, k), strict=True)
            ]
        return found

    def _vectors_of(
        self, namespace: str, store: ChromaStore, ids: Sequence[str]
    ) -> dict[str, FloatArray]:
        """The embeddings of ``ids``: from the index's vector file, held adds, and Chroma for
        the rest (which the vector file then keeps)."""
        index = self._indexes.get(namespace)
        found = index.vectors(ids) if index is not None else {}
        rest = [i for i in ids if i not in found]
        pending = self._adds.get(namespace)
        if rest and pending:
            found.update(pending.vectors(rest))
            rest = [i for i in rest if i not in found]
        if rest:
            fetched = store.vectors(rest)
            found.update(fetched)
            if index is not None and index.keep_vectors(fetched):
                self._saved.discard(namespace)
        return found

    def _sync(self, namespace: str, *, offline: bool = False) -> NamespaceIndex:
        """The namespace's index, caught up with what other writers (processes, or other
        objects on the same collection) added, updated and deleted since it last looked.

        Two cheap Chroma calls when nothing changed (~1-3 ms at 10k memories):

        * ``get`` of the records whose write stamp ``w`` is above the index's horizon minus
          ``_SYNC_OVERLAP_NS`` and whose writer ``wb`` is not this object: new ids are added
          (with their BM25 postings), held ones overwritten when their stamp is newer than the
          version held. A recall of this process not yet written (write-behind) is merged into
          the newer version (see :func:`_merge_recalls`), so that neither is lost.
        * ``count``: when it differs from the index's size, memories were deleted (or an add
          was missed), and the ids are reconciled in full (one ids-only ``get``).

        A sole writer never catches up: a private in-process store, and a folder store, which
        is locked while open (:mod:`cogmem.lock`), so nothing else writes it. So only a
        ``client=`` store pays the calls (~20-30 ms at 100k memories, at most once per
        ``sync_interval_seconds``).

        With ``offline`` (reads that need nothing else from Chroma: get, memories, records,
        count), an unreachable server leaves the index as it is held instead of raising.
        """
        index = self._index(namespace)
        if self._sole_writer:
            return index  # nothing else writes it: a private store, or a locked folder
        last = self._synced_at.get(namespace)
        if last is not None:
            now_ns = time.time_ns()
            if now_ns - last < self._sync_interval_ns:
                return index  # caught up moments ago (config.sync_interval_seconds)
        try:
            return self._catch_up(namespace, index)
        except CogmemConnectionError as exc:
            if not offline:
                raise
            log.warning("reading namespace %r as held: %s", namespace, exc)
            return index

    def _catch_up(self, namespace: str, index: NamespaceIndex) -> NamespaceIndex:
        store = self._writable(namespace)
        # Whatever became visible after the previous catch-up began carries a stamp above its
        # start minus the overlap; before the first one, above what the index holds.
        started = time.time_ns()
        floor = self._synced_at.get(namespace, index.horizon)
        changed = store.changed_since(floor - _SYNC_OVERLAP_NS)
        if changed:
            newer = {
                i: v for i, v in changed.items() if i not in index or v[2] > index.records.stamp(i)
            }
            pending = self._pending.get(namespace, {})
            for i, (theirs, seq, stamp) in list(newer.items()):
                if i in pending:
                    pending[i] = _merge_recalls(theirs, pending[i])
                    newer[i] = (pending[i], seq, stamp)
            if newer:
                index.apply(newer)
                self._saved.discard(namespace)
            index.horizon = max(index.horizon, max(v[2] for v in changed.values()))
        if store.count() != len(index):
            held = set(store.ids())
            gone = [i for i in index.records if i not in held]
            if gone:
                index.remove(gone)
                pending = self._pending.get(namespace, {})
                for i in gone:
                    pending.pop(i, None)
            fresh = [i for i in held if i not in index]
            if fresh:
                index.apply(store.stamped(fresh))
            if gone or fresh:
                self._saved.discard(namespace)
        self._synced_at[namespace] = started
        return index

    def _will_write(self, namespace: str) -> None:
        """Before the first write since this index was loaded or saved: bump the generation in
        Chroma, so that every saved copy (this process's or another's) is known to be stale
        until it is saved again."""
        if namespace in self._bumped:
            return
        self._writes()
        store = self._writable(namespace, flush=False)
        generation = max(self._generation[namespace], store.generation()) + 1
        store.set_generation(generation)
        self._generation[namespace] = generation
        self._bumped.add(namespace)
        self._saved.discard(namespace)

    def _remember(self, namespace: str, updated: Sequence[MemoryRecord]) -> None:
        """Apply reinforced records now in memory, and to Chroma in batches (write-behind)."""
        self._index(namespace).update(updated)
        pending = self._pending.setdefault(namespace, {})
        pending.update((m.id, m) for m in updated)
        if len(pending) >= self.config.reinforcement_flush_size:
            self._write_pending(namespace)

    def _write_pending(self, namespace: str) -> None:
        pending = self._pending.get(namespace)
        if pending:
            self._will_write(namespace)
            stamp = self._writable(namespace).update(list(pending.values()))
            self._index(namespace).update(pending.values(), stamp)
        # Only once written: a failed write (server down) keeps them for the next flush.
        self._pending.pop(namespace, None)


class _CallView:
    """The memories of one namespace as one ``add_many`` call has decided them so far: the
    index's records, with the stored memories the call merged into or relinked and its own
    earlier inputs on top (nothing here is written until the call has decided everything).

    Args:
        table: The namespace's records (``None``: a namespace not created yet).
    """

    def __init__(self, table: RecordTable | None) -> None:
        self._table = table
        self._over: dict[str, MemoryRecord] = {}
        self._stored: set[str] = set()  # ids of stored memories in _over
        self._newer: dict[str, set[str]] = {}  # previous_version -> ids, among _over

    def get(self, memory_id: str) -> MemoryRecord | None:
        """The memory as the call sees it."""
        if memory_id in self._over:
            return self._over[memory_id]
        return self._table.get(memory_id) if self._table is not None else None

    def put(self, record: MemoryRecord, *, stored: bool) -> None:
        """Take ``record`` as decided (``stored``: a memory already stored, to write back)."""
        self._over[record.id] = record
        if stored:
            self._stored.add(record.id)
        if record.previous_version is not None:
            self._newer.setdefault(record.previous_version, set()).add(record.id)

    def newer_versions(self, memory_id: str) -> list[MemoryRecord]:
        """The memories, as the call sees them, that name ``memory_id`` as previous version."""
        ids = set(self._newer.get(memory_id, ()))
        if self._table is not None:
            ids.update(self._table.newer_versions(memory_id))
        found = (self.get(i) for i in sorted(ids))
        return [r for r in found if r is not None and r.previous_version == memory_id]

    def stored_changes(self) -> list[MemoryRecord]:
        """The stored memories the call changed, to write back."""
        return [self._over[i] for i in sorted(self._stored)]


def _earlier_neighbours(
    records: Sequence[MemoryRecord], vectors: FloatArray, rows: Sequence[int], k: int
) -> dict[int, list[tuple[int, float]]]:
    """For each input in ``rows``, the ``k`` earlier inputs of its namespace most similar to it
    (cosine), in blocks of rows so that a large call never holds an n × n matrix."""
    if len(records) < 2:
        return {}
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    space = {name: n for n, name in enumerate(dict.fromkeys(r.namespace for r in records))}
    spaces = np.array([space[r.namespace] for r in records])
    positions = np.arange(len(records))
    wanted = np.asarray(rows)
    block = max(1, _SIMILARITY_CELLS // len(records))
    out: dict[int, list[tuple[int, float]]] = {}
    for start in range(0, len(wanted), block):
        part = wanted[start : start + block]
        sims = unit[part] @ unit.T
        other = (positions[None, :] >= part[:, None]) | (spaces[None, :] != spaces[part, None])
        sims[other] = -np.inf
        keep = min(k, sims.shape[1])
        top = np.argpartition(-sims, keep - 1, axis=1)[:, :keep]  # the k best, unordered
        for n, i in enumerate(part.tolist()):
            out[i] = [
                (int(j), float(sims[n, j])) for j in top[n].tolist() if np.isfinite(sims[n, j])
            ]
    return out


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    return b if a is None else a if b is None else max(a, b)


def _merge_recalls(theirs: MemoryRecord, ours: MemoryRecord) -> MemoryRecord:
    """Another writer's newer version of a memory, with this process's recalls (not yet
    written) kept: the larger stability and access count, the later access, every session,
    the stronger link. Everything else (status, confidence, ...) is theirs."""
    links = dict(theirs.links)
    for other, weight in ours.links.items():
        links[other] = max(weight, links.get(other, 0.0))
    return replace(
        theirs,
        memory_type="core" if ours.memory_type == "core" else theirs.memory_type,
        stability=max(theirs.stability, ours.stability),
        access_count=max(theirs.access_count, ours.access_count),
        last_accessed_at=_later(theirs.last_accessed_at, ours.last_accessed_at),
        session_ids=tuple(dict.fromkeys((*theirs.session_ids, *ours.session_ids))),
        links=links,
        links_updated_at=_later(theirs.links_updated_at, ours.links_updated_at),
    )


def _digest(namespace: str) -> str:
    return hashlib.sha1(namespace.encode()).hexdigest()[:16]


def _make_client(path: str | Path | None) -> Any:
    import chromadb
    from chromadb.config import Settings

    if path is None:
        return _ephemeral_client()
    settings = Settings(anonymized_telemetry=False, allow_reset=False)
    try:  # the folder exists and is locked (lock_folder)
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except Exception as exc:  # Chroma's InternalError for a read-only folder, ...
        raise storage_error("opening the Chroma store", path, exc, chroma=True) from exc


def _ephemeral_client() -> Any:
    """Chroma's in-process client, sharing the process's one in-memory Chroma.

    Chroma keeps one in-memory instance per process and refuses a second client whose settings
    differ from the first one's (``An instance of Chroma already exists for ephemeral with
    different settings``). So cogmem asks with Chroma's default settings, which is what
    ``chromadb.EphemeralClient()`` and LlamaIndex's ``ChromaVectorStore`` set-up use, and when
    the instance was started with other settings, joins it with those. Its collections are
    named ``cogmem-<random>`` and dropped on close, so they never meet the caller's.
    """
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient

    try:
        return chromadb.EphemeralClient()
    except ValueError as exc:
        running = getattr(SharedSystemClient, "_identifier_to_system", {}).get("ephemeral")
        if running is None or "different settings" not in str(exc):
            raise chroma_error("starting Chroma in memory", exc) from exc
        return chromadb.EphemeralClient(settings=running.settings)


def _open_collection(client: Any, name: str, namespace: str, *, create: bool) -> Any:
    try:
        if create:
            collection = client.get_or_create_collection(
                name,
                embedding_function=None,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"created_by": "cogmem", "cogmem_namespace": namespace},
            )
        else:
            try:
                collection = client.get_collection(name, embedding_function=None)
            except Exception as exc:  # Chroma raises NotFoundError/ValueError by version
                error = chroma_error("Chroma get_collection", exc, client)
                if isinstance(error, CogmemConnectionError):  # unreachable is not "absent"
                    raise error from exc
                return None
    except CogmemConnectionError:
        raise
    except Exception as exc:
        raise chroma_error(f"opening Chroma collection {name!r}", exc, client) from exc
    if (getattr(collection, "metadata", None) or {}).get("created_by") != "cogmem":
        raise StoreError(
            f"collection {name!r} was not created by cogmem (its records are not cogmem's); "
            "use another collection name"
        )
    space = _space_of(collection)
    if space not in (None, "cosine"):
        raise StoreError(
            f"collection {name!r} uses {space!r} distance; cogmem needs cosine. "
            "Use another collection name."
        )
    return collection


def _space_of(collection: Any) -> str | None:
    try:
        conf = collection.configuration
        hnsw = conf.get("hnsw") if isinstance(conf, Mapping) else None
        if isinstance(hnsw, Mapping) and hnsw.get("space"):
            return str(hnsw["space"])
    except Exception:  # older Chroma: configuration missing
        pass
    meta = getattr(collection, "metadata", None) or {}
    space = meta.get("hnsw:space")
    return str(space) if space else None
