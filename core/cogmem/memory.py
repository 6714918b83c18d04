"""``CognitiveMemory``: the public API (design §9).

This module is the API only: argument checks, the lock, and the namespaces; opening and
closing the store is :mod:`cogmem.handle`. The work is done where a newcomer would look for it:

* :mod:`cogmem.intake`: inputs -> checked records, embedding, write-time dedup (the write path);
* :mod:`cogmem.recall`: the search pipeline, step by step;
* :mod:`cogmem.maintenance`: consolidation, conflict checks, link decay;
* :mod:`cogmem.namespace`: one namespace's collection, index, held adds, recalls and catch-up;
* :mod:`cogmem.clients`: opening Chroma and cogmem's collections in it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from typing_extensions import Unpack

from . import maintenance
from .checks import (
    check_bool,
    check_callable,
    check_ids,
    check_name,
    ensure_aware,
    hint_unknown_keywords,
    resolve_now,
)
from .clients import DEFAULT_NAMESPACE
from .consolidation import ConsolidationReport, MaintenanceReport, Summarizer, superseded
from .display import SearchResults
from .embedding import embed_query_vector, embed_texts
from .errors import InvalidInputError, InvalidTypeError, MemoryNotFoundError
from .filters import compile_filters
from .handle import MemoryHandle
from .history import version_chain
from .intake import MemoryFields, MemoryInput, restorable, take_in
from .maintenance import ConflictDetector
from .passages import Passages
from .recall import Query, recall, reinforcement
from .records import MemoryRecord, SearchResult, WriteOutcome
from .retention import reinforce as reinforce_memory
from .store import FloatArray
from .twins import awaitable

__all__ = ["CognitiveMemory", "MemoryFields", "MemoryInput", "require_memory"]

log = logging.getLogger("cogmem")

Inputs = Iterable[MemoryInput | Mapping[str, Any] | str]


class CognitiveMemory(MemoryHandle):
    """A long-term memory that forgets, reinforces and recalls like a person (design §9).

    Setup: in-process (``CognitiveMemory()``), a folder (``path=``), or a Chroma server
    (``client=cogmem.clients.http_client(...)``); each namespace is its own Chroma collection.
    Add: :meth:`add` / :meth:`write` (one), :meth:`add_many` / :meth:`write_many`,
    :meth:`restore` (exact records). Search: :meth:`search`; read: :meth:`get`, :meth:`history`,
    :meth:`memories`, :meth:`records`. Change: :meth:`delete`, :meth:`supersede`,
    :meth:`contradict`, :meth:`reinforce`, :meth:`consolidate`, :meth:`maintain`. Async: the
    ``a``-prefixed twins. Close with :meth:`close` (or ``with``).

    Args:
        path: Folder of a persistent store (Chroma ``PersistentClient``); ``None`` and no
            ``client``: an in-process store that lives as long as this object.
        client: Any Chroma client (e.g. ``chromadb.HttpClient``); excludes ``path``.
        collection: Collection name. Default ``cogmem``, or for an in-process store a fresh
            name, so that two in-process memories never share data.
        embedder: Anything with ``embed_documents`` / ``embed_query`` (a LangChain
            ``Embeddings`` fits); default: the offline all-MiniLM-L6-v2.
        config: Tunables; default :class:`CognitiveMemoryConfig()`.
        index_dir: Where to keep the derived index between runs; default ``path`` (none for
            in-process or client stores: rebuilt from Chroma when a namespace is first used).
        dedup_judge: ``(stored_text, new_text) -> bool``, asked by write-time dedup about a
            write the words alone cannot settle (an inflection, a plain word added): ``True``
            merges it. Default ``None``: such a write is stored. Each adapter builds one from
            a model (``dedup_judge_from``).
        version_judge: ``(older_text, newer_text) -> bool``, asked whether a write updates
            a stored memory where the reading is unsure (:func:`cogmem.judges.judged`):
            ``True`` links it as the newer version. Default ``None``; ``version_judge_from``.
        stages: Optional retrieval stages (:class:`~cogmem.stages.Stages`: query expansion,
            HyDE, a reranker), each off by default; settable later as ``memory.stages``.
        read_only: Open a folder store for reading only: it is never written (no
            reinforcement, no saved index, a write raises :class:`~cogmem.errors.ReadOnlyError`),
            any number of processes may read it at once, and none may write it meanwhile.

    A folder store is opened by one process at a time (Chroma's embedded mode is
    single-process): the folder is locked while this object is open (``cogmem.lock``). To share
    one memory between processes, run a Chroma server and pass ``client=``.

    Raises:
        StoreLockedError: Another process (or object) has the folder store open.
        StorageError: The folder cannot be created, read or written (names it and why).
        DimensionMismatchError: The embedder states a width the store does not hold.
        StoreError: A collection exists with a distance other than cosine, or Chroma failed.
    """

    # ------------------------------------------------------------------ writing
    def add(self, text: str, *, now: datetime | None = None, **fields: Unpack[MemoryFields]) -> str:
        """Store one memory and return its id (see :meth:`write` for what dedup does).

        Args:
            text: What to remember (non-empty).
            now: The current time (default: the clock).
            **fields: The memory's fields (:class:`~cogmem.intake.MemoryFields`: type,
                importance, confidence, tags, created_at, id, metadata, namespace, pinned,
                session_id).

        Returns:
            The id of the new memory, or of the stored memory it restates (merged into it).

        Raises:
            InvalidInputError / InvalidTypeError: Bad input (nothing is stored).
            DuplicateIdError: ``id`` is stored already.
        """
        return self.write(text, now=now, **fields).id

    def write(
        self, text: str, *, now: datetime | None = None, **fields: Unpack[MemoryFields]
    ) -> WriteOutcome:
        """Store one memory, and say what the write did: :meth:`add` with its outcome.

        Write-time dedup (:mod:`cogmem.dedup`) compares a write whose id is generated with its
        nearest memories by what they say (:mod:`cogmem.versions`): a restatement (the same
        claims however worded, or the same words up to case, punctuation and a framing phrase
        such as "Note:") is **merged** (the stored memory is reinforced and takes the write's
        tags, metadata keys and session id); a claim about the same slot with another value
        ("I live in Denver." -> "I moved to Austin.") is stored as its **newer version**
        (``previous_version``; the older ranks below it); anything else, other people or other
        attributes included, is **stored**. A caller-chosen ``id`` is always stored as itself,
        and linked as a newer version only when the reading is sure.

        Returns:
            A :class:`~cogmem.records.WriteOutcome`: the id, the action (``stored``,
            ``merged`` or ``new_version``), the memory merged into or updated, and what differs.
        """
        return self._write([{"text": text, **fields}], now, None, batch=False)[0]

    def add_many(
        self, items: Inputs, *, now: datetime | None = None, progress: bool | None = None
    ) -> list[str]:
        """Store many memories at once (one embedding batch, one Chroma write per namespace).

        Every item is validated, and every vector computed, before anything is written: one bad
        item stores none. Items are ``MemoryInput``, dicts with the fields of :meth:`add`, or
        plain strings. Memories given in one call keep their order as their temporal context.
        Dedup works as in :meth:`write`, among the items too.

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
        self, items: Inputs, *, now: datetime | None = None, progress: bool | None = None
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
        moment = resolve_now(now)
        self._context.refuse_writes()
        intake = take_in(
            items,
            moment,
            self.config,
            self.embedder,
            progress,
            batch=batch,
            classify=self.versions.memory_types if self.versions is not None else None,
        )
        if not intake.records:
            return []
        what = f"the vectors of the embedder ({self.embedder!r})"
        with self._lock:
            return self._spaces.write(
                intake.records, intake.vectors, intake.chosen, what, self.dedup_judge,
                self.versions, version_judge=self.version_judge, reading=intake.reading,
            )  # fmt: skip

    def restore(
        self,
        records: Iterable[MemoryRecord],
        vectors: Sequence[Sequence[float]] | FloatArray | None = None,
        *,
        progress: bool | None = None,
    ) -> list[str]:
        """Store memories exactly as given, every field kept (stability, access count, status,
        links, ...): to import an export, or to move memories between stores. Each goes to its
        own ``namespace``; all are checked, and all vectors computed (or the given ones
        checked, one per record), before anything is written: one bad record stores none.
        Returns the ids, in order (see :func:`cogmem.intake.restorable` for what it raises,
        and :class:`~cogmem.errors.DuplicateIdError` for an id already stored)."""
        self._context.refuse_writes()
        checked, matrix, what = restorable(records, vectors, self.embedder, progress)
        if checked:
            with self._lock:
                self._spaces.write(checked, matrix, {r.id for r in checked}, what)
        return [r.id for r in checked]

    def delete(self, id: str, *, namespace: str = DEFAULT_NAMESPACE) -> None:
        """Forget a memory for good.

        Raises:
            MemoryNotFoundError: The namespace has no memory with this id.
        """
        self._context.refuse_writes()
        with self._lock:
            self._stored(id, namespace)  # under the lock: two deletes cannot both pass
            self._spaces.require(namespace).delete([id])

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
        return self._relate(
            old_id, new_id, namespace, "supersede", lambda old, new: [superseded(old, new)]
        )[0]

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
        return self._relate(a_id, b_id, namespace, "contradict", maintenance.contradictions)

    def _relate(
        self,
        a_id: str,
        b_id: str,
        namespace: str,
        verb: str,
        change: Callable[[MemoryRecord, MemoryRecord], list[MemoryRecord]],
    ) -> tuple[MemoryRecord, MemoryRecord]:
        """Record a relation between two stored memories (what ``change`` writes); returns
        both as they are then. Read and write under one lock: a concurrent recall is kept."""
        self._context.refuse_writes()
        if a_id == b_id:
            raise InvalidInputError(f"a memory cannot {verb} itself")
        with self._lock:
            both = self._stored(a_id, namespace), self._stored(b_id, namespace)
            self._spaces.require(namespace).update(change(*both))
            return self._stored(a_id, namespace), self._stored(b_id, namespace)

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
        moment = resolve_now(now)
        self._context.refuse_writes()
        wanted = check_ids(ids)
        if session_id is not None:
            check_name(session_id, "session_id")
        with self._lock:  # read and write under one lock: concurrent recalls all count
            records = [self._stored(i, namespace) for i in wanted]
            updated = [
                reinforce_memory(m, moment, self.config, session_id=session_id) for m in records
            ]
            self._spaces.require(namespace).remember(updated)
        return updated

    def set_expiry(
        self,
        ids: Sequence[str],
        expires_at: datetime | None,
        *,
        namespace: str = DEFAULT_NAMESPACE,
    ) -> list[MemoryRecord]:
        """Give memories a hard expiry (``None`` removes it); returns them, updated. From
        ``expires_at`` on, search and :meth:`get` no longer see them and :meth:`maintain`
        deletes them. Nothing else about them changes.

        Raises:
            MemoryNotFoundError: An id is not stored in the namespace (nothing is changed).
        """
        self._context.refuse_writes()
        wanted = check_ids(ids)
        when = None if expires_at is None else ensure_aware(expires_at, "expires_at")
        with self._lock:
            updated = [replace(self._stored(i, namespace), expires_at=when) for i in wanted]
            self._spaces.require(namespace).update(updated)
        return updated

    def clear(self, namespace: str = DEFAULT_NAMESPACE) -> int:
        """Forget every memory of a namespace; returns how many were deleted."""
        namespace = check_name(namespace, "namespace")
        self._context.refuse_writes()
        with self._lock:
            found = self._spaces.get(namespace)
            ids = [] if found is None else list(found.records)
            if found is not None:
                found.delete(ids)
        return len(ids)

    # ------------------------------------------------------------------ maintenance
    def consolidate(
        self,
        now: datetime | None = None,
        summarizer: Summarizer | None = None,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        dry_run: bool = False,
        progress: bool | None = None,
    ) -> ConsolidationReport:
        """Merge faded, similar memories into summaries (design §6; the rules, arguments and
        report: :func:`cogmem.maintenance.consolidate`). Originals are superseded, never
        deleted; consolidating again at the same ``now`` changes nothing."""
        moment = resolve_now(now)
        namespace = check_name(namespace, "namespace")
        if not dry_run:
            self._context.refuse_writes()
        check_callable(summarizer, "summarizer", "list[str] -> str")
        return maintenance.consolidate(
            self._spaces,
            self._lock,
            self.embedder,
            moment,
            summarizer,
            namespace=namespace,
            dry_run=check_bool(dry_run, "dry_run"),
            progress=progress,
        )

    def maintain(
        self,
        now: datetime | None = None,
        *,
        summarizer: Summarizer | None = None,
        conflict_detector: ConflictDetector | None = None,
        namespace: str = DEFAULT_NAMESPACE,
    ) -> MaintenanceReport:
        """Consolidation, conflict detection and link decay in one call, for a scheduler
        (:func:`cogmem.maintenance.maintain`). Running it twice with the same ``now`` changes
        nothing the second time."""
        moment = resolve_now(now)
        namespace = check_name(namespace, "namespace")
        self._context.refuse_writes()
        check_callable(conflict_detector, "conflict_detector", "(str, str) -> bool")
        check_callable(summarizer, "summarizer", "list[str] -> str")
        return maintenance.maintain(
            self._spaces,
            self._lock,
            self.embedder,
            moment,
            summarizer,
            conflict_detector,
            namespace=namespace,
        )

    def purge_expired(
        self, now: datetime | None = None, *, namespace: str = DEFAULT_NAMESPACE
    ) -> int:
        """Delete the memories whose ``expires_at`` has come by ``now`` (what :meth:`maintain`
        does first, alone: for a TTL sweeper); returns how many."""
        moment = resolve_now(now)
        self._context.refuse_writes()
        namespace = check_name(namespace, "namespace")
        return maintenance.purge_expired(self._spaces, self._lock, moment, namespace=namespace)

    # ------------------------------------------------------------------ reading
    def get(
        self, id: str, *, namespace: str = DEFAULT_NAMESPACE, now: datetime | None = None
    ) -> MemoryRecord:
        """The stored memory with this id, unless it had expired by ``now`` (the clock).

        Raises:
            MemoryNotFoundError: The namespace has no memory with this id, or it has expired.
        """
        record = self._stored(id, namespace)
        if record.expired(resolve_now(now)):
            raise MemoryNotFoundError(
                f"memory {id!r} in namespace {namespace!r} expired at {record.expires_at}"
            )
        return record

    def history(
        self, id: str, *, namespace: str = DEFAULT_NAMESPACE, now: datetime | None = None
    ) -> list[MemoryRecord]:
        """The version chain the memory belongs to (``previous_version`` links followed both
        ways: :func:`cogmem.history.version_chain`), oldest first, in any status; nothing is
        reinforced.

        Args:
            id: Any version of the chain.
            namespace: The memory's namespace.
            now: Versions expired by then are left out (default: the clock).

        Returns:
            The versions, each with its ``created_at``; ``[memory]`` when it has none.

        Raises:
            MemoryNotFoundError: The namespace has no memory with this id, or it has expired.
        """
        moment = resolve_now(now)
        with self._lock:
            record = self.get(id, namespace=namespace, now=moment)
            table = self._spaces.require(namespace).records
            chain = version_chain(record, table.get, table.newer_versions)
        return [r for r in chain if not r.expired(moment)]

    def _stored(self, id: str, namespace: str) -> MemoryRecord:
        """The stored memory with this id, expired or not."""
        check_name(id, "id")
        namespace = check_name(namespace, "namespace")
        with self._lock:
            table = self._spaces.table(namespace)
            record = None if table is None else table.get(id)
        if record is None:
            raise MemoryNotFoundError(f"no memory with id {id!r} in namespace {namespace!r}")
        return record

    def memories(
        self,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        filters: Mapping[str, Any] | None = None,
        deep_recall: bool = False,
        now: datetime | None = None,
    ) -> list[MemoryRecord]:
        """Every memory of a namespace that passes ``filters`` and has not expired by ``now``
        (the clock), newest first.

        ``deep_recall=True`` includes superseded memories. Nothing is reinforced.
        """
        namespace = check_name(namespace, "namespace")
        moment = resolve_now(now)
        passes = compile_filters(filters, include_superseded=deep_recall)

        def allowed(record: MemoryRecord) -> bool:
            return passes(record) and not record.expired(moment)

        with self._lock:
            table = self._spaces.table(namespace)
            held = [] if table is None else list(table.values())
        records = [r for r in held if allowed(r)]
        return sorted(records, key=lambda r: (r.created_at, r.id), reverse=True)

    def records(self, namespace: str = DEFAULT_NAMESPACE) -> list[MemoryRecord]:
        """Every memory of a namespace, whatever its status, in the order they were formed
        (creation time, then insertion order): for exports and inspection. Nothing is
        reinforced."""
        namespace = check_name(namespace, "namespace")
        with self._lock:
            table = self._spaces.table(namespace)
            held = [] if table is None else [(table[i], table.seq(i)) for i in table]
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
        namespace = check_name(namespace, "namespace")
        wanted = check_ids(ids)
        with self._lock:
            found = self._spaces.get(namespace)
            vectors = {} if found is None else found.vectors(wanted)
        missing = [i for i in wanted if i not in vectors]
        if missing:
            raise MemoryNotFoundError(
                f"no memory with id(s) {missing[:5]} in namespace {namespace!r}"
            )
        return vectors

    @hint_unknown_keywords
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
        passages: Passages | None = None,
    ) -> list[SearchResult]:
        """Recall the memories that best answer ``query`` now (the pipeline:
        :mod:`cogmem.recall`).

        Args:
            query: The cue (non-empty).
            top_k: At most this many results (default ``config.top_k``).
            token_budget: At most this many tokens of memory text (default none).
            filters: See :func:`cogmem.filters.build_where`.
            mode: ``hybrid`` (default) | ``dense`` | ``lexical``.
            deep_recall: Also return superseded memories (with the deep-recall penalty).
            now: The current time (default: the clock); decay is computed at it.
            reinforce: Strengthen what is returned (default ``config.reinforce_on_search``, off
                on a read-only store); ``False`` leaves the store exactly as it was.
            namespace: Whose memories to search.
            session_id: Recorded on reinforced memories (spaced recall across sessions).
            min_score: Drop results scoring below this (default ``config.min_score``).
            diversity: Order by maximal marginal relevance before packing (aggregation queries).
            passages: Score a memory of several passages by its best one
                (:class:`cogmem.Passages`; LangGraph's index paths).

        Returns:
            Results best first, each with ``.memory``, ``.score`` and ``.explanation``.
        """
        namespace = check_name(namespace, "namespace")
        if session_id is not None:
            check_name(session_id, "session_id")
        default = self.config.reinforce_on_search and not self._context.read_only
        reinforcing = check_bool(default if reinforce is None else reinforce, "reinforce")
        if reinforcing:
            self._context.refuse_writes()
        asked = Query.checked(
            self.config,
            query,
            now=resolve_now(now),
            top_k=top_k,
            token_budget=token_budget,
            mode=mode,
            min_score=min_score,
            deep_recall=deep_recall,
            diversity=diversity,
            filters=filters,
            embed=lambda text: embed_query_vector(self.embedder, text),
            stages=self.stages,
            embed_document=lambda text: embed_texts(self.embedder, [text])[0],
            passages=passages,
        )
        with self._lock:
            found = self._spaces.get(namespace)
            if found is None:
                return SearchResults()
            found.check_width(len(asked.vector), f"the query's vector (from {self.embedder!r})")
            found.synced()
            results = recall(found, asked, self.config, self._count_tokens, self.versions)
            if results and reinforcing:
                found.remember(reinforcement(results, asked.now, self.config, session_id))
        return SearchResults(results)

    # ------------------------------------------------------------------ async twins
    aadd = awaitable(add)
    awrite = awaitable(write)
    aadd_many = awaitable(add_many)
    awrite_many = awaitable(write_many)
    asearch = awaitable(search)
    aget = awaitable(get)
    ahistory = awaitable(history)
    aset_expiry = awaitable(set_expiry)
    adelete = awaitable(delete)
    areinforce = awaitable(reinforce)
    aconsolidate = awaitable(consolidate)
    amaintain = awaitable(maintain)


def require_memory(value: object) -> CognitiveMemory:
    """``value`` if it is a :class:`CognitiveMemory` (what every adapter is built on).

    Raises:
        InvalidTypeError: It is not.
    """
    if not isinstance(value, CognitiveMemory):
        raise InvalidTypeError(
            f"memory must be a cogmem.CognitiveMemory, got {type(value).__name__}"
        )
    return value
