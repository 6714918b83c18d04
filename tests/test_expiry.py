"""Hard expiry (``expires_at``): decay reorders, expiry removes."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from cogmem import CognitiveMemory, InvalidInputError, MemoryNotFoundError
from cogmem.store import ChromaStore
from cogmem.testing import HashingEmbedder
from cogmem.transfer import export_jsonl, import_jsonl

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
LATER = NOW + timedelta(hours=2)


def ids(results: list) -> list[str]:  # type: ignore[type-arg]
    return [r.id for r in results]


def test_an_expired_memory_is_gone_for_search_get_and_memories(mem: CognitiveMemory) -> None:
    mem.add("The door code is 4711.", id="code", expires_at=NOW + timedelta(hours=1), now=NOW)
    mem.add("The door is painted blue.", id="paint", now=NOW)
    assert "code" in ids(mem.search("door code", now=NOW, reinforce=False))
    assert mem.get("code", now=NOW).expires_at == NOW + timedelta(hours=1)

    assert ids(mem.search("door code", now=LATER, reinforce=False)) == ["paint"]
    with pytest.raises(MemoryNotFoundError, match="expired"):
        mem.get("code", now=LATER)
    assert [m.id for m in mem.memories(now=LATER)] == ["paint"]
    assert {r.id for r in mem.records()} == {"code", "paint"}  # kept until maintain purges


def test_maintain_deletes_expired_memories_and_counts_them(mem: CognitiveMemory) -> None:
    mem.add("A one-time token: 99812.", id="token", expires_at=NOW + timedelta(minutes=5), now=NOW)
    mem.add("A lasting fact.", id="fact", now=NOW)
    assert mem.maintain(NOW).expired == 0
    report = mem.maintain(LATER)
    assert report.expired == 1
    assert [r.id for r in mem.records()] == ["fact"]
    assert mem.maintain(LATER).expired == 0


def test_a_narrow_filter_does_not_bring_an_expired_memory_back(mem: CognitiveMemory) -> None:
    mem.add_many([f"filler note number {i}" for i in range(300)], now=NOW)
    mem.add("the wifi password is tulip", tags=["secret"], expires_at=LATER, now=NOW)
    mem.add("the alarm code is 1234", tags=["secret"], now=NOW)
    found = mem.search("password", filters={"tags": "secret"}, now=LATER, reinforce=False)
    assert [r.memory.text for r in found] == ["the alarm code is 1234"]


def test_a_narrow_filter_is_scanned_exactly(
    mem: CognitiveMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chroma's filtered HNSW query can leave out one of a narrow filter's two memories (the
    test above failed about once in twenty runs); a filter that allows few memories is
    scanned exactly, so a filtered query that drops results changes nothing."""
    mem.add_many([f"filler note number {i}" for i in range(300)], now=NOW)
    mem.add("the wifi password is tulip", tags=["secret"], now=NOW)
    mem.add("the alarm code is 1234", tags=["secret"], now=NOW)

    def forgetful(self: ChromaStore, *args: object, **kwargs: object) -> list[object]:
        return list(chroma_nearest(self, *args, **kwargs))[:1]  # type: ignore[arg-type]

    chroma_nearest = ChromaStore.nearest
    monkeypatch.setattr(ChromaStore, "nearest", forgetful)
    found = mem.search("password", filters={"tags": "secret"}, now=LATER, reinforce=False)
    assert sorted(r.memory.text for r in found) == [
        "the alarm code is 1234",
        "the wifi password is tulip",
    ]


def test_set_expiry_sets_and_clears(mem: CognitiveMemory) -> None:
    mem.add("Temporary parking at level 3.", id="car", now=NOW)
    [updated] = mem.set_expiry(["car"], NOW + timedelta(minutes=30))
    assert updated.expires_at == NOW + timedelta(minutes=30)
    assert mem.search("parking", now=LATER, reinforce=False) == []
    mem.set_expiry(["car"], None)
    assert ids(mem.search("parking", now=LATER, reinforce=False)) == ["car"]
    with pytest.raises(MemoryNotFoundError):
        mem.set_expiry(["car", "nope"], NOW)
    assert mem.get("car").expires_at is None  # nothing changed
    with pytest.raises(InvalidInputError, match="naive"):
        mem.set_expiry(["car"], datetime(2026, 6, 1))
    with pytest.raises(InvalidInputError, match="naive"):
        mem.add("x", expires_at=datetime(2026, 6, 1))


def test_expiry_survives_a_reopen_and_an_export(tmp_path: Path) -> None:
    with CognitiveMemory(tmp_path / "store", embedder=HashingEmbedder()) as mem:
        mem.add("Gate B12 until boarding.", id="gate", expires_at=LATER, now=NOW)
        export_jsonl(mem, tmp_path / "out.jsonl")
    with CognitiveMemory(tmp_path / "store", embedder=HashingEmbedder()) as mem:
        assert mem.get("gate", now=NOW).expires_at == LATER
    with CognitiveMemory(embedder=HashingEmbedder()) as other:
        import_jsonl(other, tmp_path / "out.jsonl")
        assert other.get("gate", now=NOW).expires_at == LATER
        with pytest.raises(MemoryNotFoundError):
            other.get("gate", now=LATER)
