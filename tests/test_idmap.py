"""IdMap against a dict and a list: random appends, removals, lookups and compactions."""

from __future__ import annotations

from typing import Any
from zlib import crc32

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cogmem.idmap import IdMap

keys = st.text(min_size=0, max_size=6) | st.sampled_from(["a", "b", "é", "\ud800", "m1", "m10"])
operations = st.lists(
    st.one_of(
        st.tuples(st.just("append"), keys),
        st.tuples(st.just("pop"), keys),
        st.tuples(st.just("compact")),
    ),
    max_size=200,
)


def check(ids: IdMap, rows: list[str | None]) -> None:
    """``ids`` holds exactly the live entries of ``rows`` (None: a hole), at their rows."""
    live = {key: row for row, key in enumerate(rows) if key is not None}
    assert len(ids) == len(live)
    assert ids.rows == len(rows)
    assert ids.keys() == list(live)
    for key, row in live.items():
        assert key in ids
        assert ids.get(key) == row
        assert ids.key(row) == key
        assert ids.is_live(row)
    for row, key in enumerate(rows):
        assert ids.is_live(row) == (key is not None)


@settings(max_examples=300, deadline=None)
@given(ops=operations, initial=st.lists(keys, unique=True, max_size=40))
def test_matches_a_dict_after_random_writes(ops: list[tuple[Any, ...]], initial: list[str]) -> None:
    ids = IdMap(initial)
    rows: list[str | None] = list(initial)
    removed: dict[int, str] = {}
    for op in ops:
        if op[0] == "append":
            if op[1] in ids:
                continue
            assert ids.append(op[1]) == len(rows)
            rows.append(op[1])
        elif op[0] == "pop":
            held = rows.index(op[1]) if op[1] in rows else None
            assert ids.pop(op[1]) == held
            if held is not None:
                rows[held] = None
                removed[held] = op[1]
        else:
            live = [row for row, key in enumerate(rows) if key is not None]
            ids = ids.compacted(live)
            rows = [rows[row] for row in live]
            removed = {}
        check(ids, rows)
        packed = IdMap.from_packed(ids.packed())  # as saved and read back: the live ids
        check(packed, [key for key in rows if key is not None])
        for row, key in removed.items():
            assert ids.key(row) == key  # a hole still names the id it held
            assert key not in ids or rows.index(key) != row


def test_collisions_and_growth() -> None:
    # Many ids, every one removed and added back in another order: long probe runs, rehashes.
    keys = [f"m{i}" for i in range(5000)]
    ids = IdMap(keys[:100])
    assert ids.extend(keys[100:]) == 100
    for key in keys[::2]:
        assert ids.pop(key) is not None
    assert len(ids) == 2500
    assert all(ids.get(k) is None for k in keys[::2])
    assert [ids.get(k) for k in keys[1::2]] == list(range(1, 5000, 2))
    fresh = ids.compacted(range(1, 5000, 2))
    assert fresh.keys() == keys[1::2]
    assert all(fresh.get(k) == i for i, k in enumerate(keys[1::2]))


def test_non_str_keys_are_never_held() -> None:
    ids = IdMap(["1", "a"])
    assert 1 not in ids
    assert ids.get(None) is None
    assert ids.pop(1) is None  # type: ignore[arg-type]
    assert len(ids) == 2


def test_repeated_initial_ids_raise() -> None:
    with pytest.raises(ValueError):
        IdMap(["a", "b", "a"])


def test_costs_no_object_per_id() -> None:
    ids = IdMap(f"memory-{i:06d}" for i in range(10_000))
    # 13 bytes of UTF-8, 8 + 4 + 1 per row, a 32k-slot int32 table (at most half full).
    assert ids.nbytes() == 10_000 * (13 + 13) + 4 * 32_768


def test_repeated_ids_of_one_hash_are_told_from_distinct_ones() -> None:
    # "plumless" and "buckeroo" share a CRC-32: distinct ids of one hash are both held, and
    # an id twice is refused whatever else shares its hash.
    assert crc32(b"plumless") == crc32(b"buckeroo")
    ids = IdMap(["plumless", "x", "buckeroo"])
    assert (ids.get("plumless"), ids.get("buckeroo")) == (0, 2)
    with pytest.raises(ValueError, match="distinct"):
        IdMap(["plumless", "buckeroo", "plumless"])


def test_a_packed_map_is_read_back_without_hashing_it_again() -> None:
    ids = IdMap(f"m{i}" for i in range(1000))
    ids.pop("m3")
    buf, ends, hashes, table = ids.packed()
    assert len(ends) == 999 and buf.startswith(b"m0m1m2m4")  # holes squeezed out
    back = IdMap.from_packed((buf, ends, hashes, table))
    assert back.keys() == ids.keys() and back.get("m999") == 998 and "m3" not in back
    assert back.same_ids(ids) and ids.same_ids(back)
    assert not back.same_ids(IdMap(["m0"]))


@pytest.mark.parametrize(
    "damage",
    [
        lambda b, e, h, t: (b[:-1], e, h, t),  # offsets past the bytes
        lambda b, e, h, t: (b, e[::-1].copy(), h, t),  # offsets backwards
        lambda b, e, h, t: (b, e, h + np.uint32(1), t),  # hashes of something else
        lambda b, e, h, t: (b, e, h[:-1], t),  # a hash short
        lambda b, e, h, t: (b, e, h, t[: len(t) // 2]),  # a table too small
        lambda b, e, h, t: (b, e, h, np.where(t == 5, np.int32(6), t)),  # a row twice
        lambda b, e, h, t: (b, e, h, np.roll(t, 1)),  # rows away from their hash
        lambda b, e, h, t: (b, e.astype(np.int32), h, t),  # another dtype
    ],
)
def test_a_damaged_packed_map_is_refused(damage: Any) -> None:
    with pytest.raises(ValueError, match="packed ids"):
        IdMap.from_packed(damage(*IdMap(f"m{i}" for i in range(64)).packed()))
