"""JSON Lines export and import: every field of every memory survives, vectors optional."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import fields
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from cogmem import (
    CognitiveMemory,
    DimensionMismatchError,
    DuplicateIdError,
    InvalidInputError,
    MemoryRecord,
    transfer,
)
from cogmem.testing import HashingEmbedder
from cogmem.transfer import (
    ExportFormatError,
    export_jsonl,
    import_jsonl,
    read_jsonl,
    record_from_json,
    record_to_json,
    stored_records,
)
from tests.conftest import NOW

PARIS = timezone(timedelta(hours=2))


def _rich_records() -> list[MemoryRecord]:
    """Records that set every field to something other than its default."""
    return [
        MemoryRecord(
            id="fact-1",
            text="The billing service uses PostgreSQL 13.",
            created_at=NOW - timedelta(days=200, microseconds=123457),
            memory_type="semantic",
            importance=0.7,
            confidence=0.65,
            stability=0.4375,
            last_accessed_at=NOW - timedelta(days=20, seconds=1),
            access_count=3,
            session_ids=("s1", "s2"),
            status="superseded",
            superseded_by="fact-2",
            pinned=False,
            tags=("db", "billing"),
            namespace="default",
            links={"fact-2": 0.8, "ep-1": 0.125},
            links_updated_at=NOW - timedelta(days=20),
            metadata={"project": "billing", "prio": 2, "weight": 0.5, "done": True},
            contradicts=("claim-x",),
        ),
        MemoryRecord(
            id="fact-2",
            text="The billing service moved to CockroachDB.",
            created_at=NOW - timedelta(days=10),
            memory_type="core",
            importance=0.9,
            confidence=1.0,
            stability=1.0,
            pinned=True,
            namespace="default",
        ),
        MemoryRecord(
            id="claim-x",
            text="Billing never used PostgreSQL.",
            created_at=NOW - timedelta(days=5),
            contradicts=("fact-1",),
            namespace="default",
        ),
        MemoryRecord(
            id="ep-1",
            text="Priya asked about certificate rotation.",
            created_at=NOW - timedelta(days=3),
            memory_type="procedural",
            namespace="user-2",
            importance=0.0,
            stability=0.01,
        ),
    ]


@pytest.fixture
def source(embedder: HashingEmbedder) -> Iterator[CognitiveMemory]:
    memory = CognitiveMemory(embedder=embedder)
    memory.restore(_rich_records())
    yield memory
    memory.close()


@pytest.fixture
def target(embedder: HashingEmbedder) -> Iterator[CognitiveMemory]:
    memory = CognitiveMemory(embedder=embedder)
    yield memory
    memory.close()


def _everything(memory: CognitiveMemory) -> dict[tuple[str, str], MemoryRecord]:
    return {(ns, r.id): r for ns in memory.namespaces() for r in stored_records(memory, ns)}


def test_the_json_of_a_record_has_every_field_of_memory_record() -> None:
    record = _rich_records()[0]
    assert set(record_to_json(record)) == {f.name for f in fields(MemoryRecord)}
    assert set(record_to_json(record, [0.5, 0.25])) == {f.name for f in fields(MemoryRecord)} | {
        "embedding"
    }


def test_record_json_round_trips_exactly() -> None:
    for record in _rich_records():
        line = json.dumps(record_to_json(record, [0.1, -0.2]))
        back, vector = record_from_json(json.loads(line))
        assert back == record
        assert vector == [0.1, -0.2]


@pytest.mark.parametrize("with_embeddings", [True, False])
def test_export_then_import_restores_every_field_of_every_status(
    source: CognitiveMemory,
    target: CognitiveMemory,
    tmp_path: Path,
    with_embeddings: bool,
) -> None:
    path = tmp_path / "memories.jsonl"
    assert export_jsonl(source, path, with_embeddings=with_embeddings, now=NOW) == 4
    assert import_jsonl(target, path) == 4

    assert _everything(target) == _everything(source)
    assert {r.status for r in _everything(target).values()} == {"active", "superseded"}
    assert target.namespaces() == ["default", "user-2"]


def test_times_are_iso_8601_with_their_offset(source: CognitiveMemory) -> None:
    out = io.StringIO()
    export_jsonl(source, out, now=datetime(2026, 6, 1, 14, 0, tzinfo=PARIS))
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["exported_at"] == "2026-06-01T12:00:00+00:00"
    fact = next(line for line in lines[1:] if line["id"] == "fact-1")
    assert fact["created_at"] == (NOW - timedelta(days=200, microseconds=123457)).isoformat()
    assert fact["created_at"].endswith("+00:00")
    assert fact["last_accessed_at"] == "2026-05-12T11:59:59+00:00"
    assert next(line for line in lines[1:] if line["id"] == "fact-2")["last_accessed_at"] is None
    # another offset, or Z, is read as the same instant
    record, _ = record_from_json(
        {"id": "a", "text": "t", "created_at": "2026-06-01T14:00:00+02:00"}
    )
    assert record.created_at == NOW
    record, _ = record_from_json({"id": "a", "text": "t", "created_at": "2026-06-01T12:00:00Z"})
    assert record.created_at == NOW


def test_embeddings_are_exported_as_stored_and_imported_without_re_embedding(
    source: CognitiveMemory, tmp_path: Path
) -> None:
    path = tmp_path / "m.jsonl"
    export_jsonl(source, path, with_embeddings=True, now=NOW)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["embedder"] == "hashing-blake2b/256"
    assert lines[0]["dimension"] == 256
    stored = transfer._stored_vectors(source, "default", ["fact-1"])["fact-1"]
    assert next(line for line in lines if line.get("id") == "fact-1")["embedding"] == stored

    class Refusing(HashingEmbedder):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            raise AssertionError("an import with embeddings must not embed")

    with CognitiveMemory(embedder=Refusing()) as other:
        assert import_jsonl(other, path) == 4
        moved = transfer._stored_vectors(other, "default", ["fact-1"])["fact-1"]
        assert np.allclose(moved, stored, atol=0)


def test_without_embeddings_the_import_embeds_the_texts(
    source: CognitiveMemory, target: CognitiveMemory, tmp_path: Path
) -> None:
    path = tmp_path / "m.jsonl"
    export_jsonl(source, path, now=NOW)
    assert all("embedding" not in json.loads(line) for line in path.read_text().splitlines())
    import_jsonl(target, path)
    text = "The billing service uses PostgreSQL 13."
    expected = HashingEmbedder().embed([text])[0]
    got = transfer._stored_vectors(target, "default", ["fact-1"])["fact-1"]
    assert np.allclose(got, expected, atol=1e-6)
    top = target.search("certificate rotation", namespace="user-2", now=NOW, reinforce=False)
    assert [r.id for r in top] == ["ep-1"]


def test_memories_formed_at_the_same_time_keep_their_order(
    embedder: HashingEmbedder, target: CognitiveMemory
) -> None:
    with CognitiveMemory(embedder=embedder) as memory:
        memory.add_many([{"text": f"turn {i}", "id": i, "created_at": NOW} for i in "zyxw"])
        out = io.StringIO()
        export_jsonl(memory, out, now=NOW)
    ids = [json.loads(line).get("id") for line in out.getvalue().splitlines()[1:]]
    assert ids == ["z", "y", "x", "w"]
    import_jsonl(target, io.StringIO(out.getvalue()))
    again = io.StringIO()
    export_jsonl(target, again, now=NOW)
    assert again.getvalue() == out.getvalue()


def test_reinforcements_not_yet_flushed_are_exported(
    source: CognitiveMemory,
) -> None:
    source.search("CockroachDB billing", now=NOW, top_k=1)
    out = io.StringIO()
    export_jsonl(source, out, now=NOW)
    fact = next(json.loads(line) for line in out.getvalue().splitlines() if '"fact-2"' in line[:30])
    assert fact["access_count"] == 1
    assert fact["last_accessed_at"] == NOW.isoformat()


def test_one_namespace_only(
    source: CognitiveMemory, target: CognitiveMemory, tmp_path: Path
) -> None:
    out = io.StringIO()
    assert export_jsonl(source, out, namespace="user-2", now=NOW) == 1
    path = tmp_path / "all.jsonl"
    export_jsonl(source, path, now=NOW)
    assert import_jsonl(target, path, namespace="default") == 3
    assert target.count("user-2") == 0 and target.count("default") == 3


def test_a_bad_line_stores_nothing_and_names_the_line(
    source: CognitiveMemory, target: CognitiveMemory, tmp_path: Path
) -> None:
    path = tmp_path / "m.jsonl"
    export_jsonl(source, path, now=NOW)
    good = path.read_text()
    path.write_text(good + '{"id": "late", "text": "t", "created_at": "2026-01-01T00:00:00"}\n')
    with pytest.raises(ExportFormatError, match=r"m\.jsonl line 6: created_at.*no UTC offset"):
        import_jsonl(target, path)
    assert len(target) == 0

    for line, message in [
        ("not json", r"line 6: not JSON"),
        ('{"id": "a", "text": "t"}', r"line 6: missing field\(s\) \['created_at'\]"),
        ('{"id": "a", "text": "t", "created_at": "2026-01-01T00:00Z", "colour": 1}', "colour"),
        (
            '{"id": "a", "text": "t", "created_at": "2026-01-01T00:00Z", "importance": 2}',
            "importance",
        ),
        ('{"id": "a", "text": "t", "created_at": "2026-01-01T00:00Z", "status": "x"}', "status"),
        ('{"id": "a", "text": "t", "created_at": "yesterday"}', "not an ISO 8601 time"),
        ('{"id": "a", "text": "t", "created_at": "2026-01-01T00:00Z", "tags": "x"}', "tags"),
        (
            '{"id": "a", "text": "t", "created_at": "2026-01-01T00:00Z", "metadata": {"k": [1]}}',
            "metadata",
        ),
        ('{"id": "a", "text": " ", "created_at": "2026-01-01T00:00Z"}', "text must not be empty"),
        ("[1, 2]", "expected a JSON object, got an array"),
        ('{"cogmem_export": 99}', "format 99 is not supported"),
    ]:
        path.write_text(good + line + "\n")
        with pytest.raises(ExportFormatError, match=message):
            import_jsonl(target, path)
        assert len(target) == 0


def test_ids_already_stored_or_given_twice_store_nothing(
    source: CognitiveMemory, target: CognitiveMemory, tmp_path: Path
) -> None:
    path = tmp_path / "m.jsonl"
    export_jsonl(source, path, now=NOW)
    target.add("already here", id="ep-1", namespace="user-2", now=NOW)
    with pytest.raises(DuplicateIdError, match=r"namespace 'user-2'.*ep-1"):
        import_jsonl(target, path)
    assert target.count("default") == 0

    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines, lines[1]]) + "\n")
    with CognitiveMemory(embedder=HashingEmbedder()) as empty:
        with pytest.raises(DuplicateIdError, match="more than once"):
            import_jsonl(empty, path)
        assert len(empty) == 0


def test_embeddings_from_another_embedder_are_refused_unless_re_embedded(
    source: CognitiveMemory, tmp_path: Path
) -> None:
    path = tmp_path / "m.jsonl"
    export_jsonl(source, path, with_embeddings=True, now=NOW)
    with CognitiveMemory(embedder=HashingEmbedder(dimension=64)) as narrow:
        with pytest.raises(
            DimensionMismatchError, match=r"dimension 256.*makes dimension 64.*re-embed"
        ):
            import_jsonl(narrow, path)
        assert len(narrow) == 0
        assert import_jsonl(narrow, path, re_embed=True) == 4
        assert narrow.search("CockroachDB", now=NOW, reinforce=False)[0].id == "fact-2"

    header, *rest = path.read_text().splitlines()
    variant = json.loads(header) | {"embedder": "hashing-blake2b/256/dynamic"}
    path.write_text("\n".join([json.dumps(variant), *rest]) + "\n")
    with CognitiveMemory(embedder=HashingEmbedder()) as same_model:
        assert import_jsonl(same_model, path) == 4  # another variant of the same weights
    renamed = json.loads(header) | {"embedder": "some-other-model/1"}
    path.write_text("\n".join([json.dumps(renamed), *rest]) + "\n")
    with (
        CognitiveMemory(embedder=HashingEmbedder()) as other,
        pytest.raises(ExportFormatError, match="embedded with some-other-model/1"),
    ):
        import_jsonl(other, path)

    without = json.loads(rest[0])
    del without["embedding"]
    path.write_text("\n".join([header, json.dumps(without), *rest[1:]]) + "\n")
    with CognitiveMemory(embedder=HashingEmbedder()) as other:
        with pytest.raises(ExportFormatError, match="some memories have embeddings"):
            import_jsonl(other, path)
        assert import_jsonl(other, path, re_embed=True) == 4


def test_a_hand_written_file_needs_only_id_text_and_created_at(
    target: CognitiveMemory,
) -> None:
    lines = (
        '{"id": "a", "text": "Likes tea.", "created_at": "2026-05-01T08:00:00+00:00",'
        ' "importance": 0.9, "memory_type": "semantic"}\n'
        "\n"
        '{"id": "b", "text": "Met Ana.", "created_at": "2026-05-02T08:00:00Z", "namespace": "u"}\n'
    )
    assert import_jsonl(target, io.StringIO(lines)) == 2
    a = target.get("a")
    assert (a.memory_type, a.importance, a.stability, a.confidence) == ("semantic", 0.9, 0.37, 0.8)
    assert target.get("b", namespace="u").memory_type == "episodic"


def test_read_jsonl_returns_headers_and_records(source: CognitiveMemory) -> None:
    out = io.StringIO()
    export_jsonl(source, out, now=NOW)
    read = read_jsonl(io.StringIO(out.getvalue()))
    assert read.headers == [
        {"cogmem_export": 1, "exported_at": NOW.isoformat(), "with_embeddings": False}
    ]
    assert [r.id for r, _ in read.records] == ["fact-1", "fact-2", "claim-x", "ep-1"]
    with CognitiveMemory(embedder=HashingEmbedder()) as other:
        assert import_jsonl(other, read) == 4


def test_export_to_a_path_is_atomic(source: CognitiveMemory, tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text("previous export\n")

    def broken(*args: object, **kwargs: object) -> dict[str, list[float]]:
        raise RuntimeError("disk gone")

    original = transfer._stored_vectors
    transfer._stored_vectors = broken  # type: ignore[assignment]
    try:
        with pytest.raises(RuntimeError, match="disk gone"):
            export_jsonl(source, path, with_embeddings=True, now=NOW)
    finally:
        transfer._stored_vectors = original
    assert path.read_text() == "previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.jsonl"]
    export_jsonl(source, path, now=NOW)
    assert len(path.read_text().splitlines()) == 5
    assert path.stat().st_mode & 0o777 == 0o600  # memories may be private


def test_bad_arguments_are_named(source: CognitiveMemory) -> None:
    with pytest.raises(InvalidInputError, match="naive"):
        export_jsonl(source, io.StringIO(), now=datetime(2026, 1, 1))
    with pytest.raises(InvalidInputError, match="namespace"):
        export_jsonl(source, io.StringIO(), namespace="")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bars_only_when_asked_and_on_a_terminal(
    source: CognitiveMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transfer, "PROGRESS_DELAY_SECONDS", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    export_jsonl(source, io.StringIO(), now=NOW, progress=True)
    assert "exporting" in terminal.getvalue() and "/4 " in terminal.getvalue()

    quiet = _Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    export_jsonl(source, io.StringIO(), now=NOW, progress=False)
    assert quiet.getvalue() == ""

    piped = io.StringIO()
    monkeypatch.setattr("sys.stderr", piped)
    out = io.StringIO()
    export_jsonl(source, out, now=NOW, progress=True)
    assert piped.getvalue() == ""

    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with CognitiveMemory(embedder=HashingEmbedder()) as other:
        import_jsonl(other, io.StringIO(out.getvalue()), progress=True)
    assert "importing" in terminal.getvalue()


def test_a_progress_bar_waits_before_it_appears(
    source: CognitiveMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr(transfer, "PROGRESS_DELAY_SECONDS", 3600.0)
    export_jsonl(source, io.StringIO(), now=NOW, progress=True)
    assert terminal.getvalue() == ""
