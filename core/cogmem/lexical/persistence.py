"""Saving and loading the BM25 index: its arrays, each a Zstandard frame
(:mod:`cogmem.array_frames`), behind a small head, written atomically, every array checked on
load.

A mixin of :class:`~cogmem.lexical.index.BM25Index`. The file holds the format version,
``k1``/``b``/``epsilon``, the ids, the vocabulary and the compacted postings; anything that does
not check out raises :class:`~cogmem.errors.StoreError`, so the caller can rebuild.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
from typing_extensions import Self

from cogmem.array_frames import pack_arrays, unpack_arrays
from cogmem.compression import decompress
from cogmem.disk import write_atomically
from cogmem.errors import StoreError
from cogmem.idmap import IdMap

from .postings import (
    I32,
    I64,
    POSTING,
    TF_CAP,
    Compacted,
    Rows,
    unpack_strings,
)

__all__ = ["INDEX_FORMAT_VERSION", "Persistence"]

INDEX_FORMAT_VERSION = 5
"""Version of the file format written by :meth:`BM25Index.save` (3: ids and terms as packed
:class:`~cogmem.idmap.IdMap` arrays with their hashes; 4: the ids may be left out, held by
the owner's records; 5: each array its own frame, the postings as the index holds them
(5-byte records) with the term frequencies of 255 or more beside; versions 2 to 4 are still
read)."""

_MAGIC = b"cogmem-bm25"
# A file written since format 4: a head (one of these magics, then the number of documents,
# so that a caller can size the index without reading it), then (format 5) the arrays, each
# its own Zstandard frame (cogmem.array_frames), or (format 4) the .npz compressed as one
# frame. Earlier files are the .npz itself, still read.
_AMAGIC = b"cogmem-bm25-zs5\x00"
_ZMAGIC = b"cogmem-bm25-zst\x00"
_HEAD = struct.Struct("<16sQ")


class Persistence:
    """Saving and loading (the state is :class:`BM25Index`'s)."""

    _ids: IdMap
    _vocab: IdMap
    _dl: I32
    _nslots: int
    _total: int
    _xor: int
    _k1: float
    _b: float
    _epsilon: float
    _big: dict[int, dict[int, int]]

    if TYPE_CHECKING:

        def __init__(self, k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25) -> None: ...

        def _compact(self) -> tuple[Rows, I64]: ...

        def _install(self, state: Compacted) -> None: ...

    def save(self, path: str | os.PathLike[str], *, ids_held: IdMap | None = None) -> bool:
        """Write the index to ``path`` atomically (temp file in the same directory, then rename).

        Compacts the index first. The file is a head (a magic and the number of documents)
        and the arrays (the format version, ``k1``/``b``/``epsilon``, ids, vocabulary,
        postings and the tfs of 255 or more), each its own Zstandard frame
        (:mod:`cogmem.array_frames`).

        Args:
            path: The file.
            ids_held: A map its owner saves too. When it holds this index's ids in its
                slots' order, the file leaves them out (:meth:`load` then takes them from
                that map again): a namespace's records hold the same ids in the same order.

        Returns:
            Whether the ids were left out.

        Raises:
            OSError: The file cannot be written (the old file, if any, is left intact).
        """
        target = Path(path)
        rows, ptr = self._compact()
        elsewhere = ids_held is not None and ids_held.same_rows(self._ids)
        ids = (
            {"id_count": np.array([len(self._ids)], dtype=np.int64)}
            if elsewhere
            else _packed_arrays("id", self._ids)
        )
        big = [(t, slot, tf) for t, entries in self._big.items() for slot, tf in entries.items()]
        exact = np.array(big, dtype=np.int64).reshape(-1, 3)
        arrays: dict[str, npt.NDArray[Any]] = {
            "magic": np.frombuffer(_MAGIC, dtype=np.uint8),
            "version": np.array([INDEX_FORMAT_VERSION], dtype=np.int64),
            "params": np.array([self._k1, self._b, self._epsilon], dtype=np.float64),
            **ids,
            "doc_len": self._dl[: self._nslots],
            **_packed_arrays("term", self._vocab),
            "ptr": ptr,
            # the postings as held (5 bytes each), seen as bytes: a file holds plain dtypes
            "postings": np.ascontiguousarray(rows).view(np.uint8),
            "big": exact,  # (term, slot, tf) of every tf of TF_CAP or more
            "id_xor": np.array([self._xor], dtype=np.uint64),
        }
        write_atomically(target, [_HEAD.pack(_AMAGIC, len(self._ids)), *pack_arrays(arrays)])
        return elsewhere

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str] | IO[bytes],
        name: str | None = None,
        *,
        ids_held: IdMap | None = None,
    ) -> Self:
        """Read an index written by :meth:`save` (from a path, or a binary file object).

        Args:
            path: The file, or its bytes as a file object.
            name: How messages name it (default: the path).
            ids_held: The map that held its ids when :meth:`save` left them out (copied).

        Raises:
            StoreError: The file is missing, unreadable, corrupted, or of another format
                version; the caller should rebuild the index from its documents.
        """
        shown = name if name is not None else repr(getattr(path, "name", path))
        try:
            if isinstance(path, (str, os.PathLike)):
                with open(path, "rb") as fh:
                    raw = fh.read()
            else:
                raw = path.read()
            if raw[: len(_AMAGIC)] == _AMAGIC:  # format 5 and later
                arrays = cast(
                    "dict[str, npt.NDArray[Any]]", unpack_arrays(memoryview(raw)[_HEAD.size :])
                )
            else:
                if raw[: len(_ZMAGIC)] == _ZMAGIC:  # compressed whole (format 4)
                    raw = decompress(memoryview(raw)[_HEAD.size :])
                with np.load(io.BytesIO(raw), allow_pickle=False) as data:
                    arrays = {name: data[name] for name in data.files}
            del raw
        except Exception as exc:  # any failure to read means: rebuild
            raise StoreError(f"cannot read BM25 index {shown}: {exc}") from exc
        try:
            return cls._from_arrays(arrays, ids_held)
        except Exception as exc:  # CogmemError from the parameters included
            raise StoreError(f"invalid BM25 index {shown}: {exc}") from exc

    @staticmethod
    def saved_count(path: str | os.PathLike[str]) -> int:
        """How many documents the file at ``path`` holds, from its head alone (unchecked: a
        hint; 0 when unreadable)."""
        try:
            with open(path, "rb") as fh:
                head = fh.read(_HEAD.size)
            if len(head) == _HEAD.size and head[:16] in (_AMAGIC, _ZMAGIC):
                return int(_HEAD.unpack(head)[1])
            with np.load(path, allow_pickle=False) as data:  # an uncompressed file
                return int(data["doc_len"].shape[0])
        except Exception:  # a hint only: load() says what is wrong
            return 0

    @classmethod
    def _from_arrays(cls, arrays: dict[str, npt.NDArray[Any]], ids_held: IdMap | None) -> Self:
        def get(name: str, dtype: type[np.generic], ndim: int) -> npt.NDArray[Any]:
            array = arrays[name]
            if array.dtype != np.dtype(dtype) or array.ndim != ndim:
                raise ValueError(f"array {name!r} has dtype {array.dtype}, ndim {array.ndim}")
            return array

        if get("magic", np.uint8, 1).tobytes() != _MAGIC:
            raise ValueError("not a cogmem BM25 index")
        version = get("version", np.int64, 1)
        if version.shape != (1,) or int(version[0]) not in (2, 3, 4, INDEX_FORMAT_VERSION):
            raise ValueError(f"format version {version.tolist()}, expected {INDEX_FORMAT_VERSION}")
        params = get("params", np.float64, 1)
        if params.shape != (3,):
            raise ValueError("params must hold k1, b, epsilon")
        index = cls(*params.tolist())
        form = int(version[0])
        vocab = _read_ids(get, "term", form)
        if "id_count" not in arrays:
            ids = _read_ids(get, "id", form)
        elif ids_held is None:
            raise ValueError("its ids are held elsewhere, and none were given")
        elif get("id_count", np.int64, 1).tolist() != [len(ids_held)]:
            raise ValueError("the ids given are not as many as it was saved with")
        else:
            ids = ids_held.copy()
        dl = get("doc_len", np.int32, 1)
        ptr = get("ptr", np.int64, 1)
        if form >= 5:  # the postings as held, and the exact tfs of TF_CAP or more
            held = get("postings", np.uint8, 1)
            if held.shape[0] % POSTING.itemsize:
                raise ValueError("postings are not whole records")
            postings = held.view(POSTING)
            # contiguous copies: the checks below run several times faster on them
            slots = np.ascontiguousarray(postings["slot"])
            tf = np.ascontiguousarray(postings["tf"])
            exact = get("big", np.int64, 2)
            if exact.shape[1] != 3:
                raise ValueError("big must hold (term, slot, tf) rows")
        else:  # (slot, tf) pairs of int32, every tf exact
            pairs = get("postings", np.int32, 2)
            if pairs.shape[1] != 2:
                raise ValueError("postings must be (slot, tf) pairs")
            slots, tf = pairs[:, 0], pairs[:, 1]
            if pairs.shape[0] and int(tf.min()) < 1:
                raise ValueError("postings out of range")
            postings = np.empty(pairs.shape[0], dtype=POSTING)
            postings["slot"] = slots
            postings["tf"] = np.minimum(tf, TF_CAP)
            at = np.flatnonzero(tf >= TF_CAP)
            terms_at = np.searchsorted(ptr, at, side="right") - 1
            exact = np.stack([terms_at, slots[at], tf[at]], axis=1).astype(np.int64)
            tf = postings["tf"]  # capped, as in a file of format 5
        n, terms, count = len(ids), len(vocab), postings.shape[0]
        if dl.shape[0] != n or (n and int(dl.min()) < 0):
            raise ValueError("doc_len does not match the ids")
        if ptr.shape[0] != terms + 1 or int(ptr[0]) != 0:
            raise ValueError("postings pointer has the wrong shape")
        plen = np.diff(ptr)
        if (terms and int(plen.min()) < 1) or int(ptr[-1]) != count:
            raise ValueError("postings pointer is inconsistent")
        if count:
            if int(slots.min()) < 0 or int(slots.max()) >= n or int(tf.min()) < 1:
                raise ValueError("postings out of range")
            descending = slots[1:] <= slots[:-1]
            descending[ptr[1:-1] - 1] = False  # a new term starts: slots restart
            if descending.any():
                raise ValueError("postings are not sorted by slot")
        big = _exact_tfs(exact, ptr, slots, tf)
        # Each document's length is the sum of its tfs: one per posting, plus what the tfs
        # above one add (few: counted apart, so that no float copy of every tf is made).
        # (bincount counts intp twice as fast as int32, its cast included)
        lengths = np.bincount(slots.astype(np.intp), minlength=n)
        more = np.flatnonzero(tf > 1)
        lengths += np.bincount(slots[more], weights=tf[more] - 1, minlength=n).astype(np.int64)
        for term_slots in big.values():
            for slot, value in term_slots.items():
                lengths[slot] += value - TF_CAP
        if not np.array_equal(lengths, dl):
            raise ValueError("document lengths do not match the postings")
        xor = get("id_xor", np.uint64, 1)
        if xor.shape != (1,):
            raise ValueError("id_xor must hold one value")
        index._install(Compacted(ids, dl, vocab, postings, ptr, big))
        index._total = int(dl.sum())
        index._xor = int(xor[0])
        return index


def _exact_tfs(
    exact: npt.NDArray[np.int64], ptr: I64, slots: npt.NDArray[Any], tf: npt.NDArray[Any]
) -> dict[int, dict[int, int]]:
    """The tfs of TF_CAP or more by term and slot, from ``exact``'s ``(term, slot, tf)`` rows,
    each checked against a posting that holds TF_CAP.

    Raises:
        ValueError: One does not match a posting, or a posting at TF_CAP has none.
    """
    big: dict[int, dict[int, int]] = {}
    terms = ptr.shape[0] - 1
    for term, slot, value in exact.tolist():
        if not 0 <= term < terms or value < TF_CAP:
            raise ValueError("a large tf is out of range")
        start, end = int(ptr[term]), int(ptr[term + 1])
        at = start + int(np.searchsorted(slots[start:end], slot))
        if at >= end or int(slots[at]) != slot or int(tf[at]) < TF_CAP:
            raise ValueError("a large tf has no posting")
        big.setdefault(term, {})[slot] = value
    if sum(map(len, big.values())) != int(np.count_nonzero(tf >= TF_CAP)):
        raise ValueError("a posting at the tf cap has no exact tf")
    return big


def _read_ids(
    get: Callable[[str, type[np.generic], int], npt.NDArray[Any]], prefix: str, version: int
) -> IdMap:
    """The ids (``prefix`` "id") or terms ("term") of a file of format ``version``: packed
    with their hashes (3), or strings hashed here (2). None is empty; none appears twice.

    Raises:
        ValueError: They are not.
    """
    if version == 2:
        lengths = get(f"{prefix}_lengths", np.int64, 1)
        ends = np.cumsum(lengths)
        read = IdMap(unpack_strings(get(f"{prefix}_blob", np.uint8, 1), lengths))
    else:
        ends = get(f"{prefix}_ends", np.int64, 1)
        blob = get(f"{prefix}_blob", np.uint8, 1).tobytes()
        hashes, table = get(f"{prefix}_hash", np.uint32, 1), get(f"{prefix}_table", np.int32, 1)
        read = IdMap.from_packed((blob, ends, hashes, table))
    if ends.shape[0] and int(np.diff(ends, prepend=0).min()) < 1:
        raise ValueError(f"an empty {prefix}")
    return read


def _packed_arrays(prefix: str, ids: IdMap) -> dict[str, npt.NDArray[Any]]:
    """``ids`` as the file holds them: ``<prefix>_blob`` (UTF-8), ``_ends``, ``_hash``,
    ``_table`` (:meth:`~cogmem.idmap.IdMap.packed`)."""
    blob, ends, hashes, table = ids.packed()
    return {
        f"{prefix}_blob": np.frombuffer(blob, dtype=np.uint8),
        f"{prefix}_ends": ends,
        f"{prefix}_hash": hashes,
        f"{prefix}_table": table,
    }
