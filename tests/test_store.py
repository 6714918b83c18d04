"""The Chroma codec and the one filter language evaluated by Chroma and by Python alike."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import chromadb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cogmem import InvalidInputError, InvalidTypeError, MemoryRecord, StoreError
from cogmem.chroma_layout import PACKED_KEY, WRITER_KEY, from_chroma, to_metadata, writer_of
from cogmem.filters import build_where, compile_filters
from tests.conftest import NOW

FULL = MemoryRecord(
    id="m1",
    text="User prefers dark mode",
    created_at=NOW - timedelta(days=3),
    memory_type="semantic",
    importance=0.7,
    confidence=0.9,
    stability=0.31,
    last_accessed_at=NOW,
    access_count=4,
    session_ids=("s1", "s2"),
    status="superseded",
    superseded_by="m9",
    pinned=True,
    tags=("ui", "prefs"),
    namespace="user-1",
    links={"m2": 0.4},
    links_updated_at=NOW,
    metadata={"project": "x", "n": 3, "ratio": 0.5, "ok": True},
    contradicts=("m5",),
)


def test_metadata_round_trip_is_exact() -> None:
    meta = to_metadata(FULL, seq=7)
    assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())
    assert meta["seq"] == 7 and meta["tag:ui"] is True and meta["m.project"] == "x"
    assert from_chroma("m1", FULL.text, meta) == FULL
    sparse = MemoryRecord(id="m2", text="t", created_at=NOW)
    assert from_chroma("m2", "t", to_metadata(sparse)) == sparse


def test_fields_at_their_usual_values_are_left_out_of_the_packed_string() -> None:
    """Chroma stores the packed string twice (its row and its string index): a field that
    holds its usual value is left out, read back as that value; version 1 strings, which
    wrote every field, are still read."""
    import json

    sparse = MemoryRecord(id="m2", text="t", created_at=NOW)
    packed = json.loads(to_metadata(sparse)[PACKED_KEY])
    assert set(packed) == {"v", "c", "stab"}
    full = json.loads(to_metadata(FULL)[PACKED_KEY])
    assert {"ns", "imp", "conf", "acc"} <= set(full)
    older = to_metadata(sparse)
    older[PACKED_KEY] = json.dumps(
        {**packed, "v": 1, "ns": "default", "imp": 0.5, "conf": 0.8, "acc": 0}
    )
    assert from_chroma("m2", "t", older) == sparse
    for field in ("imp", "stab"):  # a version 1 string lacking a field is not cogmem's
        broken = dict(older)
        broken[PACKED_KEY] = json.dumps(
            {k: v for k, v in json.loads(older[PACKED_KEY]).items() if k != field}
        )
        with pytest.raises(StoreError, match="cannot read"):
            from_chroma("m2", "t", broken)


def test_writer_token_is_packed_and_old_stores_still_read() -> None:
    meta = to_metadata(FULL, seq=7, stamp=11, writer="abc")
    assert WRITER_KEY not in meta and meta["w"] == 11  # one Chroma row fewer per record
    assert writer_of(meta) == "abc"
    assert from_chroma("m1", FULL.text, meta) == FULL
    old = {k: v for k, v in to_metadata(FULL, seq=7, stamp=11).items()}
    old[WRITER_KEY] = "old-writer"  # how stores written before the token was packed have it
    assert writer_of(old) == "old-writer"
    # An update by a newer writer packs its token; Chroma keeps the old key (updates merge).
    merged = {**old, PACKED_KEY: meta[PACKED_KEY]}
    assert writer_of(merged) == "abc"
    assert writer_of(to_metadata(FULL)) is None


def test_foreign_metadata_is_a_store_error() -> None:
    with pytest.raises(StoreError, match="m3"):
        from_chroma("m3", "t", {"source": "someone else"})


@pytest.mark.parametrize(
    ("filters", "error"),
    [
        ({"memory_type": "dream"}, InvalidInputError),
        ({"tags": 3}, InvalidTypeError),
        ({"pinned": "yes"}, InvalidTypeError),
        ({"created_after": "2024-01-01"}, InvalidTypeError),
        ({"project": {"$regex": "x"}}, InvalidInputError),
        ({"project": {"$in": []}}, InvalidTypeError),
        ({"project": [1, 2]}, InvalidTypeError),
        ("project=x", InvalidTypeError),
    ],
)
def test_bad_filters_are_named(filters: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        build_where(filters)
    with pytest.raises(error):
        compile_filters(filters)


# --- Chroma and the Python predicate agree on every filter -------------------------------------

TAGS = ["a", "b", "c"]
records = st.builds(
    lambda i, t, tags, pinned, status, days, n, label: MemoryRecord(
        id=f"r{i}",
        text=f"text {i}",
        created_at=NOW - timedelta(days=days),
        memory_type=t,
        tags=tuple(tags),
        pinned=pinned,
        status=status,
        # None: the memory lacks the key (Chroma's $ne / $nin then match it, the rest do not).
        metadata={k: v for k, v in (("n", n), ("label", label)) if v is not None},
    ),
    st.integers(0, 10_000),
    st.sampled_from(["episodic", "semantic", "procedural", "core"]),
    st.lists(st.sampled_from(TAGS), unique=True, max_size=3),
    st.booleans(),
    st.sampled_from(["active", "superseded"]),
    st.integers(0, 30),
    st.one_of(st.none(), st.integers(-3, 3), st.floats(-3, 3, allow_nan=False)),
    st.sampled_from(["x", "y", None]),
)
filter_sets = st.fixed_dictionaries(
    {},
    optional={
        "memory_type": st.one_of(
            st.sampled_from(["episodic", "semantic"]),
            st.lists(st.sampled_from(["episodic", "core", "procedural"]), min_size=1, unique=True),
        ),
        "tags": st.lists(st.sampled_from(TAGS), min_size=1, max_size=2, unique=True),
        "pinned": st.booleans(),
        "created_after": st.integers(0, 30).map(lambda d: NOW - timedelta(days=d)),
        "n": st.one_of(
            st.integers(-3, 3),
            st.fixed_dictionaries({"$gte": st.integers(-3, 3)}),
            st.fixed_dictionaries({"$lt": st.floats(-3, 3, allow_nan=False)}),
            st.fixed_dictionaries({"$in": st.lists(st.integers(-3, 3), min_size=1, max_size=3)}),
            st.fixed_dictionaries({"$ne": st.integers(-3, 3)}),
            st.fixed_dictionaries({"$ne": st.integers(-3, 3), "$gt": st.integers(-3, 3)}),
        ),
        "label": st.one_of(st.just("x"), st.fixed_dictionaries({"$nin": st.just(["y"])})),
    },
)


@pytest.fixture(scope="module")
def collection() -> Any:
    client = chromadb.EphemeralClient()
    return client.get_or_create_collection(
        "filter-agreement", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(records, min_size=1, max_size=12, unique_by=lambda r: r.id), filter_sets, st.booleans()
)
def test_chroma_where_and_python_predicate_agree(
    collection: Any, batch: list[MemoryRecord], filters: dict[str, Any], deep: bool
) -> None:
    existing = collection.get(include=[])["ids"]
    if existing:
        collection.delete(ids=existing)
    collection.add(
        ids=[r.id for r in batch],
        documents=[r.text for r in batch],
        embeddings=np.ones((len(batch), 3), dtype=np.float32),
        metadatas=[to_metadata(r, seq=i) for i, r in enumerate(batch)],
    )
    by_chroma = set(
        collection.get(where=build_where(filters, include_superseded=deep), include=[])["ids"]
    )
    keep = compile_filters(filters, include_superseded=deep)
    assert by_chroma == {r.id for r in batch if keep(r)}


class _Recording:
    """A Chroma collection whose ``get`` calls are written down."""

    def __init__(self, collection: Any) -> None:
        self._collection = collection
        self.gets: list[dict[str, Any]] = []

    def get(self, **kwargs: Any) -> Any:
        self.gets.append(kwargs)
        return self._collection.get(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._collection, name)


def _filled_store(tmp_path: Any, n: int) -> tuple[Any, _Recording]:
    from cogmem.store import ChromaStore

    client = chromadb.PersistentClient(str(tmp_path))
    collection = _Recording(client.create_collection("paging"))
    store = ChromaStore(collection)
    records = [
        MemoryRecord(id=f"m{i:02d}", text=f"fact number {i}", created_at=NOW) for i in range(n)
    ]
    vectors = np.arange(n * 4, dtype=np.float32).reshape(n, 4) + 1.0
    store.add(records, vectors)
    return store, collection


def test_reading_every_record_past_one_page_reads_by_id_not_by_offset(tmp_path: Any) -> None:
    """A rebuild reads the whole collection: Chroma's ``offset`` costs in proportion to where
    its page starts (quadratic over a collection; 21 minutes at a million), so past the first
    page the records are read by id. Every record comes back once, with its vector."""
    store, collection = _filled_store(tmp_path, 23)
    vectors: dict[str, Any] = {}
    got = store.all_records(page=5, vectors=vectors)
    assert sorted(got) == [f"m{i:02d}" for i in range(23)]
    assert {rec.text for rec, _, _ in got.values()} == {f"fact number {i}" for i in range(23)}
    assert sorted(vectors) == sorted(got)
    assert vectors["m07"].tolist() == [29.0, 30.0, 31.0, 32.0]
    assert all(not call.get("offset") for call in collection.gets)
    by_id = [call for call in collection.gets if "ids" in call]
    assert by_id and all(len(call["ids"]) <= 5 for call in by_id)
    assert sum(len(call["ids"]) for call in by_id) == 23 - 5  # the first page is not read twice


def test_reading_changes_past_one_page_returns_each_change(tmp_path: Any) -> None:
    """Catch-up reads what other writers changed with the same paging: one call when it fits,
    by id past it; a record deleted between the listing and its read is left out."""
    from cogmem.store import ChromaStore

    _, collection = _filled_store(tmp_path, 12)
    other = ChromaStore(collection)  # another writer, reading the first one's writes
    assert sorted(other.changed_since(0, page=50)) == [f"m{i:02d}" for i in range(12)]
    assert len(collection.gets) == 1

    real_get = collection.get

    def get_then_lose_one(**kwargs: Any) -> Any:
        out = real_get(**kwargs)
        if kwargs.get("include") == []:  # the listing: a record goes before it is read
            collection._collection.delete(ids=["m11"])
        return out

    collection.get = get_then_lose_one  # type: ignore[method-assign]
    got = other.changed_since(0, page=4)
    assert sorted(got) == [f"m{i:02d}" for i in range(11)]
