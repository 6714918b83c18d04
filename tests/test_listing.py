"""cogmem.listing: a folder no one else writes is scanned once; others on every lookup."""

from __future__ import annotations

from pathlib import Path

from cogmem import listing


def touch(folder: Path, *names: str) -> None:
    for name in names:
        (folder / name).write_bytes(b"")


NAMES = (
    "abc.w1.journal",
    "abc.w1.journal.mirror",
    "abc.w2.ledger",
    "abc.w1.vectors",
    "abcd.w1.journal",
    "abc.journal",
    "abc..journal",
    "xyz.w1.journal",
)
SUFFIXES = (".journal", ".journal.mirror", ".ledger", ".vectors", ".doubt")


def test_matching_finds_what_glob_finds(tmp_path: Path) -> None:
    touch(tmp_path, *NAMES)
    for suffix in SUFFIXES:
        assert listing.matching(tmp_path, "abc", suffix) == sorted(tmp_path.glob(f"abc.*{suffix}"))
    listing.watch(tmp_path, "me")
    try:
        for suffix in SUFFIXES:
            assert listing.matching(tmp_path, "abc", suffix) == sorted(
                tmp_path.glob(f"abc.*{suffix}")
            )
    finally:
        listing.unwatch(tmp_path, "me")


def test_a_watched_folder_sees_its_writers_new_files_and_no_deleted_ones(tmp_path: Path) -> None:
    touch(tmp_path, "abc.old.journal", "abc.old.doubt")
    listing.watch(tmp_path, "me")
    try:
        touch(tmp_path, "abc.me.journal", "abc.me.doubt")
        (tmp_path / "abc.old.doubt").unlink()
        assert [p.name for p in listing.matching(tmp_path, "abc", ".journal")] == [
            "abc.me.journal",
            "abc.old.journal",
        ]
        assert [p.name for p in listing.matching(tmp_path, "abc", ".doubt")] == ["abc.me.doubt"]
    finally:
        listing.unwatch(tmp_path, "me")
    touch(tmp_path, "abc.other.journal")  # no longer watched: scanned again
    assert len(listing.matching(tmp_path, "abc", ".journal")) == 3
