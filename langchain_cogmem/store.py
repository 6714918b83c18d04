"""``CognitiveMemoryStore``: a LangGraph ``BaseStore`` whose items are cogmem memories.

LangGraph agents (``langchain.agents.create_agent(..., store=store)``) keep long-term memory in
a store of JSON documents addressed by a namespace (a tuple of str) and a key. Here each
LangGraph namespace is one cogmem namespace and each item one memory whose id is the key, so
``search`` with a query is a cognitive search: hybrid BM25 + dense relevance times retention,
with spaced reinforcement of what the agent recalls.

How an item is kept as a memory: :mod:`.store_items`; keys and filters:
:mod:`.store_keys`; TTLs: :mod:`.store_ttl`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)
from typing_extensions import Self

from cogmem import (
    CogmemError,
    CognitiveMemory,
    InvalidInputError,
    InvalidTypeError,
    MemoryInput,
    MemoryNotFoundError,
    MemoryRecord,
    Passages,
    SearchResult,
)
from cogmem.checks import check_int, check_memory_type
from cogmem.memory import require_memory
from cogmem.recall import search_settings

from ._convert import current_time
from .store_items import (
    UNINDEXED,
    CognitiveSearchItem,
    ItemWrite,
    check_paths,
    index_paths,
    item_metadata,
    item_of,
    item_passages,
    prepared_value,
)
from .store_keys import (
    check_filter,
    check_labels,
    condition_path,
    decode_namespace,
    encode_namespace,
    is_number,
    matches_condition,
    matches_filter,
    pushdown,
)
from .store_ttl import Sweeper, check_ttl, check_ttl_config, expiry, refreshed

__all__ = [
    "CognitiveMemoryStore",
    "CognitiveSearchItem",
    "decode_namespace",
    "encode_namespace",
    "matches_filter",
]


# ---------------------------------------------------------------------- the store
class CognitiveMemoryStore(BaseStore):
    """A LangGraph store over a :class:`cogmem.CognitiveMemory` (``create_agent(store=...)``).

    * ``put(namespace, key, value)`` stores the value as one memory with id ``key`` in the
      cogmem namespace ``encode_namespace(namespace)``; putting an existing key replaces it
      (``created_at`` is kept, ``updated_at`` is now, the memory starts afresh);
      ``put(..., value=None)``/``delete`` removes it.
    * ``get`` returns the value exactly as put (as JSON round-trips it: tuples come back as
      lists; NaN and infinities are kept), with ``created_at``/``updated_at``.
    * ``search(prefix, query=...)`` is a cognitive search in every namespace under the prefix:
      results are :class:`CognitiveSearchItem` ordered by cognitive score, ``score`` set and
      the explanation attached; the memories returned are reinforced (``reinforce``). Items
      no query can score (``index=False``, or nothing at the index paths) fill the rest of
      the page after them, ``score`` ``None``, as in ``InMemoryStore``. Without a query it
      lists items in the order their keys were first put, ``score`` ``None``. ``filter``
      matches the value (see :func:`matches_filter`); ``limit``/``offset`` paginate. Items
      that consolidation merged into a summary (superseded) are left out unless
      ``deep_recall=True``; the summary itself is an item whose value is ``{"text": ...}``.
    * ``list_namespaces`` with ``prefix``/``suffix`` (``"*"`` wildcards), ``max_depth``,
      ``limit``, ``offset``, sorted; a namespace whose items were all deleted is still
      listed (as in ``InMemoryStore``).
    * ``batch`` reads the store as it was before the batch and applies its puts after (see
      :meth:`batch`).

    ``tests/test_langgraph_conformance.py`` runs random operation sequences against
    LangGraph's ``InMemoryStore`` and compares every answer; the README lists the
    differences kept on purpose.

    TTLs work as in LangGraph's SQLite and Postgres stores (:mod:`.store_ttl`):
    ``put(..., ttl=minutes)`` (or the ``TTLConfig``'s ``default_ttl``) gives the item's
    memory a hard expiry; from then on get and search no longer see it, and :meth:`sweep_ttl`
    (or the thread :meth:`start_ttl_sweeper` runs) deletes it. A get or search with
    ``refresh_ttl`` (``refresh_on_read``, on by default) moves the expiry to ``now + ttl``.
    Decay reorders what is kept; a TTL removes.

    Async: ``abatch`` (and so ``aget``/``aput``/``asearch``/...) runs ``batch`` in a worker
    thread (``asyncio.to_thread``); the core has no async API yet.

    Args:
        memory: The cogmem memory to keep items in (it may hold other namespaces too).
        fields: Default index paths (LangGraph syntax: ``"$"`` the whole value as JSON,
            ``"text"``, ``"a.b"``, ``"items[*].text"``, ...); the memory's text is what they
            select, joined by newlines, and a query scores an item by the text nearest in
            meaning, each embedded apart (as LangGraph's stores do). Default ``["$"]``.
        index: A LangGraph ``IndexConfig``, as every LangGraph store takes it: its ``fields``
            are the index paths (instead of ``fields``); ``dims`` must be the memory's
            embedder's width; ``embed``, when given, must be the memory's embedder (the
            memory embeds: ``CognitiveMemory(embedder=...)``). ``index_config`` says what the
            store indexes with, given or not.
        memory_type: cogmem type of stored items (default ``semantic``: facts and profiles).
        importance: cogmem importance of stored items in [0, 1] (default: the memory's).
        reinforce: Whether searches with a query reinforce the items they return (default:
            the memory's config, on).
        session_id: Recorded on items stored and reinforced through this store.
        mode: ``hybrid`` | ``dense`` | ``lexical`` for query searches (default: the memory's).
        min_score: Drop query results scoring below this (default: the memory's).
        deep_recall: Also return superseded items (the originals behind a consolidation
            summary, or replaced by :meth:`cogmem.CognitiveMemory.supersede`), with the
            deep-recall penalty on query searches. ``get`` returns them either way.
        prefix: Prefix of the cogmem namespaces this store uses (see
            :func:`encode_namespace`).
        now: A clock (``() -> datetime``, timezone-aware); default the wall clock.
        ttl: A LangGraph ``TTLConfig``: ``default_ttl`` (minutes), ``refresh_on_read``
            (default ``True``), ``sweep_interval_minutes`` (the sweeper's, default 5).

    Raises:
        InvalidTypeError / InvalidInputError: A bad argument (names it).
    """

    supports_ttl = True

    def __init__(
        self,
        memory: CognitiveMemory,
        *,
        fields: Sequence[str] | None = None,
        index: IndexConfig | None = None,
        memory_type: str = "semantic",
        importance: float | None = None,
        reinforce: bool | None = None,
        session_id: str | None = None,
        mode: str | None = None,
        min_score: float | None = None,
        deep_recall: bool = False,
        prefix: str = "lg",
        now: Callable[[], datetime] | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        require_memory(memory)
        check_memory_type(memory_type)
        if importance is not None and (
            not is_number(importance) or not 0.0 <= float(importance) <= 1.0
        ):
            raise InvalidInputError(f"importance must be a number in [0, 1], got {importance!r}")
        if mode not in (None, "hybrid", "dense", "lexical"):
            raise InvalidInputError(f"mode must be hybrid, dense or lexical; got {mode!r}")
        if min_score is not None and not is_number(min_score):
            raise InvalidTypeError(f"min_score must be a number, got {min_score!r}")
        if reinforce is not None and not isinstance(reinforce, bool):
            raise InvalidTypeError(f"reinforce must be a bool, got {reinforce!r}")
        if not isinstance(deep_recall, bool):
            raise InvalidTypeError(f"deep_recall must be a bool, got {deep_recall!r}")
        if session_id is not None and (not isinstance(session_id, str) or not session_id):
            raise InvalidInputError("session_id must be a non-empty str")
        if not isinstance(prefix, str) or not prefix:
            raise InvalidInputError("prefix must be a non-empty str")
        if now is not None and not callable(now):
            raise InvalidTypeError("now must be a callable returning a datetime")
        self.memory = memory
        fields = index_paths(memory, index, fields)
        self.fields = check_paths(["$"] if fields is None else fields, "fields")
        width = getattr(memory.embedder, "dimension", None)
        self.index_config: dict[str, Any] = {
            "dims": width if isinstance(width, int) else int((index or {}).get("dims") or 0),
            "embed": memory.embedder,
            "fields": list(self.fields),
        }
        self._passages = Passages(memory.embedder, item_passages)
        self._decoded: dict[str, tuple[str, ...] | None] = {}
        self.memory_type = memory_type
        self.importance = importance
        self.reinforce = reinforce
        self.session_id = session_id
        self.mode = mode
        self.min_score = min_score
        self.deep_recall = deep_recall
        self.prefix = prefix
        self.now = now
        self.ttl_config = check_ttl_config(ttl)
        self._sweeper = Sweeper()
        self._lock = threading.RLock()
        # A store dropped with its sweeper running stops it (the thread holds it weakly).
        weakref.finalize(self, self._sweeper.stop, 0)

    def __repr__(self) -> str:
        return f"CognitiveMemoryStore(fields={self.fields!r}, memory_type={self.memory_type!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the TTL sweeper, if one runs. The memory is the caller's, and stays open
        (close it with :meth:`cogmem.CognitiveMemory.close`, or its own ``with``)."""
        self._sweeper.stop()

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations; one result per operation, in order (``None`` for puts).

        As in LangGraph's ``InMemoryStore``, reads see the store as it was before the batch
        (``[Put k, Get k]`` returns the old value) and the puts are applied after them, the
        last put of a key winning. Every put is checked before anything is read or written:
        a malformed one stops the batch with nothing done.

        Raises:
            InvalidNamespaceError: A namespace label is not a non-empty str without ``.``,
                or a put names the empty namespace.
            InvalidInputError / InvalidTypeError: A malformed op, value or filter.
        """
        ops = list(ops)
        writes: dict[tuple[tuple[str, ...], str], ItemWrite] = {}
        for op in ops:
            if isinstance(op, PutOp):
                write = self._checked_put(op)
                writes.pop((write.namespace, write.key), None)  # the last put, in its place
                writes[(write.namespace, write.key)] = write
            elif not isinstance(op, (GetOp, SearchOp, ListNamespacesOp)):
                raise InvalidTypeError(f"unknown store operation {type(op).__name__}")
        results: list[Result] = []
        with self._lock:
            for op in ops:
                if isinstance(op, GetOp):
                    results.append(self._get(op))
                elif isinstance(op, SearchOp):
                    results.append(self._search(op))
                elif isinstance(op, ListNamespacesOp):
                    results.append(self._list_namespaces(op))
                else:
                    results.append(None)
            self._apply(list(writes.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Run :meth:`batch` in a worker thread (the core has no async API yet)."""
        return await asyncio.to_thread(self.batch, list(ops))

    # ------------------------------------------------------------------ TTL
    def sweep_ttl(self) -> int:
        """Delete the items whose TTL has run out, in every namespace of this store; returns
        how many."""
        moment = current_time(self.now)
        with self._lock:
            return sum(
                self.memory.purge_expired(moment, namespace=name)
                for name, _ in self._store_namespaces((), emptied=True)
            )

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep (:meth:`sweep_ttl`) in a background thread, at once and then every
        ``sweep_interval_minutes`` (default: the ``TTLConfig``'s, else 5). Without a
        ``TTLConfig`` nothing starts (a done future, as LangGraph's stores return)."""
        if self.ttl_config is None:
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            done.set_result(None)
            return done
        interval = sweep_interval_minutes or self.ttl_config.get("sweep_interval_minutes")
        held = weakref.ref(self)

        def sweep() -> bool:
            store = held()
            if store is None:
                return False  # dropped: nothing left to sweep
            store.sweep_ttl()
            return True

        return self._sweeper.start(sweep, interval)

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper thread; ``True`` once it has ended (within ``timeout`` s)."""
        return self._sweeper.stop(timeout)

    # ------------------------------------------------------------------ ops
    def _namespace(self, namespace: tuple[str, ...]) -> str:
        return encode_namespace(tuple(namespace), self.prefix)

    def _get(self, op: GetOp) -> Item | None:
        namespace = tuple(op.namespace)
        name = self._namespace(namespace)
        moment = current_time(self.now)
        try:
            record = self.memory.get(str(op.key), namespace=name, now=moment)
        except MemoryNotFoundError:
            return None
        if op.refresh_ttl:
            refreshed(self.memory, [record], name, moment)
        return item_of(record, namespace)

    def _checked_put(self, op: PutOp) -> ItemWrite:
        """A put, checked and turned into what to write (nothing is written yet)."""
        namespace = tuple(op.namespace)
        if not namespace:
            raise InvalidNamespaceError("a put needs a non-empty namespace")
        name = self._namespace(namespace)
        if op.value is None:
            return ItemWrite(namespace, name, str(op.key), None, (), False)
        value, texts, indexed = prepared_value(str(op.key), op.value, op.index, self.fields)
        ttl = check_ttl(op.ttl)
        return ItemWrite(namespace, name, str(op.key), value, texts, indexed, ttl)

    def _apply(self, writes: list[ItemWrite]) -> None:
        """Apply a batch's puts in order: the puts of new keys in runs, one core call each
        (a user's twenty new items are one write, not twenty), a delete or a replacement
        alone, between them."""
        run: list[MemoryInput] = []
        for write in writes:
            moment = current_time(self.now)
            old = None if write.value is None else self._current(write, moment)
            if write.value is not None and old is None:
                run.append(self._input(write, None, moment))
                continue
            self._add_new(run)
            run = []
            self._write(write, old, moment)
        self._add_new(run)

    def _current(self, write: ItemWrite, moment: datetime) -> MemoryRecord | None:
        """The item stored under the write's key (an expired one is deleted: it is gone)."""
        try:
            return self.memory.get(write.key, namespace=write.name, now=moment)
        except MemoryNotFoundError:
            with contextlib.suppress(MemoryNotFoundError):
                self.memory.delete(write.key, namespace=write.name)
            return None

    def _input(self, write: ItemWrite, old: MemoryRecord | None, moment: datetime) -> MemoryInput:
        created = item_of(old, write.namespace).created_at if old else moment
        return MemoryInput(
            text=write.text,
            memory_type=self.memory_type,
            importance=self.importance,
            created_at=moment,
            id=write.key,
            metadata=item_metadata(write, created),
            namespace=write.name,
            session_id=self.session_id,
            expires_at=expiry(moment, write.ttl),
        )

    def _add_new(self, items: list[MemoryInput]) -> None:
        """Store items under keys not stored, in one core call at the last one's time (all or
        none)."""
        if not items:
            return
        stored = self.memory.add_many(items, now=items[-1].created_at)
        if stored != [item.id for item in items]:
            raise CogmemError(
                f"the core stored items {[i.id for i in items]!r} under ids {stored!r}; "
                "CognitiveMemoryStore needs the memory id to be the key"
            )

    def _write(self, write: ItemWrite, old: MemoryRecord | None, moment: datetime) -> None:
        """A delete, or a put that replaces a stored item (which comes back if the put fails:
        a failed put loses nothing)."""
        key, name = write.key, write.name
        if write.value is None:
            with contextlib.suppress(MemoryNotFoundError):
                self.memory.delete(key, namespace=name)
            return
        if old is not None:
            self.memory.delete(key, namespace=name)
        try:
            self._add_new([self._input(write, old, moment)])
        except Exception:
            if old is not None:  # put the previous version back
                self.memory.add_many([MemoryInput.of(old)], now=moment)
            raise

    def _store_namespaces(
        self,
        under: tuple[str, ...],
        keep: Callable[[tuple[str, ...]], bool] | None = None,
        *,
        emptied: bool = False,
    ) -> list[tuple[str, tuple[str, ...]]]:
        """(cogmem name, LangGraph namespace) of this store's namespaces under the labels
        ``under`` that ``keep`` selects and that hold items (or held them, with ``emptied``),
        sorted by namespace. The core lists only names that start as ``under`` encodes (found
        by bisection), and only selected namespaces are counted (which loads their index): a
        search under one user's prefix touches that user's namespaces alone, however many
        users the store holds."""
        found = []
        head = encode_namespace(under, self.prefix)
        for name in self.memory.namespaces(head):
            if under and name != head and not name.startswith(f"{head}/"):
                continue  # ("users", "alice") under ("users", "al")
            if name not in self._decoded:  # decoding costs ~15 µs a name: once each
                self._decoded[name] = decode_namespace(name, self.prefix)
            namespace = self._decoded[name]
            if namespace is None or namespace[: len(under)] != under:
                continue
            if keep is not None and not keep(namespace):
                continue
            if emptied or self.memory.count(name) > 0:
                found.append((name, namespace))
        return sorted(found, key=lambda pair: pair[1])

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = tuple(op.match_conditions or ())
        for condition in conditions:
            check_labels(tuple(c for c in condition_path(condition) if c != "*"))
        limit, offset = _check_page(op.limit, op.offset)
        namespaces = [
            ns
            for _, ns in self._store_namespaces(
                _literal_head(conditions),
                lambda ns: all(matches_condition(c, ns) for c in conditions),
                emptied=True,
            )
        ]
        if op.max_depth is not None:
            if isinstance(op.max_depth, bool) or not isinstance(op.max_depth, int):
                raise InvalidTypeError("max_depth must be an int")
            if op.max_depth < 1:
                raise InvalidInputError(f"max_depth must be >= 1, got {op.max_depth}")
            namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
        return namespaces[offset : offset + limit]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        check_labels(prefix)
        limit, offset = _check_page(op.limit, op.offset)
        filter = check_filter(op.filter)
        if op.query is not None and not isinstance(op.query, str):
            raise InvalidTypeError(f"query must be a str, got {type(op.query).__name__}")
        if limit == 0:
            return []
        targets = self._store_namespaces(prefix)
        if not targets:
            return []
        moment = current_time(self.now)
        if op.query is None or not op.query.strip():
            found = self._list_items(targets, filter, limit, offset, moment)
        else:
            found = self._query(op.query, targets, filter, limit, offset, moment)
        if op.refresh_ttl:
            self._refresh([record for _, record in found], moment)
        return [item for item, _ in found]

    def _refresh(self, records: Sequence[MemoryRecord], moment: datetime) -> None:
        """Move the expiry of the memories read that carry a TTL to ``moment + ttl``."""
        by_name: dict[str, list[MemoryRecord]] = {}
        for record in records:
            by_name.setdefault(record.namespace, []).append(record)
        for name, held in by_name.items():
            refreshed(self.memory, held, name, moment)

    def _list_items(
        self,
        targets: list[tuple[str, tuple[str, ...]]],
        filter: dict[str, Any] | None,
        limit: int,
        offset: int,
        moment: datetime,
    ) -> list[tuple[SearchItem, MemoryRecord]]:
        return [
            (_listed(i), record)
            for i, record in self._in_order(targets, filter, moment)[offset : offset + limit]
        ]

    def _in_order(
        self,
        targets: list[tuple[str, tuple[str, ...]]],
        filter: dict[str, Any] | None,
        moment: datetime,
        unindexed_only: bool = False,
    ) -> list[tuple[Item, MemoryRecord]]:
        """The items that pass ``filter`` (with their memories), in the order their keys were
        first put (as ``InMemoryStore`` lists them): namespaces by their first item, then items
        by when their key was first put (a re-put keeps its place; a delete and put moves it
        last)."""
        statuses = ("active", "superseded") if self.deep_recall else ("active",)
        groups = []
        for name, namespace in targets:
            records = self.memory.records(name)  # formation order breaks ties
            items = [(item_of(r, namespace), position, r) for position, r in enumerate(records)]
            if not items:
                continue
            first = min(item.created_at for item, _, _ in items)
            kept = sorted(
                (
                    (item.created_at, position, item, r)
                    for item, position, r in items
                    if r.status in statuses
                    and not r.expired(moment)
                    and (not unindexed_only or r.metadata.get(UNINDEXED) is True)
                    and matches_filter(item.value, filter)
                ),
                key=lambda entry: entry[:2],
            )
            groups.append((first, namespace, [(item, r) for _, _, item, r in kept]))
        groups.sort(key=lambda group: group[:2])
        return [pair for _, _, pairs in groups for pair in pairs]

    def _query(
        self,
        query: str,
        targets: list[tuple[str, tuple[str, ...]]],
        filter: dict[str, Any] | None,
        limit: int,
        offset: int,
        moment: datetime,
    ) -> list[tuple[SearchItem, MemoryRecord]]:
        pushed, exact = pushdown(filter)
        pushed[UNINDEXED] = {"$ne": True}
        want = offset + limit
        # One namespace, first page, whole filter applied by the core: the core's result is
        # exactly the answer, and its own reinforcement touches exactly what is returned.
        single = len(targets) == 1 and offset == 0 and exact
        found: list[tuple[SearchResult, tuple[str, ...], str, Item]] = []
        for name, namespace in targets:
            results = self.memory.search(
                query,
                **search_settings(
                    self,
                    top_k=want if exact else max(want, self.memory.count(name)),
                    filters=pushed,
                    now=moment,
                    reinforce=self.reinforce if single else False,
                    namespace=name,
                    passages=self._passages,
                ),
            )
            for result in results:
                item = item_of(result.memory, namespace)
                if matches_filter(item.value, filter):
                    found.append((result, namespace, name, item))
        found.sort(key=lambda f: -f[0].score)  # stable: each namespace's order is kept
        page = found[offset : offset + limit]
        if not single and page and self._reinforcing():
            self._reinforce_page(query, page, moment)
        scored: list[tuple[SearchItem, MemoryRecord]] = [
            (
                CognitiveSearchItem(
                    namespace,
                    item.key,
                    item.value,
                    item.created_at,
                    item.updated_at,
                    score=result.score,
                    explanation=result.explanation.as_dict(),
                ),
                result.memory,
            )
            for result, namespace, _, item in page
        ]
        if len(found) >= offset + limit:
            return scored
        # As InMemoryStore: the items no query can score (index=False, or nothing at the
        # index paths) fill the rest, score None, in the order they were put.
        rest = self._in_order(targets, filter, moment, unindexed_only=True)
        skip = max(0, offset - len(found))
        return scored + [(_listed(i), r) for i, r in rest[skip : skip + limit - len(scored)]]

    def _reinforcing(self) -> bool:
        if self.reinforce is not None:
            return bool(self.reinforce)
        return bool(self.memory.config.reinforce_on_search)

    def _reinforce_page(
        self,
        query: str,
        page: list[tuple[SearchResult, tuple[str, ...], str, Item]],
        moment: datetime,
    ) -> None:
        """Reinforce exactly the items returned (the search above reinforced nothing)."""
        del query  # the memories are named directly; no second search
        by_name: dict[str, list[str]] = {}
        for result, _, name, _ in page:
            by_name.setdefault(name, []).append(result.memory.id)
        for name, ids in by_name.items():
            self.memory.reinforce(ids, namespace=name, now=moment, session_id=self.session_id)


def _literal_head(conditions: Sequence[MatchCondition]) -> tuple[str, ...]:
    """The labels every namespace the conditions match starts with: the longest run of
    literal labels (no ``*``) at the start of a prefix condition."""
    head: tuple[str, ...] = ()
    for condition in conditions:
        if condition.match_type != "prefix":
            continue
        path = condition_path(condition)
        literal = tuple(itertools.takewhile(lambda label: label != "*", path))
        if len(literal) > len(head):
            head = literal
    return head


def _listed(item: Item) -> SearchItem:
    """An item as a search without a score lists it."""
    return CognitiveSearchItem(
        item.namespace, item.key, item.value, item.created_at, item.updated_at
    )


def _check_page(limit: object, offset: object) -> tuple[int, int]:
    return check_int(limit, "limit", low=0), check_int(offset, "offset", low=0)
