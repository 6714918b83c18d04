"""The write path before anything is written: inputs become checked records, are embedded, and
write-time dedup decides what each write does.

::

    MemoryInput | dict | str  --to_record-->  MemoryRecord      (every field checked)
    texts                     --embed------>  vectors           (a progress bar when many)
    records + vectors         --plan_writes-> WritePlan         (cogmem.dedup over the call)

Nothing here writes: :class:`~cogmem.CognitiveMemory` stores what the plan says, under its
lock. Dedup compares each write whose id cogmem generates with its nearest stored memories
(one batched query per namespace) and with the earlier inputs of the same call.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

import numpy as np

from .checks import (
    check_bool,
    check_int,
    check_name,
    check_text,
    check_unit_interval,
    check_user_metadata,
    ensure_aware,
    suggest,
)
from .clients import DEFAULT_NAMESPACE
from .config import CognitiveMemoryConfig
from .dedup import Judge, Neighbour, Relate, decide
from .embedding import Embedder, embed_texts
from .errors import DuplicateIdError, EmbedderError, InvalidInputError, InvalidTypeError
from .judges import judged
from .lexical import Tokenizer
from .namespace import Namespace
from .neighbours import earlier_neighbours, stored_neighbours
from .records import MEMORY_TYPES, STATUSES, MemoryRecord, WriteOutcome
from .retention import initial_stability
from .store import FloatArray
from .table import RecordTable
from .type_reading import Classify, TypeReading, start_reading
from .versions import Versions

__all__ = [
    "Intake",
    "MemoryFields",
    "MemoryInput",
    "WritePlan",
    "check_record",
    "embed",
    "embed_given",
    "plan_writes",
    "refuse_repeats",
    "restorable",
    "take_in",
    "to_record",
]

# A progress bar over the embedding beyond this many memories, updated per chunk.
_PROGRESS_OVER = 1000
_PROGRESS_CHUNK = 256


class MemoryFields(TypedDict, total=False):
    """The fields of a memory to add, besides its text (see :meth:`CognitiveMemory.add`)."""

    memory_type: str | None
    importance: float | None
    confidence: float | None
    tags: Sequence[str]
    created_at: datetime | None
    id: str | None
    metadata: Mapping[str, Any] | None
    namespace: str
    pinned: bool
    session_id: str | None
    expires_at: datetime | None


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
    expires_at: datetime | None = None

    @classmethod
    def of(cls, record: MemoryRecord) -> MemoryInput:
        """The input that stores ``record``'s text and fields again (as a new memory: its
        stability, recalls, links and relations start afresh; the last session is kept)."""
        return cls(
            text=record.text,
            memory_type=record.memory_type,
            importance=record.importance,
            confidence=record.confidence,
            tags=record.tags,
            created_at=record.created_at,
            id=record.id,
            metadata=dict(record.metadata),
            namespace=record.namespace,
            pinned=record.pinned,
            session_id=record.session_ids[-1] if record.session_ids else None,
            expires_at=record.expires_at,
        )


_INPUT_FIELDS = frozenset(MemoryInput.__dataclass_fields__)


def to_record(
    label: str,
    item: MemoryInput | Mapping[str, Any] | str,
    now: datetime,
    config: CognitiveMemoryConfig,
    classify: Callable[[str], str] | None = None,
) -> tuple[MemoryRecord, bool]:
    """The record an input describes, and whether its id was given (not generated).

    ``label`` starts every error message: ``"item 3: "`` in a batch, ``""`` for one write.
    An input without a type takes ``config.default_memory_type``; ``"auto"`` (the default)
    asks ``classify`` (text -> type; :meth:`cogmem.versions.Versions.memory_type`), and
    without one takes ``episodic``.

    Raises:
        InvalidInputError / InvalidTypeError: A field is missing, unknown or wrong (named).
    """
    if isinstance(item, str):
        item = MemoryInput(text=item)
    elif isinstance(item, Mapping):
        unknown = sorted(set(item) - _INPUT_FIELDS)
        if unknown:
            hints = ", ".join(f"{u!r}{suggest(u, _INPUT_FIELDS)}" for u in unknown)
            raise InvalidInputError(
                f"{label}unknown field(s) {hints}; the fields are "
                f"{', '.join(sorted(_INPUT_FIELDS))}"
            )
        if "text" not in item:
            raise InvalidInputError(f"{label}missing 'text'")
        item = MemoryInput(**item)
    elif not isinstance(item, MemoryInput):
        raise InvalidTypeError(
            f"{label}expected str, dict or MemoryInput, got {type(item).__name__}"
        )
    text = check_text(item.text, f"{label}text")
    memory_type = item.memory_type if item.memory_type is not None else config.default_memory_type
    if memory_type == "auto" and item.memory_type is None:
        memory_type = classify(text) if classify is not None else "episodic"
    if memory_type not in MEMORY_TYPES:
        raise InvalidInputError(
            f"{label}memory_type must be one of {', '.join(MEMORY_TYPES)}; got {memory_type!r}"
        )
    importance = check_unit_interval(
        config.default_importance if item.importance is None else item.importance,
        f"{label}importance",
    )
    confidence = check_unit_interval(
        config.default_confidence if item.confidence is None else item.confidence,
        f"{label}confidence",
    )
    if isinstance(item.tags, str) or not isinstance(item.tags, (list, tuple)):
        raise InvalidTypeError(f"{label}tags must be a list of str")
    tags = tuple(dict.fromkeys(check_name(t, f"{label}tag") for t in item.tags))
    created_at = (
        now if item.created_at is None else ensure_aware(item.created_at, f"{label}created_at")
    )
    memory_id = str(uuid.uuid4()) if item.id is None else check_name(item.id, f"{label}id")
    session = None if item.session_id is None else check_name(item.session_id, f"{label}session_id")
    record = MemoryRecord(
        id=memory_id,
        text=text,
        memory_type=memory_type,
        importance=importance,
        confidence=confidence,
        stability=initial_stability(importance, config),
        created_at=created_at,
        session_ids=() if session is None else (session,),
        pinned=check_bool(item.pinned, f"{label}pinned"),
        tags=tags,
        namespace=check_name(item.namespace, f"{label}namespace"),
        metadata=check_user_metadata(item.metadata),
        expires_at=None
        if item.expires_at is None
        else ensure_aware(item.expires_at, f"{label}expires_at"),
    )
    return record, item.id is not None


def check_record(position: int, record: object) -> MemoryRecord:
    """A record handed to :meth:`CognitiveMemory.restore`, every field checked.

    Raises:
        InvalidInputError / InvalidTypeError: A field is wrong (names the record and field).
    """
    where = f"record {position}"
    if not isinstance(record, MemoryRecord):
        raise InvalidTypeError(f"{where}: expected MemoryRecord, got {type(record).__name__}")
    check_text(record.text, f"{where}: text")
    check_name(record.id, f"{where}: id")
    check_name(record.namespace, f"{where}: namespace")
    if record.memory_type not in MEMORY_TYPES:
        raise InvalidInputError(f"{where}: unknown memory_type {record.memory_type!r}")
    if record.status not in STATUSES:
        raise InvalidInputError(f"{where}: unknown status {record.status!r}")
    for name in ("importance", "confidence", "stability"):
        check_unit_interval(getattr(record, name), f"{where}: {name}")
    ensure_aware(record.created_at, f"{where}: created_at")
    for name in ("last_accessed_at", "links_updated_at", "expires_at"):
        value = getattr(record, name)
        if value is not None:
            ensure_aware(value, f"{where}: {name}")
    check_int(record.access_count, f"{where}: access_count", low=0)
    for tag in record.tags:
        check_name(tag, f"{where}: tag")
    for other in record.contradicts:
        check_name(other, f"{where}: contradicts")
    if record.previous_version is not None:
        check_name(record.previous_version, f"{where}: previous_version")
    for other, weight in record.links.items():
        check_name(other, f"{where}: link")
        check_unit_interval(weight, f"{where}: links[{other!r}]")
    check_user_metadata(record.metadata)
    return record


def restorable(
    records: object, vectors: object, embedder: Embedder, progress: bool | None
) -> tuple[list[MemoryRecord], FloatArray, str]:
    """Records handed to :meth:`CognitiveMemory.restore`, checked, with their vectors (given,
    or embedded with ``embedder``) and how a width error names those vectors.

    Raises:
        InvalidTypeError / InvalidInputError: A record or vector is malformed (named).
        DuplicateIdError: An id is given twice in one namespace.
    """
    if isinstance(records, (str, bytes, MemoryRecord)) or not isinstance(records, Iterable):
        raise InvalidTypeError("restore takes an iterable of MemoryRecord")
    checked = [check_record(i, r) for i, r in enumerate(records)]
    if not checked:
        return [], np.zeros((0, 0), np.float32), ""
    refuse_repeats(checked)
    texts = [r.text for r in checked]
    if vectors is not None:
        return checked, embed_given(vectors, texts), "the vectors given"
    return checked, embed(embedder, texts, progress), "the embedder's vectors"


@dataclass(frozen=True)
class Intake:
    """A call's inputs, checked and embedded, their types maybe still being read.

    Attributes:
        records: The inputs as records; one given no type has the default until
            :attr:`reading` settles it.
        vectors: Their embeddings, one row each.
        chosen: The ids the caller chose (generated ids are fresh uuid4s: only chosen ones can
            be stored already).
        reading: The types of the inputs given none (``default_memory_type="auto"``), being
            read; ``None`` when there are none to read.
    """

    records: list[MemoryRecord]
    vectors: FloatArray
    chosen: set[str]
    reading: TypeReading | None = None


def take_in(
    items: Sequence[MemoryInput | Mapping[str, Any] | str],
    now: datetime,
    config: CognitiveMemoryConfig,
    embedder: Embedder,
    progress: bool | None,
    *,
    batch: bool,
    classify: Classify | None = None,
) -> Intake:
    """Items handed to :meth:`CognitiveMemory.write_many`, checked and embedded, the texts
    given no type read (``classify``, when the default type is ``auto``) on a thread of their
    own meanwhile (:mod:`cogmem.type_reading`). Error messages name the item only in a
    ``batch``.

    Raises:
        InvalidTypeError / InvalidInputError: An item is malformed (nothing is embedded).
        DuplicateIdError: An id is given twice in one namespace.
    """
    made = [
        to_record(f"item {i}: " if batch else "", item, now, config, _undecided)
        for i, item in enumerate(items)
    ]
    refuse_repeats([r for r, _ in made])
    untyped: list[tuple[int, str]] = []
    if classify is not None and config.default_memory_type == "auto":
        untyped = [(i, r.text) for i, (r, _) in enumerate(made) if _names_no_type(items[i])]
    # started once the items are checked: a malformed one starts no parse to wait for
    reading = (
        start_reading(classify, [t for _, t in untyped], [i for i, _ in untyped])
        if classify and untyped
        else None
    )
    try:
        vectors = embed(embedder, [r.text for r, _ in made], progress) if made else None
    except BaseException:
        if reading is not None:
            reading.abandon()  # the input's error is the one to raise; the read is not needed
        raise
    if vectors is None:
        return Intake([], np.zeros((0, 0), np.float32), set())
    chosen = {r.id for r, given in made if given}
    return Intake([r for r, _ in made], vectors, chosen, reading)


def _undecided(text: str) -> str:
    """The type of a text written with none, until it is read: the default before ``auto``."""
    return "episodic"


def _names_no_type(item: object) -> bool:
    """Whether a well-formed input leaves its memory type to the default."""
    if isinstance(item, MemoryInput):
        return item.memory_type is None
    if isinstance(item, Mapping):
        return item.get("memory_type") is None
    return True  # a plain string


def refuse_repeats(records: Sequence[MemoryRecord]) -> None:
    """Raise :class:`DuplicateIdError` if one call names an id twice in one namespace."""
    keys = [(r.namespace, r.id) for r in records]
    if len(set(keys)) != len(keys):
        dupes = sorted({k[1] for k in keys if keys.count(k) > 1})
        raise DuplicateIdError(f"ids given more than once in one call: {dupes}")


def embed(embedder: Embedder, texts: list[str], progress: bool | None) -> FloatArray:
    """``texts`` embedded; in chunks under a tqdm bar when there are many (or asked).

    Args:
        embedder: The memory's embedder.
        texts: What to embed.
        progress: ``True``/``False`` forces the bar on/off; ``None``: on a terminal, for more
            than 1,000 texts.
    """
    show = len(texts) > _PROGRESS_OVER if progress is None else progress
    if not show:
        return embed_texts(embedder, texts)
    from tqdm.auto import tqdm

    parts: list[FloatArray] = []
    # Asked for: always shown; by default: only on a terminal (tqdm's disable=None).
    hidden = None if progress is None else False
    with tqdm(total=len(texts), desc="embedding", unit="memory", disable=hidden) as bar:
        for start in range(0, len(texts), _PROGRESS_CHUNK):
            chunk = texts[start : start + _PROGRESS_CHUNK]
            parts.append(embed_texts(embedder, chunk))
            bar.update(len(chunk))
    return np.concatenate(parts) if parts else embed_texts(embedder, texts)


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


def embed_given(vectors: object, texts: list[str]) -> FloatArray:
    """Vectors given with ``texts`` (e.g. from an export), checked as an embedder's would be.

    Raises:
        InvalidInputError: Not one finite row of one width per text.
    """
    try:
        return embed_texts(_Given(vectors), texts)
    except EmbedderError as exc:
        raise InvalidInputError(str(exc).replace("given vectors returned", "vectors:")) from exc


# ---------------------------------------------------------------------- write-time dedup
@dataclass(frozen=True)
class WritePlan:
    """What one call's writes do, decided before anything is written.

    Attributes:
        records: The inputs as they are to be stored (``previous_version`` set where they
            update a memory; an earlier input that later ones restate, with those merged in).
        outcomes: Every input's outcome, in input order.
        rewritten: Per namespace, the stored memories to write back (restated ones, merged
            from the index's records: their recalls not yet written come with them).
    """

    records: list[MemoryRecord]
    outcomes: list[WriteOutcome]
    rewritten: dict[str, list[MemoryRecord]]

    @property
    def new(self) -> list[int]:
        """The positions of the inputs to store as new memories (not merged)."""
        return [i for i, o in enumerate(self.outcomes) if o.action != "merged"]


def plan_writes(
    records: list[MemoryRecord],
    vectors: FloatArray,
    chosen: set[str],
    namespaces: Callable[[str], Namespace | None],
    config: CognitiveMemoryConfig,
    tokenizer: Tokenizer,
    judge: Judge | None = None,
    versions: Versions | None = None,
    *,
    version_judge: Judge | None = None,
    reading: TypeReading | None = None,
) -> WritePlan:
    """Write-time dedup (:func:`cogmem.dedup.decide`) over one call, deciding only.

    Args:
        records: The call's inputs as records.
        vectors: Their embeddings, one row each.
        chosen: The ids the caller chose (never merged; linked as versions only by what the
            texts say).
        namespaces: The namespace of a name, ``None`` if it does not exist yet.
        config: The dedup thresholds.
        tokenizer: The store's BM25 tokenizer.
        judge: Asked about pairs the words alone cannot settle.
        versions: What two statements are about (:mod:`cogmem.versions`); ``None``: words
            only.
        version_judge: Asked whether a write updates a stored memory where the reading of
            the two is unsure (:func:`cogmem.judges.judged`).
        reading: The types of the inputs given none, being read (:func:`take_in`): settled
            once the stored neighbours are found, which does not need them.
    """
    outcomes = [WriteOutcome(r.id, "stored") for r in records]
    records = list(records)
    dedup = config.dedup_threshold is not None
    # found while the types are read: any input dedup may compare
    maybe = [i for i, r in enumerate(records) if r.id not in chosen or versions is not None]
    stored_near = stored_neighbours(records, vectors, maybe, namespaces) if dedup else {}
    read_types: set[str] = set()
    if reading is not None:
        records, read_types = reading.settle(records)
    # A caller-chosen id is never merged: it is stored as itself, and may only be linked as
    # the newer version of a memory it updates, when what the two say shows it (slots).
    rows = [
        i
        for i, r in enumerate(records)
        if r.id not in chosen or (versions is not None and r.memory_type != "episodic")
    ]
    if not dedup or not rows:
        return WritePlan(records, outcomes, {})
    batch_near = earlier_neighbours(records, vectors, rows, tokenizer)
    views: dict[str, _CallView] = {}
    for record in records:  # the call's inputs, as undecided so far
        if record.namespace not in views:
            found = namespaces(record.namespace)
            views[record.namespace] = _CallView(found.records if found is not None else None)
        views[record.namespace].put(record, stored=False)
    row_of = {r.id: i for i, r in enumerate(records)}
    relate: Relate | None = versions.relate if versions is not None else None
    if relate is not None and version_judge is not None:
        relate = judged(relate, version_judge, config.dedup_candidate_similarity)
    if versions is not None:  # every text the call compares, parsed in one batch
        texts = [records[i].text for i in rows]
        for i in rows:
            texts += [
                held.text
                for other, _ in stored_near.get(i, ())
                if (held := views[records[i].namespace].get(other)) is not None
            ]
        versions.prepare(texts)
    for i in rows:
        record = records[i]
        view = views[record.namespace]
        near: dict[str, Neighbour] = {}
        for other, similarity in stored_near.get(i, ()):
            held = view.get(other)
            if held is not None:
                near[other] = Neighbour(held, similarity)
        for j, similarity in batch_near.get(i, ()):
            target = outcomes[j].id  # an earlier input, or what it was merged into
            held = view.get(target)
            if held is not None and target not in near:
                near[target] = Neighbour(held, similarity)
        decision = decide(
            record,
            list(near.values()),
            config,
            tokenizer,
            judge,
            view.newer_versions,
            relate,
            chosen=record.id in chosen,
            type_read=record.id in read_types,
            spell=versions.spelled if versions is not None else None,
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
    return WritePlan(records, outcomes, {ns: held for ns, held in changed.items() if held})


class _CallView:
    """The memories of one namespace as one call has decided them so far: the index's
    records, with the stored memories the call merged into or relinked and its own earlier
    inputs on top (nothing here is written until the call has decided everything).

    Args:
        table: The namespace's records (``None``: a namespace not created yet).
    """

    def __init__(self, table: RecordTable | None) -> None:
        self._table = table
        self._read: dict[str, MemoryRecord | None] = {}  # the table's records, built once
        self._over: dict[str, MemoryRecord] = {}
        self._stored: set[str] = set()  # ids of stored memories in _over
        self._newer: dict[str, set[str]] = {}  # previous_version -> ids, among _over

    def get(self, memory_id: str) -> MemoryRecord | None:
        """The memory as the call sees it."""
        if memory_id in self._over:
            return self._over[memory_id]
        if self._table is None:
            return None
        if memory_id not in self._read:
            self._read[memory_id] = self._table.get(memory_id)
        return self._read[memory_id]

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
