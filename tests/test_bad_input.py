"""Bad input, end to end: every public write and read either works or raises a named
:class:`~cogmem.CogmemError`, and a rejected call leaves the store exactly as it was.

Hypothesis draws arguments for ``add``, ``add_many``, ``search`` (with filters) and ``restore``
from wide strategies: arbitrary unicode, empty and whitespace text, control characters, a 1 MB
text, NaN and infinities, naive, ancient and far-future datetimes, unknown filter operators,
duplicate ids and wrong types. After each call the test compares a full snapshot (every Chroma
record with its metadata and vector, and ``memories()`` of every namespace) with the one taken
before: unchanged after a rejection; after a success, what Chroma holds must decode to exactly
what the process serves.

A few inputs once broke this contract (lone surrogates, instants that overflow or fall outside
1700-2200, ints beyond 64 bits, floats Chroma rounds); the tests at the end pin each one.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cogmem import (
    CogmemError,
    CognitiveMemory,
    DuplicateIdError,
    EmbedderError,
    InvalidInputError,
    InvalidTypeError,
    MemoryInput,
    MemoryRecord,
)
from cogmem.chroma_layout import from_chroma
from cogmem.testing import HashingEmbedder
from tests import internals
from tests.conftest import NOW

# COGMEM_BAD_INPUT_EXAMPLES=500 for a longer hunt; CI runs the modest default.
SETTINGS = settings(
    max_examples=int(os.environ.get("COGMEM_BAD_INPUT_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# --- the store and its snapshot ------------------------------------------------------------------


@pytest.fixture
def memory() -> Iterator[CognitiveMemory]:
    """An in-process store with a few memories in two namespaces (ids ``seed-0`` ...)."""
    with CognitiveMemory(embedder=HashingEmbedder()) as mem:
        mem.add_many(
            [
                MemoryInput(
                    text=f"seed memory {i} about tea and trains",
                    id=f"seed-{i}",
                    tags=["seed"],
                    metadata={"n": i, "kind": "seed"},
                    namespace="default" if i < 3 else "other",
                )
                for i in range(5)
            ],
            now=NOW,
        )
        yield mem


def snapshot(mem: CognitiveMemory) -> dict[str, Any]:
    """Every Chroma record (id, text, metadata, vector) and every served memory, by namespace."""
    out: dict[str, Any] = {}
    for ns in mem.namespaces():
        store = internals.store(mem, ns)
        if store is None:
            continue
        got = store.collection.get(include=["documents", "metadatas", "embeddings"])
        rows = sorted(
            zip(
                got["ids"],
                got["documents"],
                [sorted(m.items()) for m in got["metadatas"]],
                [np.asarray(v, dtype=np.float32).tobytes() for v in got["embeddings"]],
            )
        )
        served = mem.memories(namespace=ns, deep_recall=True)
        if rows or served:
            out[ns] = (rows, served)
    return out


def check_consistent(mem: CognitiveMemory) -> None:
    """What Chroma holds decodes to exactly what the process serves, namespace by namespace,
    once what is written behind (recalls, and merges that only reinforce) is written."""
    for ns in mem.namespaces():
        internals.namespace(mem, ns).write_recalls()
        store = internals.store(mem, ns)
        if store is None:
            continue
        got = store.collection.get(include=["documents", "metadatas"])
        stored = {
            i: from_chroma(i, d, m)
            for i, d, m in zip(got["ids"], got["documents"], got["metadatas"])
        }
        served = {m.id: m for m in mem.memories(namespace=ns, deep_recall=True)}
        assert set(stored) == set(served), f"namespace {ns!r}: Chroma and the process disagree"
        for i, record in stored.items():
            differ = {
                f: (getattr(record, f), getattr(served[i], f))
                for f in record.__dataclass_fields__
                if getattr(record, f) != getattr(served[i], f)
            }
            assert not differ, f"{ns!r}/{i!r}: Chroma has, the process serves: {differ}"


def attempt(mem: CognitiveMemory, call: Any) -> tuple[Any, BaseException | None]:
    """Run ``call``; a rejection must be a CogmemError and change nothing."""
    before = snapshot(mem)
    try:
        result = call()
    except CogmemError as exc:
        event(f"refused: {type(exc).__name__}")
        assert snapshot(mem) == before, f"rejected with {exc!r} but the store changed"
        return None, exc
    event("works")
    return result, None


# --- strategies ----------------------------------------------------------------------------------
# Each argument is valid most of the time and bad some of the time, so that a call with several
# arguments is often accepted (and its effect checked) and often refused (and its absence).

UTC = timezone.utc
T = Any


def mostly(valid: st.SearchStrategy[T], bad: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    """``valid`` four times in five, else ``bad``."""
    return st.integers(0, 4).flatmap(lambda n: valid if n else bad)


# Unicode without lone surrogates (see test_lone_surrogates_*); control characters included.
unicode_text = st.text(st.characters(codec="utf-8"), max_size=40)
names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)
texts = mostly(
    st.one_of(
        unicode_text.filter(str.strip),
        st.sampled_from(["\x00", "\x00\x01\x1f text", "\u200b", "tea and trains"]),
        st.text(st.characters(max_codepoint=0x1F), min_size=1, max_size=5).filter(str.strip),
        st.just("word " * 200_000),  # 1 MB
    ),
    st.one_of(
        st.sampled_from(["", " ", "\t\n", "\u00a0\u3000"]),
        st.integers(),
        st.none(),
        st.binary(max_size=5),
    ),
)
unit = mostly(
    st.one_of(st.floats(0, 1), st.sampled_from([0, 1])),
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-2, 2),
        st.booleans(),
        st.text(max_size=3),
    ),
)
offsets = st.sampled_from(
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
)
# Aware datetimes: to the microsecond over the accepted range (1700-2200 UTC) and whole seconds
# from year 2 to 9000 (ancient and far future: refused by name).
aware = st.one_of(
    st.datetimes(
        min_value=datetime(1700, 1, 2), max_value=datetime(2199, 12, 31), timezones=offsets
    ),
    st.datetimes(
        min_value=datetime(2, 1, 1), max_value=datetime(9000, 1, 1), timezones=offsets
    ).map(lambda d: d.replace(microsecond=0)),
)
datetimes = mostly(
    st.one_of(aware, st.just(NOW)),
    st.one_of(
        st.datetimes(min_value=datetime(2, 1, 1), max_value=datetime(9000, 1, 1)),  # naive
        st.text(max_size=10),
        st.floats(),
    ),
)
# Scalars: ints within int64 (beyond: refused by name), any finite float (kept exactly).
scalars = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    unicode_text,
)
metadata = mostly(
    st.one_of(st.none(), st.dictionaries(names, scalars, max_size=3)),
    st.one_of(
        st.dictionaries(names, st.sampled_from([math.nan, math.inf, -math.inf]), min_size=1),
        st.dictionaries(names, st.one_of(st.lists(st.integers()), st.none()), min_size=1),
        st.just({"": 1}),
        st.dictionaries(st.integers(), st.integers(), min_size=1, max_size=1),
        st.lists(st.integers(), max_size=2),
    ),
)
tags = mostly(
    st.lists(names, max_size=3),
    st.one_of(names, st.just([""]), st.lists(st.integers(), min_size=1, max_size=2), st.none()),
)
ids = mostly(
    st.one_of(st.none(), st.sampled_from(["seed-0", "seed-3", "fresh", "fresh"]), names),
    st.one_of(st.just(""), st.integers()),
)
namespaces = mostly(
    st.one_of(st.sampled_from(["default", "other", "new-ns"]), names),
    st.one_of(st.just(""), st.integers(), st.none()),
)
memory_types = mostly(
    st.one_of(st.none(), st.sampled_from(["episodic", "semantic", "procedural", "core"])),
    st.one_of(unicode_text, st.integers()),
)
add_kwargs = st.fixed_dictionaries(
    {"text": texts},
    optional={
        "memory_type": memory_types,
        "importance": mostly(st.one_of(st.none(), unit), unit),
        "confidence": mostly(st.one_of(st.none(), unit), unit),
        "tags": tags,
        "created_at": mostly(st.one_of(st.none(), datetimes), datetimes),
        "id": ids,
        "metadata": metadata,
        "namespace": namespaces,
        "pinned": mostly(st.booleans(), st.one_of(st.integers(0, 1), st.none())),
        "session_id": mostly(st.one_of(st.none(), names), st.one_of(st.just(""), st.integers())),
    },
)
items = mostly(
    st.one_of(texts, add_kwargs, st.builds(lambda kw: MemoryInput(**kw), add_kwargs)),
    st.one_of(
        add_kwargs.map(lambda kw: {**kw, "unknown_field": 1}),
        st.just({"memory_type": "semantic"}),  # no text
        st.integers(),
        st.none(),
    ),
)
operators = mostly(
    st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]),
    st.sampled_from(["$like", "$regex", "$and", "$contains", "eq", ""]),
)
operands = mostly(
    st.one_of(scalars, st.lists(scalars, min_size=1, max_size=3)),
    st.one_of(
        st.sampled_from([math.nan, math.inf]),
        st.just([]),
        st.none(),
        st.dictionaries(st.text(max_size=3), st.integers(), max_size=1),
    ),
)
user_filters = st.dictionaries(
    mostly(st.sampled_from(["n", "kind", "missing"]), st.one_of(unicode_text, st.integers())),
    mostly(
        st.one_of(scalars, st.dictionaries(operators, operands, min_size=1, max_size=2)),
        st.one_of(st.lists(scalars), st.none(), st.just({})),
    ),
    max_size=2,
)
filters = mostly(
    st.one_of(
        st.none(),
        user_filters,
        st.fixed_dictionaries(
            {},
            optional={
                "memory_type": mostly(
                    st.sampled_from(["episodic", "semantic", ["core", "episodic"]]),
                    st.one_of(memory_types, st.just([]), st.lists(unicode_text, max_size=2)),
                ),
                "tags": tags,
                "pinned": mostly(st.booleans(), st.one_of(st.integers(0, 1), st.text(max_size=2))),
                "created_after": datetimes,
                "created_before": datetimes,
            },
        ),
    ),
    st.one_of(st.text(max_size=5), st.lists(st.integers(), max_size=2)),
)
search_kwargs = st.fixed_dictionaries(
    {"query": texts},
    optional={
        "top_k": mostly(
            st.one_of(st.none(), st.integers(1, 50)),
            st.one_of(st.integers(-2, 0), st.booleans(), st.floats()),
        ),
        "token_budget": mostly(
            st.one_of(st.none(), st.integers(1, 500)), st.one_of(st.integers(-2, 0), st.floats())
        ),
        "filters": filters,
        "mode": mostly(
            st.one_of(st.none(), st.sampled_from(["dense", "lexical", "hybrid"])), unicode_text
        ),
        "deep_recall": mostly(st.booleans(), st.integers(0, 1)),
        "now": datetimes,
        "namespace": namespaces,
        "session_id": mostly(st.one_of(st.none(), names), st.one_of(st.just(""), st.integers())),
        "min_score": mostly(
            st.one_of(st.none(), st.floats(-1, 2), st.just(math.inf)),
            st.one_of(st.just(math.nan), st.text(max_size=2), st.booleans()),
        ),
        "diversity": st.booleans(),
    },
)

# --- properties ----------------------------------------------------------------------------------


@SETTINGS
@given(kwargs=add_kwargs, now=st.one_of(st.just(NOW), datetimes))
def test_add_works_or_is_refused_cleanly(
    memory: CognitiveMemory, kwargs: dict[str, Any], now: Any
) -> None:
    known = {
        m.id for ns in memory.namespaces() for m in memory.memories(namespace=ns, deep_recall=True)
    }
    new_id, error = attempt(memory, lambda: memory.add(**kwargs, now=now))
    if error is None:
        ns = kwargs.get("namespace", "default")
        stored = memory.get(new_id, namespace=ns)
        if new_id not in known:  # a new memory (not a write-time duplicate of a stored one)
            assert stored.text == kwargs["text"]
            assert dict(stored.metadata) == dict(kwargs.get("metadata") or {})
        check_consistent(memory)
    elif isinstance(error, InvalidTypeError):
        assert isinstance(error, TypeError)
    elif isinstance(error, InvalidInputError):
        assert isinstance(error, ValueError)


@SETTINGS
@given(batch=st.one_of(st.lists(items, max_size=6), st.text(max_size=3), st.integers(), st.none()))
def test_add_many_works_or_stores_nothing(memory: CognitiveMemory, batch: Any) -> None:
    # Lone surrogates and many namespaces together: see test_add_many_across_namespaces_*.
    result, error = attempt(memory, lambda: memory.add_many(batch, now=NOW))
    if error is None:
        assert isinstance(result, list) and len(result) == len(batch)
        check_consistent(memory)


@SETTINGS
@given(kwargs=search_kwargs)
def test_search_works_or_is_refused_and_never_writes_without_reinforce(
    memory: CognitiveMemory, kwargs: dict[str, Any]
) -> None:
    before = snapshot(memory)
    try:
        results = memory.search(**kwargs, reinforce=False)
    except CogmemError as exc:
        event(f"refused: {type(exc).__name__}")
    else:
        event("works" if results else "works: no result")
        assert isinstance(results, list)
        k = kwargs.get("top_k")
        assert len(results) <= (k if isinstance(k, int) and k > 0 else 10)
    assert snapshot(memory) == before


# Valid input only: what it returns is pinned (a search that always refused would fail here).
valid_text = unicode_text.filter(str.strip)
valid_now = st.datetimes(
    min_value=datetime(1700, 1, 2), max_value=datetime(2199, 12, 31), timezones=offsets
)
valid_search_kwargs = st.fixed_dictionaries(
    {"query": valid_text},
    optional={
        "top_k": st.integers(1, 50),
        "token_budget": st.one_of(st.none(), st.integers(1, 500)),
        "mode": st.sampled_from(["dense", "lexical", "hybrid"]),
        "deep_recall": st.booleans(),
        "now": valid_now,
        "namespace": st.sampled_from(["default", "other", "new-ns"]),
        "session_id": st.one_of(st.none(), names),
        "min_score": st.one_of(st.none(), st.floats(-1, 2)),
        "diversity": st.booleans(),
        "filters": st.one_of(st.none(), st.just({"memory_type": "semantic"})),
    },
)


@SETTINGS
@given(kwargs=valid_search_kwargs)
def test_valid_search_always_answers_best_first_within_top_k(
    memory: CognitiveMemory, kwargs: dict[str, Any]
) -> None:
    results = memory.search(**kwargs, reinforce=False)
    assert len(results) <= kwargs.get("top_k", 10)
    floor = kwargs.get("min_score")
    assert all(r.score >= (floor if floor is not None else 0.0) for r in results)
    if not kwargs.get("diversity") and kwargs.get("token_budget") is None:
        assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    ns = kwargs.get("namespace", "default")
    assert all(r.memory.namespace == ns for r in results)


@SETTINGS
@given(
    text=valid_text,
    memory_type=st.sampled_from(["episodic", "semantic", "procedural", "core"]),
    importance=st.floats(0, 1),
    tags=st.lists(names, max_size=3),
    created_at=valid_now,
)
def test_valid_add_always_stores_what_it_was_given(
    memory: CognitiveMemory,
    text: str,
    memory_type: str,
    importance: float,
    tags: list[str],
    created_at: datetime,
) -> None:
    outcome = memory.write(
        text,
        memory_type=memory_type,
        importance=importance,
        tags=tags,
        created_at=created_at,
        now=NOW,
    )
    stored = memory.get(outcome.id)
    if outcome.action != "merged":  # a restatement of a stored memory reinforces that one
        assert (stored.text, stored.memory_type, stored.importance) == (
            text,
            memory_type,
            importance,
        )
        assert set(tags) <= set(stored.tags)
        assert stored.created_at == created_at


@SETTINGS
@given(kwargs=search_kwargs)
def test_search_with_reinforcement_writes_only_what_it_returns(
    memory: CognitiveMemory, kwargs: dict[str, Any]
) -> None:
    before = {m.id: m for ns in memory.namespaces() for m in memory.memories(namespace=ns)}
    _, error = attempt(memory, lambda: memory.search(**kwargs))
    memory.flush()
    if error is None:
        check_consistent(memory)
    after = {m.id: m for ns in memory.namespaces() for m in memory.memories(namespace=ns)}
    assert set(after) == set(before)  # nothing added or dropped, whatever happened


@SETTINGS
@given(
    filters_=filters,
    deep=st.one_of(st.booleans(), st.integers(0, 1)),
    namespace=namespaces,
)
def test_listing_with_filters_works_or_is_refused(
    memory: CognitiveMemory, filters_: Any, deep: Any, namespace: Any
) -> None:
    before = snapshot(memory)
    try:
        listed = memory.memories(namespace=namespace, filters=filters_, deep_recall=deep)
    except CogmemError as exc:
        event(f"refused: {type(exc).__name__}")
    else:
        event("works" if listed else "works: none listed")
        assert all(isinstance(m, MemoryRecord) for m in listed)
    assert snapshot(memory) == before


records = st.builds(
    MemoryRecord,
    id=mostly(st.sampled_from(["seed-0", "r1", "r1", "r2", "r3"]), st.just("")),
    text=texts,
    created_at=mostly(aware, datetimes),
    memory_type=memory_types.filter(lambda t: t is not None),
    importance=unit,
    confidence=unit,
    stability=unit,
    last_accessed_at=mostly(st.one_of(st.none(), aware), datetimes),
    access_count=mostly(
        st.integers(0, 5), st.one_of(st.integers(-2, -1), st.floats(), st.booleans())
    ),
    status=mostly(st.sampled_from(["active", "superseded"]), unicode_text),
    pinned=st.booleans(),
    tags=mostly(st.lists(names, max_size=2).map(tuple), st.just(("",))),
    namespace=mostly(st.sampled_from(["default", "other", "restored"]), st.just("")),
    links=mostly(
        st.dictionaries(names, st.floats(0.01, 1), max_size=2),
        st.dictionaries(names, st.sampled_from([math.nan, 2.0, -1.0]), min_size=1, max_size=1),
    ),
    metadata=mostly(
        st.dictionaries(names, scalars, max_size=2),
        st.dictionaries(
            names,
            st.one_of(st.sampled_from([math.nan, math.inf]), st.lists(st.integers())),
            min_size=1,
            max_size=1,
        ),
    ),
)
vector_sets = mostly(
    st.none(),
    st.one_of(
        st.lists(
            st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=4),
            max_size=3,
        ),
        st.just("vectors"),
        st.integers(),
    ),
)


@SETTINGS
@given(batch=st.lists(records, max_size=3), vectors=vector_sets)
def test_restore_works_or_stores_nothing(
    memory: CognitiveMemory, batch: list[MemoryRecord], vectors: Any
) -> None:
    restored, error = attempt(memory, lambda: memory.restore(batch, vectors))
    if error is None:
        assert restored == [r.id for r in batch]
        for r in batch:
            assert memory.get(r.id, namespace=r.namespace) == r  # every field kept
        check_consistent(memory)


# --- a few hand-picked cases, each asserted exactly ---------------------------------------------


def test_awkward_but_valid_text_round_trips(memory: CognitiveMemory) -> None:
    for text in ("a\x00b", "\x01\x02 control", "emoji 🧠 and 中文 and عربي", "word " * 200_000):
        mid = memory.add(text, id=f"odd-{len(text)}-{ord(text[1])}", now=NOW)
        assert memory.get(mid).text == text
    check_consistent(memory)
    found = memory.search("emoji 中文", now=NOW, reinforce=False)
    assert "emoji 🧠 and 中文 and عربي" in [r.text for r in found]


def test_named_errors_for_classic_mistakes(memory: CognitiveMemory) -> None:
    before = snapshot(memory)
    cases: list[tuple[Any, type[CogmemError]]] = [
        (lambda: memory.add("   ", now=NOW), InvalidInputError),
        (lambda: memory.add("ok", importance=math.nan, now=NOW), InvalidInputError),
        (lambda: memory.add("ok", metadata={"x": math.inf}, now=NOW), InvalidInputError),
        (lambda: memory.add("ok", created_at=datetime(2026, 1, 1), now=NOW), InvalidInputError),
        (lambda: memory.add("ok", id="seed-0", now=NOW), DuplicateIdError),
        (
            lambda: memory.add_many([{"text": "a", "id": "d"}, {"text": "b", "id": "d"}]),
            DuplicateIdError,
        ),
        (lambda: memory.search("tea", filters={"n": {"$regex": "x"}}, now=NOW), InvalidInputError),
        (lambda: memory.search("tea", filters={"n": {"$in": []}}, now=NOW), InvalidTypeError),
        (lambda: memory.search("tea", now=datetime(2026, 1, 1)), InvalidInputError),
        (lambda: memory.search("tea", top_k=True, now=NOW), InvalidTypeError),
        (
            lambda: memory.restore([MemoryRecord(id="x", text="t", created_at=NOW)], [[math.nan]]),
            InvalidInputError,
        ),
    ]
    for call, error in cases:
        with pytest.raises(error):
            call()
    assert snapshot(memory) == before


def test_one_write_names_the_field_and_a_batch_names_the_item(memory: CognitiveMemory) -> None:
    before = snapshot(memory)
    for call in (memory.add, memory.write):
        with pytest.raises(InvalidTypeError) as one:
            call(3, now=NOW)  # type: ignore[arg-type]
        assert str(one.value) == "text must be a str, got int"
        with pytest.raises(InvalidInputError) as bad:
            call("ok", importance=2, now=NOW)
        assert str(bad.value) == "importance must be in [0, 1], got 2"
    with pytest.raises(InvalidTypeError) as batch:
        memory.add_many(["fine", {"text": 3}], now=NOW)
    assert str(batch.value) == "item 1: text must be a str, got int"
    assert snapshot(memory) == before


# --- inputs that once broke the contract, one reproducer each --------------------------------


def test_lone_surrogate_in_a_namespace_is_a_named_error(memory: CognitiveMemory) -> None:
    with pytest.raises(CogmemError):
        memory.add("ok", namespace="\ud800", now=NOW)


def test_add_many_across_namespaces_refused_by_chroma_stores_nothing(
    memory: CognitiveMemory,
) -> None:
    before = snapshot(memory)
    with pytest.raises(CogmemError):
        memory.add_many(
            [
                {"text": "fine", "namespace": "a"},
                {"text": "lone \ud800 surrogate", "namespace": "b"},
            ],
            now=NOW,
        )
    assert snapshot(memory) == before


def test_lone_surrogates_in_text_are_an_input_error(memory: CognitiveMemory) -> None:
    with pytest.raises(InvalidInputError, match="text"):
        memory.add("lone \ud800 surrogate", now=NOW)


def test_lone_surrogates_anywhere_are_input_errors_and_store_nothing(
    memory: CognitiveMemory,
) -> None:
    before = snapshot(memory)
    for call in (
        lambda: memory.add("lone \ud800 surrogate", now=NOW),
        lambda: memory.add("ok", tags=["\udfff"], now=NOW),
        lambda: memory.add("ok", metadata={"k": "\ud800"}, now=NOW),
        lambda: memory.add("ok", id="\ud800", now=NOW),
    ):
        with pytest.raises(InvalidInputError, match="lone surrogate"):
            call()
    assert snapshot(memory) == before


def test_the_last_representable_instant_is_stored_or_refused(memory: CognitiveMemory) -> None:
    latest = datetime.max.replace(tzinfo=UTC)
    try:
        mid = memory.add("end of time", created_at=latest, now=NOW)
    except CogmemError:
        return
    assert memory.get(mid).created_at == latest
    memory.search("end of time", now=NOW, reinforce=False)


def test_a_datetime_that_overflows_in_utc_is_a_named_error(memory: CognitiveMemory) -> None:
    edge = datetime(9999, 12, 31, 23, tzinfo=timezone(-timedelta(hours=14)))
    with pytest.raises(CogmemError):
        memory.add("ok", created_at=edge, now=NOW)


def test_ints_beyond_int64_are_refused_or_kept_exactly(memory: CognitiveMemory) -> None:
    try:
        memory.add("big", id="big", metadata={"k": 2**70}, now=NOW)
    except CogmemError:
        return
    check_consistent(memory)


def test_restore_a_record_without_created_at_is_a_named_error(memory: CognitiveMemory) -> None:
    with pytest.raises(CogmemError):
        memory.restore([MemoryRecord(id="x", text="t", created_at=None)])  # type: ignore[arg-type]


def test_float_metadata_is_stored_exactly(memory: CognitiveMemory) -> None:
    memory.add("float", id="float", metadata={"x": 0.46723190130255077}, now=NOW)
    check_consistent(memory)


def test_created_at_keeps_its_microseconds_and_times_out_of_range_are_refused(
    memory: CognitiveMemory,
) -> None:
    when = datetime(1705, 3, 2, 10, 57, 44, 967922, tzinfo=UTC)  # near the earliest accepted
    memory.add("old", id="old", created_at=when, now=NOW)
    check_consistent(memory)
    assert memory.get("old").created_at == when
    before = snapshot(memory)
    for far in (datetime(1000, 3, 2, tzinfo=UTC), datetime(2300, 1, 1, tzinfo=UTC)):
        with pytest.raises(InvalidInputError, match="must lie between"):
            memory.add("far", created_at=far, now=NOW)
    assert snapshot(memory) == before


class _Scaled:
    """An embedder whose vectors are HashingEmbedder's times ``factor``."""

    def __init__(self, factor: float) -> None:
        self._inner, self._factor = HashingEmbedder(32), factor

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return (np.asarray(self._inner.embed_documents(texts)) * self._factor).tolist()

    def embed_query(self, text: str) -> list[float]:
        return (np.asarray(self._inner.embed_query(text)) * self._factor).tolist()


def test_vectors_too_long_to_compare_are_refused_and_large_ones_kept() -> None:
    """Vectors scaled by 1e38 were stored, and a dense search for the exact text then scored
    0 (the length overflows float32)."""
    with CognitiveMemory(embedder=_Scaled(1e38)) as huge:
        with pytest.raises(EmbedderError, match="too long"):
            huge.add("the ferry leaves at nine", now=NOW)
        assert huge.count() == 0
    with CognitiveMemory(embedder=_Scaled(1e15)) as large:
        large.add("the ferry leaves at nine", id="f", now=NOW)
        (found,) = large.search("the ferry leaves at nine", mode="dense", now=NOW, top_k=1)
        assert found.id == "f" and found.explanation.cosine > 0.99
    with CognitiveMemory(embedder=HashingEmbedder(32)) as mem:
        record = MemoryRecord(id="r", text="the ferry leaves at nine", created_at=NOW)
        with pytest.raises(InvalidInputError, match="too long"):
            mem.restore([record], vectors=[[1e38] * 32])
        assert mem.count() == 0


@pytest.mark.parametrize(
    "filters",
    [{"prio": {"$gte": math.nan}}, {"prio": math.nan}, {"prio": {"$in": [1.0, math.inf]}}],
)
def test_a_filter_on_a_number_that_is_not_finite_is_a_named_error(
    memory: CognitiveMemory, filters: dict[str, Any]
) -> None:
    """Before: ``{"prio": {"$gte": nan}}`` matched nothing, silently."""
    memory.add("a note", metadata={"prio": 3}, now=NOW)
    with pytest.raises(InvalidInputError, match="finite"):
        memory.search("a note", filters=filters, now=NOW)
    with pytest.raises(InvalidInputError, match="finite"):
        memory.memories(filters=filters)
